package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/tracelab-dev/tracelab/model"
)

// ScoreRow is the scorer's verdict on one trace: a few columns the queue
// filters and sorts on, the full detail as scoring's JSON, and the hashes
// of what it was computed from. The trace's content hash is taken from the
// trace row as the score is written.
type ScoreRow struct {
	TraceID        string
	SuggestedClass string
	Markers        int
	NeedsReview    bool
	Correct        *bool
	Grounded       *bool
	Detail         json.RawMessage
	GoldSHA        string // GoldSHA of the case scored against (GoldSHANone without one)
	ConfigSHA      string // the engine's hash of the scoring configuration
	Metrics        ScoreMetrics
	// Encodes: the trace got its data only through tools whose contracts
	// encode the definition, so it teaches its question (traces.encodes,
	// migration 0025; Peers).
	Encodes bool
}

// ScoreMetrics are the numbers of a score report.json reads, stored as
// columns beside the detail so a report reads them without decoding it.
type ScoreMetrics struct {
	Precision, Recall              *float64
	DefinitionMatch, FreshnessPass *bool
	PolicyViolations               *int
	Calls, Clarifications          int
	CostUSD                        float64
}

// Suggestion is the machine's gold and label for a trace nobody labeled.
type Suggestion struct {
	TraceID string
	Gold    model.Gold
	Label   model.Label
	// Case is the trace's case as the scorer read it (nil: none). Its
	// fields make the new content hash without reading the case again, and
	// a suggestion equal to it is not written.
	Case *CaseRecord
}

const (
	// The scores of a batch are upserted batchRows at a time (see batch):
	// one statement per row cost more than the row itself.
	sqlScoresHead = `INSERT INTO scores (trace_pk, suggested_class, markers, needs_review, correct, grounded, detail,
		content_sha, gold_sha, grounding_precision, grounding_recall, definition_match,
		freshness_pass, policy_violations, calls, clarifications, cost_usd, result_sha) VALUES`
	sqlScoresCols = 18
	sqlScoresTail = `ON CONFLICT (trace_pk) DO UPDATE SET suggested_class = excluded.suggested_class,
		markers = excluded.markers, needs_review = excluded.needs_review, correct = excluded.correct,
		grounded = excluded.grounded, detail = excluded.detail,
		content_sha = excluded.content_sha, gold_sha = excluded.gold_sha,
		grounding_precision = excluded.grounding_precision, grounding_recall = excluded.grounding_recall,
		definition_match = excluded.definition_match, freshness_pass = excluded.freshness_pass,
		policy_violations = excluded.policy_violations, calls = excluded.calls,
		clarifications = excluded.clarifications, cost_usd = excluded.cost_usd, result_sha = excluded.result_sha`
	// Each score's configuration and time (migration 0015), written with it.
	sqlStateHead = `INSERT INTO score_state (trace_pk, config_sha, scored_at) VALUES`
	sqlStateCols = 3
	sqlStateTail = `ON CONFLICT (trace_pk) DO UPDATE SET config_sha = excluded.config_sha, scored_at = excluded.scored_at`
	// A rescore that says what the stored score says (see saveScoreRows).
	sqlRescoredSame = `UPDATE score_state SET config_sha = ?, scored_at = ? WHERE trace_pk IN (?*)`
	// The trace's case and whether it is still purely the machine's:
	// suggested, machine gold, and nothing in its event log.
	sqlSuggestTarget = `SELECT t.id, t.as_user, t.user_role, t.question, COALESCE(c.case_id, ''),
		COALESCE(c.status = 'suggested' AND c.gold_origin = 'machine'
			AND NOT EXISTS (SELECT 1 FROM events e WHERE e.case_id = c.case_id AND ` + personsEvent + `), FALSE)
		FROM traces t LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id WHERE t.trace_id = ?`
	sqlInsMachineCase = `INSERT INTO cases (case_id, trace_pk, source_trace, user_role, as_user, question,
		gold, label, cost, status, gold_origin, content_sha, updated_by, updated_at, gold_sha)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'suggested', 'machine', ?, 'tracelab', ?, 'machine') ON CONFLICT DO NOTHING`
	sqlScoreDetail = `SELECT s.detail FROM scores s JOIN traces t ON t.id = s.trace_pk WHERE t.trace_id = ?`
)

// SaveScores writes scores and the machine's suggested cases in one
// transaction with prepared statements. A suggestion creates the trace's
// case when there is none and refreshes a case only while it is still
// purely the machine's: a person's work is never overwritten.
func (s *Store) SaveScores(ctx context.Context, rows []ScoreRow, suggestions []Suggestion) error {
	return s.saveScores(ctx, s.db, rows, suggestions)
}

// saveScores is SaveScores in a transaction begun on db: the pool, or a
// BatchConn's connection.
func (s *Store) saveScores(ctx context.Context, db txBeginner, rows []ScoreRow, suggestions []Suggestion) error {
	at := s.stamp()
	ids := make([]string, 0, len(rows)+len(suggestions))
	for _, r := range rows {
		ids = append(ids, r.TraceID)
	}
	for _, sg := range suggestions {
		ids = append(ids, sg.TraceID)
	}
	// Scores and machine cases of these traces only: their rows are
	// locked first, so labelers editing other cases go on meanwhile and
	// one editing these waits for the batch (or the batch for them).
	return inTxOn(caseScope(ctx), db, func(tx *sql.Tx) error {
		if err := s.lockTracesTx(ctx, tx, ids); err != nil {
			return err
		}
		// Cases first: the queue's columns then follow the suggested label.
		var changed []Suggestion
		for _, sg := range suggestions {
			if sg.Case != nil && sameJSON(sg.Case.goldJSON, sg.Case.Case.Gold, sg.Gold) &&
				sameJSON(sg.Case.labelJSON, sg.Case.Case.Label, sg.Label) {
				continue // the same suggestion as stored (a rescore under a new configuration, mostly)
			}
			changed = append(changed, sg)
		}
		if len(changed) == 0 {
			return saveScoreRows(ctx, tx, s.reuse, rows, at)
		}
		var target, insCase, write *sql.Stmt
		if err := prepareAll(ctx, tx, s.reuse, []prepared{{&target, sqlSuggestTarget},
			{&insCase, sqlInsMachineCase}, {&write, sqlWriteCase}}); err != nil {
			closeAll(target, insCase, write)
			return err
		}
		defer closeAll(target, insCase, write)
		for _, sg := range changed {
			var pk int64
			var user, role, question, caseID string
			var machine bool
			err := target.QueryRowContext(ctx, sg.TraceID).Scan(&pk, &user, &role, &question, &caseID, &machine)
			if errors.Is(err, sql.ErrNoRows) {
				continue // the trace went away since it was scored
			}
			if err != nil {
				return err
			}
			switch {
			case caseID == "":
				c := sg.machineCase(role, user, question)
				if _, err := insCase.ExecContext(ctx, c.CaseID, pk, c.SourceTrace, role, user, question,
					mustJSON(c.Gold), mustJSON(c.Label), mustJSON(c.Cost), contentSHA(&c), at); err != nil {
					return err
				}
			case machine:
				// Only gold and label move; the rest of the case is as read.
				var c model.Case
				if sg.Case != nil && sg.Case.Case.CaseID == caseID {
					c = sg.Case.Case
				} else {
					row := tx.QueryRowContext(ctx, sqlSaveScores, caseID)
					cr, err := scanCase(row)
					if err != nil {
						return err
					}
					c = cr.Case
				}
				c.Gold, c.Label = sg.Gold, sg.Label
				if _, err := write.ExecContext(ctx, mustJSON(c.Gold), mustJSON(c.Label), contentSHA(&c),
					OriginMachine, OriginMachine, "tracelab", at, caseID); err != nil {
					return err
				}
			}
		}
		return saveScoreRows(ctx, tx, s.reuse, rows, at)
	})
}

// saveScoreRows upserts score rows, each with its trace's pk and content
// hash as they are in this transaction; a row whose trace went away since
// it was scored is skipped.
// scoreTarget is a score row's trace as it is in saveScoreRows'
// transaction, with what its stored score (if any) says and was computed
// from.
type scoreTarget struct {
	pk                    int64
	sha                   string
	result, content, gold string
	current               bool // the trace's queue marks that score current
}

func saveScoreRows(ctx context.Context, tx *sql.Tx, re *reuse, rows []ScoreRow, at string) error {
	targets := make(map[string]scoreTarget, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.TraceID
	}
	err := inLists(ids, func(list []any) error {
		q, err := tx.QueryContext(ctx, withList(sqlScoreTargets, len(list)), list...)
		if err != nil {
			return err
		}
		defer q.Close()
		for q.Next() {
			var id string
			var t scoreTarget
			if err := q.Scan(&id, &t.pk, &t.sha, &t.result, &t.content, &t.gold, &t.current); err != nil {
				return err
			}
			targets[id] = t
		}
		return q.Err()
	})
	if err != nil {
		return err
	}
	b := newBatch(ctx, tx, sqlScoresHead, sqlScoresCols, sqlScoresTail)
	b.reuse = re
	defer b.close()
	// A score's state row goes with it, one for one: both batches hold
	// as many rows and write them together (state.flush writes b first).
	state := newBatch(ctx, tx, sqlStateHead, sqlStateCols, sqlStateTail)
	state.reuse = re
	defer state.close()
	state.parent = b
	// Rescores that came out as stored, from the same trace and gold,
	// only move to the new configuration: by configuration hash, their pks.
	// A trace listed twice whose first row is written whole is written
	// whole again, so its last row is what stays.
	same := map[string][]int64{}
	whole := map[int64]bool{}
	pending := map[int64]bool{} // one statement may not upsert a row twice
	for _, r := range rows {
		t, ok := targets[r.TraceID]
		if !ok {
			continue // the trace went away since it was scored
		}
		result := r.resultSHA()
		if !whole[t.pk] && t.current && t.content == t.sha && t.gold == r.GoldSHA && t.result == result {
			same[r.ConfigSHA] = append(same[r.ConfigSHA], t.pk)
			continue
		}
		whole[t.pk] = true
		if pending[t.pk] {
			if err := state.flush(); err != nil {
				return err
			}
			clear(pending)
		}
		if err := r.add(b, state, t.pk, t.sha, result, at); err != nil {
			return err
		}
		if b.pending() == 0 {
			clear(pending)
		} else {
			pending[t.pk] = true
		}
	}
	if err := state.flush(); err != nil {
		return err
	}
	for config, pks := range same {
		err := inLists(pks, func(list []any) error {
			_, err := tx.ExecContext(ctx, withList(sqlRescoredSame, len(list)), append([]any{config, at}, list...)...)
			return err
		})
		if err != nil {
			return err
		}
	}
	return saveEncodes(ctx, tx, rows, targets)
}

// sqlSetEncodes sets traces.encodes (0025) on the listed rows where it
// differs, touching only the traces whose flag moves, and names them.
const sqlSetEncodes = `UPDATE traces SET encodes = ? WHERE encodes <> ? AND id IN (?*) RETURNING trace_id`

// saveEncodes keeps traces.encodes as the rows' scores say, for every
// row (a rescore that came out as stored included: the flag may predate
// migration 0025), and marks stale the takers of the questions a trace
// now teaches (see MarkTakersStale).
func saveEncodes(ctx context.Context, tx *sql.Tx, rows []ScoreRow, targets map[string]scoreTarget) error {
	var on, off []int64
	for _, r := range rows {
		t, ok := targets[r.TraceID]
		switch {
		case !ok:
		case r.Encodes:
			on = append(on, t.pk)
		default:
			off = append(off, t.pk)
		}
	}
	var taught []string
	for v, pks := range [][]int64{off, on} {
		err := inLists(pks, func(list []any) error {
			ids, err := queryColumn[string](ctx, tx, withList(sqlSetEncodes, len(list)), append([]any{v, v}, list...)...)
			if v == 1 {
				taught = append(taught, ids...)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	_, err := markTakers(ctx, tx, taught)
	return err
}

// add buffers the row in scores and its state row in state, which go
// together: a score without a state row would be neither current
// (ScoreCurrent) nor listed stale (sqlConfigStale). The trace row is pk, its
// content hash contentSHA; result is the row's resultSHA; at is when it
// was scored.
func (r *ScoreRow) add(scores, state *batch, pk int64, contentSHA, result, at string) error {
	if err := scores.add(r.values(pk, contentSHA, result)...); err != nil {
		return err
	}
	return state.add(r.stateValues(pk, at)...)
}

// values are the row's columns as sqlScoresHead lists them, for the trace
// row pk whose content hash is contentSHA, saying what result (its
// resultSHA) says.
func (r *ScoreRow) values(pk int64, contentSHA, result string) []any {
	m := &r.Metrics
	return []any{pk, r.SuggestedClass, r.Markers, r.NeedsReview, nullBool(r.Correct), nullBool(r.Grounded),
		string(r.detail()), contentSHA, r.GoldSHA, nullFloat(m.Precision), nullFloat(m.Recall),
		nullBool(m.DefinitionMatch), nullBool(m.FreshnessPass), nullInt(m.PolicyViolations), m.Calls,
		m.Clarifications, m.CostUSD, result}
}

// stateValues are the row's columns as sqlStateHead lists them, for the
// trace row pk, scored at at.
func (r *ScoreRow) stateValues(pk int64, at string) []any {
	return []any{pk, r.ConfigSHA, at}
}

func (r *ScoreRow) detail() json.RawMessage {
	if len(r.Detail) == 0 {
		return json.RawMessage("{}")
	}
	return r.Detail
}

// resultSHA hashes what the row says: every column values writes but the
// trace, the time and the hashes of what the score was computed from.
// The detail goes last, unframed: the values before it delimit themselves.
func (r *ScoreRow) resultSHA() string {
	m := &r.Metrics
	buf := make([]byte, 0, 128)
	for _, v := range []any{r.SuggestedClass, r.Markers, r.NeedsReview, nullBool(r.Correct), nullBool(r.Grounded),
		nullFloat(m.Precision), nullFloat(m.Recall), nullBool(m.DefinitionMatch), nullBool(m.FreshnessPass),
		nullInt(m.PolicyViolations), m.Calls, m.Clarifications, m.CostUSD} {
		switch x := v.(type) {
		case nil:
			buf = append(buf, 'n')
		case string:
			buf = strconv.AppendInt(append(buf, 's'), int64(len(x)), 10)
			buf = append(append(buf, ':'), x...)
		case int:
			buf = strconv.AppendInt(append(buf, 'i'), int64(x), 10)
		case bool:
			buf = strconv.AppendBool(append(buf, 'b'), x)
		case float64:
			buf = strconv.AppendFloat(append(buf, 'f'), x, 'g', -1, 64)
		default:
			panic(fmt.Sprintf("store: resultSHA of a %T", v))
		}
		buf = append(buf, ';')
	}
	h := sha256.New()
	h.Write(buf)
	h.Write(r.detail())
	return hex.EncodeToString(h.Sum(nil))
}

// machineCase is the case the machine's suggestion becomes for a trace
// that has none: named for the trace, with the trace's user, role and
// question.
func (sg *Suggestion) machineCase(role, user, question string) model.Case {
	return model.Case{CaseID: sg.TraceID, SourceTrace: sg.TraceID, UserRole: role, AsUser: user,
		Question: question, Gold: sg.Gold, Label: sg.Label}
}

// sameJSON says whether v encodes as was does: first by comparing the two
// values (equal values encode alike, and a rescore under a new
// configuration mostly suggests what it did before), then against stored,
// the text that was decoded from, so an unchanged suggestion is known
// without encoding what was stored again.
func sameJSON(stored string, was, v any) bool {
	if reflect.DeepEqual(was, v) {
		return true
	}
	enc := mustJSON(v)
	return enc == stored || enc == mustJSON(was)
}

// SuggestCase stores the machine's gold and label for one trace (see SaveScores).
func (s *Store) SuggestCase(ctx context.Context, traceID string, gold model.Gold, label model.Label) error {
	return s.SaveScores(ctx, nil, []Suggestion{{TraceID: traceID, Gold: gold, Label: label}})
}

// Score returns the stored score detail of a trace, nil when not scored.
func (s *Store) Score(ctx context.Context, traceID string) (json.RawMessage, error) {
	var detail string
	err := s.db.QueryRowContext(ctx, sqlScoreDetail, traceID).Scan(&detail)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return json.RawMessage(detail), err
}

// CountTraces is how many traces the database holds.
func (s *Store) CountTraces(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.d.countTraces).Scan(&n)
	return n, err
}

func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

func nullFloat(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func nullInt(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

func scanNullBool(b sql.NullBool) *bool {
	if !b.Valid {
		return nil
	}
	v := b.Bool
	return &v
}

// StaleTrace is a trace whose stored score is missing or not current.
type StaleTrace struct {
	TraceID   string
	HumanGold bool // its case's gold is a person's: it scores without peers
}

// A trace is stale when its score_ok is 0 (no score, or one computed from
// other content or gold; triggers keep it), its score was computed under
// another configuration (sqlConfigStale, which reads the narrow
// score_state through in its pk order), or its question's peers were
// marked since it (sqlPeerStale).
// Through the index score_state_config (0028), two ranges: no ORDER BY,
// which made SQLite read the table through; staleList sorts.
const sqlConfigStale = `SELECT s.trace_pk, t.trace_id FROM score_state s JOIN traces t ON t.id = s.trace_pk
	WHERE s.config_sha < ? OR s.config_sha > ?`

// StaleTraces lists the traces whose score is missing, or was computed
// from other trace content, other gold or another configuration than
// configSHA; those with a person's gold first (they feed the others'
// suggestions), each group in import order.
func (s *Store) StaleTraces(ctx context.Context, configSHA string) ([]StaleTrace, error) {
	return s.staleList(ctx, listPart{q: sqlUnscored}, listPart{q: sqlConfigStale, args: []any{configSHA, configSHA}},
		listPart{q: sqlPeerStale})
}

// PeerRow is a trace that can teach others of its question their gold: a
// person's gold or a confirmed label, with its stored score.
type PeerRow struct {
	TraceID, Question, Server string
	StartedAt                 string      // when it was asked: its relative period
	HumanGold                 *model.Gold // nil when the gold is the machine's
	Confirmed                 bool
	LabelGrounded             *bool
	ScoreGrounded             *bool
	Detail                    json.RawMessage // nil when not scored
	// Encodes: no person taught it; it teaches because it got its data
	// only through tools whose contracts encode the definition (0025).
	Encodes bool
}

const sqlPeers = `SELECT t.trace_id, t.question, t.server, t.started_at, c.gold, c.gold_origin, c.status, c.label, s.grounded, s.detail
	FROM cases c JOIN traces t ON t.id = c.trace_pk AND t.case_id = c.case_id
	LEFT JOIN scores s ON s.trace_pk = t.id
	WHERE (c.gold_origin = 'human' OR c.status = 'confirmed')`

// Through the partial index traces_teachers (0011): a question's teachers,
// not every trace that asks it.
const sqlPeersOfQuestions = ` AND t.teaches = 1 AND t.question_key IN (?*)`

// Peers returns the traces that can teach others their gold, in import
// order: every one (keys nil) or those whose question has one of keys
// (QuestionKey), through the question index.
func (s *Store) Peers(ctx context.Context, keys []string) ([]PeerRow, error) {
	q, args := sqlPeers, []any(nil)
	if keys != nil {
		if len(keys) == 0 {
			return nil, nil
		}
		q = withList(sqlPeers+sqlPeersOfQuestions, len(keys))
		for _, k := range keys {
			args = append(args, k)
		}
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY t.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PeerRow
	for rows.Next() {
		var p PeerRow
		var gold, origin, status, label string
		var grounded sql.NullBool
		var detail sql.NullString
		if err := rows.Scan(&p.TraceID, &p.Question, &p.Server, &p.StartedAt, &gold, &origin, &status, &label, &grounded, &detail); err != nil {
			return nil, err
		}
		if origin == OriginHuman {
			var g model.Gold
			if err := json.Unmarshal([]byte(gold), &g); err != nil {
				return nil, fmt.Errorf("trace %s: gold: %w", p.TraceID, err)
			}
			p.HumanGold = &g
		}
		p.Confirmed = status == string(model.StatusConfirmed)
		if p.Confirmed {
			var l model.Label
			if err := json.Unmarshal([]byte(label), &l); err != nil {
				return nil, fmt.Errorf("trace %s: label: %w", p.TraceID, err)
			}
			p.LabelGrounded = l.Grounded
		}
		p.ScoreGrounded = scanNullBool(grounded)
		if detail.Valid {
			p.Detail = json.RawMessage(detail.String)
		}
		out = append(out, p)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	return s.encoders(ctx, keys, out)
}

// sqlEncoders are the traces that teach their question through the
// contracts of the tools they used (0025) and not through a person
// (those are sqlPeers' already); through the partial index
// traces_encoders when keys are given.
const sqlEncoders = `SELECT t.trace_id, t.question, t.server, t.started_at, s.detail
	FROM traces t JOIN scores s ON s.trace_pk = t.id WHERE t.encodes = 1 AND t.teaches = 0`

// encoders appends to out the contract teachers of the questions of keys
// (every one when keys is nil), in import order.
func (s *Store) encoders(ctx context.Context, keys []string, out []PeerRow) ([]PeerRow, error) {
	q := sqlEncoders
	if keys != nil {
		q = withList(sqlEncoders+` AND t.question_key IN (?*)`, len(keys))
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY t.id`, anys(keys)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p := PeerRow{Encodes: true}
		var detail string
		if err := rows.Scan(&p.TraceID, &p.Question, &p.Server, &p.StartedAt, &detail); err != nil {
			return nil, err
		}
		p.Detail = json.RawMessage(detail)
		out = append(out, p)
	}
	return out, rows.Err()
}

// SuggestionTakers lists the traces of the given question keys whose gold
// is not a person's: their suggested gold comes from peers, so they are
// rescored when a peer's gold or label changes.
func (s *Store) SuggestionTakers(ctx context.Context, keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return s.queryStrings(ctx, withList(sqlSuggestionTakers, len(keys)), anys(keys)...)
}

// StoredScore is a trace's current stored score with its case.
type StoredScore struct {
	TraceID  string
	Grounded *bool
	Detail   json.RawMessage
	Case     *CaseRecord // nil when the trace has no case
}

// ScoreScope says which stored scores EachScore reads.
type ScoreScope int

const (
	ScopeAll       ScoreScope = iota // every scored trace
	ScopeHumanGold                   // traces whose case has a person's gold
	ScopeConfirmed                   // traces whose case is confirmed
	ScopeCases                       // traces that have a case
)

// scopeWhere is each scope's condition on the trace's case c.
var scopeWhere = map[ScoreScope]string{ScopeAll: "1 = 1", ScopeHumanGold: "c.gold_origin = 'human'",
	ScopeConfirmed: "c.status = 'confirmed'", ScopeCases: "c.case_id IS NOT NULL"}

// sqlEachScore pages through the stored scores in one scope after a trace pk.
var sqlEachScore = func() map[ScoreScope]string {
	m := map[ScoreScope]string{}
	for scope, where := range scopeWhere {
		m[scope] = `SELECT t.id, t.trace_id, s.grounded, s.detail, COALESCE(c.case_id, '')
			FROM traces t JOIN scores s ON s.trace_pk = t.id
			LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id
			WHERE t.id > ? AND ` + where + ` ORDER BY t.id LIMIT ?`
	}
	return m
}()

// eachScoreBatch is how many stored scores EachScore hands over at a time.
const eachScoreBatch = 1000

// EachScore reads the stored scores in scope in import order and hands
// them over a batch at a time, so a caller aggregating them holds one
// batch, not the database.
func (s *Store) EachScore(ctx context.Context, scope ScoreScope, fn func([]StoredScore) error) error {
	var after int64
	for {
		rows, err := s.db.QueryContext(ctx, sqlEachScore[scope], after, eachScoreBatch)
		if err != nil {
			return err
		}
		var out []StoredScore
		var caseIDs []string
		for rows.Next() {
			var ss StoredScore
			var grounded sql.NullBool
			var detail, caseID string
			if err := rows.Scan(&after, &ss.TraceID, &grounded, &detail, &caseID); err != nil {
				rows.Close()
				return err
			}
			ss.Grounded, ss.Detail = scanNullBool(grounded), json.RawMessage(detail)
			out = append(out, ss)
			caseIDs = append(caseIDs, caseID)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		cases, err := s.casesByID(ctx, caseIDs)
		if err != nil {
			return err
		}
		for i := range out {
			out[i].Case = cases[caseIDs[i]]
		}
		if len(out) == 0 {
			return nil
		}
		if err := fn(out); err != nil {
			return err
		}
		if len(out) < eachScoreBatch {
			return nil
		}
	}
}

// MachineRating is what a stored score says as tracelab's rating of its
// trace: the scorer's correct, grounded and suggested class (nil when
// none), read from the score's columns, not its JSON.
type MachineRating struct {
	Correct, Grounded *bool
	SuggestedClass    *model.FailureClass
}

// MachineRatings returns the rating of each scored trace among ids, by
// trace id.
func (s *Store) MachineRatings(ctx context.Context, ids []string) (map[string]MachineRating, error) {
	out := make(map[string]MachineRating, len(ids))
	err := inLists(ids, func(list []any) error {
		rows, err := s.db.QueryContext(ctx, withList(sqlMachineRatings, len(list)), list...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, class string
			var correct, grounded sql.NullBool
			if err := rows.Scan(&id, &class, &correct, &grounded); err != nil {
				return err
			}
			r := MachineRating{Correct: scanNullBool(correct), Grounded: scanNullBool(grounded)}
			if class != "" {
				c := model.FailureClass(class)
				r.SuggestedClass = &c
			}
			out[id] = r
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// The SQL of this file, one constant per statement.
const (
	sqlScoreTargets = `SELECT t.trace_id, t.id, t.content_sha, COALESCE(s.result_sha, ''), COALESCE(s.content_sha, ''),
		COALESCE(s.gold_sha, ''), t.score_ok = 1 FROM traces t LEFT JOIN scores s ON s.trace_pk = t.id WHERE t.trace_id IN (?*)`
	sqlMachineRatings = `SELECT t.trace_id, s.suggested_class, s.correct, s.grounded FROM traces t JOIN scores s ON s.trace_pk = t.id WHERE t.trace_id IN (?*)`
	sqlSaveScores     = `SELECT ` + caseColumns + ` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
						WHERE c.case_id = ?`
)

// Statements with a list of parameters, "(?*)" (see withList).
const (
	sqlSuggestionTakers = `SELECT t.trace_id FROM traces t
		LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id
		WHERE t.question_key IN (?*) AND COALESCE(c.gold_origin, 'machine') <> 'human' ORDER BY t.id`
)

const sqlScoreCurrent = `SELECT EXISTS (SELECT 1 FROM traces t JOIN scores s ON s.trace_pk = t.id
	JOIN score_state ss ON ss.trace_pk = t.id
	LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id
	WHERE t.trace_id = ? AND s.content_sha = t.content_sha AND ss.config_sha = ?
		AND s.gold_sha = COALESCE(c.gold_sha, '` + GoldSHANone + `')` + sqlSeenMarks + `)`

// ScoreCurrent reports whether a trace's stored score was computed from
// its present content and gold under configSHA, after its question's
// peers were last marked (see stale.go).
func (s *Store) ScoreCurrent(ctx context.Context, traceID, configSHA string) (bool, error) {
	var ok bool
	err := s.db.QueryRowContext(ctx, sqlScoreCurrent, traceID, configSHA).Scan(&ok)
	return ok, err
}
