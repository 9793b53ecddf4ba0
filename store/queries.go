package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// TraceSummary is one row of the queue and of `tracelab ls`.
type TraceSummary struct {
	TraceID        string        `json:"trace_id"`
	CaseID         string        `json:"case_id"`
	Server         string        `json:"server"`
	RunID          string        `json:"run_id"`
	UserRole       string        `json:"user_role"`
	AsUser         string        `json:"as_user"`
	Question       string        `json:"question"`
	Outcome        model.Outcome `json:"outcome"`
	StartedAt      string        `json:"started_at"`
	Status         model.Status  `json:"status"`
	SuggestedClass string        `json:"suggested_class"`
	LabelClass     string        `json:"label_class"`
	Markers        int           `json:"markers"`
	Steps          int           `json:"steps"`
	NeedsReview    bool          `json:"needs_review"`
	Queued         bool          `json:"queued"`
	Scored         bool          `json:"scored"` // false until the scorer ran on it
	Model          string        `json:"model"`  // the model that answered, when the source said
	// ReservedBy is the labeler holding the trace now (see Reserve), "" when nobody does.
	ReservedBy string `json:"reserved_by,omitempty"`
	// Incomplete says what the stream the trace was read from lacked
	// (model.MetaIncomplete), "" for a whole trace.
	Incomplete string `json:"incomplete,omitempty"`
	// Review says what new spans changed since a person confirmed the
	// trace's case (tracelab serve), "" when nothing did: the case waits
	// for a person to look again.
	Review string `json:"review,omitempty"`
	// Edited: the case is a suggestion a person changed and did not
	// confirm (set by the engine's ListTraces, not by the store).
	Edited bool `json:"edited,omitempty"`
	pk     int64
}

// Class is the class a person gave, else the machine's suggestion.
func (t TraceSummary) Class() string {
	if t.LabelClass != "" {
		return t.LabelClass
	}
	return t.SuggestedClass
}

// Filter narrows the traces listed; empty fields do not filter. Values
// within one field are alternatives; fields combine with AND.
type Filter struct {
	Classes    []string // failure classes; "none" matches traces without one
	Statuses   []model.Status
	Servers    []string
	Tools      []string
	Roles      []string
	Outcomes   []model.Outcome
	Search     string // substring of question, trace id or case id, or words its steps hold (search.go)
	QueuedOnly bool
	TraceIDs   []string
	// Disputed keeps the traces whose raters disagree and nobody
	// adjudicated yet: the adjudication queue.
	Disputed bool
}

// SortKey orders the list.
type SortKey string

const (
	SortImported SortKey = "imported"
	SortServer   SortKey = "server"
	SortStarted  SortKey = "started"
	SortClass    SortKey = "class"
	SortStatus   SortKey = "status"
	SortMarkers  SortKey = "markers"
)

// SortKeys lists the sort orders in the order `s` cycles through them.
var SortKeys = []SortKey{SortImported, SortServer, SortStarted, SortClass, SortStatus, SortMarkers}

// Cursor marks where a page ended, for keyset paging.
type Cursor struct {
	Key any
	PK  int64
}

// Query is one page request.
type Query struct {
	Filter Filter
	Sort   SortKey
	Desc   bool
	After  *Cursor // nil for the first page
	Limit  int     // default 100
}

// summarySelect selects a summary row; the first column is the sort key so
// the cursor of the next page can carry it. The trace's case, its status
// and label class and the suggested class are the trace row's own columns
// (kept in step with cases and scores by triggers), so neither the page
// nor the counts read a case's JSON.
const summarySelect = `SELECT %s AS sort_key, t.trace_id, t.case_id, t.server, t.run_id, t.user_role, t.as_user,
	t.question, t.outcome, t.started_at, t.case_status, t.suggested_class,
	t.label_class, COALESCE(s.markers, 0), t.step_count,
	COALESCE(s.needs_review, 0), t.queued, t.id, s.trace_pk IS NOT NULL, t.model, COALESCE(r.labeler, ''),
	CASE WHEN t.metadata LIKE '%%"` + model.MetaIncomplete + `":%%' THEN t.metadata ELSE '' END,
	CASE WHEN t.case_status = 'confirmed' THEN COALESCE((SELECT c.review FROM cases c WHERE c.case_id = t.case_id), '') ELSE '' END
	FROM traces t
	LEFT JOIN scores s ON s.trace_pk = t.id
	LEFT JOIN reservations r ON r.trace_pk = t.id AND r.expires_ms > ?`

// effective class and status as SQL expressions, shared by filter, sort and counts.
const (
	classExpr  = `t.queue_class`
	statusExpr = `t.case_status`
)

func sortExpr(k SortKey) string {
	switch k {
	case SortServer:
		return "t.server"
	case SortStarted:
		return "t.started_at"
	case SortClass:
		return classExpr
	case SortStatus:
		return statusExpr
	case SortMarkers:
		return "COALESCE(s.markers, 0)"
	}
	return "t.id"
}

// where builds the WHERE clause of a filter with its parameters.
func (f Filter) where(d *dialect) (string, []any) {
	return f.whereSorted(d, "")
}

// whereSorted is where for a page in the order of sort, an index's
// column or "" (none, or the trace's id). On SQLite the search's trace
// ids drive the page, except in an index's order: there reading the
// index and keeping the traces in the ids costs the same for any search,
// where sorting every trace holding a common word cost 370 ms at
// 100,000 traces.
func (f Filter) whereSorted(d *dialect, sort SortKey) (string, []any) {
	var conds []string
	var args []any
	in := func(expr string, vals []string) {
		if len(vals) == 0 {
			return
		}
		conds = append(conds, expr+" IN ("+placeholders(len(vals))+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in(classExpr, f.Classes)
	in(statusExpr, toStrings(f.Statuses))
	in("t.server", f.Servers)
	in("t.user_role", f.Roles)
	in("t.outcome", toStrings(f.Outcomes))
	in("t.trace_id", f.TraceIDs)
	if len(f.Tools) > 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM steps st WHERE st.trace_pk = t.id AND st.tool IN ("+
			placeholders(len(f.Tools))+"))")
		for _, v := range f.Tools {
			args = append(args, v)
		}
	}
	if f.Search != "" {
		cond, sargs := d.queueSearchCond(f.Search)
		if d == sqliteDialect && sort != "" {
			cond = "+" + cond // a unary plus keeps the ids from driving
		}
		conds = append(conds, cond)
		args = append(args, sargs...)
	}
	if f.QueuedOnly {
		conds = append(conds, "t.queued = 1")
	}
	if f.Disputed {
		conds = append(conds, "t.disputed = 1")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func toStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// ListTraces returns one page of trace summaries and the cursor of the
// next page (nil at the end). Paging is keyset-based: cost does not grow
// with how far the user has scrolled.
func (s *Store) ListTraces(ctx context.Context, q Query) ([]TraceSummary, *Cursor, error) {
	if q.Limit <= 0 {
		q.Limit = 100
	}
	var indexed SortKey
	switch q.Sort {
	case SortServer, SortStarted, SortClass, SortStatus:
		indexed = q.Sort
	}
	where, args := q.Filter.whereSorted(s.d, indexed)
	if b := searchPageOf(s.d, q); b != nil {
		cond, cargs := s.d.queueSearchCondPage(q.Filter.Search, b)
		where, args = " WHERE "+cond, cargs
	}
	expr := sortExpr(q.Sort)
	dir, cmp := "ASC", ">"
	if q.Desc {
		dir, cmp = "DESC", "<"
	}
	if q.After != nil {
		kc := fmt.Sprintf("(%s, t.id) %s (?, ?)", expr, cmp)
		if where == "" {
			where = " WHERE " + kc
		} else {
			where += " AND " + kc
		}
		args = append(args, q.After.Key, q.After.PK)
	}
	query := fmt.Sprintf(summarySelect, expr) + where + fmt.Sprintf(" ORDER BY %s %s, t.id %s LIMIT ?", expr, dir, dir)
	args = append(append([]any{s.nowMS()}, args...), q.Limit+1)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []TraceSummary
	var keys []any
	for rows.Next() {
		var ts TraceSummary
		var key any
		var outcome, status, meta string
		if err := rows.Scan(&key, &ts.TraceID, &ts.CaseID, &ts.Server, &ts.RunID, &ts.UserRole, &ts.AsUser,
			&ts.Question, &outcome, &ts.StartedAt, &status, &ts.SuggestedClass, &ts.LabelClass, &ts.Markers,
			&ts.Steps, &ts.NeedsReview, &ts.Queued, &ts.pk, &ts.Scored, &ts.Model, &ts.ReservedBy, &meta, &ts.Review); err != nil {
			return nil, nil, err
		}
		ts.Incomplete = incompleteOf(meta)
		ts.Outcome, ts.Status = model.Outcome(outcome), model.Status(status)
		out = append(out, ts)
		keys = append(keys, key)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	var next *Cursor
	if len(out) > q.Limit {
		out, keys = out[:q.Limit], keys[:q.Limit]
		next = &Cursor{Key: keys[len(keys)-1], PK: out[len(out)-1].pk}
	}
	return out, next, nil
}

// searchPageOf is the bound of queueSearchCondPage for a page of q: on
// SQLite, in trace id order, under a filter that is a search alone (its
// WHERE is the one the search makes); nil otherwise.
func searchPageOf(d *dialect, q Query) *searchPageBound {
	if d != sqliteDialect || sortExpr(q.Sort) != "t.id" || len(SearchTerms(q.Filter.Search)) == 0 {
		return nil
	}
	where, _ := q.Filter.where(d)
	if only, _ := (Filter{Search: q.Filter.Search}).where(d); where != only {
		return nil
	}
	b := &searchPageBound{desc: q.Desc, limit: q.Limit + 1}
	if q.After != nil {
		b.after = q.After.PK
	}
	return b
}

// incompleteOf reads model.MetaIncomplete from a trace's metadata JSON:
// the query only selects the metadata that may hold it (a LIKE both
// dialects run), and the key must be a top-level one.
func incompleteOf(meta string) string {
	if meta == "" {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(meta), &m) != nil {
		return ""
	}
	v, ok := m[model.MetaIncomplete]
	if !ok {
		return ""
	}
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return "incomplete"
}

// Counts are the queue header: how many traces per class and per status.
type Counts struct {
	Total    int
	ByClass  map[string]int // class name or "none"
	ByStatus map[model.Status]int
	Disputed int // traces whose raters disagree, not adjudicated yet
}

// Counts counts the traces matching f by class and by status. On SQLite
// the counts of the whole queue, or under a filter on class and status
// alone, are the ones the triggers of migration 0034 keep: a few rows,
// where counting read an index entry per trace.
func (s *Store) Counts(ctx context.Context, f Filter) (Counts, error) {
	where, args := f.where(s.d)
	q := sqlCounts + where + ` GROUP BY 1, 2`
	if s.d == sqliteDialect && keptCounts(s.d, f, where) {
		// classExpr and statusExpr name the same columns in queue_counts.
		q = sqlKeptCounts + where + ` GROUP BY 1, 2 HAVING sum(t.n) > 0`
	}
	return s.countsOf(ctx, q, args...)
}

// countsOf runs a counts query: class, status, traces, disputed ones.
func (s *Store) countsOf(ctx context.Context, q string, args ...any) (Counts, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return Counts{}, err
	}
	defer rows.Close()
	c := Counts{ByClass: map[string]int{}, ByStatus: map[model.Status]int{}}
	for rows.Next() {
		var class, status string
		var n, disputed int
		if err := rows.Scan(&class, &status, &n, &disputed); err != nil {
			return Counts{}, err
		}
		c.Total += n
		c.Disputed += disputed
		c.ByClass[class] += n
		c.ByStatus[model.Status(status)] += n
	}
	return c, rows.Err()
}

// keptCounts says a filter's condition (where, of f) is on class and
// status alone, which queue_counts can answer: f's condition is the one
// its classes and statuses make. Any other part of a filter, present or
// added later, adds a condition of its own.
func keptCounts(d *dialect, f Filter, where string) bool {
	only, _ := Filter{Classes: f.Classes, Statuses: f.Statuses}.where(d)
	return where == only
}

// Distinct lists the distinct values of one filterable attribute
// ("server", "tool", "user_role", "outcome"), for filter menus.
func (s *Store) Distinct(ctx context.Context, attr string) ([]string, error) {
	queries := map[string]string{
		"server":    `SELECT DISTINCT server FROM traces WHERE server <> '' ORDER BY 1`,
		"tool":      `SELECT DISTINCT tool FROM steps WHERE tool <> '' ORDER BY 1`,
		"user_role": `SELECT DISTINCT user_role FROM traces WHERE user_role <> '' ORDER BY 1`,
		"outcome":   `SELECT DISTINCT outcome FROM traces ORDER BY 1`,
	}
	q, ok := queries[attr]
	if !ok {
		return nil, fmt.Errorf("cannot list values of %q", attr)
	}
	return s.queryStrings(ctx, q)
}

// Trace loads one whole trace with its steps and the contracts it saw.
func (s *Store) Trace(ctx context.Context, traceID string) (*model.Trace, error) {
	ts, err := s.LoadTraces(ctx, []string{traceID})
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("trace %q: %w", traceID, ErrNotFound)
	}
	return ts[0], nil
}

// TraceIDs lists the ids of every trace matching f, in import order.
func (s *Store) TraceIDs(ctx context.Context, f Filter) ([]string, error) {
	where, args := f.where(s.d)
	return s.queryStrings(ctx, sqlTraceIDs+where+` ORDER BY t.id`, args...)
}

// loadBatch is how many traces LoadTraces reads per query.
const loadBatch = 400

// LoadTraces loads whole traces (steps and contracts included) by id, a
// batch of ids per query; unknown ids are skipped. The result keeps the
// order of ids.
func (s *Store) LoadTraces(ctx context.Context, ids []string) ([]*model.Trace, error) {
	return loadTraces(ctx, s.db, ids)
}

func loadTraces(ctx context.Context, db querier, ids []string) ([]*model.Trace, error) {
	ts, _, err := loadInBatches(ctx, db, ids, false)
	return ts, err
}

// loadInBatches is loadBatchOf over ids, loadBatch at a time: the traces
// in the order of ids and, with cases, the case of each that has one.
func loadInBatches(ctx context.Context, db querier, ids []string, cases bool) ([]*model.Trace, map[string]*CaseRecord, error) {
	ts := make([]*model.Trace, 0, len(ids))
	var byTrace map[string]*CaseRecord
	if cases {
		byTrace = map[string]*CaseRecord{}
	}
	for start := 0; start < len(ids); start += loadBatch {
		bt, bc, err := loadBatchOf(ctx, db, ids[start:min(start+loadBatch, len(ids))], cases)
		if err != nil {
			return nil, nil, err
		}
		ts = append(ts, bt...)
		maps.Copy(byTrace, bc)
	}
	return ts, byTrace, nil
}

// placeholders is the one place that writes a list of n parameters: "?, ?, ?".
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// withList fills the "(?*)" of a statement with n parameters.
func withList(q string, n int) string { return strings.Replace(q, "(?*)", "("+placeholders(n)+")", 1) }

// inLists calls fn with xs as the parameters of a "(?*)" list, loadBatch
// at a time, so that no statement outgrows a backend's limit on
// parameters.
func inLists[T any](xs []T, fn func(list []any) error) error {
	for start := 0; start < len(xs); start += loadBatch {
		if err := fn(anys(xs[start:min(start+loadBatch, len(xs))])); err != nil {
			return err
		}
	}
	return nil
}

// anys is xs as query parameters.
func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// loadBatchOf loads one batch of traces by id (LoadTraces) and, with
// cases, the case each has (CasesForTraces' records, see linkedCases).
func loadBatchOf(ctx context.Context, db querier, ids []string, cases bool) ([]*model.Trace, map[string]*CaseRecord, error) {
	q := sqlLoadTraces
	if cases {
		q = sqlLoadTracesLinked
	}
	rows, err := db.QueryContext(ctx, withList(q, len(ids)), anys(ids)...)
	if err != nil {
		return nil, nil, err
	}
	byPK := map[int64]*model.Trace{}
	byID := map[string]*model.Trace{}
	var pks []any
	var links []traceLink // with cases: what the case of each trace reads from it
	var pk int64
	var outcome string
	var meta sql.NullString
	var steps int
	for rows.Next() {
		t := &model.Trace{}
		dst := []any{&pk, &t.TraceID, &t.Server, &t.RunID, &t.UserRole, &t.AsUser, &t.Question, &t.StartedAt,
			&outcome, &t.Answer, &t.Usage.InputTokens, &t.Usage.OutputTokens, &t.Usage.USD, &meta,
			&t.Source.File, &t.Source.Format, &t.Source.Line, &t.Model, &t.Usage.Estimated, &steps}
		var l traceLink
		if cases {
			dst = append(dst, &l.caseID, &l.toolCalls, &l.turns)
		}
		if err := rows.Scan(dst...); err != nil {
			rows.Close()
			return nil, nil, err
		}
		t.Steps = make([]model.Step, 0, steps)
		t.Outcome = model.Outcome(outcome)
		if meta.Valid {
			if err := json.Unmarshal([]byte(meta.String), &t.Metadata); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("trace %s: metadata: %w", t.TraceID, err)
			}
		}
		byPK[pk], byID[t.TraceID] = t, t
		pks = append(pks, pk)
		if cases && l.caseID != "" {
			l.pk, l.t = pk, t
			links = append(links, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(pks) == 0 {
		return nil, nil, nil
	}
	srows, err := db.QueryContext(ctx, withList(sqlLoadSteps, len(pks)), pks...)
	if err != nil {
		return nil, nil, err
	}
	var body string
	var parts int
	var inParts map[int64]bodyStart // read once the rows are closed
	for srows.Next() {
		if err := srows.Scan(&pk, &body, &parts); err != nil {
			srows.Close()
			return nil, nil, err
		}
		if parts > 0 {
			if inParts == nil {
				inParts = map[int64]bodyStart{}
			}
			inParts[pk] = bodyStart{body, parts}
			continue
		}
		if err := decodeInto(byPK[pk], body); err != nil {
			srows.Close()
			return nil, nil, err
		}
	}
	srows.Close()
	if err := srows.Err(); err != nil {
		return nil, nil, err
	}
	whole, err := wholeBodies(ctx, db, inParts)
	if err != nil {
		return nil, nil, err
	}
	for pk, body := range whole {
		if err := decodeInto(byPK[pk], body); err != nil {
			return nil, nil, err
		}
	}
	names, err := loadContracts(ctx, db, pks, byPK)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*model.Trace, 0, len(ids))
	for _, id := range ids {
		if t, ok := byID[id]; ok {
			out = append(out, t)
		}
	}
	if !cases {
		return out, nil, nil
	}
	linked, err := linkedCases(ctx, db, links, names)
	return out, linked, err
}

// decodeInto appends the steps of body to t's.
func decodeInto(t *model.Trace, body string) (err error) {
	if t.Steps, err = decodeStepsBody(body, t.Steps); err != nil {
		return fmt.Errorf("trace %s: %w", t.TraceID, err)
	}
	return nil
}

// loadContracts adds to the traces of byPK (by row id, pks) the tool
// contracts they were listed with. The traces of a run repeat one tool
// list: each contract body is read and decoded once per batch, by
// fingerprint, and the contracts share their (read-only) bytes.
func loadContracts(ctx context.Context, db querier, pks []any, byPK map[int64]*model.Trace) (contractNames, error) {
	type link struct {
		pk       int64
		name, fp string
	}
	var links []link
	var fps []string
	seen := map[string]bool{}
	names := contractNames{}
	rows, err := db.QueryContext(ctx, withList(sqlLoadContracts, len(pks)), pks...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var l link
		if err := rows.Scan(&l.pk, &l.name, &l.fp); err != nil {
			rows.Close()
			return nil, err
		}
		links = append(links, l)
		names[l.pk] = append(names[l.pk], [2]string{l.name, l.fp})
		if !seen[l.fp] {
			seen[l.fp] = true
			fps = append(fps, l.fp)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(fps) == 0 {
		return names, err
	}
	decoded, err := contractBodies(ctx, db, fps)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		if tc, ok := decoded[l.fp]; ok {
			byPK[l.pk].Tools = append(byPK[l.pk].Tools, tc)
		}
	}
	return names, nil
}

// Statements a Filter's WHERE clause is appended to.
const (
	sqlCounts = `SELECT ` + classExpr + `, ` + statusExpr + `, count(*), COALESCE(sum(t.disputed), 0) FROM traces t`
	// sqlKeptCounts is sqlCounts from the counts migration 0034 keeps.
	sqlKeptCounts = `SELECT ` + classExpr + `, ` + statusExpr + `, sum(t.n), sum(t.disputed) FROM queue_counts t`
	sqlTraceIDs   = `SELECT t.trace_id FROM traces t`
)

// loadTraceColumns are the columns loadBatchOf scans a trace from.
const loadTraceColumns = `id, trace_id, server, run_id, user_role, as_user, question, started_at,
	outcome, answer, input_tokens, output_tokens, usd, metadata, source_file, source_format, source_line,
	model, usd_estimated, step_count`

// Statements with a list of parameters, "(?*)" (see withList).
const (
	sqlLoadTraces = `SELECT ` + loadTraceColumns + ` FROM traces WHERE trace_id IN (?*)`
	// sqlLoadTracesLinked is sqlLoadTraces with what the trace's case
	// reads from it (see linkedCases).
	sqlLoadTracesLinked = `SELECT ` + loadTraceColumns + `, case_id, tool_calls, turns FROM traces WHERE trace_id IN (?*)`
	sqlLoadSteps        = `SELECT trace_pk, body, parts FROM step_bodies WHERE trace_pk IN (?*)`
	sqlLoadContracts    = `SELECT trace_pk, name, fingerprint FROM trace_contracts
		WHERE trace_pk IN (?*) ORDER BY trace_pk, name`
	sqlContractBodies = `SELECT fingerprint, body FROM contracts WHERE fingerprint IN (?*)`
)

// queryStrings runs a query of one text column and returns its values.
func (s *Store) queryStrings(ctx context.Context, q string, args ...any) ([]string, error) {
	return queryColumn[string](ctx, s.db, q, args...)
}

// queryColumn runs a query of one column and returns its values.
func queryColumn[T any](ctx context.Context, db querier, q string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
