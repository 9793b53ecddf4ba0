package scoring

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Entity evidence, as the seed's trace symptom reads: "An argument whose
// format matches one ID scheme passed into a tool that documents another,
// or no documentation of which scheme at all. Often followed by an empty
// result the agent treats as a true negative." Each symptom is its own
// kind, so their confidences combine (1 - Π(1 - c)) and rise with each:
//
//	(1) wrong_scheme     0.9 pattern / format / enum, 0.7 documented example or scheme name
//	    scheme_source    0.85 the value came out of a result field naming another scheme
//	(2) undocumented     0.45 no scheme documented, fed one of several ids a result offered
//	    other_entity     0.5 the call's result then names another entity than the lookup's
//	(3) empty_negative   0.4 alone; 0.6 after (1) or (2)
//
// A wrong-scheme id followed by an empty result read as "none" is
// 1 - 0.1·0.4 ≈ 0.96, and with its source 0.99: above any single symptom
// of another class, so it wins the suggestion.

var idToken = regexp.MustCompile(`\b[A-Za-z]{1,8}[0-9]*[-_][0-9]{3,}\b|\b[A-Za-z]{1,5}[0-9]{4,}\b`)

func isIDArg(name string) bool {
	n := strings.ToLower(name)
	for _, suf := range []string{"id", "_no", "_num", "_number", "_key", "_ref"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

// idWords: a parameter whose name or description says it identifies
// something (rule 2 reads them; isIDArg is the strict name test).
var idWords = regexp.MustCompile(`(?i)(^|[^a-z])(id|ids|identifier|account|customer|number|key)([^a-z]|$)`)

func idLikeParam(name, desc string) bool {
	return isIDArg(name) || idWords.MatchString(strings.ReplaceAll(name, "_", " ")) || idWords.MatchString(desc)
}

// idShape collapses an identifier to its scheme: letter runs to A, digit
// runs to 9, separators kept, plus its letter prefix (ACC-00412 -> "A-9", "ACC").
func idShape(s string) (string, string) {
	var b strings.Builder
	last := byte(0)
	prefix := ""
	seenDigit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		var k byte
		switch {
		case c >= '0' && c <= '9':
			k = '9'
			seenDigit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			k = 'A'
			if !seenDigit {
				prefix += strings.ToUpper(string(c))
			}
		default:
			k = c
		}
		if k != last || k != 'A' && k != '9' {
			b.WriteByte(k)
		}
		last = k
	}
	return b.String(), prefix
}

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// schemeViolation says how v breaks what the contract documents for the
// argument: its pattern, its format (uuid), its enum (values or id
// prefixes), or the shape of the ids its examples and description show.
// documented is false when the contract names no scheme at all.
func schemeViolation(c *contract, name, v string) (why string, conf float64, documented bool) {
	prop := c.props[name]
	if prop.Pattern != "" {
		if re := c.patterns[name]; re != nil {
			if !re.MatchString(v) {
				return "the contract documents the pattern " + prop.Pattern, 0.9, true
			}
			return "", 0, true
		}
	}
	if strings.EqualFold(prop.Format, "uuid") {
		if !uuidRe.MatchString(v) {
			return "the contract documents the format uuid", 0.9, true
		}
		return "", 0, true
	}
	var enum []string
	for _, e := range prop.Enum {
		if s, ok := e.(string); ok && s != "" {
			enum = append(enum, s)
		}
	}
	if len(enum) > 0 {
		for _, e := range enum {
			if v == e || strings.HasPrefix(v, e) {
				return "", 0, true
			}
		}
		return fmt.Sprintf("the contract allows only %s", strings.Join(enum, ", ")), 0.9, true
	}
	info := c.arg(name)
	examples := info.examples
	if len(examples) > 0 && isIDArg(name) {
		vs, vp := idShape(v)
		for _, e := range examples {
			if es, ep := idShape(e); es == vs && ep == vp {
				return "", 0, true
			}
		}
		return "the contract documents ids like " + examples[0], 0.7, true
	}
	return "", 0, info.namesScheme
}

// entityRules runs rules (1), (2) and (3) and returns the call steps
// whose id argument is suspect (structural's pagination rule skips them:
// the page was the wrong entity's).
func (st *state) entityRules() map[int]bool {
	wrong := map[int]bool{}
	seen := map[string]idSource{}
	for _, c := range st.calls {
		if c.contract != nil && len(c.sql) == 0 && !st.isError(c) {
			for _, name := range c.argOrder {
				v, ok := idArgString(c.args[name], c.contract.arg(name).idLike)
				if !ok || v == "" {
					continue
				}
				st.entityArg(c, name, v, seen, wrong)
			}
		}
		if c.result < 0 || st.isError(c) {
			continue
		}
		// Records under any key ({"customers":[...]}), as the policy
		// oracle reads them (rows.go); then the wrapper object's own
		// scalars, a record of its own ({"customer_id":..., "tickets":[...]}).
		rows := resultRecords(c.resVal)
		for _, r := range rows {
			rememberIDs(seen, c.result, r, rows)
		}
		if m, ok := c.resVal.(map[string]any); ok {
			rememberIDs(seen, c.result, m, nil)
		}
	}
	// (3) An empty result the answer reads as a true negative. Most
	// results are not empty: the answer is read only for one that is.
	negative, read := false, false
	for _, c := range st.dataResults() {
		if !resultEmpty(c.resVal) {
			continue
		}
		if !read {
			negative, read = answerNegative.MatchString(st.answer), true
		}
		if !negative {
			break
		}
		// Alone it may be a true negative: listed, below the threshold.
		conf, why := 0.4, ""
		if wrong[c.step] {
			conf, why = 0.6, " after a suspect id"
		}
		st.evidence(model.ClassEntity, "empty_negative", conf, c.result,
			fmt.Sprintf("%s returned nothing%s and the answer reports it as a true negative", c.tool, why))
	}
	return wrong
}

// entityArg judges one string argument of a tool call.
func (st *state) entityArg(c *call, name, v string, seen map[string]idSource, wrong map[int]bool) {
	prop := c.contract.props[name]
	idLike := c.contract.arg(name).idLike
	if !idLike && !idToken.MatchString(v) {
		return // a period or a label in the wrong format is not an entity error
	}
	why, conf, documented := schemeViolation(c.contract, name, v)
	if conf > 0 {
		wrong[c.step] = true
		st.evidence(model.ClassEntity, "wrong_scheme", conf, c.step, fmt.Sprintf("%s(%s=%q): %s", c.tool, name, v, why))
	}
	src, fromResult := seen[v]
	if !fromResult {
		return
	}
	if st.wrongRecord(c, name, v, src) {
		wrong[c.step] = true
	}
	if !idLike {
		return
	}
	// What the argument means: its lineage, else the schemes its
	// description names ("Customer id (cust_id_v2), e.g. C2-004127"),
	// else the scheme its own name is (erp_customer_no).
	targets := st.lineage[c.tool+"."+name]
	if len(targets) == 0 {
		targets = dedupe(schemeName.FindAllString(strings.ToLower(prop.Description), -1))
	}
	if len(targets) == 0 && paramNamesScheme(name, src.row) {
		targets = []string{strings.ToLower(name)}
		documented = true
	}
	if len(targets) > 0 || conf > 0 {
		match, other := false, ""
		for _, f := range targets {
			col := column(f)
			if strings.EqualFold(col, src.column) {
				match = true
			}
			if x, ok := lookupCol(src.row, col); ok && other == "" {
				other = fmt.Sprintf("; the same row has %s %s", col, scalarString(x))
			}
		}
		if match {
			return
		}
		meaning := "another scheme"
		if len(targets) > 0 {
			meaning = strings.Join(targets, ", ")
		}
		wrong[c.step] = true
		st.evidence(model.ClassEntity, "scheme_source", 0.85, c.step,
			fmt.Sprintf("%s(%s=%q): step %d shows it as %s, but the argument means %s%s",
				c.tool, name, v, src.step, src.column, meaning, other))
		return
	}
	if documented {
		return
	}
	// (2) No scheme documented at all, and the value is one of several
	// ids the earlier result offered: which one the tool keys on is a guess.
	ids := idColumns(src.row)
	if len(ids) < 2 {
		return
	}
	wrong[c.step] = true
	st.evidence(model.ClassEntity, "undocumented", 0.45, c.step,
		fmt.Sprintf("%s(%s=%q): the contract names no id scheme, and step %d offered %s; the call passed its %s",
			c.tool, name, v, src.step, strings.Join(ids, ", "), src.column))
	if c.result < 0 {
		return
	}
	if got, want, ok := otherEntity(c.resVal, src.row); ok {
		st.evidence(model.ClassEntity, "other_entity", 0.5, c.result,
			fmt.Sprintf("%s answered about %q, not %q that step %d looked up", c.tool, got, want, src.step))
	}
}

// rememberIDs notes the id values of one record, first sighting wins.
func rememberIDs(seen map[string]idSource, step int, r map[string]any, rows []map[string]any) {
	for col, val := range r {
		// An id token has digits: most values are skipped without the regexp.
		if v, ok := val.(string); ok && len(v) < 40 && strings.ContainsAny(v, "0123456789") && idToken.MatchString(v) {
			if _, dup := seen[v]; !dup {
				seen[v] = idSource{step: step, column: col, row: r, rows: rows}
			}
		} else if v, ok := intID(col, val); ok {
			// Ids are ids whatever their JSON type: 40871 under
			// crm_account_number is as much an id as "ACC-40871".
			if _, dup := seen[v]; !dup {
				seen[v] = idSource{step: step, column: col, row: r, rows: rows}
			}
		}
	}
}

// idColumns are the columns of a row that hold an id-like value, sorted.
func idColumns(row map[string]any) []string {
	var out []string
	for col, val := range row {
		if v, ok := val.(string); ok && idToken.MatchString(v) || schemeName.MatchString(strings.ToLower(col)) || isIDArg(col) && isInteger(val) {
			out = append(out, col)
		}
	}
	sort.Strings(out)
	return out
}

var nameCols = []string{"name", "customer_name", "account_name", "company", "company_name", "customer", "account"}

// entityName is the first name-like string of a row.
func entityName(row map[string]any) string {
	for _, k := range nameCols {
		if _, v, ok := lookupFold(row, k); ok {
			if s, ok := v.(string); ok && s != "" && !idToken.MatchString(s) {
				return s
			}
		}
	}
	return ""
}

// otherEntity: the result names an entity and it is not the one the
// lookup row named (neither name contains the other, case aside).
func otherEntity(res any, lookup map[string]any) (got, want string, ok bool) {
	want = entityName(lookup)
	if want == "" {
		return "", "", false
	}
	_, rows := resultTable(res)
	if m, isObj := res.(map[string]any); isObj && rows == nil {
		rows = []map[string]any{m}
	}
	for _, r := range rows {
		got = entityName(r)
		if got == "" {
			continue
		}
		g, w := strings.ToLower(got), strings.ToLower(want)
		if !strings.Contains(g, w) && !strings.Contains(w, g) {
			return got, want, true
		}
		return "", "", false
	}
	return "", "", false
}

// idSource is where an identifier value was seen in an earlier result.
type idSource struct {
	step   int
	column string
	row    map[string]any
	rows   []map[string]any // every record of that result
}

// schemeName finds identifier column names in prose: account_id,
// billing_account_no, cust_id_v2.
var schemeName = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:id|no|num|number|key)(?:_v[0-9]+)?\b`)

func lookupCol(row map[string]any, col string) (any, bool) {
	_, v, ok := lookupFold(row, col)
	return v, ok
}

var answerNegative = regexp.MustCompile(`(?i)\b(no|none|zero|nothing|not any|no one|nobody)\b|\b0\b|n[o']t (find|found|have|any)|does not have|do not have`)

// resultEmpty: an empty array, or an object whose arrays are all empty
// (rows, items, tickets...), or whose row_count/total/count is 0.
func resultEmpty(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case map[string]any:
		sawArray, sawZero := false, false
		for k, val := range x {
			switch y := val.(type) {
			case []any:
				if k == "columns" {
					continue
				}
				if len(y) > 0 {
					return false
				}
				sawArray = true
			case float64:
				switch k {
				case "row_count", "total", "count", "total_count":
					if y > 0 {
						return false
					}
					sawZero = true
				}
			}
		}
		return sawArray || sawZero
	}
	return false
}
