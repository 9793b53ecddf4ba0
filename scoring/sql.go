// Package scoring holds tracelab's pure scoring functions: SQL field
// extraction, guess markers, failure-class suggestions, metrics and drift.
// Nothing here does I/O or reads the clock: callers pass everything in.
package scoring

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Role is how a statement uses a column. The clause decides the role:
// select for the select list (and for the columns an INSERT or UPDATE
// writes, and RETURNING); where for WHERE, HAVING and aggregate FILTER;
// join for ON conditions, USING/NATURAL columns and column = column tests
// between two relations in WHERE; group for GROUP BY, PARTITION BY and
// DISTINCT ON; order for ORDER BY (statement, window or aggregate); and
// aggregate for columns inside an aggregate call, which replaces select
// there but adds to any other clause's role. A column reached through a
// CTE or subquery output takes the role of the clause that reads it too.
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
	SQL        string
	Fields     []FieldUse
	Ambiguous  []string // ?.column names that did not resolve
	Tables     []string // real tables referenced, sorted
	Joins      []Join
	Aggregates []Aggregate
	Where      []Predicate
	Err        string // the parser's message when the statement did not parse

	// Aggregates and joins with the query level each is in (sql_grain.go).
	aggsAt  []aggAt
	joinsAt []joinAt
	// today is the first now() / current_date / ... of the text, read
	// once with the analysis it is cached with (temporal_today.go).
	today string
}

// AnalyzeSQL parses one SQL text (several statements are merged into one
// analysis) and resolves its column references against schema, which may
// be nil. Results are cached, so the analysis must be treated as read-only;
// it is safe to call from many goroutines.
func AnalyzeSQL(sql string, schema Schema) *SQLAnalysis {
	return defaultSQLCache.analyze(sql, indexSchema(schema))
}

// SQLAnalyzer analyzes statements against one schema with its own cache.
// Use it when scoring many statements of one trace: the schema is indexed
// once instead of once per call.
type SQLAnalyzer struct {
	idx   *schemaIndex
	cache *sqlCache
}

// NewSQLAnalyzer indexes schema (which may be nil) for repeated analysis.
func NewSQLAnalyzer(schema Schema) *SQLAnalyzer {
	return &SQLAnalyzer{idx: indexSchema(schema), cache: newSQLCache(4096)}
}

// Analyze is AnalyzeSQL against the analyzer's schema.
func (a *SQLAnalyzer) Analyze(sql string) *SQLAnalysis { return a.cache.analyze(sql, a.idx) }

// schemaIndex is a Schema as sets, plus a key that identifies its content.
type schemaIndex struct {
	cols map[string]map[string]bool
	key  uint64
}

// indexSchema lower-cases names and drops schema qualifiers from table
// names ("public.orders" is "orders"), as column references are resolved
// by table name.
func indexSchema(s Schema) *schemaIndex {
	idx := &schemaIndex{cols: make(map[string]map[string]bool, len(s))}
	for t, cols := range s {
		t = strings.ToLower(t)
		if i := strings.LastIndexByte(t, '.'); i >= 0 {
			t = t[i+1:]
		}
		set := idx.cols[t]
		if set == nil {
			set = make(map[string]bool, len(cols))
			idx.cols[t] = set
		}
		th := fnv64(t)
		for _, c := range cols {
			c = strings.ToLower(c)
			if !set[c] {
				set[c] = true
				// Order-independent: a sum of per-column hashes.
				idx.key += mix64(th ^ fnv64(c))
			}
		}
		idx.key += mix64(th)
	}
	return idx
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb3fe1a85ec53
	x ^= x >> 33
	return x
}

// sqlCache remembers analyses by exact SQL text and schema. It does not key
// by pg_query fingerprint: the fingerprint ignores constants, so "x = 'A'"
// and "x = 'B'" (or ORDER BY 1 and ORDER BY 2) share one, yet their
// predicates and ordinal fields differ; and computing it is a second parse
// of every new statement (a fifth of scoring a new trace's SQL), for a
// key the exact text already gives. Statements that differ only in
// constants share their parse instead, in tmpl, and are each walked with
// their own constants.
type sqlCache struct {
	mu  sync.RWMutex
	m   map[sqlCacheKey]*SQLAnalysis
	max int
	// tmpl serves the texts m has not seen that differ from a parsed one
	// only in literals: most of an agent's statements, which rarely
	// repeat byte for byte.
	tmpl *templateCache
	// seen holds the hashes of the keys analyzed once: an analysis is
	// kept in m only when its text comes a second time. Where statements
	// never repeat (a corpus of 100k traces whose every statement is
	// distinct) m stayed full of analyses never asked for again, 25 MB of
	// the import's live heap, which the collector marked on every cycle
	// and let the heap grow twice over.
	seen map[uint64]struct{}
}

type sqlCacheKey struct {
	schema uint64
	sql    string
}

// sqlSeenSeed hashes the keys of sqlCache.seen.
var sqlSeenSeed = maphash.MakeSeed()

// defaultSQLCache serves AnalyzeSQL.
var defaultSQLCache = newSQLCache(1 << 14)

func newSQLCache(max int) *sqlCache {
	return &sqlCache{m: map[sqlCacheKey]*SQLAnalysis{}, max: max, tmpl: newTemplateCache(templateTrees, templateSeen),
		seen: map[uint64]struct{}{}}
}

func (c *sqlCache) analyze(sql string, idx *schemaIndex) *SQLAnalysis {
	key := sqlCacheKey{idx.key, sql}
	c.mu.RLock()
	a, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return a
	}
	a = analyzeText(sql, idx, c.tmpl)
	h := maphash.String(sqlSeenSeed, sql) ^ idx.key
	c.mu.Lock()
	if _, again := c.seen[h]; !again {
		if len(c.seen) >= 4*c.max {
			clear(c.seen) // bounded as m is
		}
		c.seen[h] = struct{}{}
	} else {
		if len(c.m) >= c.max {
			clear(c.m) // simple bound: start over rather than grow without limit
		}
		c.m[key] = a
	}
	c.mu.Unlock()
	return a
}

// sqlAnalyzer collects what one SQL text uses while the tree is walked.
type sqlAnalyzer struct {
	idx    *schemaIndex
	dq     map[int]bool // offsets of identifiers the author double-quoted
	fields map[string]uint8
	amb    map[string]bool
	tables map[string]bool
	joins  map[Join]bool
	aggs   map[Aggregate]bool
	where  []Predicate

	aggsAt  []scopedAgg
	joinsAt []scopedJoin

	// dry walks resolve without recording (used to look at an
	// expression's columns a second time); dryAmbiguous notes whether a
	// dry walk met an unresolved column.
	dry          bool
	dryAmbiguous bool
}

var roleOrder = []Role{RoleSelect, RoleWhere, RoleJoin, RoleGroup, RoleOrder, RoleAggregate}

func roleBit(r Role) uint8 {
	for i, x := range roleOrder {
		if x == r {
			return 1 << i
		}
	}
	return 0
}

// use records a field in a role. Inside an aggregate the field's role is
// aggregate, plus the clause's role unless that clause is the select list.
func (an *sqlAnalyzer) use(field string, ctx walkCtx) {
	if an.dry {
		return
	}
	bits := an.fields[field]
	if ctx.agg == "" || ctx.role != RoleSelect {
		bits |= roleBit(ctx.role)
	}
	if ctx.agg != "" {
		bits |= roleBit(RoleAggregate)
	}
	an.fields[field] = bits
}

func (an *sqlAnalyzer) ambiguousField(f string) {
	if an.dry {
		an.dryAmbiguous = true
		return
	}
	an.amb[f] = true
}

func (an *sqlAnalyzer) aggregate(fn, field string) {
	if !an.dry {
		an.aggs[Aggregate{Func: fn, Field: field}] = true
	}
}

func (an *sqlAnalyzer) join(a, b string) {
	if an.dry || a == b {
		return
	}
	if b < a {
		a, b = b, a
	}
	an.joins[Join{Left: a, Right: b}] = true
}

func analyzeUncached(sql string, idx *schemaIndex) *SQLAnalysis { return analyzeText(sql, idx, nil) }

// analyzeText analyzes one SQL text. With a template cache, a statement
// that differs from one parsed before only in its literals skips the
// parser: the cached tree gets this statement's literals and is walked
// again (sql_template.go).
func analyzeText(sql string, idx *schemaIndex, tc *templateCache) *SQLAnalysis {
	out := &SQLAnalysis{SQL: sql}
	norm, toks := normalizeDialectTokens(sql)
	// pg_query reads a C string: at a NUL byte it stops and parses the
	// text before it, which would pass for the whole statement with a
	// shorter field list. Such SQL is unparsed and goes to review.
	if i := strings.IndexByte(norm.sql, 0); i >= 0 {
		out.Err = fmt.Sprintf("a NUL byte at offset %d: the parser stops there, so the fields after it are unknown", strings.IndexByte(sql, 0))
		return out
	}
	var tmpl *sqlTemplate
	if tc != nil {
		if t, ok := templateOf(norm.sql, toks); ok {
			if tc.reuse(&t, idx, out) {
				out.today = findToday(sql)
				return out
			}
			tmpl = &t
		}
	}
	tree, err := parseSQL(norm.sql)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	if len(tree.GetStmts()) == 0 {
		out.Err = "no SQL statement"
		return out
	}
	if tail := unreadTail(norm.sql, tree); tail >= 0 {
		out.Err = fmt.Sprintf("the parser stopped at offset %d of the normalized text: the rest is unread", tail)
		return out
	}
	walkTree(out, tree, norm.dqStarts, idx)
	if tmpl != nil {
		tc.remember(tmpl, norm.sql, tree, norm.dqStarts)
	}
	out.today = findToday(sql)
	return out
}

// walkTree resolves a parsed text's statements into out; dq holds the
// offsets of the identifiers the author double-quoted, in the text the
// tree's locations count in.
func walkTree(out *SQLAnalysis, tree *pg.ParseResult, dq map[int]bool, idx *schemaIndex) {
	an := &sqlAnalyzer{
		idx: idx, dq: dq,
		fields: map[string]uint8{}, amb: map[string]bool{}, tables: map[string]bool{},
		joins: map[Join]bool{}, aggs: map[Aggregate]bool{},
	}
	for _, raw := range tree.GetStmts() {
		an.query(raw.GetStmt(), nil)
	}
	an.fill(out)
}

// fill copies the collected sets into the analysis, sorted.
func (an *sqlAnalyzer) fill(out *SQLAnalysis) {
	for f, bits := range an.fields {
		use := FieldUse{Field: f, Roles: []Role{}}
		for i, r := range roleOrder {
			if bits&(1<<i) != 0 {
				use.Roles = append(use.Roles, r)
			}
		}
		out.Fields = append(out.Fields, use)
	}
	sort.Slice(out.Fields, func(i, j int) bool { return out.Fields[i].Field < out.Fields[j].Field })
	out.Ambiguous = slices.Sorted(maps.Keys(an.amb))
	out.Tables = slices.Sorted(maps.Keys(an.tables))
	out.Joins = slices.SortedFunc(maps.Keys(an.joins), func(a, b Join) int {
		return cmp.Or(strings.Compare(a.Left, b.Left), strings.Compare(a.Right, b.Right))
	})
	out.Aggregates = slices.SortedFunc(maps.Keys(an.aggs), func(a, b Aggregate) int {
		return cmp.Or(strings.Compare(a.Func, b.Func), strings.Compare(a.Field, b.Field))
	})
	out.Where = an.where
	an.fillGrain(out)
}

// unreadTail is the offset of the first text after the last statement the
// parser returned that is not white space, a comment or a semicolon, or -1
// when the statements cover the text.
func unreadTail(sql string, tree *pg.ParseResult) int {
	stmts := tree.GetStmts()
	last := stmts[len(stmts)-1]
	if last.GetStmtLen() == 0 {
		return -1 // the last statement runs to the end of the text
	}
	end := int(last.GetStmtLocation() + last.GetStmtLen())
	if end >= len(sql) {
		return -1
	}
	off := end
	for _, t := range lexSQL(sql[end:]) {
		if t.kind != tkSpace && t.text != ";" {
			return off
		}
		off += len(t.text)
	}
	return -1
}
