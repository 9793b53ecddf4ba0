package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pganalyze/pg_query_go/v5/parser"
)

// cursorPos is the 1-based character position of a pg_query syntax error.
func cursorPos(err error) int {
	var pe *parser.Error
	if errors.As(err, &pe) {
		return pe.Cursorpos
	}
	return 0
}

// SchemaError is a complaint about a schema file: the line it is about
// (1-based; 0 when it concerns the whole text) and what is wrong.
type SchemaError struct {
	Line int
	Msg  string
}

func (e *SchemaError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// ParseSchema reads a schema given either as JSON {"table": ["col", ...]}
// or as CREATE TABLE statements (any dialect pg_query or a lenient reader
// can follow: SQLite columns without types, MySQL INT(11), backticks).
// Names are lower-cased. Errors are *SchemaError naming the line.
func ParseSchema(data []byte) (Schema, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, &SchemaError{Msg: "schema is empty"}
	}
	if trimmed[0] == '{' {
		return parseSchemaJSON(data)
	}
	return ParseSchemaDDL(string(data))
}

func parseSchemaJSON(data []byte) (Schema, error) {
	var raw map[string][]string
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, &SchemaError{Line: lineAt(data, int(se.Offset)), Msg: "invalid JSON: " + se.Error()}
		case errors.As(err, &te):
			return nil, &SchemaError{Line: lineAt(data, int(te.Offset)),
				Msg: fmt.Sprintf("%s: want {\"table\": [\"column\", ...]}, got %s", te.Field, te.Value)}
		}
		return nil, &SchemaError{Msg: "invalid JSON: " + err.Error()}
	}
	if len(raw) == 0 {
		return nil, &SchemaError{Line: 1, Msg: "schema has no tables"}
	}
	out := Schema{}
	for t, cols := range raw {
		t = strings.ToLower(t)
		for _, c := range cols {
			out[t] = append(out[t], strings.ToLower(c))
		}
		if out[t] == nil {
			out[t] = []string{}
		}
	}
	return out, nil
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// ParseSchemaDDL reads the CREATE TABLE statements of a DDL text; other
// statements (indexes, inserts, comments) are skipped. Each CREATE TABLE is
// parsed by pg_query; one pg_query cannot read (SQLite columns with no type,
// for instance) is read by splitting its column list at top-level commas.
func ParseSchemaDDL(text string) (Schema, error) {
	norm := normalizeDialect(text).sql
	toks := lexSQL(norm)
	out := Schema{}
	offset := 0
	start := 0
	var stmt []sqlToken
	flush := func() error {
		defer func() { stmt = stmt[:0] }()
		if !isCreateTable(stmt) {
			return nil
		}
		line := lineAt([]byte(norm), start+leadingSpace(stmt))
		var src strings.Builder
		for _, t := range stmt {
			src.WriteString(t.text)
		}
		table, cols, err := createTableColumns(src.String(), stmt)
		if err != nil {
			return &SchemaError{Line: line, Msg: err.Error()}
		}
		out[table] = append(out[table], cols...)
		return nil
	}
	depth := 0
	for _, t := range toks {
		if len(stmt) == 0 {
			start = offset
		}
		offset += len(t.text)
		switch t.text {
		case "(":
			depth++
		case ")":
			depth--
		}
		if t.text == ";" && depth <= 0 {
			if err := flush(); err != nil {
				return nil, err
			}
			depth = 0
			continue
		}
		stmt = append(stmt, t)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		if _, err := parseSQL(norm); err != nil {
			line := 0
			if c := cursorPos(err); c > 0 {
				line = lineAt([]byte(norm), c-1)
			}
			return nil, &SchemaError{Line: line, Msg: "not a schema: " + err.Error()}
		}
		return nil, &SchemaError{Msg: "no CREATE TABLE statement and not a JSON object"}
	}
	return out, nil
}

func leadingSpace(ts []sqlToken) int {
	n := 0
	for _, t := range ts {
		if t.kind != tkSpace {
			break
		}
		n += len(t.text)
	}
	return n
}

func sigTokens(ts []sqlToken) []sqlToken {
	var out []sqlToken
	for _, t := range ts {
		if t.kind != tkSpace {
			out = append(out, t)
		}
	}
	return out
}

func isCreateTable(ts []sqlToken) bool {
	s := sigTokens(ts)
	i := 0
	if i < len(s) && isWord(s[i], "create") {
		i++
	} else {
		return false
	}
	for i < len(s) && (isWord(s[i], "temp") || isWord(s[i], "temporary") || isWord(s[i], "unlogged") ||
		isWord(s[i], "or") || isWord(s[i], "replace") || isWord(s[i], "global") || isWord(s[i], "local")) {
		i++
	}
	return i < len(s) && isWord(s[i], "table")
}

// createTableColumns reads one CREATE TABLE statement.
func createTableColumns(src string, ts []sqlToken) (string, []string, error) {
	if tree, err := parseSQL(src); err == nil && len(tree.GetStmts()) == 1 {
		if cs := tree.GetStmts()[0].GetStmt().GetCreateStmt(); cs != nil {
			table := strings.ToLower(cs.GetRelation().GetRelname())
			cols := []string{}
			for _, e := range cs.GetTableElts() {
				if cd := e.GetColumnDef(); cd != nil {
					cols = append(cols, strings.ToLower(cd.GetColname()))
				}
			}
			return table, cols, nil
		}
	}
	s := sigTokens(ts)
	// CREATE ... TABLE [IF NOT EXISTS] name [. name] ( elements )
	i := 0
	for i < len(s) && !isWord(s[i], "table") {
		i++
	}
	i++
	if i+2 < len(s) && isWord(s[i], "if") && isWord(s[i+1], "not") && isWord(s[i+2], "exists") {
		i += 3
	}
	var name string
	for i < len(s) && (s[i].kind == tkWord || s[i].kind == tkQuoted || s[i].text == ".") {
		if s[i].text != "." {
			name = identText(s[i])
		}
		i++
	}
	if name == "" {
		return "", nil, errors.New("CREATE TABLE without a table name")
	}
	if i >= len(s) || s[i].text != "(" {
		if i < len(s) && isWord(s[i], "as") {
			return name, []string{}, nil // CREATE TABLE x AS SELECT: columns unknown
		}
		return "", nil, fmt.Errorf("CREATE TABLE %s: expected a column list in parentheses", name)
	}
	i++
	var cols []string
	depth := 0
	first := true
	for ; i < len(s); i++ {
		t := s[i]
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			if depth == 0 {
				return name, cols, nil
			}
			depth--
		case t.text == "," && depth == 0:
			first = true
			continue
		case first && depth == 0:
			first = false
			if t.kind == tkWord && constraintWords[strings.ToLower(t.text)] {
				continue
			}
			if t.kind == tkWord || t.kind == tkQuoted {
				cols = append(cols, identText(t))
			}
		}
	}
	return "", nil, fmt.Errorf("CREATE TABLE %s: column list is not closed", name)
}

var constraintWords = map[string]bool{
	"primary": true, "foreign": true, "unique": true, "check": true, "constraint": true, "key": true,
	"index": true, "exclude": true, "like": true, "fulltext": true, "spatial": true,
}

func identText(t sqlToken) string {
	if t.kind == tkQuoted {
		s := strings.TrimPrefix(t.text, `"`)
		s = strings.TrimSuffix(s, `"`) // unterminated quotes have no closing one
		return strings.ToLower(strings.ReplaceAll(s, `""`, `"`))
	}
	return strings.ToLower(t.text)
}
