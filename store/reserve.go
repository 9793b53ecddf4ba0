package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tracelab-dev/tracelab/model"
)

// Reservation says who holds a trace and until when; the zero value is
// a trace nobody holds.
type Reservation struct {
	TraceID string
	Labeler string
	Expires time.Time
}

// Held says the reservation is someone's (and not expired when read).
func (r Reservation) Held() bool { return r.Labeler != "" }

// DefaultReservationTTL is how long a reservation lasts without being
// renewed: long enough to read a hard trace, short enough that a labeler
// who walked away gives the trace back to the queue within a coffee break.
const DefaultReservationTTL = 15 * time.Minute

func (s *Store) nowMS() int64 { return s.now().UnixMilli() }

// Reserve reserves a trace for who until ttl from now, or renews who's
// reservation of it, and releases any other trace who held: a labeler
// works on one trace at a time. A trace another labeler holds (unexpired)
// stays theirs, and a confirmed trace is not reserved; either way the
// result says who holds the trace now (zero: nobody).
func (s *Store) Reserve(ctx context.Context, traceID, who string) (Reservation, error) {
	var r Reservation
	err := s.inTraceTx(ctx, traceID, func(tx *sql.Tx) error {
		var err error
		r, err = s.reserveTx(ctx, tx, traceID, who)
		return err
	})
	return r, err
}

// SetReservationTTL sets how long a reservation lasts unrenewed (0 or
// less: DefaultReservationTTL).
func (s *Store) SetReservationTTL(d time.Duration) {
	if d <= 0 {
		d = DefaultReservationTTL
	}
	s.reserveFor.Store(int64(d))
}

func (s *Store) reservationTTL() time.Duration {
	if d := time.Duration(s.reserveFor.Load()); d > 0 {
		return d
	}
	return DefaultReservationTTL
}

// followEditTx keeps the rule that working on a trace renews one's
// reservation of it and confirming it releases it, inside the edit's own
// transaction and in one statement: that transaction holds the trace's
// lock that other labelers of the case wait for, so each round trip in
// it counts as many times over as people edit the case at once. held is
// when who's reservation of the trace ends as the edit read it (ms, 0:
// none or not read); one renewed within renewSlack is not renewed again,
// so a burst of keys on one trace writes it once.
func (s *Store) followEditTx(ctx context.Context, tx *sql.Tx, traceID, who string, status model.Status, held int64) error {
	if status == model.StatusConfirmed {
		return execLater(ctx, tx, sqlRelease, who, traceID)
	}
	now := s.nowMS()
	ttl := s.reservationTTL()
	if held-now > (ttl - renewSlack(ttl)).Milliseconds() {
		return nil
	}
	return execLater(ctx, tx, s.reserveSQL(), s.reserveArgs(traceID, who, now)...)
}

// renewSlack is how much of a reservation's time an edit may leave
// unrenewed: a tenth of it, at most 10 s.
func renewSlack(ttl time.Duration) time.Duration { return min(ttl/10, 10*time.Second) }

// reserveTx is Reserve in tx, which holds or takes the trace's row lock:
// its first statement locks it (inCaseTx).
func (s *Store) reserveTx(ctx context.Context, tx *sql.Tx, traceID, who string) (Reservation, error) {
	now := s.nowMS()
	// One statement locks the trace and takes it when free or expired, or
	// renews one's own; a row another labeler holds is left alone (ON
	// CONFLICT … WHERE).
	if _, err := tx.ExecContext(ctx, s.reserveSQL(), s.reserveArgs(traceID, who, now)...); err != nil {
		return Reservation{}, err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(sqlReleaseOthers, "?"), who, traceID); err != nil {
		return Reservation{}, err
	}
	return s.holderTx(ctx, tx, traceID, now)
}

// takeTx is reserveTx for a trace NextInQueue picked: it says whether
// who holds the trace now, from the reservation's own statement, so that
// a trace someone else took the moment before is let go (the
// transaction ended) one round trip after the pick, not three; the
// release of who's other trace waits for the commit when ctx allows it.
func (s *Store) takeTx(ctx context.Context, tx *sql.Tx, traceID, who string) (bool, error) {
	var got string
	err := tx.QueryRowContext(ctx, s.reserveSQL()+` RETURNING labeler`, s.reserveArgs(traceID, who, s.nowMS())...).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) || err == nil && got != who {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, execLater(ctx, tx, fmt.Sprintf(sqlReleaseOthers, "?"), who, traceID)
}

// reserveSQL is sqlReserve locking the trace's row in the dialect's way,
// so every reservation of a trace is written under its lock.
func (s *Store) reserveSQL() string {
	return fmt.Sprintf(sqlReserveTrace, "?") + s.d.lockRow + sqlReserveConflict
}

// reserveArgs are reserveSQL's parameters: who takes traceID, at now
// (ms), for the reservation's time.
func (s *Store) reserveArgs(traceID, who string, now int64) []any {
	return []any{who, now + s.reservationTTL().Milliseconds(), traceID, now}
}

func (s *Store) holderTx(ctx context.Context, tx *sql.Tx, traceID string, now int64) (Reservation, error) {
	r := Reservation{TraceID: traceID}
	var ms int64
	err := tx.QueryRowContext(ctx, sqlHolder, traceID, now).Scan(&r.Labeler, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return Reservation{TraceID: traceID}, nil
	}
	if err != nil {
		return Reservation{}, err
	}
	r.Expires = time.UnixMilli(ms).UTC()
	return r, nil
}

// Holder says who holds a trace now (zero: nobody).
func (s *Store) Holder(ctx context.Context, traceID string) (Reservation, error) {
	var r Reservation
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		r, err = s.holderTx(ctx, tx, traceID, s.nowMS())
		return err
	})
	return r, err
}

// Release gives up who's reservation of a trace ("" : of every trace).
// Releasing what one does not hold changes nothing.
func (s *Store) Release(ctx context.Context, traceID, who string) error {
	q, args := sqlRelease, []any{who, traceID}
	if traceID == "" {
		q, args = sqlReleaseAll, []any{who}
	}
	_, err := s.db.ExecContext(ctx, q, args...)
	return err
}

// ErrQueueDone: no trace under the filter is unconfirmed and free.
var ErrQueueDone = errors.New("no unconfirmed trace is free in this queue")

// Next is the trace NextInQueue handed out.
type Next struct {
	TraceID string
	// Wrapped: nothing after the starting trace was free, so this one is
	// from the top of the queue (it may be the starting trace itself).
	Wrapped bool
}

// NextInQueue picks the first trace after the trace named by after (in
// q's filter and order; "" starts at the top, and the search wraps to the
// top) that is not confirmed and that no other labeler holds, and
// reserves it for who, in one transaction: two labelers asking at once
// never get the same trace. ErrQueueDone when there is none.
func (s *Store) NextInQueue(ctx context.Context, q Query, after, who string) (Next, error) {
	for try := 0; ; try++ {
		n, err := s.nextInQueueTx(ctx, q, after, who)
		if !errors.Is(err, errPickTaken) {
			return n, err
		}
		// Another labeler reserved the trace between the pick's snapshot
		// and its lock. The pick's lock on it lasts until the transaction
		// ends, and that labeler's first edit of it waits for the lock: so
		// end it, and pick again in a new one, whose snapshot sees the
		// reservation.
		if try == nextTries {
			return Next{}, fmt.Errorf("next in queue: %w", err)
		}
	}
}

// errPickTaken is a trace NextInQueue picked as free that another
// labeler reserved the moment before.
var errPickTaken = errors.New("the trace picked as free was reserved by another labeler")

// nextInQueueTx is one try of NextInQueue, in one transaction. On
// PostgreSQL it is one round trip when the first pick finds a trace
// free: the pick, the reservation and the release of what who held
// before are one statement (takeSQL, which releases only when the
// reservation was taken) sent with BEGIN and COMMIT (oneTrip). When that
// pick finds nothing (and so wrote nothing) a second transaction looks
// further, its first pick going with the BEGIN (beginReads) and the
// reservation with the COMMIT (pglater.go).
func (s *Store) nextInQueueTx(ctx context.Context, q Query, after, who string) (Next, error) {
	var out Next
	var done bool // nothing was free
	where, args := q.Filter.where(s.d)
	if len(args) == 0 {
		ctx = planOnce(ctx) // on PostgreSQL: see there
	}
	where = andWhere(where, `t.case_status <> 'confirmed' AND (r.trace_pk IS NULL OR r.labeler = ?)`)
	expr := sortExpr(q.Sort)
	dir, cmp := "ASC", ">"
	if q.Desc {
		dir, cmp = "DESC", "<"
	}
	pick := sqlPickFree + where
	// The trace after which to look is compared by its sort key read in
	// the pick itself (a row subquery), not in a round trip before.
	pickAfter := andWhere(pick, fmt.Sprintf("(%s, t.id) %s ("+sqlSortKeyOf+")", expr, cmp, expr))
	// The pick locks the trace it returns and passes over those other
	// labelers are taking or editing (dialect.skipLocked), so labelers
	// asking at once get different traces without waiting in line; on
	// SQLite the one writer does that.
	orderBy := fmt.Sprintf(" ORDER BY %s %s, t.id %s", expr, dir, dir)
	pickArgs := func() []any { return append(append([]any{s.nowMS()}, args...), who) }
	// one is a pick (pick or pickAfter, with its parameters a) narrowed
	// to its first trace, the rows it passes locked with lock. On
	// PostgreSQL that trace is checked again once its lock is taken
	// (tracelab_free_now, migration 0048). The pick's statement sees the
	// reservations as of its start: a trace another labeler took and
	// committed meanwhile looked free, its row's lock was free again, and
	// the take found it taken. At 50 labelers 4 n's in 10 lost that race
	// at least once (up to 6 times in a row), each loss one more
	// transaction. The function, VOLATILE, reads the reservations as
	// they are when it runs, and OFFSET 0 keeps the planner from moving
	// it below the lock (it did: the losses stayed).
	one := func(sel, lock string, a []any) (string, []any) {
		if s.d != postgresDialect {
			return `SELECT p.trace_id FROM (` + sel + orderBy + ` LIMIT 1` + lock + `) p`, a
		}
		return `SELECT p.trace_id FROM (` + sel + orderBy + ` OFFSET 0` + lock + `) p
			WHERE tracelab_free_now(p.id, ?, ?) LIMIT 1`, append(a, s.nowMS(), who)
	}
	var first *string // the first pick's trace, read with the BEGIN ("" : none)
	var taken string  // who holds the picked trace after the COMMIT
	if s.d == postgresDialect {
		sel, a := pick, pickArgs()
		if after != "" {
			sel, a = pickAfter, append(a, after)
		}
		firstSQL, firstArgs := one(sel, s.d.skipLocked, a)
		// The first pick and its take in one statement and one round
		// trip (oneTrip), when the pick finds a trace free; the rest
		// (wrapping to the top, waiting for traces locked at that
		// instant, the release when nothing is free) below.
		var id sql.NullString
		var holder string
		err := s.oneTrip(ctx, []any{&id, &holder}, s.takeSQL(firstSQL),
			append(firstArgs, s.takeArgs("", who, s.nowMS())...)...)
		switch {
		case err != nil && !retryable(err):
			return out, err
		case err == nil && id.Valid && holder == who:
			out.TraceID = id.String
			return out, nil
		case err == nil && id.Valid:
			// Another labeler reserved it the moment before: nothing
			// was written.
			return out, fmt.Errorf("%w: %s", errPickTaken, id.String)
		}
		// The release of what who held before goes with the COMMIT
		// (pglater.go).
		ctx = allowLater(ctx)
		ctx = withBeginReads(ctx, &beginReads{
			queue: func(b *pgx.Batch) { b.Queue(rebind(firstSQL), firstArgs...) },
			read: func(br pgx.BatchResults) error {
				var id string
				err := br.QueryRow().Scan(&id)
				if errors.Is(err, pgx.ErrNoRows) {
					err = nil
				}
				first = &id
				return err
			},
		})
	}
	picked := ""
	err := s.inCaseTx(ctx, func(tx *sql.Tx) error {
		picked, taken = "", ""
		after := after
		lock := s.d.skipLocked
		lockWait := strings.TrimSuffix(s.d.skipLocked, " SKIP LOCKED")
		for {
			a := pickArgs()
			var id string
			err := sql.ErrNoRows
			// Whether to pick from the top when nothing comes after
			// `after`: not when the BEGIN's pick was that one already.
			top := first == nil || after != ""
			if first != nil {
				// Read with the BEGIN: the pick after `after`, or from the
				// top when there is none.
				if id, first = *first, nil; id != "" {
					err = nil
				}
			} else if after != "" {
				q, qa := one(pickAfter, lock, append(a, after))
				err = tx.QueryRowContext(ctx, q, qa...).Scan(&id)
			}
			if after != "" && errors.Is(err, sql.ErrNoRows) {
				// Nothing after it: wrapped to the top, unless it is no
				// longer there (then the top is where to start).
				var there int
				if err := tx.QueryRowContext(ctx, sqlTraceThere, after).Scan(&there); errors.Is(err, sql.ErrNoRows) {
					after = ""
				} else if err != nil {
					return err
				}
			}
			if errors.Is(err, sql.ErrNoRows) && top {
				q, qa := one(pick, lock, a)
				err = tx.QueryRowContext(ctx, q, qa...).Scan(&id)
				out.Wrapped = after != ""
			}
			if errors.Is(err, sql.ErrNoRows) && lock != lockWait {
				// Nothing free but what was locked at that instant (a
				// trace another labeler was taking or editing, or a score
				// being saved): look once more, waiting for those locks,
				// so that the queue is done only when nothing is free.
				lock = lockWait
				continue
			}
			if errors.Is(err, sql.ErrNoRows) {
				// Moved on, to nothing: what who held goes back to the
				// queue. The transaction commits that (an error returned
				// here would roll it back) and the caller hears
				// ErrQueueDone after.
				if _, err := tx.ExecContext(ctx, sqlReleaseAll, who); err != nil {
					return err
				}
				done = true
				return nil
			}
			if err != nil {
				return err
			}
			picked = id
			if laterAllowed(ctx) {
				// Whether it was taken is known at the COMMIT.
				return s.takeLater(ctx, tx, id, who, &taken)
			}
			took, err := s.takeTx(ctx, tx, id, who)
			if err != nil {
				return err
			}
			if !took {
				return fmt.Errorf("%w: %s", errPickTaken, id)
			}
			taken = who
			return nil
		}
	})
	if err == nil && done {
		return out, ErrQueueDone
	}
	if err == nil && taken != who {
		// Another labeler reserved it the moment before: the COMMIT
		// wrote nothing (the release goes only with the reservation).
		return out, fmt.Errorf("%w: %s", errPickTaken, picked)
	}
	if err == nil {
		out.TraceID = picked
	}
	return out, err
}

// takeLater is takeTx sent with the COMMIT (PostgreSQL): one statement
// (takeSQL) reserves the trace for who and, only when that took it,
// releases what who held before; holder gets who holds it then ("" :
// nobody took it).
func (s *Store) takeLater(ctx context.Context, tx *sql.Tx, traceID, who string, holder *string) error {
	return queryRowLater(ctx, tx, []any{holder}, s.takeSQL(""), s.takeArgs(traceID, who, s.nowMS())...)
}

// takeSQL is takeLater's statement, which returns who holds the trace
// after it. With pick (a query of one trace_id that locks its trace,
// NextInQueue's) the trace is the one pick finds, returned first (NULL:
// none, and nothing is written): n's pick and take in one statement.
func (s *Store) takeSQL(pick string) string {
	with, trace, out := "WITH ", "?", ""
	if pick != "" {
		with, trace, out = "WITH pick AS ("+pick+"), ", "(SELECT trace_id FROM pick)", "(SELECT trace_id FROM pick), "
	}
	return with + `took AS (` + fmt.Sprintf(sqlReserveTrace, trace) + s.d.lockRow + sqlReserveConflict + ` RETURNING labeler),
		released AS (` + fmt.Sprintf(sqlReleaseOthers, trace) + ` AND EXISTS (SELECT 1 FROM took WHERE took.labeler = ?))
		SELECT ` + out + `COALESCE((SELECT labeler FROM took), '')`
}

// takeArgs are takeSQL's parameters (after the pick's): who takes
// traceID ("" : the pick's trace) at now (ms).
func (s *Store) takeArgs(traceID, who string, now int64) []any {
	args := s.reserveArgs(traceID, who, now)
	if traceID == "" {
		// The pick names the trace: no parameter for it.
		return []any{args[0], args[1], args[3], who, who}
	}
	return append(args, who, traceID, who)
}

// nextTries bounds how often NextInQueue picks again (in a new
// transaction) after a trace it picked was reserved by someone else the
// moment before (a variable for the tests).
var nextTries = 8

// andWhere adds a condition to a WHERE clause ("" : none yet).
func andWhere(where, cond string) string {
	if where == "" {
		return " WHERE " + cond
	}
	return where + " AND " + cond
}

// EventsSince lists the events on a trace's case after event id since
// that someone other than who wrote, oldest first, and the newest event
// id of the case (since when there is none newer); since < 0 asks for
// that id alone. Event ids, not clocks, mark the place: labelers' clocks
// need not agree.
func (s *Store) EventsSince(ctx context.Context, traceID, who string, since int64) ([]Event, int64, error) {
	last := since
	var out []Event
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var l sql.NullInt64
		if err := tx.QueryRowContext(ctx, sqlLastEvent, traceID).Scan(&l); err != nil {
			return err
		}
		if since < 0 {
			last = l.Int64 // 0 when the case has no event yet
			return nil
		}
		if !l.Valid || l.Int64 <= since {
			return nil
		}
		last = l.Int64
		rows, err := tx.QueryContext(ctx, sqlEventsSince, traceID, since, who, last)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanEvent(rows)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, last, err
}

// inReadTx runs fn in a transaction that only reads, so its queries see
// one snapshot. Database/sql's ReadOnly option makes modernc start a
// deferred transaction, which takes no write lock.
func (s *Store) inReadTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// The SQL of this file, one constant per statement.
const (
	// %s in these two: the trace's id ("?", or takeSQL's pick).
	sqlReserveTrace = `INSERT INTO reservations (trace_pk, labeler, expires_ms)
		SELECT id, ?, ? FROM traces WHERE trace_id = %s AND case_status <> 'confirmed'`
	sqlReserveConflict = ` ON CONFLICT (trace_pk) DO UPDATE SET labeler = excluded.labeler, expires_ms = excluded.expires_ms
		WHERE reservations.expires_ms <= ? OR reservations.labeler = excluded.labeler`
	sqlReleaseOthers = `DELETE FROM reservations WHERE labeler = ?
		AND trace_pk <> COALESCE((SELECT id FROM traces WHERE trace_id = %s), 0)`
	sqlRelease = `DELETE FROM reservations WHERE labeler = ?
		AND trace_pk = (SELECT id FROM traces WHERE trace_id = ?)`
	sqlReleaseAll = `DELETE FROM reservations WHERE labeler = ?`
	sqlHolder     = `SELECT r.labeler, r.expires_ms FROM reservations r JOIN traces t ON t.id = r.trace_pk
		WHERE t.trace_id = ? AND r.expires_ms > ?`
	// %s: the sort expression (sortExpr), as in summarySelect.
	sqlSortKeyOf  = `SELECT %s, t.id FROM traces t LEFT JOIN scores s ON s.trace_pk = t.id WHERE t.trace_id = ?`
	sqlTraceThere = `SELECT 1 FROM traces WHERE trace_id = ?`
	sqlPickFree   = `SELECT t.trace_id, t.id FROM traces t LEFT JOIN scores s ON s.trace_pk = t.id
		LEFT JOIN reservations r ON r.trace_pk = t.id AND r.expires_ms > ?`
	sqlLastEvent   = `SELECT MAX(e.id) FROM events e JOIN traces t ON t.case_id = e.case_id WHERE t.trace_id = ?`
	sqlEventsSince = `SELECT e.id, e.case_id, e.at, e.who, e.field, e.old, e.new, COALESCE(e.undoes, 0), COALESCE(e.grp, 0)
		FROM events e JOIN traces t ON t.case_id = e.case_id
		WHERE t.trace_id = ? AND e.id > ? AND e.who <> ? AND e.id <= ? ORDER BY e.id`
)
