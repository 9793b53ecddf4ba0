// Package scoring holds tracelab's pure scoring functions: SQL field
// extraction, guess markers, failure-class suggestions, metrics and drift.
// Nothing here does I/O or reads the clock: callers pass everything in.
package scoring

// Role is how a statement uses a column.
type Role string

const (
	RoleSelect    Role = "select"
	RoleWhere     Role = "where"
	RoleJoin      Role = "join"
	RoleGroup     Role = "group"
	RoleOrder     Role = "order"
	RoleAggregate Role = "aggregate"
)

// Schema maps a table name to its column names, as a trace revealed them
// (describe_table results) or a schema file declared them. Names are lower case.
type Schema map[string][]string

// FieldUse is one resolved column and every role it plays in a statement.
type FieldUse struct {
	Field string `json:"field"` // table.column, or ?.column when ambiguous
	Roles []Role `json:"roles"` // sorted in the Role constant order, no duplicates
}

// Join is one equality join condition between two resolved columns.
type Join struct {
	Left, Right string // table.column
}

// Aggregate is one aggregate call; Field is empty for COUNT(*).
type Aggregate struct {
	Func  string // lower case: sum, count, avg, min, max, ...
	Field string
}

// Predicate is one top-level AND conjunct of a WHERE clause (or a governed
// definition), normalized so two spellings of the same test compare equal.
type Predicate struct {
	Field  string   // table.column, ?.column, or a bare column for definitions
	Op     string   // =, <>, <, <=, >, >=, in, not in, like, not like, ilike, between, is null, is not null, other
	Values []string // constants as written, without quotes
}

// SQLAnalysis is what one SQL statement reveals about the fields it used.
type SQLAnalysis struct {
	SQL         string
	Fingerprint string // pg_query fingerprint, the cache key
	Fields      []FieldUse
	Ambiguous   []string // ?.column names that did not resolve
	Tables      []string // real tables referenced, sorted
	Joins       []Join
	Aggregates  []Aggregate
	Where       []Predicate
	Err         string // the parser's message when the statement did not parse
}

// AnalyzeSQL parses one statement and resolves its column references.
// Placeholder until the pg_query extractor lands: it reports every
// statement as unparsed, which callers already treat as needs-review.
func AnalyzeSQL(sql string, schema Schema) *SQLAnalysis {
	return &SQLAnalysis{SQL: sql, Err: "SQL analysis not available"}
}
