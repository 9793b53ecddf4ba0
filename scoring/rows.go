package scoring

import (
	"sort"
	"strconv"
)

// Row finding, for the policy oracle. The seed counts "calls that returned
// at least one row or column the as_user is not entitled to", so a row is
// a row under whatever key the tool put it:
//
//   - {"columns":[...],"rows":[[...],...]}: each row array, keyed by the
//     column names (at the top or nested under any key);
//   - any array of objects, at the top (a bare array) or under any key at
//     any depth ({"rows":[...]}, {"deals":[...]}, {"data":{"items":[...]}});
//     each object is a row, and arrays of objects inside a row (a deal's
//     line_items) are rows too;
//   - an object that is not in an array is a wrapper, not a row: its
//     scalars (as_of, next_cursor, total) are metadata.
//
// Keys are walked in name order, so row numbers are the same on every run
// and are what the external oracle receives (PolicyCall.Rows) and answers
// about (Violation.Row).

// PolicyRow is one row of a result as the oracle sees it: where it was
// found ("rows[3]", "deals[0]", "data.items[2]", "[1]" in a bare array) and
// its values by column.
type PolicyRow struct {
	Path   string         `json:"path"`
	Values map[string]any `json:"values"`
}

// maxRowDepth bounds the walk: deeper nesting is not read (hostile input
// costs bounded time and stack).
const maxRowDepth = 32

// resultRows finds every row of a decoded result, with the columns in
// first-seen order.
func resultRows(v any) (cols []string, rows []PolicyRow) {
	return findRows(v, true)
}

// findRows is resultRows; without wantCols the columns are not collected
// (the entity rules read rows only, on every result of every trace).
func findRows(v any, wantCols bool) (cols []string, rows []PolicyRow) {
	seen := map[string]bool{}
	addCol := func(c string) {
		if wantCols && c != "" && !seen[c] {
			seen[c] = true
			cols = append(cols, c)
		}
	}
	// at is the path of element i; the entity rules need no paths.
	at := func(path string, i int) string {
		if !wantCols {
			return ""
		}
		return path + "[" + strconv.Itoa(i) + "]"
	}
	var walk func(v any, path string, depth int)
	// descend walks the arrays and objects inside the rows just added,
	// after all of them: a row's number does not depend on what its
	// predecessors hold.
	descend := func(from int, depth int) {
		added := rows[from:len(rows):len(rows)]
		for _, r := range added {
			if !hasComposite(r.Values) {
				continue // most rows hold scalars only: no sort needed
			}
			for _, k := range sortedKeys(r.Values) {
				switch r.Values[k].(type) {
				case []any, map[string]any:
					walk(r.Values[k], joinPath(r.Path, k), depth+1)
				}
			}
		}
	}
	addRow := func(m map[string]any, path string) {
		if wantCols {
			for _, k := range sortedKeys(m) {
				addCol(k)
			}
		}
		rows = append(rows, PolicyRow{Path: path, Values: m})
	}
	walk = func(v any, path string, depth int) {
		if depth > maxRowDepth {
			return
		}
		switch x := v.(type) {
		case []any:
			from := len(rows)
			for i, e := range x {
				if y, ok := e.(map[string]any); ok {
					addRow(y, at(path, i))
				}
			}
			descend(from, depth)
			for i, e := range x {
				if y, ok := e.([]any); ok {
					walk(y, at(path, i), depth+1)
				}
			}
		case map[string]any:
			if names, ok := columnNames(x["columns"]); ok {
				for _, n := range names {
					addCol(n)
				}
				rs, _ := x["rows"].([]any)
				from := len(rows)
				for i, r := range rs {
					p := at(joinPath(path, "rows"), i)
					switch rr := r.(type) {
					case []any:
						m := make(map[string]any, len(names))
						for j, val := range rr {
							if j < len(names) && names[j] != "" {
								m[names[j]] = val
							}
						}
						rows = append(rows, PolicyRow{Path: p, Values: m})
					case map[string]any:
						addRow(rr, p)
					}
				}
				descend(from, depth)
				for _, k := range sortedKeys(x) {
					if k != "rows" && k != "columns" {
						walk(x[k], joinPath(path, k), depth+1)
					}
				}
				return
			}
			// "rows" first: the classic shape keeps its row numbers
			// whatever other keys sit beside it.
			if _, ok := x["rows"]; ok {
				walk(x["rows"], joinPath(path, "rows"), depth+1)
			}
			for _, k := range sortedKeys(x) {
				if k == "rows" {
					continue
				}
				switch x[k].(type) {
				case []any, map[string]any:
					walk(x[k], joinPath(path, k), depth+1)
				}
			}
		}
	}
	walk(v, "", 0)
	return cols, rows
}

// columnNames reads a "columns" array of names or of {"name":...} objects.
func columnNames(v any) ([]string, bool) {
	cs, ok := v.([]any)
	if !ok {
		return nil, false
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		switch cc := c.(type) {
		case string:
			names[i] = cc
		case map[string]any:
			names[i], _ = cc["name"].(string)
		}
	}
	return names, true
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func hasComposite(m map[string]any) bool {
	for _, v := range m {
		switch v.(type) {
		case []any, map[string]any:
			return true
		}
	}
	return false
}

// resultRecords is resultRows' rows without their paths.
func resultRecords(v any) []map[string]any {
	_, rows := findRows(v, false)
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = r.Values
	}
	return out
}
