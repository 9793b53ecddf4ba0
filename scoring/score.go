package scoring

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// How commands and the TUI use this file:
//
//	s, err := scoring.NewScorer(scoring.Config{Lexicon: ..., Lineage: ..., Glossary: ..., Policy: ...})
//	ts := s.ScoreCase(trace, caseOrNil)         // one trace: TraceScore, JSON for the store and --format jsonl
//	all := s.ScoreAll(jobs, 0)                  // many traces on a worker pool, in job order
//	label := scoring.SuggestLabel(ts)           // the machine's label; a confirmed one overrides it
//	v := scoring.DecideVerdict(humanOrNil, ts)  // the verdict, field by field: a person's where set, else the scorer's
//	gold := s.SuggestGold(trace, ts, peers)     // pre-filled gold for a trace without a confirmed one
//	report := scoring.BuildReport(results)      // report.json, one object per server
//	labels := scoring.BuildLabelStatus(results) // per server: labeled / label pending / suggested, beside report.json
//
// Metrics, as the seed defines them, with the choices it leaves open:
//   - grounding precision is the mean of the per-call precisions of the
//     calls that used a field, recall the share of required fields any
//     call used (DESIGN.md, "Precision and recall"); calls the tool
//     rejected (is_error), catalog reads (list_tables, describe_*) and
//     pagination/control arguments use no fields. Fields compare lower
//     case with a leading schema dropped.
//   - a tool argument counts as the table.column fields its lineage names
//     (contract _meta.lineage, overridden by Config.Lineage); without
//     lineage it is "tool.argument".
//   - definition match, freshness and policy are per task; undecidable
//     checks are null and put the task in needs_human_review.

// Config is everything scoring needs besides the trace and its gold.
type Config struct {
	Lexicon  []string        // guess-marker phrases; nil means DefaultLexicon
	Lineage  Lineage         // a --lineage file; wins over the contracts' _meta.lineage
	Glossary []GlossaryEntry // governed terms
	Policy   PolicyOracle    // nil: policy is not checked and policy_violations is null
	// Now is the trace time for traces without started_at (freshness is
	// measured against the trace's own time, never the clock).
	Now time.Time
}

// FieldStatus is one field a trace used, with what the gold says of it.
type FieldStatus struct {
	Field  string `json:"field"`
	Status string `json:"status"` // required | forbidden | neutral
	Steps  []int  `json:"steps"`  // tool_call steps that used it
	Roles  []Role `json:"roles,omitempty"`
}

// Field statuses.
const (
	FieldRequired  = "required"
	FieldForbidden = "forbidden"
	FieldNeutral   = "neutral"
)

// Evidence is one line of support for a class: the step and why.
type Evidence struct {
	Step   int    `json:"step"`
	Reason string `json:"reason"`
}

// ClassSuggestion is one failure class that applies, with its evidence.
type ClassSuggestion struct {
	Class      model.FailureClass `json:"class"`
	Confidence float64            `json:"confidence"`
	Evidence   []Evidence         `json:"evidence"`
}

// CallViolation is the policy oracle's verdict on one call's result.
type CallViolation struct {
	Step       int         `json:"step"` // the tool_result step
	Violations []Violation `json:"violations"`
}

// TraceScore is the scoring of one trace: the object `score --format jsonl`
// prints, the row the store keeps and what the TUI draws. Pointers are null
// when a value does not apply or could not be decided.
type TraceScore struct {
	TraceID    string        `json:"trace_id"`
	CaseID     string        `json:"case_id"`
	Server     string        `json:"server"`
	FieldsUsed []FieldStatus `json:"fields_used"`
	Markers    []Marker      `json:"markers"`
	// MarkersMore counts the markers found past the caps (MaxStepMarkers,
	// MaxTraceMarkers) and not kept.
	MarkersMore        int                 `json:"markers_more,omitempty"`
	SuggestedClass     *model.FailureClass `json:"suggested_class"`
	Classes            []ClassSuggestion   `json:"classes"`
	GroundingPrecision *float64            `json:"grounding_precision"`
	GroundingRecall    *float64            `json:"grounding_recall"`
	// CallGrounding: each field-using call's precision, in step order;
	// empty when the gold names no required field.
	CallGrounding    []CallGrounding `json:"call_grounding,omitempty"`
	DefinitionMatch  *bool           `json:"definition_match"`
	FreshnessPass    *bool           `json:"freshness_pass"`
	PolicyViolations *int            `json:"policy_violations"` // calls with a violation
	Correct          *bool           `json:"correct"`
	Grounded         *bool           `json:"grounded"`
	NeedsHumanReview bool            `json:"needs_human_review"`

	// What the report needs besides the above, and the detail behind it.
	RunID          string          `json:"run_id,omitempty"`
	Calls          int             `json:"calls"`
	Clarifications int             `json:"clarifications"`
	CostUSD        float64         `json:"cost_usd"`
	ReviewReasons  []string        `json:"review_reasons,omitempty"`
	Violations     []CallViolation `json:"violations,omitempty"`
	UnparsedSQL    []Evidence      `json:"unparsed_sql,omitempty"`
	// Unscorable says why the trace could not be scored (unscorable.go);
	// DetailMore counts the detail entries past MaxDetail not kept.
	Unscorable string `json:"unscorable,omitempty"`
	DetailMore int    `json:"detail_more,omitempty"`
}

// Scorer scores traces under one Config. It is safe for concurrent use.
type Scorer struct {
	cfg       Config
	lex       *Lexicon
	terms     []termMatcher
	contracts sync.Map // contract bytes -> *contract
}

// NewScorer compiles the lexicon and the glossary.
func NewScorer(cfg Config) (*Scorer, error) {
	phrases := cfg.Lexicon
	if phrases == nil {
		phrases = DefaultLexicon
	}
	lex, err := NewLexicon(phrases)
	if err != nil {
		return nil, err
	}
	s := &Scorer{cfg: cfg, lex: lex}
	for _, e := range cfg.Glossary {
		s.terms = append(s.terms, compileTerm(e))
	}
	return s, nil
}

// ScoreTrace scores one trace against its gold (nil when it has none).
func ScoreTrace(cfg Config, t *model.Trace, gold *model.Gold) (TraceScore, error) {
	s, err := NewScorer(cfg)
	if err != nil {
		return TraceScore{}, err
	}
	return s.Score(t, gold), nil
}

// ScoreCase scores a trace against a suite case (nil when it has none);
// the score carries the case's id.
func (s *Scorer) ScoreCase(t *model.Trace, c *model.Case) TraceScore {
	if c == nil {
		return s.Score(t, nil)
	}
	ts := s.Score(t, &c.Gold)
	ts.CaseID = c.CaseID
	return ts
}

// Job is one trace to score with its gold.
type Job struct {
	Trace *model.Trace
	Gold  *model.Gold
}

// ScoreAll scores jobs on a pool of workers (0 means GOMAXPROCS) and
// returns the scores in job order.
func (s *Scorer) ScoreAll(jobs []Job, workers int) []TraceScore {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]TraceScore, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = s.Score(jobs[i].Trace, jobs[i].Gold)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func (s *Scorer) contract(tc model.ToolContract) *contract {
	key := string(tc.Raw)
	if key == "" {
		b, _ := json.Marshal(tc)
		key = string(b)
	}
	if c, ok := s.contracts.Load(key); ok {
		return c.(*contract)
	}
	c := parseContract(tc)
	s.contracts.Store(key, c)
	return c
}

// definition is one governed predicate the trace should have applied.
type definition struct {
	term  string
	text  string
	preds []Predicate
	// measure is set for a definition of a quantity with no predicate
	// ("revenue = SUM(orders.total) of closed orders"): it is decided by
	// its aggregate (measure.go).
	measure *measure
	err     string // why preds and measure are nil: the definition is undecidable
}

// readMeasure turns a definition with no predicate into a measure
// definition when it reads as "term = AGG(column) ...".
func readMeasure(d definition) definition {
	if d.err == "" || len(d.preds) > 0 {
		return d
	}
	if m, ok := parseMeasure(d.text); ok {
		d.measure, d.err = &m, ""
	}
	return d
}

// state is one trace being scored.
type state struct {
	s         *Scorer
	t         *model.Trace
	gold      *model.Gold
	calls     []*call
	contracts map[string]*contract
	lineage   Lineage
	markers   []Marker
	required  map[string]bool
	forbidden map[string]bool
	defs      []definition
	defMatch  []*bool // per defs entry
	defStep   []int   // the call step a mismatch is shown at
	terms     []termMatcher
	now       time.Time
	hasNow    bool // now is known (started_at, else Config.Now): year 1 is a time too
	answer    string
	review    []string
	// policyUndecided: the oracle could not decide on some result.
	policyUndecided bool
	ev              map[model.FailureClass]map[string]*kindEvidence
	fs              []FieldStatus // fieldStatuses, once computed
}

// score scores one trace (Score, unscorable.go, guards it).
func (s *Scorer) score(t *model.Trace, gold *model.Gold) TraceScore {
	st := &state{s: s, t: t, gold: gold, contracts: map[string]*contract{}, answer: t.FinalAnswer()}
	lin := Lineage{}
	for _, tc := range t.Tools {
		c := s.contract(tc)
		st.contracts[tc.Name] = c
		lin = lin.Merge(c.lineage)
	}
	st.lineage = lin.Merge(s.cfg.Lineage)
	st.calls = traceCalls(t)
	schema := Schema{}
	for _, c := range st.calls {
		if c.resVal != nil {
			schemaFromResult(c.resVal, schema)
		}
	}
	for _, c := range st.calls {
		c.contract = st.contracts[c.tool]
		// A call the tool rejected read nothing: it uses no fields.
		if !st.isError(c) {
			c.extractFields(t.Steps[c.step].Args, schema, st.lineage)
		}
	}
	var markersMore int
	st.markers, markersMore = s.lex.TraceMarkers(t)
	var started bool
	st.now, started = t.StartTime()
	st.hasNow = started || !s.cfg.Now.IsZero()
	if !started {
		st.now = s.cfg.Now
	}
	for _, tm := range s.terms {
		if tm.re.MatchString(t.Question) {
			st.terms = append(st.terms, tm)
		}
	}

	ts := TraceScore{
		TraceID: t.TraceID, CaseID: t.CaseID(), Server: t.Server, RunID: t.RunID,
		Calls: t.ToolCalls(), CostUSD: t.Usage.USD,
		FieldsUsed: []FieldStatus{}, Markers: st.markers, MarkersMore: markersMore, Classes: []ClassSuggestion{},
	}
	if ts.Markers == nil {
		ts.Markers = []Marker{}
	}
	for _, step := range t.Steps {
		if step.Kind == model.KindClarification {
			ts.Clarifications++
		}
	}
	for _, c := range st.calls {
		for i, a := range c.sql {
			if a.Err != "" {
				ts.UnparsedSQL = append(ts.UnparsedSQL, Evidence{Step: c.step, Reason: c.sqlSteps[i] + ": " + a.Err})
			}
		}
	}
	if len(ts.UnparsedSQL) > 0 {
		st.review = append(st.review, "SQL that did not parse: its fields are unknown")
	}

	st.goldSets()
	ts.FieldsUsed = st.fieldStatusesCached()
	if gold != nil {
		var amb []string
		for _, f := range ts.FieldsUsed {
			if strings.HasPrefix(f.Field, "?.") {
				amb = append(amb, f.Field)
			}
		}
		if len(amb) > 0 {
			st.review = append(st.review, "columns that did not resolve to a table: "+strings.Join(amb, ", "))
		}
	}
	ts.GroundingPrecision, ts.GroundingRecall, ts.CallGrounding = st.precisionRecall()
	ts.DefinitionMatch = st.definitionMatch()
	ts.FreshnessPass = st.freshness()
	ts.PolicyViolations, ts.Violations = st.policy()
	if gold != nil {
		ac := CheckAnswer(gold.Answer, gold.Tolerance, st.answer)
		ts.Correct = ac.Correct
		if ac.Correct == nil {
			st.review = append(st.review, "correctness: "+ac.Reason)
		}
	}
	ts.Classes = st.classify()
	for _, c := range ts.Classes {
		if c.Confidence >= SuggestThreshold {
			cl := c.Class
			ts.SuggestedClass = &cl
			break
		}
	}
	ts.Grounded = st.grounded(ts)
	ts.ReviewReasons = st.review
	ts.NeedsHumanReview = len(st.review) > 0
	return ts
}

// SuggestThreshold is the confidence a class needs to be suggested.
const SuggestThreshold = 0.5

func (st *state) goldSets() {
	st.required, st.forbidden = map[string]bool{}, map[string]bool{}
	if st.gold == nil {
		return
	}
	for _, f := range st.gold.RequiredFields {
		st.required[NormField(f)] = true
	}
	for _, f := range st.gold.ForbiddenFields {
		st.forbidden[NormField(f)] = true
	}
	seen := map[string]bool{}
	reqCols := map[string]bool{}
	for f := range st.required {
		reqCols[column(f)] = true
	}
	for _, d := range definitionClauses(st.gold.Definition) {
		term, preds, err := ParseDefinition(d)
		if err == nil && term == "" && len(preds) > 0 {
			// "largest = highest customers.arr_usd" reads back as the
			// predicate largest = highest: the term taken for a column.
			// A left side that is no required column is a term, and the
			// prose after it is no predicate.
			lhs, _, _ := strings.Cut(d, "=")
			lhs = strings.ToLower(strings.Join(strings.Fields(lhs), "_"))
			if column(strings.ToLower(preds[0].Field)) == lhs && !reqCols[lhs] {
				term, preds, err = lhs, nil, fmt.Errorf("%q reads as a term with no predicate after it", d)
			}
		}
		def := definition{term: strings.ToLower(strings.TrimSpace(term)), text: d, preds: preds}
		if err != nil {
			def.err = err.Error()
			if def.term == "" {
				def.term, _, _ = strings.Cut(d, "=")
				def.term = strings.ToLower(strings.TrimSpace(def.term))
			}
		}
		st.defs = append(st.defs, readMeasure(def))
		seen[def.term] = true
	}
	for _, tm := range st.terms {
		if seen[strings.ToLower(tm.entry.Term)] {
			continue
		}
		st.defs = append(st.defs, readMeasure(definition{term: strings.ToLower(tm.entry.Term), text: tm.entry.Definition, preds: tm.preds, err: tm.err}))
	}
}

// definitionClauses splits a gold definition into one "term = ..." clause
// per business term ("open ticket = status in (open, pending); urgent =
// priority urgent"); clauses with no =, <, >, "in" or "means" are context
// ("quarters are fiscal") and are dropped.
func definitionClauses(text string) []string {
	var out []string
	for _, c := range strings.Split(text, ";") {
		lc := " " + strings.ToLower(c) + " "
		if c = strings.TrimSpace(c); c != "" && strings.ContainsAny(c, "=<>") || strings.Contains(lc, " in ") || strings.Contains(lc, " means ") {
			out = append(out, c)
		}
	}
	return out
}

// usedFields is the union of the fields every call used, sorted.
func (st *state) usedFields() []string {
	set := map[string]bool{}
	for _, c := range st.calls {
		for f := range c.fields {
			set[f] = true
		}
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (st *state) fieldStatuses() []FieldStatus {
	used := st.usedFields()
	out := make([]FieldStatus, 0, len(used))
	for _, f := range used {
		fs := FieldStatus{Field: f, Status: FieldNeutral, Steps: []int{}}
		if st.required[f] {
			fs.Status = FieldRequired
		} else if st.forbidden[f] {
			fs.Status = FieldForbidden
		}
		var roles uint8 // roleBit of each
		for _, c := range st.calls {
			if rs, ok := c.fields[f]; ok {
				fs.Steps = append(fs.Steps, c.step)
				for _, r := range rs {
					roles |= roleBit(r)
				}
			}
		}
		for _, r := range roleOrder {
			if roles&roleBit(r) != 0 {
				fs.Roles = append(fs.Roles, r)
			}
		}
		out = append(out, fs)
	}
	return out
}

// CallGrounding is the grounding precision of one field-using call: the
// per-call values the task's precision is the mean of.
type CallGrounding struct {
	Step      int     `json:"step"` // the tool_call step
	Tool      string  `json:"tool"`
	Used      int     `json:"used"`     // fields the call used
	Required  int     `json:"required"` // of them, required by the gold
	Precision float64 `json:"precision"`
}

// precisionRecall is task-level grounding as DESIGN.md's "Precision and
// recall" settles it: precision is the mean over the field-using calls of
// each call's precision (the seed's "averaged across calls in the task");
// recall is the share of required fields used by any call, so a task that
// looks an id up and then acts on it, each call with its own required
// field, scores 1.0 / 1.0. Calls that use no field (discovery, rejected
// calls, only control arguments) do not count.
func (st *state) precisionRecall() (*float64, *float64, []CallGrounding) {
	if len(st.required) == 0 {
		return nil, nil, nil
	}
	var per []CallGrounding
	sum := 0.0
	for _, c := range st.calls {
		if len(c.fields) == 0 {
			continue
		}
		cg := CallGrounding{Step: c.step, Tool: c.tool, Used: len(c.fields)}
		for f := range c.fields {
			if st.required[f] {
				cg.Required++
			}
		}
		cg.Precision = round6(float64(cg.Required) / float64(cg.Used))
		sum += float64(cg.Required) / float64(cg.Used)
		per = append(per, cg)
	}
	hit := 0
	for _, f := range st.usedFields() {
		if st.required[f] {
			hit++
		}
	}
	var p *float64
	if len(per) > 0 {
		v := round6(sum / float64(len(per)))
		p = &v
	}
	return p, ratio(hit, len(st.required)), per
}

func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	v := round6(float64(n) / float64(d))
	return &v
}

// round6 rounds to six decimals. A value of 2^53/1e6 or more has no digits
// that far down, and scaling it could overflow a finite number to +Inf.
func round6(v float64) float64 {
	if math.Abs(v) >= (1<<53)/1e6 || math.IsNaN(v) {
		return v
	}
	return math.Round(v*1e6) / 1e6
}

// definitionMatch checks every definition the task carries; nil when there
// is none, or when one could not be decided (then a human reviews it).
func (st *state) definitionMatch() *bool {
	if len(st.defs) == 0 {
		return nil
	}
	st.defMatch = make([]*bool, len(st.defs))
	st.defStep = make([]int, len(st.defs))
	allTrue, anyFalse := true, false
	for i, d := range st.defs {
		m, step, why := st.matchDefinition(d)
		st.defMatch[i], st.defStep[i] = m, step
		switch {
		case m == nil:
			allTrue = false
			st.review = append(st.review, fmt.Sprintf("definition of %q: %s", d.term, why))
		case !*m:
			allTrue, anyFalse = false, true
		}
	}
	if anyFalse {
		return boolPtr(false)
	}
	if allTrue {
		return boolPtr(true)
	}
	return nil
}

// matchDefinition: a parsed SQL WHERE holding an equivalent of every
// conjunct, or a tool whose description states the predicate or whose
// lineage "$tool" covers its column, is a match. Parsed SQL without it is a
// mismatch. Anything else is undecidable.
func (st *state) matchDefinition(d definition) (*bool, int, string) {
	if d.err != "" {
		return nil, -1, "cannot read the definition: " + d.err
	}
	if d.measure != nil {
		return st.matchMeasure(d)
	}
	sawSQL, sawUnparsed, mismatchStep, undecidedStep, argMismatchStep := false, false, -1, -1, -1
	for _, c := range st.calls {
		if c.discovery || st.isError(c) {
			continue
		}
		for _, a := range c.sql {
			if a.Err != "" {
				sawUnparsed = true
				continue
			}
			sawSQL = true
			ok, undecided := MatchDefinition(d.preds, a.Where)
			if ok {
				return boolPtr(true), c.step, ""
			}
			if undecided && undecidedStep < 0 {
				undecidedStep = c.step
			}
			if mismatchStep < 0 {
				mismatchStep = c.step
			}
		}
		if len(c.sql) == 0 {
			// The seed's "predicate in the query or tool arguments".
			switch st.argsDefinition(c, d.preds) {
			case argsMatch:
				return boolPtr(true), c.step, ""
			case argsMismatch:
				if argMismatchStep < 0 {
					argMismatchStep = c.step
				}
				continue
			}
		}
		if len(c.sql) == 0 && st.toolEncodes(c, d) {
			return boolPtr(true), c.step, ""
		}
	}
	if argMismatchStep >= 0 && undecidedStep < 0 {
		return boolPtr(false), argMismatchStep, ""
	}
	if undecidedStep >= 0 {
		return nil, undecidedStep, fmt.Sprintf("the WHERE at step %d tests %s in a form the normalizer cannot compare with %s", undecidedStep, predColumns(d.preds), predText(d.preds))
	}
	if sawSQL {
		return boolPtr(false), mismatchStep, ""
	}
	if sawUnparsed {
		return nil, -1, "the SQL did not parse, so its WHERE cannot be compared"
	}
	return nil, -1, "no call applies the predicate in SQL or through a tool that states or encodes it"
}

// toolEncodes: the contract description names the predicate's column and
// every value, or the lineage "$tool" fields include the column.
func (st *state) toolEncodes(c *call, d definition) bool {
	for _, f := range st.lineage[c.tool+".$tool"] {
		for _, p := range d.preds {
			if column(f) == column(strings.ToLower(p.Field)) {
				return true
			}
		}
	}
	if c.contract == nil || c.contract.description == "" {
		return false
	}
	desc := strings.ToLower(c.contract.description)
	for _, p := range d.preds {
		if !containsPhrase(desc, column(strings.ToLower(p.Field))) {
			return false
		}
		for _, v := range p.Values {
			if !containsPhrase(desc, strings.ToLower(v)) {
				return false
			}
		}
	}
	return len(d.preds) > 0
}

func (st *state) isError(c *call) bool {
	return c.result >= 0 && st.t.Steps[c.result].IsError
}

// dataResults are the results of calls that read data (not discovery, not errors).
func (st *state) dataResults() []*call {
	var out []*call
	for _, c := range st.calls {
		if c.result >= 0 && !c.discovery && !st.isError(c) {
			out = append(out, c)
		}
	}
	return out
}

// asOf is the freshness stamp of a result: the step's as_of, else an
// "as_of" key of the result object.
func (st *state) asOf(c *call) string {
	if a := st.t.Steps[c.result].AsOf; a != "" {
		return a
	}
	if m, ok := c.resVal.(map[string]any); ok {
		for _, k := range []string{"as_of", "asOf"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	return ""
}

// freshness: every data result within the bound of the trace's time; a
// result with no as_of fails, and so does a task that read no data.
func (st *state) freshness() *bool {
	if st.gold == nil || st.gold.FreshnessBoundHours == nil {
		return nil
	}
	bound := time.Duration(*st.gold.FreshnessBoundHours * float64(time.Hour))
	if !st.hasNow {
		st.review = append(st.review, "freshness: the trace has no started_at to measure as_of against")
		return nil
	}
	res := st.dataResults()
	pass := len(res) > 0
	skew := false // an as_of ahead of the trace's start: see skewed
	for _, c := range res {
		a := st.asOf(c)
		if a == "" {
			st.evidence(model.ClassTemporal, "no_as_of", 0.6, c.result, fmt.Sprintf("result of %s carries no as_of; the case has a %gh freshness bound", c.tool, *st.gold.FreshnessBoundHours))
			pass = false
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, a)
		if err != nil {
			st.evidence(model.ClassTemporal, "no_as_of", 0.6, c.result, fmt.Sprintf("result of %s has an unreadable as_of %q", c.tool, a))
			pass = false
			continue
		}
		if st.skewed(c, at) {
			skew = true
			continue
		}
		if age := st.now.Sub(at); age > bound {
			st.evidence(model.ClassTemporal, "stale", 0.9, c.result, fmt.Sprintf("result of %s is %s old at the trace's time, over the %gh bound", c.tool, fmtHours(age), *st.gold.FreshnessBoundHours))
			pass = false
		}
	}
	if skew && pass {
		return nil // does not silently pass; the review reason says why
	}
	return &pass
}

func fmtHours(d time.Duration) string {
	return fmt.Sprintf("%gh", math.Round(d.Hours()*10)/10)
}

// policy asks the oracle about every data result. nil when no oracle is set.
func (st *state) policy() (*int, []CallViolation) {
	if st.s.cfg.Policy == nil {
		return nil, nil
	}
	scope := ""
	if st.gold != nil {
		scope = st.gold.PolicyScope
	}
	n := 0
	var out []CallViolation
	var errs []string
	for _, c := range st.dataResults() {
		call := PolicyCall{AsUser: st.t.AsUser, Scope: scope, Tool: c.tool,
			Args: st.t.Steps[c.step].Args, Result: st.t.Steps[c.result].Result}
		// The seed's "at least one row or column the as_user is not
		// entitled to": every row under any key (rows.go), the same rows
		// for the file oracle and an external command.
		if c.resVal != nil {
			call.Columns, call.Rows = resultRows(c.resVal)
		}
		vs, err := st.s.cfg.Policy.Check(call)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if len(vs) == 0 {
			continue
		}
		n++
		out = append(out, CallViolation{Step: c.result, Violations: vs})
		reason := fmt.Sprintf("%d part(s) of the %s result are outside %s's entitlement: %s", len(vs), c.tool, st.t.AsUser, vs[0].Reason)
		st.evidence(model.ClassPolicy, "oracle", 0.95, c.result, reason)
	}
	if len(errs) > 0 {
		st.policyUndecided = true
		st.review = append(st.review, "policy oracle could not decide: "+strings.Join(dedupe(errs), "; "))
	}
	return &n, out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// definitionUndecided: a definition whose match is unknown, because it
// could not be read or no call could be compared with it.
func (st *state) definitionUndecided() bool {
	for i := range st.defs {
		if i < len(st.defMatch) && st.defMatch[i] == nil {
			return true
		}
	}
	return false
}

// grounded: every required field used, no forbidden field, the definition
// matched, fresh, no violation and no class suggested. false as soon as one
// fails; null when there is no gold or a part could not be decided.
func (st *state) grounded(ts TraceScore) *bool {
	// Without gold a hedge before a field-using call is a suggestion for a
	// person, not a verdict (issue 28): grounded is unknown, not false.
	if st.noGold() && st.hedgeOnly(ts) {
		return nil
	}
	fail := ts.SuggestedClass != nil ||
		ts.GroundingRecall != nil && *ts.GroundingRecall < 1 ||
		ts.DefinitionMatch != nil && !*ts.DefinitionMatch ||
		ts.FreshnessPass != nil && !*ts.FreshnessPass ||
		ts.PolicyViolations != nil && *ts.PolicyViolations > 0
	for _, f := range ts.FieldsUsed {
		if f.Status == FieldForbidden {
			fail = true
		}
	}
	if fail {
		return boolPtr(false)
	}
	if st.gold == nil || st.gold.FreshnessBoundHours != nil && ts.FreshnessPass == nil || st.policyUndecided {
		return nil
	}
	// Issue 28, rule 1: "A task whose definition cannot be decided is never
	// reported grounded=true: grounded stays null (unknown) with the
	// reason." The seed's grounded is "whether the answer was correct for
	// the right reason", and for a definition the right reason is that
	// "the predicate in the query or tool arguments is equivalent to the
	// definition string in the gold record": when that is unknown, so is
	// grounded. The reason is the definition's review reason. Measures
	// ("revenue = SUM(orders.total) ...") are decided by their aggregate
	// (measure.go), so only what truly cannot be compared lands here.
	if st.definitionUndecided() {
		return nil
	}
	return boolPtr(true)
}

func predColumns(ps []Predicate) string {
	var cols []string
	for _, p := range ps {
		cols = append(cols, p.Field)
	}
	return strings.Join(dedupe(cols), ", ")
}
