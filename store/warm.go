package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// warmWho is who the rehearsed keys of WarmLabeling act as.
const warmWho = "tracelab warm-up"

// warmWait bounds WarmLabeling: an edit waits for the writer lock that an
// import or a migration holds, and the warm-up must not hold the
// workbench's first screen behind one (its first key then pays the first
// use, as without it).
const warmWait = time.Second

// sqlWarmTrace is the trace the warm-up edits: the first after an id the
// clock picks (its milliseconds modulo the largest id), so that labelers
// who open at once do not all wait for one trace's lock.
const sqlWarmTrace = `SELECT trace_id FROM traces
	WHERE id > CAST(? AS BIGINT) % (SELECT MAX(id) FROM traces) ORDER BY id LIMIT 1`

// WarmLabeling readies the connection a labeler's first keys will use on
// PostgreSQL, so that they cost what the later ones do. A new server
// process reads the catalog of every table and index it touches, plans
// each statement the first time it runs, and compiles a trigger's
// function the first time the trigger fires: measured, a new
// connection's first edit took 8.7 ms on the server against about 1 ms
// for the next, and with 50 labelers starting at once those first keys
// were the slowest tenth of all. Here they run before the first key,
// rehearsed (every statement runs, its triggers too, and the transaction
// rolls back: nothing is written): n in queue q from the top and after a
// trace, and an edit of that trace's case as the labeling keys make one
// (class, correct, grounded, confirm); then an empty transaction
// commits, so that the keys' COMMIT is prepared too. The rows' locks
// the rehearsals take are held for that moment: another labeler's n
// then passes over the trace n's rehearsal picked, and an edit of the
// rehearsed trace waits for it. SQLite has no such first cost: nothing
// to do.
func (s *Store) WarmLabeling(ctx context.Context, q Query) error {
	if s.d != postgresDialect {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, warmWait)
	defer cancel()
	var traceID string
	if err := s.db.QueryRowContext(ctx, sqlWarmTrace, s.nowMS()).Scan(&traceID); errors.Is(err, sql.ErrNoRows) {
		return nil // no trace: nothing to rehearse on
	} else if err != nil {
		return err
	}
	plain := ctx
	ctx = rehearse(ctx)
	for _, after := range []string{"", traceID} {
		if _, err := s.NextInQueue(ctx, q, after, warmWho); !rehearsed(err) {
			return err
		}
	}
	_, err := s.EditGroup(ctx, traceID, warmWho, false, func(cr *CaseRecord) ([]FieldChange, error) {
		raw := func(v any) json.RawMessage { return json.RawMessage(mustJSON(v)) }
		l := cr.Case.Label
		class := model.ClassEntity
		if l.FailureClass != nil && *l.FailureClass == class {
			class = model.ClassSemantic
		}
		flip := func(b *bool) json.RawMessage { return raw(b == nil || !*b) }
		return []FieldChange{
			{Field: "label.failure_class", Value: raw(class)},
			{Field: "label.correct", Value: flip(l.Correct)},
			{Field: "label.grounded", Value: flip(l.Grounded)},
			{Field: "status", Value: raw(model.StatusConfirmed)},
		}, nil
	})
	if !rehearsed(err) {
		return err
	}
	// The rehearsals end in ROLLBACK, n and the edits in COMMIT, which
	// pgx prepares, in a round trip of its own, the first time a batch
	// sends it on a connection: every labeler's first n was two round
	// trips, not one. An empty transaction ends in it here.
	var one int
	return s.oneTrip(plain, []any{&one}, `SELECT 1`)
}

// rehearsed says a rehearsed action ended as one should: rolled back,
// or with nothing to do (nothing free in the queue, the trace gone).
func rehearsed(err error) bool {
	return errors.Is(err, errRehearsed) || errors.Is(err, ErrQueueDone) || errors.Is(err, ErrNotFound)
}
