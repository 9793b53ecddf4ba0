package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
)

// openPostgres opens the PostgreSQL database a postgres:// URL names
// through pgx's database/sql driver, wrapped so the store's SQL runs as
// written for SQLite (see pgConn).
func openPostgres(dsn string, opts Options) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", RedactDSN(dsn), err)
	}
	if !hasParam(dsn, "connect_timeout") {
		// A server that accepts and never answers hung every command.
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	wait := lockWait(opts)
	// SQLite's busy timeout: how long a writer waits for the writer lock
	// (an advisory lock, which lock_timeout covers) before IsLocked.
	cfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(wait.Milliseconds(), 10)
	// No statement waits for ever on a server that stopped answering
	// (pganswer.go).
	cfg.DialFunc = answerDial(cfg.DialFunc, answerWaitFor(wait))
	if wrap := opts.wrapConn; wrap != nil {
		dial := cfg.DialFunc
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wrap(c), nil
		}
	}
	c := stdlib.GetConnector(*cfg, stdlib.OptionAfterConnect(func(_ context.Context, conn *pgx.Conn) error {
		if err := supportedServer(conn.PgConn().ParameterStatus("server_version")); err != nil {
			return err
		}
		registerBoolIntegers(conn.TypeMap())
		return nil
	}))
	return sql.OpenDB(pgConnector{c}), nil
}

// minServerMajor is the oldest PostgreSQL the migrations run on: they use
// jsonb_path_query and ANALYZE (SKIP_LOCKED), both new in 12.
const minServerMajor = 12

// supportedServer refuses a server older than minServerMajor by name,
// where its first migration would have failed with a syntax error.
// version is the server_version the server reports at startup ("15.4
// (Debian 15.4-2)", "16beta1"); one that does not start with a number is
// let through, so an unusual build is never refused on a guess.
func supportedServer(version string) error {
	digits := version
	if i := strings.IndexFunc(version, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = version[:i]
	}
	major, err := strconv.Atoi(digits)
	if err != nil || major >= minServerMajor {
		return nil
	}
	return fmt.Errorf("this server runs PostgreSQL %s; tracelab needs %d or newer", version, minServerMajor)
}

// DefaultConnectTimeout bounds connecting to a PostgreSQL server (the
// TCP connection, TLS and authentication) unless the URL's
// connect_timeout says otherwise.
const DefaultConnectTimeout = 10 * time.Second

// hasParam says the postgres URL names query parameter key.
func hasParam(dsn, key string) bool {
	u, err := url.Parse(dsn)
	if err != nil {
		return strings.Contains(dsn, key+"=")
	}
	_, ok := u.Query()[key]
	return ok
}

type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{Conn: conn.(*stdlib.Conn)}, nil
}

// pgConn is pgx's connection with the store's two SQLite habits kept:
// statements are written with "?" (rebind makes them "$n"), and a write
// transaction holds the database's one writer lock from its start, like
// SQLite's BEGIN IMMEDIATE. Serial writers keep every read-modify-write
// of the store (an edit computed from the stored case, an import's
// "is this trace new") as correct as on SQLite without SERIALIZABLE
// retries; readers never wait for it.
type pgConn struct {
	*stdlib.Conn
	inTx  bool        // a write transaction is open (BeginTx)
	later []laterStmt // its writes waiting for the commit (pglater.go)
}

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.flush(ctx, ""); err != nil {
		return nil, err
	}
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.queue(ctx, query, args) {
		return driver.RowsAffected(0), nil
	}
	if err := c.flush(ctx, ""); err != nil {
		return nil, err
	}
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.flush(ctx, ""); err != nil {
		return nil, err
	}
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

func (c *pgConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// writerLock is the advisory lock of one tracelab database: the key is
// the schema's name, so databases in two schemas of a server do not wait
// for each other. A write transaction takes it whole (imports,
// migrations, scoring: writers that read and write across traces); a
// transaction that changes one case takes it shared (caseWriterLock) and
// then locks the case's trace row (dialect.lockRow), so edits of
// different cases never wait for each other while an import still waits
// for every edit to end and every edit for the import.
const (
	writerLockKey  = `hashtextextended('tracelab writer ' || current_schema(), 0)`
	writerLock     = `SELECT pg_advisory_xact_lock(` + writerLockKey + `)`
	caseWriterLock = `SELECT pg_advisory_xact_lock_shared(` + writerLockKey + `)`
)

// caseScopeKey marks a context whose write transactions change one case
// (or a batch of traces) and lock its rows themselves (see inCaseTx); its
// value is the traceLockKey of the one trace, 0 when none is named.
type caseScopeKey struct{}

// caseScope is ctx for a write transaction that takes the writer lock
// shared: everything it writes hangs off traces whose rows it locks
// first. SQLite ignores it (one writer at a time, whatever the scope).
func caseScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, caseScopeKey{}, int32(0))
}

// traceScope is caseScope for a transaction on one trace's case: its
// BEGIN also queues for an advisory lock of the trace. Row locks are not
// handed out in turn (a labeler whose edit just committed can take the
// row again ahead of those waiting), so with many people on one case the
// slowest waited over a second; the lock manager's queue is first come,
// first served. The key is a number computed here, never trace text in
// the SQL.
func traceScope(ctx context.Context, traceID string) context.Context {
	return context.WithValue(ctx, caseScopeKey{}, traceLockKey(traceID))
}

// traceLockKey is the trace's advisory lock key, 0 excluded (0: none).
// Two traces sharing a key only wait for each other.
func traceLockKey(traceID string) int32 {
	h := fnv.New32a()
	h.Write([]byte(traceID))
	if k := int32(h.Sum32()); k != 0 {
		return k
	}
	return 1
}

// traceLock is the advisory lock of one trace: the two-number key space,
// which no single-number key (the writer lock's) shares, the schema's
// hash first as for the writer lock.
const traceLock = `SELECT pg_advisory_xact_lock(hashtext('tracelab trace ' || current_schema()), %d)`

// genericPlans makes a transaction on one trace's case (traceScope: a
// label edit, an undo, a reservation) plan each of its statements once
// per connection instead of once per run. The server plans a prepared
// statement anew for each of its first five runs and only then settles
// on one plan for any parameters, and for every statement of those
// transactions (their triggers' too) it settled on that one plan
// (pg_prepared_statements after 30 rounds of edits, gold edits, undo,
// redo, a second rater and confirm: none planned more than five times).
// So this changes no plan, only when the planning stops. With 50
// labelers on 400 traces (8 each, the bench) planning was 15% of the
// server's time. The statements look rows up by their keys. n's pick,
// whose filter may make one plan much better than another, plans once
// only when its filter binds no values (planOnce).
const genericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`

// planOnceKey marks a context whose write transaction plans its
// statements once per connection (genericPlans) though it names no
// trace: see planOnce.
type planOnceKey struct{}

// planOnce is ctx for n's transaction on a queue whose filter binds no
// values (the whole queue, --queued, disputed): its pick's plan then
// depends on no value that matters to it (the time, who asks, the trace
// after which to look are looked up by their keys), and the server
// settled on the plan it had made for the values of each of the first
// five runs (pg_prepared_statements and EXPLAIN at 20,000 queued
// traces: 5 custom plans, then generic ones, the same plan). With 50
// labelers asking at once, the pick's planning opened every index of
// traces under a contended lock manager: 50 n's at once took 75–145 ms
// for the last one, 48–68 ms planned once. A filter that binds values (a
// class, a search) keeps the server's choice.
func planOnce(ctx context.Context) context.Context {
	return context.WithValue(ctx, planOnceKey{}, true)
}

// plansOnce says whether a write transaction of ctx, on the trace of
// key (0: none named), runs with genericPlans.
func plansOnce(ctx context.Context, key int32) bool {
	return key != 0 || ctx.Value(planOnceKey{}) != nil
}

// isolationSQL is the BEGIN clause of an isolation level ("" : none
// given).
var isolationSQL = map[sql.IsolationLevel]string{
	sql.LevelDefault:         "",
	sql.LevelReadUncommitted: " ISOLATION LEVEL READ UNCOMMITTED",
	sql.LevelReadCommitted:   " ISOLATION LEVEL READ COMMITTED",
	sql.LevelRepeatableRead:  " ISOLATION LEVEL REPEATABLE READ",
	sql.LevelSnapshot:        " ISOLATION LEVEL REPEATABLE READ",
	sql.LevelSerializable:    " ISOLATION LEVEL SERIALIZABLE",
}

func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.ReadOnly {
		return c.Conn.BeginTx(ctx, opts)
	}
	if opts.Isolation == driver.IsolationLevel(sql.LevelDefault) {
		// READ COMMITTED whatever the database's default: each statement
		// reads as of its start, so the reads after the writer lock see
		// what the writer before committed. Under a DBA's
		// default_transaction_isolation = 'repeatable read' the snapshot
		// was taken by the lock statement itself, before it waited, and
		// 3 of 4 concurrent imports failed with duplicate keys.
		opts.Isolation = driver.IsolationLevel(sql.LevelReadCommitted)
	}
	iso, ok := isolationSQL[sql.IsolationLevel(opts.Isolation)]
	if !ok {
		return nil, fmt.Errorf("unsupported isolation: %v", opts.Isolation)
	}
	lock := writerLock
	key, scoped := ctx.Value(caseScopeKey{}).(int32)
	if scoped {
		lock = caseWriterLock
		if key != 0 {
			lock += "; " + fmt.Sprintf(traceLock, key)
		}
		if plansOnce(ctx, key) {
			lock += "; " + genericPlans
		}
	}
	// BEGIN and the locks in one round trip (one simple query): every
	// labeler's edit pays it.
	conn := c.Conn.Conn()
	if conn.IsClosed() {
		return nil, driver.ErrBadConn // as stdlib's BeginTx: the pool takes another
	}
	if bw, ok := ctx.Value(beginReadsKey{}).(*beginReads); ok && scoped {
		return c.beginWithReads(ctx, iso, key, bw)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{BeginQuery: "BEGIN" + iso + "; " + lock})
	if err != nil {
		// The lock failed inside the begun transaction, which is still
		// open.
		endAborted(ctx, conn)
		return nil, err
	}
	c.inTx, c.later = true, nil
	return pgTx{ctx: ctx, tx: tx, c: c}, nil
}

// pgTx is a pgx transaction as database/sql's driver sees one (what
// stdlib's own wrapper does), whose queued writes (pglater.go) go with
// its COMMIT.
type pgTx struct {
	ctx context.Context
	tx  pgx.Tx
	c   *pgConn
}

func (t pgTx) Commit() error {
	t.c.inTx = false
	end := endOf(t.ctx) // COMMIT, or a rehearsal's ROLLBACK
	if len(t.c.later) == 0 && t.tx != nil && end == "COMMIT" {
		return t.tx.Commit(t.ctx)
	}
	err := t.c.flush(t.ctx, end)
	if err != nil && !errors.Is(err, errRehearsed) {
		// A failed write left the transaction open and aborted: end it,
		// or the pool hands the connection out in it.
		_ = t.rollback(context.WithoutCancel(t.ctx))
	}
	return err
}

func (t pgTx) Rollback() error {
	t.c.inTx = false
	t.c.discard()
	return t.rollback(t.ctx)
}

// rollback ends the transaction: through pgx's, or, for one begun in a
// batch (beginWithReads), with a ROLLBACK of its own.
func (t pgTx) rollback(ctx context.Context) error {
	if t.tx != nil {
		return t.tx.Rollback(ctx)
	}
	_, err := t.c.Conn.Conn().Exec(ctx, "ROLLBACK")
	return err
}

// rebind turns SQLite parameters into PostgreSQL's: "?" is the next
// number after the largest so far and "?N" is "$N", as SQLite numbers
// them. Quoted strings, quoted names, dollar-quoted bodies and comments
// are copied as they are.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	last := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i - 1
			}
			b.WriteString(q[i : i+j+1])
			i += j
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+4])
			i += j + 3
		case c == '$' && dollarTag(q[i:]) != "":
			tag := dollarTag(q[i:])
			j := strings.Index(q[i+len(tag):], tag)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			end := i + len(tag) + j + len(tag)
			b.WriteString(q[i:end])
			i = end - 1
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := last + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			last = max(last, n)
			b.WriteString("$" + strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// dollarTag is the "$tag$" that opens a dollar-quoted string at the start
// of s, or "" ("$1" is a parameter, not a tag).
func dollarTag(s string) string {
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '$':
			return s[:i+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (i > 1 && c >= '0' && c <= '9'):
		default:
			return ""
		}
	}
	return ""
}

// registerBoolIntegers lets a Go bool be a parameter for an integer
// column, as SQLite stores it: the schema keeps SQLite's 0/1 integers (so
// both backends hold, compare and hash the same values), and the store
// passes bools for them.
func registerBoolIntegers(m *pgtype.Map) {
	for _, t := range []struct {
		name  string
		oid   uint32
		codec pgtype.Codec
	}{{"int8", pgtype.Int8OID, pgtype.Int8Codec{}}, {"int4", pgtype.Int4OID, pgtype.Int4Codec{}}, {"int2", pgtype.Int2OID, pgtype.Int2Codec{}}} {
		m.RegisterType(&pgtype.Type{Name: t.name, OID: t.oid, Codec: boolIntCodec{t.codec}})
	}
}

// boolIntCodec is an integer codec that also encodes bool as 0 or 1.
type boolIntCodec struct{ pgtype.Codec }

func (c boolIntCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(bool); ok {
		return boolIntPlan{c.Codec.PlanEncode(m, oid, format, int64(0))}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

type boolIntPlan struct{ int64Plan pgtype.EncodePlan }

func (p boolIntPlan) Encode(value any, buf []byte) ([]byte, error) {
	var n int64
	if value.(bool) {
		n = 1
	}
	return p.int64Plan.Encode(n, buf)
}

// pgCode is the SQLSTATE of a PostgreSQL error, "" for others.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// SQLSTATEs that front ends tell apart.
const (
	pgLockNotAvailable = "55P03" // lock_timeout passed
	pgReadOnlyTx       = "25006" // a hot standby, or a read-only role
)

// pgUnreachable says err is the PostgreSQL server out of reach: it
// refused or never answered the connection, dropped it, or is shutting
// down (SQLSTATE classes 08 and 57P).
func pgUnreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	code := pgCode(err)
	return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "57P")
}

// SQLSTATEs a write transaction is retried on: another transaction won a
// race the database would not serialize (40001) or a deadlock (40P01).
const (
	pgSerialization = "40001"
	pgDeadlock      = "40P01"
)

// retryable says a transaction failed only because of a concurrent one,
// and running it again may succeed.
func retryable(err error) bool {
	c := pgCode(err)
	return c == pgSerialization || c == pgDeadlock
}

// ConflictError is a write that kept losing to concurrent ones after the
// retries: said in words, with what to do, instead of a bare SQLSTATE.
type ConflictError struct {
	Tries int
	Err   error
}

func (e *ConflictError) Error() string {
	what := "another writer changed the same rows at the same moment"
	if pgCode(e.Err) == pgDeadlock {
		what = "it deadlocked with another writer"
	}
	return fmt.Sprintf("the database refused this write %d times because %s (%v); nothing of it was saved: run it again", e.Tries, what, e.Err)
}

func (e *ConflictError) Unwrap() error { return e.Err }
