package app

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/tracelab-dev/tracelab/store"
)

// CopyReport is what MigrateStore copied and how the two sides compare.
type CopyReport = store.CopyReport

// CopyProgress is called as MigrateStore copies rows (table, done, total).
type CopyProgress = store.CopyProgress

// MismatchError is a copy whose target does not hold what the source does.
type MismatchError = store.MismatchError

// NULError is a source value PostgreSQL cannot store (a NUL character).
type NULError = store.NULError

// ErrTargetNotEmpty refuses a migration into a database holding other data.
var ErrTargetNotEmpty = store.ErrTargetNotEmpty

// MigrateStore copies the SQLite file from into the PostgreSQL database
// to (a postgres:// URL), creating its schema, and checks every table by
// row count and content hash on both sides (see store.CopyInto).
func MigrateStore(ctx context.Context, from, to string, opts OpenOptions, progress CopyProgress) (CopyReport, error) {
	if IsPostgres(from) {
		return CopyReport{}, fmt.Errorf("--from %s: a SQLite file, not a server", from)
	}
	if !IsPostgres(to) {
		return CopyReport{}, fmt.Errorf("--to %s: a postgres:// or postgresql:// URL", to)
	}
	// The source must exist: opening a missing file would create it.
	if _, err := os.Stat(from); err != nil {
		return CopyReport{}, &fs.PathError{Op: "migrate", Path: from, Err: fs.ErrNotExist}
	}
	src, err := store.OpenWith(ctx, from, opts)
	if err != nil {
		return CopyReport{}, err
	}
	defer src.Close()
	dst, err := store.OpenWith(ctx, to, opts)
	if err != nil {
		return CopyReport{}, err
	}
	defer dst.Close()
	return src.CopyInto(ctx, dst, progress)
}
