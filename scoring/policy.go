package scoring

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// PolicyCall is what a policy oracle is asked about one tool call: who the
// end user is, the entitlement scope to check against, and what the call
// returned. It is also the JSON an external oracle command reads on stdin.
// Columns and Rows are the result's rows as the scorer found them (see
// rows.go: every array of objects under any key, column/row arrays, bare
// arrays), so a command checks the rows the file oracle checks, and a
// Violation's row is an index into Rows.
type PolicyCall struct {
	AsUser  string          `json:"as_user"`
	Scope   string          `json:"scope"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Result  json.RawMessage `json:"result"`
	Columns []string        `json:"columns,omitempty"`
	Rows    []PolicyRow     `json:"rows,omitempty"`
}

// NewPolicyCall is a call with its result's rows found: what the scorer
// hands an oracle.
func NewPolicyCall(asUser, scope, tool string, args, result json.RawMessage) PolicyCall {
	c := PolicyCall{AsUser: asUser, Scope: scope, Tool: tool, Args: args, Result: result}
	if len(result) > 0 {
		if v, err := decodeValue(result); err == nil {
			c.Columns, c.Rows = resultRows(v)
		}
	}
	return c
}

// Violation is one row or column of a result the user is not entitled to.
type Violation struct {
	Row    *int   `json:"row,omitempty"`    // 0-based index into PolicyCall.Rows for a row violation
	Path   string `json:"path,omitempty"`   // where that row is, when not in "rows" or a bare array: "deals[2]"
	Column string `json:"column,omitempty"` // the column at fault
	Value  string `json:"value,omitempty"`  // the offending value, for a row violation
	Reason string `json:"reason"`
}

// PolicyResponse is the JSON an oracle answers with: {"violations":[...]}.
type PolicyResponse struct {
	Violations []Violation `json:"violations"`
}

// PolicyOracle says which parts of a call's result the user may not see.
// An error means the oracle could not decide (unknown user or scope); the
// scorer then asks for human review rather than passing the call.
type PolicyOracle interface {
	Check(PolicyCall) ([]Violation, error)
}

// PolicyScope is one entitlement: allowed values per row column, and columns
// the scope may never see.
type PolicyScope struct {
	Rows        map[string][]string `json:"rows,omitempty"`
	DenyColumns []string            `json:"deny_columns,omitempty"`
}

// PolicyFile is the file-based oracle:
// {"scopes":{"region:EMEA":{"rows":{"region":["EMEA"]},"deny_columns":["email"]}},"users":{"u":"region:EMEA"}}.
type PolicyFile struct {
	Scopes map[string]PolicyScope `json:"scopes"`
	Users  map[string]string      `json:"users"`
}

// ParsePolicy reads a policy file and checks that every user names a scope.
func ParsePolicy(data []byte) (*PolicyFile, error) {
	var p PolicyFile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("policy: expected {\"scopes\":{...},\"users\":{...}}: %v", err)
	}
	if p.Scopes == nil {
		return nil, fmt.Errorf("policy: scopes: required, an object of scope name -> {rows, deny_columns}")
	}
	users := make([]string, 0, len(p.Users))
	for u := range p.Users {
		users = append(users, u)
	}
	sort.Strings(users)
	for _, u := range users {
		if _, ok := p.Scopes[p.Users[u]]; !ok {
			return nil, fmt.Errorf("policy: users.%s: scope %q is not defined in scopes", u, p.Users[u])
		}
	}
	return &p, nil
}

// Check implements PolicyOracle: the scope is call.Scope when set, else the
// user's; row values are compared case-insensitively.
func (p *PolicyFile) Check(c PolicyCall) ([]Violation, error) {
	name := c.Scope
	if name == "" {
		var ok bool
		if name, ok = p.Users[c.AsUser]; !ok {
			return nil, fmt.Errorf("policy: user %q has no scope and the case names none", c.AsUser)
		}
	}
	scope, ok := p.Scopes[name]
	if !ok {
		return nil, fmt.Errorf("policy: scope %q is not defined", name)
	}
	if c.Rows != nil || c.Columns != nil {
		return scope.check(c.Columns, c.Rows), nil
	}
	if len(c.Result) == 0 {
		return nil, nil
	}
	v, err := decodeValue(c.Result)
	if err != nil {
		return nil, nil // not a JSON result: nothing tabular to check
	}
	return scope.check(resultRows(v)), nil
}

// classicPath: a row of {"rows":[...]} or of a bare array, the shapes a
// violation's row number alone locates.
func classicPath(p string) bool {
	rest, ok := strings.CutPrefix(p, "rows[")
	if !ok {
		rest, ok = strings.CutPrefix(p, "[")
	}
	return ok && strings.IndexByte(rest, '.') < 0 && strings.Count(rest, "[") == 0
}

func (s PolicyScope) check(cols []string, rows []PolicyRow) []Violation {
	var out []Violation
	deny := map[string]bool{}
	for _, d := range s.DenyColumns {
		deny[strings.ToLower(d)] = true
	}
	for _, c := range cols {
		if deny[strings.ToLower(c)] {
			out = append(out, Violation{Column: c, Reason: fmt.Sprintf("column %s is denied to the scope", c)})
		}
	}
	keys := make([]string, 0, len(s.Rows))
	for k := range s.Rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, pr := range rows {
		for _, k := range keys {
			col, val, ok := lookupFold(pr.Values, k)
			if !ok || val == nil {
				continue
			}
			sv := scalarString(val)
			allowed := false
			for _, a := range s.Rows[k] {
				if strings.EqualFold(a, sv) {
					allowed = true
					break
				}
			}
			if !allowed {
				idx := i
				v := Violation{Row: &idx, Column: col, Value: sv,
					Reason: fmt.Sprintf("row %d has %s = %s, outside the scope's %s", i, col, sv, strings.Join(s.Rows[k], ", "))}
				if !classicPath(pr.Path) {
					v.Path = pr.Path
					v.Reason = fmt.Sprintf("row %d (%s) has %s = %s, outside the scope's %s", i, pr.Path, col, sv, strings.Join(s.Rows[k], ", "))
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// lookupFold finds a row's column by name, exact first, else ignoring case
// (the first such column in name order, so the result is deterministic).
func lookupFold(row map[string]any, key string) (string, any, bool) {
	if v, ok := row[key]; ok {
		return key, v, true
	}
	best := ""
	for k := range row {
		if strings.EqualFold(k, key) && (best == "" || k < best) {
			best = k
		}
	}
	if best == "" {
		return "", nil, false
	}
	return best, row[best], true
}

// scalarString renders a JSON scalar the way it was likely written.
func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// resultTable reads a tabular result in any of the three shapes tools use:
// {"columns":[..],"rows":[[..]]}, {"rows":[{..}]}, or a bare array of
// objects. Columns are in first-seen order; rows are keyed by column.
func resultTable(v any) (cols []string, rows []map[string]any) {
	seen := map[string]bool{}
	addCol := func(c string) {
		if !seen[c] {
			seen[c] = true
			cols = append(cols, c)
		}
	}
	objects := func(list []any) {
		for _, r := range list {
			if m, ok := r.(map[string]any); ok {
				ks := make([]string, 0, len(m))
				for k := range m {
					ks = append(ks, k)
				}
				sort.Strings(ks)
				for _, k := range ks {
					addCol(k)
				}
				rows = append(rows, m)
			}
		}
	}
	switch x := v.(type) {
	case []any:
		objects(x)
	case map[string]any:
		rs, _ := x["rows"].([]any)
		if cs, ok := x["columns"].([]any); ok {
			names := make([]string, len(cs))
			for i, c := range cs {
				switch cc := c.(type) {
				case string:
					names[i] = cc
				case map[string]any:
					names[i], _ = cc["name"].(string)
				}
				if names[i] != "" {
					addCol(names[i])
				}
			}
			for _, r := range rs {
				switch rr := r.(type) {
				case []any:
					m := make(map[string]any, len(names))
					for i, val := range rr {
						if i < len(names) && names[i] != "" {
							m[names[i]] = val
						}
					}
					rows = append(rows, m)
				case map[string]any:
					rows = append(rows, rr)
				}
			}
			return cols, rows
		}
		if rs != nil {
			objects(rs)
		}
	}
	return cols, rows
}
