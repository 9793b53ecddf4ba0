package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// A trace without a person's gold (a taker) is scored against gold
// suggested from the peers of its question (the traces with a person's
// gold or a confirmed label). When a peer's teaching changes, the takers'
// scores are stale, though nothing of their own changed. The change is
// marked once for the question, in peer_marks (migration 0011), not in
// each taker's score: a question that 25,000 traces ask is one row to
// write, where clearing each score's gold hash fired the score trigger
// 25,000 times in the labeler's action. Every test of currency reads the
// marks: a taker's score is stale while its question has a mark newer
// than the score's peer_mark (sqlPeerStale in MarkedTraces and
// StaleTraces, sqlSeenMarks in ScoreCurrent). A mark survives the
// process; whoever rescores every taker of the marks it read deletes
// exactly those (ClearPeerMarks), so a mark made meanwhile stays.

// sqlMarkTakers marks the questions of the named traces that have a taker
// besides the named traces themselves (their own suggestion never comes
// from their own teaching).
const sqlMarkTakers = `INSERT INTO peer_marks (question_key)
	SELECT DISTINCT q.question_key FROM traces q WHERE q.trace_id IN (?*) AND EXISTS (
		SELECT 1 FROM traces t LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id
		WHERE t.question_key = q.question_key AND t.trace_id NOT IN (?*)
			AND COALESCE(c.gold_origin, 'machine') <> 'human')`

// sqlMarkTakersCounted is sqlMarkTakers returning how many questions it
// marked, as a row: a write queued for the commit (queryRowLater) has no
// rows-affected count to return (PostgreSQL only: SQLite has no INSERT
// in WITH).
const sqlMarkTakersCounted = `WITH m AS (` + sqlMarkTakers + ` RETURNING 1) SELECT count(*) FROM m`

// sqlPeerStale lists the takers whose score has not seen their question's
// newest mark (a part of StaleTraces and MarkedTraces: see staleList).
const sqlPeerStale = `SELECT t.id, t.trace_id FROM (SELECT question_key, max(id) AS mark FROM peer_marks
	GROUP BY question_key) m JOIN traces t ON t.question_key = m.question_key JOIN scores s ON s.trace_pk = t.id
	LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id
	WHERE s.peer_mark < m.mark AND COALESCE(c.gold_origin, 'machine') <> 'human' ORDER BY t.id`

// sqlSeenMarks is ScoreCurrent's condition on the marks, over its t, s
// and c: no mark of the question newer than the score, unless the trace
// has a person's gold.
const sqlSeenMarks = ` AND NOT EXISTS (SELECT 1 FROM peer_marks m WHERE m.question_key = t.question_key
	AND m.id > s.peer_mark AND COALESCE(c.gold_origin, 'machine') <> 'human')`

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// MarkTakersStale marks stale the scores of the traces that take their
// gold from the peers of the questions of traceIDs (see above), in one
// statement, and returns how many questions it marked.
func (s *Store) MarkTakersStale(ctx context.Context, traceIDs []string) (int64, error) {
	return markTakers(ctx, s.db, traceIDs)
}

func markTakers(ctx context.Context, db execer, traceIDs []string) (int64, error) {
	if len(traceIDs) == 0 {
		return 0, nil
	}
	q, args := takersOf(sqlMarkTakers, traceIDs)
	res, err := db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// takersOf is q (sqlMarkTakers, or its counted form) and its arguments
// for traceIDs, whose list it takes twice.
func takersOf(q string, traceIDs []string) (string, []any) {
	return withList(withList(q, len(traceIDs)), len(traceIDs)), append(anys(traceIDs), anys(traceIDs)...)
}

// teaches says a case can teach its question's other traces their gold:
// it has a person's gold or a confirmed label (the cases of sqlPeers).
func teaches(origin string, status model.Status) bool {
	return origin == OriginHuman || status == model.StatusConfirmed
}

// changesTeaching says a change of field alters what a teaching case
// teaches: its gold, its status, or its grounded label (through a rater's
// label or an adjudication). Correctness, class and notes are not read by
// the suggestion (see app.peerOfRow).
func changesTeaching(field string) bool {
	return strings.HasPrefix(field, "gold.") || field == "status" || field == "label.grounded" ||
		field == FieldAdjudication
}

// markAfterEditTx marks the takers of a trace's question stale, in the
// edit's transaction, when the edit changed what the case teaches: it
// taught before or teaches after, and the gold's origin, its status or a
// field it teaches from changed. before is the case as loaded before the
// edit; fields are the fields changed; humanGold says the gold became a
// person's. marked gets how many questions were marked (0 or 1), at
// commit when ctx allows it (allowLater): the mark is a write the edit
// does not wait for, and sent on its own it cost a confirm two more round
// trips than any other key (the queued writes, then the mark), with the
// trace's lock held.
func markAfterEditTx(ctx context.Context, tx *sql.Tx, traceID string, before *CaseRecord, fields []string,
	humanGold bool, status model.Status, marked *int64) error {
	origin := before.GoldOrigin
	touched := humanGold && origin != OriginHuman
	for _, f := range fields {
		if strings.HasPrefix(f, "gold.") {
			origin = OriginHuman // every gold edit makes the gold a person's (editCaseTx)
		}
		touched = touched || changesTeaching(f)
	}
	if humanGold {
		origin = OriginHuman
	}
	*marked = 0
	if !touched || (!teaches(before.GoldOrigin, before.Status) && !teaches(origin, status)) {
		return nil
	}
	if laterAllowed(ctx) {
		q, args := takersOf(sqlMarkTakersCounted, []string{traceID})
		return queryRowLater(ctx, tx, []any{marked}, q, args...)
	}
	var err error
	*marked, err = markTakers(ctx, tx, []string{traceID})
	return err
}

// The stale lists are read in parts, each ordered by the trace's pk the
// way its table or index is read (no sort, no temporary table), and
// merged here: a UNION ... ORDER BY over them sorted 100,000 rows after a
// configuration change and joined every trace with its case to learn
// whether its gold is a person's, two thirds of a second before the first
// trace could be loaded. Those few traces are read from the partial
// index of the cases that teach (sqlHumanGold) instead.

// sqlUnscored lists the traces whose score_ok is 0 (the partial index
// traces_unscored: no score yet, or a score computed from other content
// or gold).
const sqlUnscored = `SELECT t.id, t.trace_id FROM traces t WHERE t.score_ok = 0 ORDER BY t.id`

// sqlHumanGold lists the traces whose case has a person's gold.
const sqlHumanGold = `SELECT t.id FROM cases c JOIN traces t ON t.id = c.trace_pk AND t.case_id = c.case_id
	WHERE c.gold_origin = 'human'`

// MarkedTraces lists the traces whose score is missing or not current
// for their content, gold or peers: score_ok = 0 or a score older than
// its question's mark. Unlike StaleTraces it ignores the configuration:
// a new configuration rescores everything, which is the score command's
// business, not the workbench's. Those with a person's gold come first
// (they feed the others' suggestions), each group in import order.
func (s *Store) MarkedTraces(ctx context.Context) ([]StaleTrace, error) {
	return s.staleList(ctx, listPart{q: sqlUnscored}, listPart{q: sqlPeerStale})
}

// listPart is one query of a stale list: (pk, trace id) rows by pk.
type listPart struct {
	q    string
	args []any
}

// staleList reads the parts and merges them into one list: each trace
// once, those with a person's gold first, each group in import order.
func (s *Store) staleList(ctx context.Context, parts ...listPart) ([]StaleTrace, error) {
	type row struct {
		pk int64
		id string
	}
	lists := make([][]row, len(parts))
	for i, p := range parts {
		rows, err := s.db.QueryContext(ctx, p.q, p.args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.pk, &r.id); err != nil {
				rows.Close()
				return nil, err
			}
			lists[i] = append(lists[i], r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		// A part read through an index other than the pk's comes in
		// another order (sqlConfigStale); the merge below needs pk order.
		if cmpPK := func(a, b row) int { return cmp.Compare(a.pk, b.pk) }; !slices.IsSortedFunc(lists[i], cmpPK) {
			slices.SortFunc(lists[i], cmpPK)
		}
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n == 0 {
		return nil, nil
	}
	humans, err := queryColumn[int64](ctx, s.db, sqlHumanGold)
	if err != nil {
		return nil, err
	}
	human := make(map[int64]bool, len(humans))
	for _, pk := range humans {
		human[pk] = true
	}
	var first []StaleTrace
	rest := make([]StaleTrace, 0, n)
	last := int64(-1)
	for {
		// The smallest pk at the head of a list; a pk at the head of
		// several is taken once.
		at := -1
		for i, l := range lists {
			if len(l) > 0 && (at < 0 || l[0].pk < lists[at][0].pk) {
				at = i
			}
		}
		if at < 0 {
			break
		}
		r := lists[at][0]
		lists[at] = lists[at][1:]
		if r.pk == last {
			continue
		}
		last = r.pk
		if human[r.pk] {
			first = append(first, StaleTrace{TraceID: r.id, HumanGold: true})
		} else {
			rest = append(rest, StaleTrace{TraceID: r.id})
		}
	}
	return append(first, rest...), nil
}

// PeerMarks lists the ids of the marks stored now. Read them before
// listing what is stale: once every taker listed is rescored, exactly
// these may go (ClearPeerMarks).
func (s *Store) PeerMarks(ctx context.Context) ([]int64, error) {
	return queryColumn[int64](ctx, s.db, `SELECT id FROM peer_marks ORDER BY id`)
}

// ClearPeerMarks deletes the marks ids (from PeerMarks), their takers all
// rescored on the peers as they were after them. A mark made since is not
// among them and stays.
func (s *Store) ClearPeerMarks(ctx context.Context, ids []int64) error {
	return inLists(ids, func(list []any) error {
		_, err := s.db.ExecContext(ctx, withList(`DELETE FROM peer_marks WHERE id IN (?*)`, len(list)), list...)
		return err
	})
}

// PeerMarkOf is the newest mark of a trace's question (0: none). Read it
// before rescoring the trace alone; SawPeerMark then records that the
// score saw it.
func (s *Store) PeerMarkOf(ctx context.Context, traceID string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(max(m.id), 0) FROM peer_marks m
		JOIN traces t ON t.question_key = m.question_key WHERE t.trace_id = ?`, traceID).Scan(&id)
	return id, err
}

// SawPeerMark records that a trace's stored score was computed after mark
// (PeerMarkOf, read before the scoring): that mark no longer makes it
// stale, a newer one still does. No score trigger watches peer_mark.
func (s *Store) SawPeerMark(ctx context.Context, traceID string, mark int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE scores SET peer_mark = ?
		WHERE trace_pk = (SELECT id FROM traces WHERE trace_id = ?) AND peer_mark < ?`, mark, traceID, mark)
	return err
}
