// Package store keeps traces, cases, labels and their history in a local
// SQLite file (modernc.org/sqlite, pure Go). The API speaks model types and
// plain Go values so another backend can stand behind it later; queries are
// standard SQL with parameters only, never built from trace content.
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"tracelab/model"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an open tracelab database.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

// Open opens (creating if needed) the database at path and brings its
// schema up to date. WAL lets readers go on while a writer works; the busy
// timeout makes a second process wait for a lock instead of failing.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, "journal_mode(WAL)", "synchronous(NORMAL)")
}

// OpenScratch opens a throwaway database (tracelab check's): no journal
// and no fsync, since nothing in it outlives the process that made it.
func OpenScratch(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, "journal_mode(OFF)", "synchronous(OFF)")
}

func open(ctx context.Context, path string, pragmas ...string) (*Store, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Add("_pragma", "cache_size(-32000)") // 32 MB: bulk imports spill less
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the file the store was opened from.
func (s *Store) Path() string { return s.path }

// SetClock replaces the clock used for timestamps (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

func (s *Store) stamp() string { return s.now().UTC().Format(time.RFC3339Nano) }

// SchemaVersion is the number of the newest migration applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// migrate applies every embedded migration newer than PRAGMA user_version,
// each in its own transaction together with the version bump.
func (s *Store) migrate(ctx context.Context) error {
	entries, err := migrations.ReadDir("migrations")
	if err != nil {
		return err
	}
	type mig struct {
		n    int
		name string
	}
	var ms []mig
	for _, e := range entries {
		n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", e.Name())
		}
		ms = append(ms, mig{n, e.Name()})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].n < ms[j].n })
	cur, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if len(ms) > 0 && cur > ms[len(ms)-1].n {
		return fmt.Errorf("database schema version %d is newer than this tracelab (%d): upgrade tracelab", cur, ms[len(ms)-1].n)
	}
	for _, m := range ms {
		if m.n <= cur {
			continue
		}
		body, err := migrations.ReadFile(path.Join("migrations", m.name))
		if err != nil {
			return err
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if fill := migrationFills[m.n]; fill != nil {
			if err := fill(ctx, tx); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.n)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// migrationFills are the Go halves of migrations whose new columns SQL
// cannot compute (hashes, normalized text); each runs in its migration's
// transaction, after its SQL.
var migrationFills = map[int]func(context.Context, *sql.Tx) error{
	3: fillQuestionKeysAndGoldSHAs,
}

func fillQuestionKeysAndGoldSHAs(ctx context.Context, tx *sql.Tx) error {
	if err := fillColumn(ctx, tx, `SELECT id, question FROM traces`, `UPDATE traces SET question_key = ? WHERE id = ?`,
		func(q string) (string, error) { return QuestionKey(q), nil }); err != nil {
		return err
	}
	return fillColumn(ctx, tx, `SELECT case_id, gold_origin || ' ' || gold FROM cases`, `UPDATE cases SET gold_sha = ? WHERE case_id = ?`,
		func(v string) (string, error) {
			origin, gold, _ := strings.Cut(v, " ")
			var g model.Gold
			if err := json.Unmarshal([]byte(gold), &g); err != nil {
				return "", err
			}
			return GoldSHA(origin, g), nil
		})
}

// fillColumn sets one derived column of every row a query selects (key, value).
func fillColumn(ctx context.Context, tx *sql.Tx, sel, upd string, derive func(string) (string, error)) error {
	rows, err := tx.QueryContext(ctx, sel)
	if err != nil {
		return err
	}
	type kv struct{ k, v any }
	var todo []kv
	for rows.Next() {
		var k any
		var v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		d, err := derive(v)
		if err != nil {
			rows.Close()
			return fmt.Errorf("row %v: %w", k, err)
		}
		todo = append(todo, kv{k, d})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, upd)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range todo {
		if _, err := st.ExecContext(ctx, r.v, r.k); err != nil {
			return err
		}
	}
	return nil
}

// QuestionKey buckets questions: lower case, words of letters and digits
// joined by one space. Traces whose questions share a key are peers
// (scoring.SameQuestion makes the final call); the store keeps the key
// of every trace indexed so peers are a lookup, not a scan.
func QuestionKey(q string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
