package scoring

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// ArgSQL is one SQL text found in a tool call's arguments.
type ArgSQL struct {
	Path string // JSON path of the argument: sql, queries[1], filter.where
	SQL  string
}

// sqlArgNames are argument names whose string value is taken as SQL.
var sqlArgNames = map[string]bool{"sql": true, "query": true, "statement": true}

// sqlStarters are the first words of statements that read or write columns.
var sqlStarters = map[string]bool{
	"select": true, "with": true, "insert": true, "update": true, "delete": true, "explain": true,
	"values": true, "table": true, "merge": true, "create": true,
}

// FindSQL lists the SQL in a tool call's JSON arguments, in document order
// (object keys sorted): every string under a key named sql, query or
// statement that starts like a statement (a search tool's natural-language
// "query" is not SQL), and any other string that pg_query parses as a
// statement reading or writing columns. Arguments that are not JSON
// yield nothing.
func FindSQL(args json.RawMessage) []ArgSQL {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return findSQLIn(v)
}

// findSQLIn is FindSQL of arguments already decoded (only their strings
// are read, so how numbers were decoded does not matter).
func findSQLIn(v any) []ArgSQL {
	var out []ArgSQL
	var walk func(path, key string, v any)
	walk = func(path, key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, k, x[k])
			}
		case []any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", key, e)
			}
		case string:
			if looksLikeSQL(x, sqlArgNames[strings.ToLower(key)]) {
				out = append(out, ArgSQL{Path: path, SQL: x})
			}
		}
	}
	walk("", "", v)
	return out
}

// looksLikeSQL decides whether one string argument is SQL. A named SQL
// argument counts when it starts with a statement keyword, even if it then
// fails to parse (the caller reports it unparsed); any other string must
// parse into statements that read or write columns.
func looksLikeSQL(s string, named bool) bool {
	if !sqlStarters[firstWord(s)] {
		return false
	}
	if named {
		return true
	}
	tree, err := parseSQL(normalizeDialect(s).sql)
	if err != nil || len(tree.GetStmts()) == 0 {
		return false
	}
	for _, st := range tree.GetStmts() {
		switch st.GetStmt().GetNode().(type) {
		case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt,
			*pg.Node_ExplainStmt, *pg.Node_CreateTableAsStmt, *pg.Node_ViewStmt, *pg.Node_MergeStmt:
		default:
			return false
		}
	}
	return true
}

// firstWord is the lower-cased first word of SQL text, past a code fence,
// whitespace, comments and opening parentheses.
func firstWord(s string) string {
	s = prefix(stripFence(s), 512)
	// Every string argument of every call comes through here: read past
	// spaces and parentheses by hand, and lex only when a comment comes
	// first (the lexer's spaces include comments).
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '(':
			continue
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			return strings.ToLower(s[i:j])
		case c == '-' || c == '/':
			return firstWordLexed(s[i:])
		}
		return ""
	}
	return ""
}

// firstWordLexed is firstWord through the lexer, for text that may open
// with a comment.
func firstWordLexed(s string) string {
	for _, t := range lexSQL(s) {
		switch {
		case t.kind == tkSpace || t.text == "(":
			continue
		case t.kind == tkWord:
			return strings.ToLower(t.text)
		default:
			return ""
		}
	}
	return ""
}

func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
