// Package store keeps traces, cases, labels and their history in a local
// SQLite file (modernc.org/sqlite, pure Go) or, for a team, in a
// PostgreSQL database (pgx). The API speaks model types and plain Go
// values; queries are standard SQL with parameters only, never built from
// trace content, one text for both backends (dialect.go holds the few
// differences).
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/tracelab-dev/tracelab/model"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Store is an open tracelab database.
type Store struct {
	db       *sql.DB
	d        *dialect
	path     string
	now      func() time.Time
	readOnly bool // opened mode=ro: this process may not write the file
	// reserveFor is how long a reservation lasts unrenewed, in
	// nanoseconds (0: DefaultReservationTTL); atomic because the
	// workbench's commands share the store across goroutines.
	reserveFor atomic.Int64
	stage      bool   // imports of traces are staged beside the file (staging.go)
	reuse      *reuse // statements kept across live batches and score saves (reuse.go)
}

// Options steer how a database is opened.
type Options struct {
	// LockWait is how long a statement waits for another process's write
	// lock before failing with a locked-database error (SQLite retries
	// with a growing backoff meanwhile); 0 means DefaultLockWait.
	LockWait time.Duration
	// Upgrading, when set, is told before the schema of a database that
	// has one is brought up to date (from, to: versions): some migrations
	// rewrite every trace, which takes a while on a large database.
	Upgrading func(from, to int)
	// ReadOnly opens a database file read-only even where this user may
	// write it, as a user who may not would (root writes every file).
	ReadOnly bool
	// SmallWrites is for a process of many small write transactions, one
	// after another (tracelab serve): SQLite keeps a statement's undo
	// journal in memory (temp_store=MEMORY) instead of a temporary file it
	// writes at each statement (half of the receiver's write system calls
	// in intake's BenchmarkServe). Not for bulk work, whose temporary
	// tables it would also keep in memory.
	SmallWrites bool
	// upTo stops the migrations at this version (0: the newest), for
	// tests that write a database as an older tracelab did.
	upTo int
	// wrapConn wraps each PostgreSQL connection's network connection
	// (nil: none), for tests that count round trips.
	wrapConn func(net.Conn) net.Conn
}

// DefaultLockWait is long enough for a few large imports of other
// processes to copy their staged files in (seconds each for a 50k-trace
// file); a writer that holds the lock longer is reported.
const DefaultLockWait = 5 * time.Minute

// Open opens (creating if needed) the database at path and brings its
// schema up to date. WAL lets readers go on while a writer works; the busy
// timeout makes a second process wait for a lock instead of failing.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options. A file this process may read but not
// write is opened read-only: listing and reporting work, edits fail. A
// postgres:// or postgresql:// URL opens that PostgreSQL database instead
// (see IsPostgres); any other path is a file name.
func OpenWith(ctx context.Context, path string, opts Options) (*Store, error) {
	if IsPostgres(path) {
		db, err := openPostgres(path, opts)
		if err != nil {
			return nil, err
		}
		return start(ctx, db, postgresDialect, RedactDSN(path), readWrite, opts)
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if opts.ReadOnly || !writable(path) {
		st, err := open(ctx, path, opts, readOnly)
		if err != nil {
			// A WAL database needs its -shm file; when that cannot be
			// created (a directory we may not write), SQLite can still
			// read the file as immutable, but immutable ignores the -wal
			// file: with changes still in it, the reader would see an
			// old database and say nothing.
			if werr := unreadWAL(path); werr != nil {
				return nil, werr
			}
			st, err = open(ctx, path, opts, immutable)
		}
		return st, err
	}
	if err := sizePages(ctx, path, opts); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	st, err := open(ctx, path, opts, readWrite, "journal_mode(WAL)", "synchronous(NORMAL)")
	if err == nil {
		st.stage = true
	}
	return st, err
}

// newPageSize is the page size of a database this makes. SQLite's
// default of 4 KiB wastes a third of the score table: a score row is
// about 1.4 KB of detail, and a 4 KiB page holds two of them. Every page
// is also a system call when the copy out of staging spills it to the
// WAL and again when the commit checkpoints it, and those calls were
// most of an import's last, single-threaded seconds. Importing bench's
// 100k corpus into a new file (one run each, the copy's statements and
// the commit timed apart): copy and commit 12.3 s at 4 KiB, 10.2 s at
// 8 KiB, 8.9 s at 16 KiB, 8.1 s at 32 KiB, 7.7 s at 64 KiB; the whole
// import 21.7, 19.6, 18.7, 16.4 and 15.7 s; the file 606, 556, 541, 530
// and 536 MiB. 16 KiB takes most of it while a labeler's edit still
// writes small pages to the WAL and a cold open reads little it does
// not need (bench ops gave the same figures at 4 and 16 KiB, at 100k and
// at 1M).
const newPageSize = 16384

// sizePages gives the database at path, when it is new (missing or
// empty), pages of newPageSize. SQLite fixes the size when it first
// writes the file, which setting WAL does, and the driver runs the DSN's
// pragmas sorted by name (journal_mode before page_size): so here, on a
// connection of its own, before the pool opens, waiting for the lock as
// any other connection would (processes that open one new database at
// once). A database that exists keeps the size it was made with.
func sizePages(ctx context.Context, path string, opts Options) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite", sqliteDSN(path, opts, readWrite))
	if err != nil {
		return err
	}
	defer db.Close()
	// One connection for both: page_size holds for the connection it
	// is set on, and the pool may hand the second statement another.
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA page_size = %d`, newPageSize)); err != nil {
		return fmt.Errorf("setting the page size: %w", err)
	}
	if err = toWAL(ctx, conn, lockWait(opts)); err != nil {
		return fmt.Errorf("setting WAL: %w", err)
	}
	return nil
}

// toWAL turns the database on conn to WAL mode, trying again while
// another connection holds the lock, until wait has passed. SQLite's
// busy handler does not cover this: the pragma reads the header under a
// read lock and then asks for the write lock, and a connection that
// holds a read lock is refused a write lock at once (waiting could
// deadlock with a writer waiting for its readers). So two processes
// making one new database both read, one writes, the other fails: here
// it retries, and finds the file in WAL mode already or takes its turn.
func toWAL(ctx context.Context, conn *sql.Conn, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		_, err := conn.ExecContext(ctx, `PRAGMA journal_mode = WAL`)
		if sqliteCode(err) != sqliteBusy || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

type access int

const (
	readWrite access = iota
	readOnly
	immutable // read-only, and nobody else writes it meanwhile
)

// OpenScratch opens a throwaway database (tracelab check's): no journal
// and no fsync, since nothing in it outlives the process that made it.
func OpenScratch(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, Options{}, readWrite, "journal_mode(OFF)", "synchronous(OFF)")
}

func open(ctx context.Context, path string, opts Options, mode access, pragmas ...string) (*Store, error) {
	db, err := sql.Open("sqlite", sqliteDSN(path, opts, mode, pragmas...))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return start(ctx, db, sqliteDialect, path, mode, opts)
}

// lockWait is how long a connection waits for another's lock (SQLite's
// busy timeout, PostgreSQL's lock_timeout).
func lockWait(opts Options) time.Duration {
	if opts.LockWait <= 0 {
		return DefaultLockWait
	}
	return opts.LockWait
}

// sqliteDSN is the driver's name for the SQLite file at path, opened so.
func sqliteDSN(path string, opts Options, mode access, pragmas ...string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", lockWait(opts).Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if opts.SmallWrites && mode == readWrite {
		q.Add("_pragma", "temp_store(2)")
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Add("_pragma", fmt.Sprintf("cache_size(%d)", cacheKiB)) // see cacheKiB
	q.Set("_txlock", "immediate")
	if mode != readWrite {
		q.Set("mode", "ro")
	}
	if mode == immutable {
		q.Set("immutable", "1")
	}
	return fileURI(path) + "?" + q.Encode()
}

// start checks (read-only) or brings up to date the schema of an opened
// database.
func start(ctx context.Context, db *sql.DB, d *dialect, path string, mode access, opts Options) (*Store, error) {
	s := &Store{db: db, d: d, path: path, now: time.Now, readOnly: mode != readWrite, reuse: newReuse(db)}
	var err error
	if mode != readWrite {
		err = s.checkSchema(ctx)
	} else {
		err = s.migrateTo(ctx, opts)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, withAdvice(err))
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// ReadOnly says the database was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Path is the file the store was opened from (a PostgreSQL URL without
// its password).
func (s *Store) Path() string { return s.path }

// SetClock replaces the clock used for timestamps (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Clock is the time by the store's clock.
func (s *Store) Clock() time.Time { return s.now() }

// Now is the store's clock as it stamps rows (RFC 3339, UTC).
func (s *Store) Now() string { return s.stamp() }

func (s *Store) stamp() string { return s.now().UTC().Format(time.RFC3339Nano) }

// SchemaVersion is the number of the newest migration applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, s.d.version).Scan(&v)
	return v, err
}

// migrateTo applies every embedded migration newer than the schema version
// (up to version upTo unless it is 0, see Options.upTo),
// each in its own transaction together with the version bump. The version
// is read inside the transaction, after BEGIN IMMEDIATE (SQLite) or the
// writer lock (PostgreSQL, pgConn) took the write lock: processes opening
// one new database at once then apply each migration exactly once between
// them, instead of each reading version 0 and the second failing on
// "table traces already exists".
func (s *Store) migrateTo(ctx context.Context, opts Options) error {
	ms, err := migrationList(s.d)
	if err != nil {
		return err
	}
	newest := ms[len(ms)-1].n
	// The common case, a schema already up to date, takes no lock: a
	// reader must not wait for another process's long import.
	cur, err := s.SchemaVersion(ctx)
	if err == nil && cur == newest {
		return nil
	}
	if err == nil && cur > 0 && cur < newest && opts.Upgrading != nil && opts.upTo == 0 {
		opts.Upgrading(cur, newest)
	}
	for _, m := range ms {
		if opts.upTo > 0 && m.n > opts.upTo {
			return nil
		}
		done, err := s.applyMigration(ctx, m, newest)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
	return nil
}

// migrationFills are the Go halves of migrations whose new columns SQL
// cannot compute (hashes, normalized text); each runs in its migration's
// transaction, after its SQL.
var migrationFills = map[int]func(context.Context, *sql.Tx) error{
	3:  fillQuestionKeysAndGoldSHAs,
	13: fillStepBodies,
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
	// Most questions are ASCII: one pass and one allocation. Other text
	// takes the general way (strings.ToLower has cases a rune at a time
	// would not match).
	for i := 0; i < len(q); i++ {
		if q[i] >= utf8.RuneSelf {
			return questionKeyUnicode(q)
		}
	}
	b := make([]byte, 0, len(q))
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			if len(b) > 0 && b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
			continue
		}
		b = append(b, c)
	}
	return strings.TrimSuffix(string(b), " ")
}

func questionKeyUnicode(q string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

type migration struct {
	n    int
	name string
}

// migrationList is the embedded migrations of a dialect in order.
func migrationList(d *dialect) ([]migration, error) {
	entries, err := migrations.ReadDir(d.migrations)
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", e.Name())
		}
		ms = append(ms, migration{n, e.Name()})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].n < ms[j].n })
	return ms, nil
}

// applyMigration applies m unless the schema already has it; done says
// the schema is at newest.
func (s *Store) applyMigration(ctx context.Context, m migration, newest int) (done bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() // no-op after Commit
	if s.d.schemaTable != "" {
		if _, err := tx.ExecContext(ctx, s.d.schemaTable); err != nil {
			return false, err
		}
	}
	var cur int
	if err := tx.QueryRowContext(ctx, s.d.version).Scan(&cur); err != nil {
		return false, err
	}
	if cur > newest {
		return false, errNewerSchema(cur, newest)
	}
	if cur == newest {
		return true, nil
	}
	if m.n <= cur {
		return false, nil
	}
	body, err := migrations.ReadFile(path.Join(s.d.migrations, m.name))
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.name, err)
	}
	if fill := migrationFills[m.n]; fill != nil {
		if err := fill(ctx, tx); err != nil {
			return false, fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, s.d.setVersion(m.n)); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.name, err)
	}
	return m.n == newest, nil
}

func errNewerSchema(cur, newest int) error {
	return fmt.Errorf("database schema version %d is newer than this tracelab (%d): upgrade tracelab", cur, newest)
}

// checkSchema is migrate for a read-only database: it cannot be brought
// up to date, so an older schema is an error saying so.
func (s *Store) checkSchema(ctx context.Context) error {
	ms, err := migrationList(s.d)
	if err != nil {
		return err
	}
	newest := ms[len(ms)-1].n
	cur, err := s.SchemaVersion(ctx)
	switch {
	case err != nil:
		return err
	case cur > newest:
		return errNewerSchema(cur, newest)
	case cur < newest:
		return fmt.Errorf("the database is read-only and its schema (version %d) needs upgrading to %d: open it once where it is writable", cur, newest)
	}
	return nil
}
