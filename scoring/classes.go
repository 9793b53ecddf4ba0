package scoring

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// kindEvidence is the evidence of one kind (one symptom) for a class; a
// class's confidence combines the strongest line of each kind, so ten
// results without as_of weigh as one symptom, not ten.
type kindEvidence struct {
	conf  float64
	lines []Evidence
}

func (st *state) evidence(class model.FailureClass, kind string, conf float64, step int, reason string) {
	if st.ev == nil {
		st.ev = map[model.FailureClass]map[string]*kindEvidence{}
	}
	byKind := st.ev[class]
	if byKind == nil {
		byKind = map[string]*kindEvidence{}
		st.ev[class] = byKind
	}
	k := byKind[kind]
	if k == nil {
		k = &kindEvidence{}
		byKind[kind] = k
	}
	k.conf = math.Max(k.conf, conf)
	for _, l := range k.lines {
		if l.Step == step && l.Reason == reason {
			return
		}
	}
	k.lines = append(k.lines, Evidence{Step: step, Reason: reason})
}

// classify runs every class rule and ranks the classes that have evidence:
// by confidence, ties in the seed's order.
func (st *state) classify() []ClassSuggestion {
	wrongID := st.entityRules()
	st.semanticRules()
	st.structuralRules(wrongID)
	st.temporalRules()
	st.policyRules()
	out := []ClassSuggestion{}
	for _, class := range model.Classes {
		byKind := st.ev[class]
		if len(byKind) == 0 {
			continue
		}
		miss := 1.0
		var lines []Evidence
		for _, k := range byKind {
			miss *= 1 - k.conf
			lines = append(lines, k.lines...)
		}
		sort.SliceStable(lines, func(i, j int) bool {
			if lines[i].Step != lines[j].Step {
				return lines[i].Step < lines[j].Step
			}
			return lines[i].Reason < lines[j].Reason
		})
		out = append(out, ClassSuggestion{Class: class, Confidence: math.Round((1-miss)*100) / 100, Evidence: lines})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	return out
}

// --- semantic ---

func isRangeOp(op string) bool {
	switch op {
	case "<", "<=", ">", ">=", "between", "not between":
		return true
	}
	return false
}

// dateLiteral reads the date at the start of a literal: 2026-07-01,
// 2026-07-01 00:00:00, 2026-07-01T00:00:00Z.
func dateLiteral(v string) (time.Time, bool) {
	if len(v) < 10 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, v[:10])
	return t, err == nil
}

func hasDate(vals []string) bool {
	for _, v := range vals {
		if _, ok := dateLiteral(v); ok {
			return true
		}
	}
	return false
}

// dateFilters lists the WHERE conjuncts of parsed SQL that compare a column
// with a date, with the call step.
func (st *state) dateFilters() (steps []int, preds []Predicate) {
	for _, c := range st.calls {
		if st.isError(c) {
			continue
		}
		for _, a := range c.sql {
			for _, p := range a.Where {
				if (isRangeOp(p.Op) || p.Op == "=") && hasDate(p.Values) {
					steps = append(steps, c.step)
					preds = append(preds, p)
				}
			}
		}
	}
	return steps, preds
}

func (st *state) semanticRules() {
	// A hedge in the model's reasoning before it calls a tool.
	lastCall := -1
	for _, c := range st.calls {
		if !c.discovery {
			lastCall = max(lastCall, c.step)
		}
	}
	byStep := map[int][]string{}
	var stepsOrder []int
	noGold := st.noGold()
	for _, m := range st.markers {
		reasoning := st.t.Steps[m.Step].Kind == model.KindReasoning && m.Step <= lastCall
		if !reasoning && !(noGold && st.hedgeBeforeFieldCall(m.Step)) {
			continue
		}
		if _, ok := byStep[m.Step]; !ok {
			stepsOrder = append(stepsOrder, m.Step)
		}
		byStep[m.Step] = append(byStep[m.Step], fmt.Sprintf("%q", m.Text))
	}
	for _, s := range stepsOrder {
		next := -1
		for _, c := range st.calls {
			if c.step > s && !c.discovery && (st.t.Steps[s].Kind == model.KindReasoning || len(c.fields) > 0) {
				next = c.step
				break
			}
		}
		st.evidence(model.ClassSemantic, "guess_marker", 0.5, s,
			fmt.Sprintf("guess marker %s before the call at step %d", strings.Join(byStep[s], ", "), next))
	}

	// A forbidden field: a date-range filter on it is temporal evidence.
	_, dfs := st.dateFilters()
	dateCol := map[string]bool{}
	for _, p := range dfs {
		dateCol[NormField(p.Field)] = true
	}
	for _, fs := range st.fieldStatusesCached() {
		if fs.Status != FieldForbidden {
			continue
		}
		if dateCol[fs.Field] {
			continue // reported by temporalRules
		}
		st.evidence(model.ClassSemantic, "forbidden_field", 0.9, fs.Steps[0],
			fmt.Sprintf("forbidden field %s used", fs.Field))
	}

	// The WHERE does not apply the governed definition; a look-alike column
	// named like the term stands in for it.
	for i, d := range st.defs {
		if i >= len(st.defMatch) || st.defMatch[i] == nil || *st.defMatch[i] {
			continue
		}
		what, governed := "WHERE does not apply", predText(d.preds)
		if c := st.callAt(st.defStep[i]); c != nil && len(c.sql) == 0 {
			what = "the arguments of " + c.tool + " state another set than"
		}
		if d.measure != nil {
			what, governed = "the query computes another aggregate than", d.measure.String()
		}
		st.evidence(model.ClassSemantic, "definition_mismatch", 0.8, st.defStep[i],
			fmt.Sprintf("%s the definition of %q (%s)", what, d.term, governed))
		if d.term == "" {
			continue
		}
		govCols := map[string]bool{}
		for _, p := range d.preds {
			govCols[column(strings.ToLower(p.Field))] = true
		}
		for _, c := range st.calls {
			for _, a := range c.sql {
				for _, p := range a.Where {
					col := column(strings.ToLower(p.Field))
					if govCols[col] || !nameHasPart(col, d.term) {
						continue
					}
					st.evidence(model.ClassSemantic, "lookalike_column", 0.6, c.step,
						fmt.Sprintf("%s resembles the term %q, whose governed predicate is %s", p.Field, d.term, predText(d.preds)))
				}
			}
		}
	}
}

func (st *state) fieldStatusesCached() []FieldStatus {
	if st.fs == nil {
		st.fs = st.fieldStatuses()
	}
	return st.fs
}

// nameHasPart: is_active has the part "active"; a multi-word term matches
// its words joined by underscores.
func nameHasPart(col, term string) bool {
	t := strings.Join(strings.Fields(strings.ToLower(term)), "_")
	return col == t || strings.HasPrefix(col, t+"_") || strings.HasSuffix(col, "_"+t) || strings.Contains(col, "_"+t+"_")
}

func predText(ps []Predicate) string {
	var parts []string
	for _, p := range ps {
		switch p.Op {
		case "in", "not in":
			parts = append(parts, fmt.Sprintf("%s %s (%s)", p.Field, p.Op, strings.Join(p.Values, ", ")))
		default:
			parts = append(parts, strings.TrimSpace(fmt.Sprintf("%s %s %s", p.Field, p.Op, strings.Join(p.Values, " and "))))
		}
	}
	return strings.Join(parts, " and ")
}

// --- structural ---

func singular(t string) string {
	switch {
	case strings.HasSuffix(t, "ies"):
		return t[:len(t)-3] + "y"
	case strings.HasSuffix(t, "sses"), strings.HasSuffix(t, "xes"):
		return t[:len(t)-2]
	case strings.HasSuffix(t, "s"):
		return t[:len(t)-1]
	}
	return t
}

func table(f string) string {
	if i := strings.LastIndexByte(f, '.'); i >= 0 {
		return f[:i]
	}
	return ""
}

// fansOut: the join goes from parent's key to a child's foreign key on it
// (orders.id = order_lines.order_id), so each parent row repeats per child.
func fansOut(parent string, j Join) (child string, ok bool) {
	for _, side := range [][2]string{{j.Left, j.Right}, {j.Right, j.Left}} {
		p, c := strings.ToLower(side[0]), strings.ToLower(side[1])
		if table(p) != parent || table(c) == parent || table(c) == "" {
			continue
		}
		one := singular(parent)
		pk := column(p) == "id" || column(p) == one+"_id"
		fk := column(c) == one+"_id" || column(c) == parent+"_id"
		if pk && fk {
			return table(c), true
		}
	}
	return "", false
}

func (st *state) structuralRules(wrongID map[int]bool) {
	for _, c := range st.calls {
		if st.isError(c) {
			continue
		}
		for _, a := range c.sql {
			st.fanOutRule(c, a)
		}
	}
	// A paginated result not followed up: a later call to the same tool
	// for something else does not fetch the next page.
	for _, c := range st.dataResults() {
		if wrongID[c.step] || !st.paginated(c) {
			continue
		}
		next := st.nextPage(c)
		followed := false
		for _, d := range st.calls {
			if d.step > c.step && d.tool == c.tool && next.fetchedBy(d) {
				followed = true
				break
			}
		}
		if !followed {
			what := "no later " + c.tool + " call fetched it"
			if next.cursor != "" {
				what = fmt.Sprintf("no later %s call passed its cursor %q", c.tool, next.cursor)
			} else if next.page > 0 {
				what = fmt.Sprintf("no later %s call asked for page %d", c.tool, next.page)
			}
			st.evidence(model.ClassStructural, "pagination", 0.85, c.result,
				fmt.Sprintf("%s returned a page with more to come and %s", c.tool, what))
		}
	}
	st.centsRules()
}

// pageRef is how the next page of a result is asked for: its cursor, or
// the next page number or offset; all zero when the result names none.
type pageRef struct {
	cursor       string
	page, offset int
}

// nextPage reads the cursor a result hands out (the step's next_cursor or
// the result's next_cursor / next_page_token), else the next page number
// (the result's next_page, or the call's page + 1) or the next offset (the
// result's next_offset, or the call's offset + limit).
func (st *state) nextPage(c *call) pageRef {
	var ref pageRef
	if ref.cursor = st.t.Steps[c.result].NextCursor; ref.cursor != "" {
		return ref
	}
	m, _ := c.resVal.(map[string]any)
	for _, k := range []string{"next_cursor", "nextCursor", "next_page_token", "nextPageToken", "cursor_next"} {
		if v, ok := m[k].(string); ok && v != "" {
			ref.cursor = v
			return ref
		}
	}
	if v, ok := m["next_page"].(float64); ok {
		ref.page = int(v)
	} else if p, ok := argNumber(c.args, "page"); ok {
		ref.page = p + 1
	}
	if v, ok := m["next_offset"].(float64); ok {
		ref.offset = int(v)
	} else if l, ok := argNumber(c.args, "limit"); ok {
		o, _ := argNumber(c.args, "offset")
		ref.offset = o + l
	}
	return ref
}

// fetchedBy: the call d asks for this next page. With a cursor, some
// argument must carry that very value; with a page number or offset, the
// page or offset argument must name it. A result that says "more" and
// names no way to get it is followed by any call that turns a page
// (passes a pagination argument).
func (r pageRef) fetchedBy(d *call) bool {
	switch {
	case r.cursor != "":
		return hasStringValue(d.args, r.cursor)
	case r.page > 0 || r.offset > 0:
		p, okP := argNumber(d.args, "page")
		o, okO := argNumber(d.args, "offset")
		return r.page > 0 && okP && p == r.page || r.offset > 0 && okO && o == r.offset
	}
	for _, name := range d.argOrder {
		if isControlArg(name, d.contract) && !strings.EqualFold(name, "limit") {
			return true
		}
	}
	return false
}

// argNumber reads an integer argument given as a number or a numeric string.
func argNumber(args map[string]any, name string) (int, bool) {
	for k, v := range args {
		if !strings.EqualFold(k, name) {
			continue
		}
		switch x := v.(type) {
		case float64:
			return int(x), true
		case string:
			var n int
			if _, err := fmt.Sscan(x, &n); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

// hasStringValue: some argument, at any depth, is exactly s.
func hasStringValue(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case map[string]any:
		for _, e := range x {
			if hasStringValue(e, s) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasStringValue(e, s) {
				return true
			}
		}
	}
	return false
}

func (st *state) paginated(c *call) bool {
	s := st.t.Steps[c.result]
	if s.NextCursor != "" || s.HasMore {
		return true
	}
	m, ok := c.resVal.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"has_more", "hasMore"} {
		if v, ok := m[k].(bool); ok && !v {
			return false // a cursor may still be echoed; the result says it is the last page
		}
	}
	for _, k := range []string{"next_cursor", "nextCursor", "next_page_token", "nextPageToken", "cursor_next"} {
		if v, ok := m[k].(string); ok && v != "" {
			return true
		}
	}
	for _, k := range []string{"has_more", "hasMore", "more"} {
		if v, ok := m[k].(bool); ok && v {
			return true
		}
	}
	return false
}

// convertsCents: the statement turns cents into units somewhere.
var convertsCents = regexp.MustCompile(`/\s*100(\.0*)?\b|\*\s*0?\.01\b`)

var currencyRe = regexp.MustCompile(`(?i)[$€£]|\b(usd|eur|gbp|dollars?|euros?)\b`)

// moneyRe finds currency amounts in prose: $10,000, €2.5m, 10000 USD.
var moneyRe = regexp.MustCompile(`(?i)[$€£]\s?[0-9][0-9,]*(?:\.[0-9]+)?\s?(?:k|m|bn|thousand|million|billion)?\b|\b[0-9][0-9,]*(?:\.[0-9]+)?\s?(?:k|m|thousand|million)?\s?(?:usd|eur|gbp|dollars?|euros?)\b`)

// dollarAmounts are the money amounts the question and the gold state:
// currency amounts in the question and the definition, and a numeric gold
// answer when the question is about money.
func (st *state) dollarAmounts() []float64 {
	var out []float64
	texts := []string{st.t.Question}
	if st.gold != nil {
		texts = append(texts, st.gold.Definition)
	}
	for _, t := range texts {
		for _, m := range moneyRe.FindAllString(t, -1) {
			vs, _ := ParseNumbers(m)
			out = append(out, vs...)
		}
	}
	if st.gold != nil && currencyRe.MatchString(st.t.Question) {
		var g float64
		if _, err := fmt.Sscan(strings.TrimSpace(string(st.gold.Answer)), &g); err == nil {
			out = append(out, g)
		}
	}
	return out
}

// centsName: a column or argument named in minor units.
func centsName(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "cents") || strings.HasSuffix(n, "_minor") || strings.Contains(n, "minor_units")
}

var centsDesc = regexp.MustCompile(`(?i)\bcents\b|\bminor units?\b|\bin pennies\b`)

// centsLiteralRules: a filter on a cents column or a cents argument whose
// literal is a dollar amount of the question or the gold (amount_cents >
// 10000 for "over $10,000"): the comparison is off by a factor of 100.
func (st *state) centsLiteralRules() {
	// The question's amounts are read only once a cents literal turns up:
	// most traces have none, and the money pattern is not cheap.
	var dollars []float64
	read := false
	isDollar := func(v string) (float64, bool) {
		f, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", ""), 64)
		if err != nil || f == 0 {
			return 0, false
		}
		if !read {
			dollars, read = st.dollarAmounts(), true
		}
		for _, d := range dollars {
			if math.Abs(f-d) < 1e-9 {
				return f, true
			}
		}
		return 0, false
	}
	for _, c := range st.calls {
		if c.discovery || st.isError(c) {
			continue
		}
		for _, a := range c.sql {
			for _, p := range a.Where {
				if p.Op == "other" || !centsName(column(p.Field)) {
					continue
				}
				for _, v := range p.Values {
					if f, ok := isDollar(v); ok {
						st.evidence(model.ClassStructural, "cents_literal", 0.8, c.step,
							fmt.Sprintf("%s %s %s compares cents with the dollar amount %s of the question or gold", p.Field, p.Op, v, fmtNum(f)))
					}
				}
			}
		}
		if len(c.sql) > 0 {
			continue
		}
		for _, name := range c.argOrder {
			if !c.contract.arg(name).cents {
				continue
			}
			var v string
			switch x := c.args[name].(type) {
			case float64:
				v = fmt.Sprint(x)
			case string:
				v = x
			default:
				continue
			}
			if f, ok := isDollar(v); ok {
				st.evidence(model.ClassStructural, "cents_literal", 0.8, c.step,
					fmt.Sprintf("%s(%s=%s): the argument is in cents, %s is the dollar amount of the question or gold", c.tool, name, v, fmtNum(f)))
			}
		}
	}
}

// centsRules: the answer is the gold amount times 100 (cents read as
// dollars), or a currency amount in the answer equals a raw value of a
// result column named in cents.
func (st *state) centsRules() {
	st.centsLiteralRules()
	if !strings.ContainsAny(st.answer, "0123456789") {
		return
	}
	ansStep := st.answerStep()
	// The answer's numbers, read when a rule below needs them: most
	// traces have no gold answer and no money column.
	var vals []float64
	parsed := false
	numbers := func() []float64 {
		if !parsed {
			vals, _ = ParseNumbers(st.answer)
			parsed = true
		}
		return vals
	}
	if st.gold != nil {
		var g float64
		if raw := strings.TrimSpace(string(st.gold.Answer)); raw != "" {
			if _, err := fmt.Sscan(raw, &g); err == nil && g != 0 {
				for _, v := range numbers() {
					if math.Abs(v-g*100) <= math.Max(1, math.Abs(g)*1e-6) {
						st.evidence(model.ClassStructural, "cents", 0.9, ansStep,
							fmt.Sprintf("the answer %s is the gold amount %s times 100: cents reported as dollars", fmtNum(v), fmtNum(g)))
					} else if math.Abs(v*100-g) <= math.Max(1, math.Abs(g)*1e-6) && v != g {
						st.evidence(model.ClassStructural, "cents", 0.9, ansStep,
							fmt.Sprintf("the answer %s is the gold amount %s divided by 100: dollars reported as cents", fmtNum(v), fmtNum(g)))
					}
				}
			}
		}
	}
	if !currencyRe.MatchString(st.answer) {
		return
	}
	// SQL that sums a cents column without dividing by 100, for an answer
	// in money: the call is where the unit went wrong.
	for _, c := range st.dataResults() {
		for _, a := range c.sql {
			if convertsCents.MatchString(a.SQL) {
				continue
			}
			for _, ag := range a.Aggregates {
				if centsName(column(ag.Field)) && (ag.Func == "sum" || ag.Func == "avg") {
					st.evidence(model.ClassStructural, "cents_sql", 0.6, c.step,
						fmt.Sprintf("%s(%s) adds up cents and nothing divides by 100; the answer is in money", ag.Func, ag.Field))
				}
			}
		}
	}
	for _, c := range st.dataResults() {
		cols, rows := resultTable(c.resVal)
		for _, col := range cols {
			if !centsName(col) {
				continue
			}
			sum := 0.0
			var cells []float64
			for _, r := range rows {
				if f, ok := r[col].(float64); ok {
					cells = append(cells, f)
					sum += f
				}
			}
			cells = append(cells, sum)
			for _, v := range numbers() {
				for _, cell := range cells {
					if cell != 0 && math.Abs(v-cell) < 0.5 {
						st.evidence(model.ClassStructural, "cents", 0.8, ansStep,
							fmt.Sprintf("the answer states %s as money, the raw value of %s.%s (cents)", fmtNum(v), c.tool, col))
					}
				}
			}
		}
	}
}

func fmtNum(v float64) string { return fmt.Sprintf("%.2f", v) }

func (st *state) answerStep() int {
	for i := len(st.t.Steps) - 1; i >= 0; i-- {
		if st.t.Steps[i].Kind == model.KindAnswer {
			return i
		}
	}
	return len(st.t.Steps) - 1
}

// --- temporal ---

// timestampColumns are the fields a date filter should be on: the glossary
// terms' timestamp columns and the date-like required fields.
func (st *state) timestampColumns() map[string]bool {
	out := map[string]bool{}
	for _, tm := range st.terms {
		if tm.entry.TimestampColumn != "" {
			out[NormField(tm.entry.TimestampColumn)] = true
		}
	}
	for f := range st.required {
		col := column(f)
		for _, suf := range []string{"_at", "_date", "date", "_start", "_end", "_time", "_ts", "_on"} {
			if strings.HasSuffix(col, suf) {
				out[f] = true
			}
		}
	}
	return out
}

func listOr(set map[string]bool, none string) string {
	if len(set) == 0 {
		return none
	}
	var xs []string
	for k := range set {
		xs = append(xs, k)
	}
	sort.Strings(xs)
	return strings.Join(xs, " or ")
}

// --- policy ---

func (st *state) policyRules() {
	if st.t.AsUser == "" {
		return
	}
	for _, c := range st.calls {
		cred := st.t.Steps[c.step].Credential
		// Catalog reads (describe_table) return schema, not rows: only data
		// calls run as someone else are evidence.
		if c.discovery {
			continue
		}
		if cred != "" && !strings.EqualFold(cred, st.t.AsUser) {
			st.evidence(model.ClassPolicy, "credential", 0.7, c.step,
				fmt.Sprintf("%s ran as %s, not as the end user %s", c.tool, cred, st.t.AsUser))
		}
	}
}
