package store

// Staged imports, SQLite's way of keeping a long import from starving
// other writers. SQLite has one write lock per database: an import that
// wrote its file in one transaction held it for the whole parse and write
// (20 s alone for a 50k-trace file, over 40 s beside two others), and
// other writers (a second import, a labeler's edit) waited that long or
// failed. Here a file's traces are first written, with the import's own
// writer, into a private staging database beside the real one, taking no
// lock on the real one (its stored traces are only read, to decide
// unchanged, replaced and conflicting records as they come). Commit then
// copies the staged rows across in one short transaction with a few
// INSERT … SELECT statements. That transaction is the file's
// all-or-nothing guarantee: a failure or a kill before its commit leaves
// the database without any of the file. Everything SQLite-specific about
// it (ATTACH, pragma_table_info, the file beside the database) is in this
// file; a store whose database has row locks (PostgreSQL) does not stage.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// staging is the staging database of one import while rows go to it.
type staging struct {
	db   *Store    // a scratch store: no journal, no fsync
	find *sql.Stmt // finds a trace in the real database, outside any transaction
}

func (st *staging) close() {
	st.find.Close()
	st.db.Close()
}

// stagesImports says imports of traces are staged: a writable SQLite file
// (not check's scratch database, which nobody else opens).
func (s *Store) stagesImports() bool { return s.stage }

// startStaged points the import's writer at a new staging database. ok
// is false when none can be made (e.g. the database's directory is not
// writable): the import then writes to the database directly.
func (im *Importer) startStaged() (ok bool, err error) {
	s := im.s
	removeOrphanStaging(s.path)
	path := fmt.Sprintf("%s.%d-%s", stagingPrefix(s.path), os.Getpid(), strconv.FormatUint(rand.Uint64(), 36))
	sdb, err := OpenScratch(im.ctx, path)
	if err != nil {
		os.Remove(path)
		return false, nil
	}
	im.staged = path
	find, err := s.db.PrepareContext(im.ctx, sqlFindTrace)
	if err != nil {
		sdb.Close()
		return false, err
	}
	im.stage = &staging{db: sdb, find: find}
	tx, err := sdb.db.BeginTx(im.ctx, nil)
	if err != nil {
		return false, err
	}
	im.tx = tx
	w, err := im.newWriter(tx)
	if err != nil {
		return false, err
	}
	w.inDB, w.replaces = find, map[string]string{}
	im.w = w
	return true, nil
}

// stagingPrefix names the staging databases of the database at path:
// hidden, beside it (so on the same file system), named for it.
func stagingPrefix(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".staging")
}

// removeOrphanStaging deletes staging databases left by imports that were
// killed: their name carries the importing process's id, and that process
// is gone. One whose process still runs (or whose id was reused) is left.
func removeOrphanStaging(path string) {
	prefix := stagingPrefix(path) + "."
	matches, _ := filepath.Glob(prefix + "*")
	for _, m := range matches {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(m, prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(m)
		}
	}
}

// unstage finishes the staging database, takes the real database's write
// lock (BEGIN IMMEDIATE, waiting up to the lock wait) and copies the
// staged rows in; the import's writer then writes to that transaction.
func (im *Importer) unstage() error {
	ctx, w := im.ctx, im.w
	if err := w.flush(); err != nil {
		return err
	}
	w.close()
	if err := im.tx.Commit(); err != nil {
		return err
	}
	im.tx, im.w = nil, nil
	im.stage.close()
	im.stage = nil
	conn, err := im.s.db.Conn(ctx)
	if err != nil {
		return err
	}
	im.conn = conn
	// ATTACH is not allowed inside a transaction and belongs to one
	// connection: the copy and the rest of the import run on this one.
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS staged`, im.staged); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the short lock starts here
	if err != nil {
		return err
	}
	im.tx = tx
	if err := im.copyStaged(w.replaces); err != nil {
		return err
	}
	im.w, err = im.newWriter(tx)
	return err
}

// detachStaging undoes what unstage did to a connection before it goes
// back to the pool.
func detachStaging(conn *sql.Conn) {
	ctx := context.Background()
	conn.ExecContext(ctx, `DROP TABLE IF EXISTS temp.staged_skip`)
	conn.ExecContext(ctx, `DETACH DATABASE staged`)
}

// copyStaged copies the staged rows into the database, in the import's
// transaction. The staged traces were checked against the database as
// they came, without its lock: another process may have written the
// same ids since, so each staged trace whose id is stored now is decided
// again here, as putTrace would have.
func (im *Importer) copyStaged(replaces map[string]string) error {
	ctx, tx := im.ctx, im.tx
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS staged_skip (pk INTEGER PRIMARY KEY)`); err != nil {
		return err
	}
	if err := im.reconcile(replaces); err != nil {
		return err
	}
	var offset int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(max(id), 0) FROM main.traces`).Scan(&offset); err != nil {
		return err
	}
	// The staged traces keep their order and get the ids after the
	// database's last one: the child rows then need no join to map them.
	copies := []struct{ table, pk, tail string }{
		{"contracts", "", "WHERE true ON CONFLICT DO NOTHING"},
		{"traces", "id", "WHERE id NOT IN (SELECT pk FROM temp.staged_skip) ORDER BY id"},
		{"steps", "trace_pk", "WHERE trace_pk NOT IN (SELECT pk FROM temp.staged_skip)"},
		{"trace_contracts", "trace_pk", "WHERE trace_pk NOT IN (SELECT pk FROM temp.staged_skip)"},
	}
	for _, c := range copies {
		cols, err := stagedColumns(ctx, tx, c.table, c.pk)
		if err != nil {
			return err
		}
		q := `INSERT INTO main.` + c.table + ` (` + cols + `) SELECT ` + cols + ` FROM staged.` + c.table + ` ` + c.tail
		var args []any
		if c.pk != "" {
			q = `INSERT INTO main.` + c.table + ` (` + c.pk + `, ` + cols + `) SELECT ` + c.pk + ` + ?, ` + cols +
				` FROM staged.` + c.table + ` ` + c.tail
			args = append(args, offset)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("copying the staged %s: %w", c.table, err)
		}
	}
	// Cases waiting for one of these traces (a suite imported first, or
	// the cases of a replaced trace, unlinked by ON DELETE SET NULL).
	_, err := tx.ExecContext(ctx, `UPDATE main.cases SET trace_pk = (SELECT t.id FROM main.traces t WHERE t.trace_id = cases.source_trace)
		WHERE trace_pk IS NULL AND source_trace IN (SELECT trace_id FROM staged.traces)`)
	return err
}

// reconcile decides each staged trace whose id the database holds now.
func (im *Importer) reconcile(replaces map[string]string) error {
	ctx, tx, res := im.ctx, im.tx, &im.Stats
	rows, err := tx.QueryContext(ctx, `SELECT st.id, st.trace_id, st.content_sha, st.step_count, st.source_line,
		t.id, t.content_sha, t.source_file, t.source_line
		FROM staged.traces st JOIN main.traces t ON t.trace_id = st.trace_id ORDER BY st.id`)
	if err != nil {
		return err
	}
	type known struct {
		stagedPK, pk          int64
		id, sha, oldSHA, file string
		steps, line, oldLine  int
	}
	var ks []known
	for rows.Next() {
		var k known
		if err := rows.Scan(&k.stagedPK, &k.id, &k.sha, &k.steps, &k.line, &k.pk, &k.oldSHA, &k.file, &k.oldLine); err != nil {
			rows.Close()
			return err
		}
		ks = append(ks, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	seen := map[string]bool{}
	skipped := map[string]bool{}
	for _, k := range ks {
		seen[k.id] = true
		planned, replacing := replaces[k.id]
		switch {
		case replacing && planned == k.oldSHA:
			// The trace putTrace decided to replace, unchanged since.
		case k.oldSHA == k.sha:
			// Written meanwhile by another process, with this content.
			if replacing {
				res.Replaced--
				res.New++
			}
			res.New--
			res.Unchanged++
			res.Steps -= k.steps
			skipped[k.id] = true
			if _, err := tx.ExecContext(ctx, `INSERT INTO temp.staged_skip (pk) VALUES (?)`, k.stagedPK); err != nil {
				return err
			}
			continue
		case im.replace:
			if !replacing {
				res.Replaced++
				res.New--
			}
		default:
			return fmt.Errorf("%s:%d: trace %q was imported by another process from %s:%d while this file was read, with different content (import it again to see the conflict, or use --replace)",
				im.file, k.line, k.id, k.file, k.oldLine)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM main.traces WHERE id = ?`, k.pk); err != nil {
			return err
		}
	}
	for id := range replaces {
		if !seen[id] { // deleted meanwhile: the staged trace is new after all
			res.Replaced--
			res.New++
		}
	}
	if len(skipped) > 0 {
		kept := res.Traces[:0]
		for _, id := range res.Traces {
			if !skipped[id] {
				kept = append(kept, id)
			}
		}
		res.Traces = kept
	}
	return nil
}

// stagedColumns lists a staged table's columns but exclude, comma
// separated: read from the schema, so a later migration's columns are
// copied without touching this file.
func stagedColumns(ctx context.Context, tx *sql.Tx, table, exclude string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?, 'staged') ORDER BY cid`, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", err
		}
		if c != exclude {
			cols = append(cols, c)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("staging table %s has no columns", table)
	}
	return strings.Join(cols, ", "), nil
}
