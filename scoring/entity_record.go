package scoring

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// The seed's entity class: "The call refers to the wrong thing: wrong
// identifier type, wrong record, wrong object." and its symptom "An
// argument whose format matches one ID scheme passed into a tool that
// documents another, or no documentation of which scheme at all."

// idArgString reads an argument as an identifier: a string, or, for a
// parameter that is about an id, an integer (ids are ids whatever their
// JSON type: account: 40871).
func idArgString(v any, idLike bool) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		if idLike && isInteger(x) {
			return strconv.FormatFloat(x, 'f', -1, 64), true
		}
	}
	return "", false
}

func isInteger(v any) bool {
	f, ok := v.(float64)
	return ok && f == math.Trunc(f) && math.Abs(f) < 1<<53
}

// intID is an integer result value under an id column (crm_account_number,
// erp_customer_no, account_id), as the string an argument would compare as.
func intID(col string, v any) (string, bool) {
	if !isInteger(v) || v.(float64) < 0 {
		return "", false
	}
	if !isIDArg(col) && !(mayNameScheme(col) && schemeName.MatchString(strings.ToLower(col))) {
		return "", false
	}
	return strconv.FormatFloat(v.(float64), 'f', -1, 64), true
}

// paramNamesScheme: a parameter named for a scheme documents it "as much
// as a description does" (issue 28, rule 5). A name is a scheme when it is
// qualified beyond "<thing>_id" (erp_customer_no, cust_id_v2,
// crm_account_id, billing_account_no), or when the lookup row has a column
// of exactly that name (the tool asks for that column's value).
func paramNamesScheme(name string, row map[string]any) bool {
	n := strings.ToLower(name)
	if !schemeName.MatchString(n) || schemeName.FindString(n) != n {
		return false
	}
	if _, ok := lookupCol(row, n); ok {
		return true
	}
	return strings.Count(n, "_") >= 2
}

// wrongRecord: the value came from a lookup that returned several records,
// the question names an attribute value that picks one of them (a region,
// a country, a segment), and the record passed does not have it while
// another does. Evidence names both records. It returns whether it fired.
func (st *state) wrongRecord(c *call, name, v string, src idSource) bool {
	if len(src.rows) < 2 {
		return false
	}
	q := normText(st.t.Question)
	for _, col := range sortedKeys(src.row) {
		mine, ok := src.row[col].(string)
		if !ok || mine == "" {
			continue
		}
		for _, other := range src.rows {
			theirs, ok := other[col].(string)
			if !ok || theirs == "" || strings.EqualFold(theirs, mine) || idToken.MatchString(theirs) {
				continue
			}
			if !containsPhrase(q, normText(theirs)) || containsPhrase(q, normText(mine)) {
				continue
			}
			st.evidence(model.ClassEntity, "wrong_record", 0.85, c.step,
				fmt.Sprintf("%s(%s=%s): step %d returned %d records and the question names %s %s; the record passed has %s %s (%s), the one with %s %s is %s",
					c.tool, name, v, src.step, len(src.rows), col, theirs, col, mine, recordText(src.row), col, theirs, recordText(other)))
			return true
		}
	}
	return false
}

// recordText shows a record by its ids and name: "crm_account_number 40871, name Acme GmbH".
func recordText(row map[string]any) string {
	var parts []string
	for _, col := range idColumns(row) {
		parts = append(parts, col+" "+scalarString(row[col]))
	}
	if n := entityName(row); n != "" {
		parts = append(parts, "name "+n)
	}
	if len(parts) == 0 {
		for _, k := range sortedKeys(row) {
			parts = append(parts, k+" "+scalarString(row[k]))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// mayNameScheme: col has an "_id", "_no", "_num" or "_key" somewhere, as
// every schemeName match does; most numeric columns (count, amount_usd)
// are ruled out without the regexp.
func mayNameScheme(col string) bool {
	for i := 0; i+2 < len(col); i++ {
		if col[i] != '_' {
			continue
		}
		switch rest := strings.ToLower(col[i+1 : min(len(col), i+4)]); {
		case strings.HasPrefix(rest, "id"), strings.HasPrefix(rest, "no"), strings.HasPrefix(rest, "num"), strings.HasPrefix(rest, "key"):
			return true
		}
	}
	return false
}
