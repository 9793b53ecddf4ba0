package scoring

import (
	"strings"
)

// Agents write SQL for SQLite, MySQL, SQL Server and Snowflake while
// pg_query parses PostgreSQL. normalizeDialect rewrites only what is cheap
// and cannot change which columns a statement references:
//
//   - `backtick` and [bracket] identifiers become "double-quoted" ones;
//   - AS 'alias' (SQLite/MySQL accept a string as an alias) becomes AS "alias";
//   - MySQL/SQLite LIMIT offset, count becomes LIMIT count OFFSET offset;
//   - a JOIN with no ON or USING (SQLite reads it as a cross join) gets ON TRUE;
//   - SQL Server SELECT TOP n is dropped (a row limit references no column);
//   - MySQL INTERVAL 7 DAY becomes INTERVAL '7 DAY';
//   - REGEXP, RLIKE and GLOB between two operands become the ~ operator;
//   - a BigQuery `project.dataset.table` path is split into its parts;
//   - QUALIFY (Snowflake, BigQuery, DuckDB) becomes HAVING, or AND when the
//     query already has a HAVING: its columns are still read as a filter;
//   - a bare date-part word passed to DATEADD/DATEDIFF/DATE_PART/... (and
//     BigQuery's DATE_TRUNC(d, MONTH)) is quoted, so it is not taken for a
//     column named day or month;
//   - a Markdown code fence around the statement is dropped.
//
// Function names (IIF, STRFTIME, DATETIME, ...) need no rewrite: pg_query
// parses any function call and never checks that the function exists.
// Everything inside string literals and comments is copied unchanged.

type tokKind int

const (
	tkSpace  tokKind = iota // whitespace and comments
	tkWord                  // bare word: keyword or identifier
	tkQuoted                // "identifier" (also rewritten backtick/bracket ones)
	tkString                // 'string' or $tag$string$tag$
	tkNumber                // numeric literal
	tkPunct                 // any other character (one per token)
)

type sqlToken struct {
	kind tokKind
	text string
	// dq marks an identifier the author wrote in double quotes: SQLite
	// reads such a token as a string literal when no column has its name.
	dq bool
}

// dialectResult is normalized SQL plus where the author's own
// double-quoted identifiers start in it.
type dialectResult struct {
	sql      string
	dqStarts map[int]bool
}

func normalizeDialect(sql string) dialectResult {
	norm, _ := normalizeDialectTokens(sql)
	return norm
}

// normalizeDialectTokens is normalizeDialect with the tokens the
// normalized text is made of (they concatenate to it).
func normalizeDialectTokens(sql string) (dialectResult, []sqlToken) {
	sql = stripFence(sql)
	toks := lexSQL(sql)
	// Each pass runs only when its keyword occurs somewhere in the text.
	lower := strings.ToLower(sql)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	if has("'") {
		toks = rewriteStringAliases(toks)
	}
	if has("limit") {
		toks = rewriteLimitComma(toks)
	}
	if has("top") {
		toks = rewriteTop(toks)
	}
	if has("interval") {
		toks = rewriteInterval(toks)
	}
	if has("regexp", "rlike", "glob") {
		toks = rewriteRegexpOps(toks)
	}
	if has("qualify") {
		toks = rewriteQualify(toks)
	}
	if has("date", "time", "last_day") {
		toks = quoteDateUnits(toks)
	}
	if has("join") {
		toks = addMissingJoinOn(toks)
	}
	var b strings.Builder
	b.Grow(len(sql) + 8)
	var dq map[int]bool
	for _, t := range toks {
		if t.dq {
			if dq == nil {
				dq = map[int]bool{}
			}
			dq[b.Len()] = true
		}
		b.WriteString(t.text)
	}
	return dialectResult{sql: b.String(), dqStarts: dq}, toks
}

// stripFence removes a ```sql ... ``` fence around the whole text.
func stripFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return s
	}
	t = strings.TrimSuffix(t[3:], "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 && !strings.ContainsAny(t[:i], " \t(") {
		t = t[i+1:] // language tag line such as "sql"
	}
	return t
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

// lexSQL splits SQL into tokens; the tokens concatenate back to the input
// except where a backtick or bracket identifier was rewritten.
func lexSQL(s string) []sqlToken {
	toks := make([]sqlToken, 0, len(s)/3+4)
	for i := 0; i < len(s); {
		c := s[i]
		if end, ok := spaceOrCommentEnd(s, i); ok {
			toks = append(toks, sqlToken{kind: tkSpace, text: s[i:end]})
			i = end
			continue
		}
		switch {
		case c == '\'':
			j := quoteEnd(s, i, '\'')
			toks = append(toks, sqlToken{kind: tkString, text: s[i:j]})
			i = j
		case c == '"':
			j := quoteEnd(s, i, '"')
			toks = append(toks, sqlToken{kind: tkQuoted, text: s[i:j], dq: true})
			i = j
		case c == '`':
			toks, i = lexBacktick(toks, s, i)
		case c == '[':
			toks, i = lexBracket(toks, s, i)
		case c == '$' && i+1 < len(s) && (s[i+1] == '$' || isIdentStart(s[i+1])):
			toks, i = lexDollar(toks, s, i)
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == '_') {
				j++
			}
			toks = append(toks, sqlToken{kind: tkNumber, text: s[i:j]})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			toks = append(toks, sqlToken{kind: tkWord, text: s[i:j]})
			i = j
		default:
			toks = append(toks, sqlToken{kind: tkPunct, text: s[i : i+1]})
			i++
		}
	}
	return toks
}

// spaceOrCommentEnd reports whether white space or a comment (-- to the
// end of the line, /* to */) starts at i, and where it ends.
func spaceOrCommentEnd(s string, i int) (int, bool) {
	c := s[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		j := i + 1
		for j < len(s) && strings.IndexByte(" \t\n\r\f\v", s[j]) >= 0 {
			j++
		}
		return j, true
	case c == '-' && i+1 < len(s) && s[i+1] == '-':
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i
		}
		return i + j, true
	case c == '/' && i+1 < len(s) && s[i+1] == '*':
		j := strings.Index(s[i+2:], "*/")
		if j >= 0 {
			return i + 2 + j + 2, true
		}
		return len(s), true
	}
	return i, false
}

// lexBacktick reads a backtick identifier as double-quoted ones.
// BigQuery quotes a whole path in one pair: `project.dataset.table`.
func lexBacktick(toks []sqlToken, s string, i int) ([]sqlToken, int) {
	j := quoteEnd(s, i, '`')
	inner := s[i+1 : j]
	inner = strings.TrimSuffix(inner, "`")
	inner = strings.ReplaceAll(inner, "``", "`")
	for k, part := range strings.Split(inner, ".") {
		if k > 0 {
			toks = append(toks, sqlToken{kind: tkPunct, text: "."})
		}
		toks = append(toks, sqlToken{kind: tkQuoted, text: `"` + strings.ReplaceAll(part, `"`, `""`) + `"`})
	}
	return toks, j
}

// lexBracket reads [identifier] (SQL Server, SQLite) as a double-quoted
// identifier, unless it follows an expression, where [ is an array
// subscript.
func lexBracket(toks []sqlToken, s string, i int) ([]sqlToken, int) {
	end := strings.IndexByte(s[i+1:], ']')
	var p *sqlToken
	for k := len(toks) - 1; k >= 0; k-- {
		if toks[k].kind != tkSpace {
			p = &toks[k]
			break
		}
	}
	subscript := p != nil && (p.kind == tkWord && !bracketAfter[strings.ToLower(p.text)] || p.kind == tkQuoted || p.kind == tkString || p.kind == tkNumber ||
		p.text == ")" || p.text == "]")
	if end > 0 && !subscript && bracketIdent(s[i+1:i+1+end]) {
		inner := s[i+1 : i+1+end]
		toks = append(toks, sqlToken{kind: tkQuoted, text: `"` + strings.ReplaceAll(inner, `"`, `""`) + `"`})
		return toks, i + end + 2
	}
	return append(toks, sqlToken{kind: tkPunct, text: "["}), i + 1
}

// lexDollar reads $tag$ ... $tag$ dollar quoting as a string; $1
// parameters fall through as punctuation and a number.
func lexDollar(toks []sqlToken, s string, i int) ([]sqlToken, int) {
	k := i + 1
	for k < len(s) && s[k] != '$' && isIdentChar(s[k]) {
		k++
	}
	if k >= len(s) || s[k] != '$' {
		return append(toks, sqlToken{kind: tkPunct, text: "$"}), i + 1
	}
	tag := s[i : k+1]
	j := strings.Index(s[k+1:], tag)
	end := len(s)
	if j >= 0 {
		end = k + 1 + j + len(tag)
	}
	return append(toks, sqlToken{kind: tkString, text: s[i:end]}), end
}

// bracketAfter are the keywords after which [ starts a bracket identifier
// rather than an array subscript.
var bracketAfter = map[string]bool{
	"select": true, "from": true, "join": true, "on": true, "where": true, "and": true, "or": true, "not": true,
	"by": true, "as": true, "into": true, "update": true, "table": true, "set": true, "having": true, "when": true,
	"then": true, "else": true, "case": true, "distinct": true, "in": true, "is": true, "with": true,
	"partition": true, "values": true, "returning": true, "using": true, "top": true, "delete": true,
	"exists": true, "like": true, "between": true, "over": true, "end": false,
}

// quoteEnd returns the index just past the quoted run starting at s[i],
// where a doubled quote character is an escaped one.
func quoteEnd(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// bracketIdent reports whether the text between brackets reads as a name.
func bracketIdent(s string) bool {
	if strings.TrimSpace(s) == "" || strings.ContainsAny(s, "[',\"\n") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if isIdentStart(s[i]) {
			return true
		}
	}
	return false
}

func isWord(t sqlToken, w string) bool { return t.kind == tkWord && strings.EqualFold(t.text, w) }

// nextSig returns the index of the next non-space token after i, or len(toks).
func nextSig(toks []sqlToken, i int) int {
	for j := i + 1; j < len(toks); j++ {
		if toks[j].kind != tkSpace {
			return j
		}
	}
	return len(toks)
}

// rewriteStringAliases turns AS 'name' into AS "name".
func rewriteStringAliases(toks []sqlToken) []sqlToken {
	for i := range toks {
		if !isWord(toks[i], "as") {
			continue
		}
		j := nextSig(toks, i)
		if j < len(toks) && toks[j].kind == tkString && strings.HasPrefix(toks[j].text, "'") &&
			strings.HasSuffix(toks[j].text, "'") && len(toks[j].text) > 2 {
			inner := strings.ReplaceAll(toks[j].text[1:len(toks[j].text)-1], "''", "'")
			toks[j] = sqlToken{kind: tkQuoted, text: `"` + strings.ReplaceAll(inner, `"`, `""`) + `"`}
		}
	}
	return toks
}

// rewriteLimitComma turns LIMIT a, b into LIMIT b OFFSET a.
func rewriteLimitComma(toks []sqlToken) []sqlToken {
	for i := range toks {
		if !isWord(toks[i], "limit") {
			continue
		}
		a := nextSig(toks, i)
		if a >= len(toks) || toks[a].kind != tkNumber {
			continue
		}
		comma := nextSig(toks, a)
		if comma >= len(toks) || toks[comma].text != "," {
			continue
		}
		b := nextSig(toks, comma)
		if b >= len(toks) || toks[b].kind != tkNumber {
			continue
		}
		off, cnt := toks[a].text, toks[b].text
		toks[a].text = cnt
		toks[comma] = sqlToken{kind: tkSpace, text: " OFFSET"}
		toks[b].text = off
	}
	return toks
}

// joinEnders are the words after which a JOIN's table reference is over.
var joinEnders = map[string]bool{
	"where": true, "group": true, "order": true, "limit": true, "join": true, "inner": true, "left": true,
	"right": true, "full": true, "cross": true, "natural": true, "union": true, "intersect": true,
	"except": true, "having": true, "window": true, "offset": true,
}

// addMissingJoinOn appends ON TRUE to a JOIN table reference that has no
// ON or USING, as SQLite (which reads it as a cross join) allows.
func addMissingJoinOn(toks []sqlToken) []sqlToken {
	hasJoin := false
	for _, t := range toks {
		if isWord(t, "join") {
			hasJoin = true
			break
		}
	}
	if !hasJoin {
		return toks
	}
	out := make([]sqlToken, 0, len(toks)+2)
	for i := 0; i < len(toks); i++ {
		out = append(out, toks[i])
		if !isWord(toks[i], "join") {
			continue
		}
		// CROSS and NATURAL joins take no condition.
		if p := prevSigIn(out[:len(out)-1]); p != nil && (isWord(*p, "cross") || isWord(*p, "natural")) {
			continue
		}
		// Table name: word or quoted, dotted parts.
		j := nextSig(toks, i)
		if j >= len(toks) || (toks[j].kind != tkWord && toks[j].kind != tkQuoted) || isWord(toks[j], "lateral") {
			continue
		}
		end := j
		for {
			d := nextSig(toks, end)
			if d < len(toks) && toks[d].text == "." {
				n := nextSig(toks, d)
				if n < len(toks) && (toks[n].kind == tkWord || toks[n].kind == tkQuoted) {
					end = n
					continue
				}
			}
			break
		}
		k := nextSig(toks, end)
		if k < len(toks) && isWord(toks[k], "as") {
			k = nextSig(toks, k)
			if k >= len(toks) {
				continue
			}
			end = k
			k = nextSig(toks, k)
		} else if k < len(toks) && (toks[k].kind == tkQuoted || toks[k].kind == tkWord && !joinEnders[strings.ToLower(toks[k].text)] &&
			!isWord(toks[k], "on") && !isWord(toks[k], "using")) {
			end = k
			k = nextSig(toks, k)
		}
		closes := k >= len(toks) || toks[k].text == ")" || toks[k].text == ";" || toks[k].text == "," ||
			toks[k].kind == tkWord && joinEnders[strings.ToLower(toks[k].text)]
		if !closes {
			continue
		}
		out = append(out, toks[i+1:end+1]...)
		out = append(out, sqlToken{kind: tkSpace, text: " ON TRUE"})
		i = end
	}
	return out
}

func prevSigIn(toks []sqlToken) *sqlToken {
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].kind != tkSpace {
			return &toks[i]
		}
	}
	return nil
}

// rewriteTop drops SQL Server's TOP n [PERCENT] after SELECT [DISTINCT].
func rewriteTop(toks []sqlToken) []sqlToken {
	for i := range toks {
		if !isWord(toks[i], "select") {
			continue
		}
		j := nextSig(toks, i)
		if j < len(toks) && (isWord(toks[j], "distinct") || isWord(toks[j], "all")) {
			j = nextSig(toks, j)
		}
		if j >= len(toks) || !isWord(toks[j], "top") {
			continue
		}
		k := nextSig(toks, j)
		end := -1
		switch {
		case k < len(toks) && toks[k].kind == tkNumber:
			end = k
		case k < len(toks) && toks[k].text == "(":
			if n := nextSig(toks, k); n < len(toks) && toks[n].kind == tkNumber {
				if c := nextSig(toks, n); c < len(toks) && toks[c].text == ")" {
					end = c
				}
			}
		}
		if end < 0 {
			continue
		}
		if p := nextSig(toks, end); p < len(toks) && isWord(toks[p], "percent") {
			end = p
		}
		for x := j; x <= end; x++ {
			toks[x] = sqlToken{kind: tkSpace, text: ""}
		}
	}
	return toks
}

var intervalUnits = map[string]bool{
	"microsecond": true, "second": true, "minute": true, "hour": true, "day": true, "week": true,
	"month": true, "quarter": true, "year": true, "days": true, "months": true, "years": true,
	"hours": true, "minutes": true, "seconds": true, "weeks": true,
}

// rewriteInterval turns MySQL's INTERVAL 7 DAY into INTERVAL '7 DAY'.
func rewriteInterval(toks []sqlToken) []sqlToken {
	for i := range toks {
		if !isWord(toks[i], "interval") {
			continue
		}
		n := nextSig(toks, i)
		if n >= len(toks) || toks[n].kind != tkNumber {
			continue
		}
		u := nextSig(toks, n)
		if u >= len(toks) || toks[u].kind != tkWord || !intervalUnits[strings.ToLower(toks[u].text)] {
			continue
		}
		toks[n] = sqlToken{kind: tkString, text: "'" + toks[n].text + " " + toks[u].text + "'"}
		for x := n + 1; x <= u; x++ {
			toks[x] = sqlToken{kind: tkSpace, text: ""}
		}
	}
	return toks
}

// rewriteRegexpOps turns x REGEXP 'p' (MySQL, SQLite), x RLIKE 'p' and
// x GLOB 'p' (SQLite) into x ~ 'p': a pattern test PostgreSQL can parse.
func rewriteRegexpOps(toks []sqlToken) []sqlToken {
	for i := range toks {
		if !(isWord(toks[i], "regexp") || isWord(toks[i], "rlike") || isWord(toks[i], "glob")) {
			continue
		}
		p := prevSigIn(toks[:i])
		n := nextSig(toks, i)
		operandBefore := p != nil && (p.kind == tkQuoted || p.kind == tkString || p.kind == tkNumber || p.text == ")" ||
			p.kind == tkWord && !bracketAfter[strings.ToLower(p.text)] || isWord(*p, "not"))
		operandAfter := n < len(toks) && (toks[n].kind == tkString || toks[n].kind == tkWord || toks[n].kind == tkQuoted || toks[n].text == "(")
		if !operandBefore || !operandAfter {
			continue
		}
		if isWord(*p, "not") {
			// x NOT REGEXP p  ->  x !~ p
			*p = sqlToken{kind: tkSpace, text: ""}
			toks[i] = sqlToken{kind: tkPunct, text: "!~"}
			continue
		}
		toks[i] = sqlToken{kind: tkPunct, text: "~"}
	}
	return toks
}

// rewriteQualify turns QUALIFY into HAVING (or AND after an existing
// HAVING of the same query level).
func rewriteQualify(toks []sqlToken) []sqlToken {
	depth := 0
	var havingAt []bool // per paren depth: a HAVING was seen in the current query
	for i, t := range toks {
		for len(havingAt) <= depth {
			havingAt = append(havingAt, false)
		}
		switch {
		case t.text == "(":
			depth++
			for len(havingAt) <= depth {
				havingAt = append(havingAt, false)
			}
			havingAt[depth] = false
		case t.text == ")":
			if depth > 0 {
				depth--
			}
		case isWord(t, "select"):
			havingAt[depth] = false
		case isWord(t, "having"):
			havingAt[depth] = true
		case isWord(t, "qualify"):
			p := prevSigIn(toks[:i])
			if p == nil || p.text == "," || p.text == "." || isWord(*p, "select") || isWord(*p, "as") {
				continue // a column or alias named qualify
			}
			if havingAt[depth] {
				toks[i] = sqlToken{kind: tkWord, text: "AND"}
			} else {
				toks[i] = sqlToken{kind: tkWord, text: "HAVING"}
				havingAt[depth] = true
			}
		}
	}
	return toks
}

var dateUnits = map[string]bool{
	"year": true, "years": true, "yy": true, "yyyy": true, "quarter": true, "qq": true, "month": true,
	"months": true, "mm": true, "week": true, "weeks": true, "wk": true, "ww": true, "isoweek": true,
	"day": true, "days": true, "dd": true, "d": true, "dayofweek": true, "dayofyear": true, "dy": true,
	"hour": true, "hours": true, "hh": true, "minute": true, "minutes": true, "mi": true, "n": true,
	"second": true, "seconds": true, "ss": true, "s": true, "millisecond": true, "ms": true,
	"microsecond": true, "mcs": true, "nanosecond": true, "ns": true, "date": true, "isoyear": true,
}

// dateUnitFirst maps functions whose first argument is a bare date part to
// their argument count; dateUnitLast lists BigQuery functions whose last
// argument is one.
var dateUnitFirst = map[string]int{
	"dateadd": 3, "datediff": 3, "timestampadd": 3, "timestampdiff": 3, "date_part": 2, "datepart": 2,
	"datename": 2, "datetrunc": 2,
}

var dateUnitLast = map[string]bool{
	"date_trunc": true, "datetime_trunc": true, "timestamp_trunc": true, "time_trunc": true,
	"date_diff": true, "datetime_diff": true, "timestamp_diff": true, "time_diff": true, "last_day": true,
}

// quoteDateUnits quotes a bare date-part argument: DATEADD(day, 1, d)
// becomes DATEADD('day', 1, d).
func quoteDateUnits(toks []sqlToken) []sqlToken {
	for i := range toks {
		if toks[i].kind != tkWord {
			continue
		}
		name := strings.ToLower(toks[i].text)
		nargs, first := dateUnitFirst[name]
		last := dateUnitLast[name]
		if !first && !last {
			continue
		}
		open := nextSig(toks, i)
		if open >= len(toks) || toks[open].text != "(" {
			continue
		}
		// Top-level argument boundaries up to the matching parenthesis.
		var args [][2]int // first and last significant token of each argument
		depth, start, end := 0, -1, -1
		closed := false
		for j := open + 1; j < len(toks) && !closed; j++ {
			t := toks[j]
			switch {
			case t.kind == tkSpace:
				continue
			case t.text == "(":
				depth++
			case t.text == ")" && depth == 0:
				args = append(args, [2]int{start, end})
				closed = true
				continue
			case t.text == ")":
				depth--
			case t.text == "," && depth == 0:
				args = append(args, [2]int{start, end})
				start, end = -1, -1
				continue
			}
			if start < 0 {
				start = j
			}
			end = j
		}
		if !closed {
			continue
		}
		quote := func(a [2]int) {
			if a[0] >= 0 && a[0] == a[1] && toks[a[0]].kind == tkWord && dateUnits[strings.ToLower(toks[a[0]].text)] {
				toks[a[0]] = sqlToken{kind: tkString, text: "'" + toks[a[0]].text + "'"}
			}
		}
		switch {
		case first && len(args) == nargs:
			quote(args[0])
		case last && len(args) >= 2:
			quote(args[len(args)-1])
		}
	}
	return toks
}
