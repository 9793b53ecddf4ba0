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
	sql = stripFence(sql)
	toks := lexSQL(sql)
	toks = rewriteStringAliases(toks)
	toks = rewriteLimitComma(toks)
	toks = addMissingJoinOn(toks)
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
	return dialectResult{sql: b.String(), dqStarts: dq}
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
	var toks []sqlToken
	prevSig := func() *sqlToken {
		for i := len(toks) - 1; i >= 0; i-- {
			if toks[i].kind != tkSpace {
				return &toks[i]
			}
		}
		return nil
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\n\r\f\v", s[j]) >= 0 {
				j++
			}
			toks = append(toks, sqlToken{kind: tkSpace, text: s[i:j]})
			i = j
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			toks = append(toks, sqlToken{kind: tkSpace, text: s[i : i+j]})
			i += j
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			end := len(s)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			toks = append(toks, sqlToken{kind: tkSpace, text: s[i:end]})
			i = end
		case c == '\'':
			j := quoteEnd(s, i, '\'')
			toks = append(toks, sqlToken{kind: tkString, text: s[i:j]})
			i = j
		case c == '"':
			j := quoteEnd(s, i, '"')
			toks = append(toks, sqlToken{kind: tkQuoted, text: s[i:j], dq: true})
			i = j
		case c == '`':
			j := quoteEnd(s, i, '`')
			inner := s[i+1 : j]
			if strings.HasSuffix(inner, "`") {
				inner = inner[:len(inner)-1]
			}
			inner = strings.ReplaceAll(inner, "``", "`")
			toks = append(toks, sqlToken{kind: tkQuoted, text: `"` + strings.ReplaceAll(inner, `"`, `""`) + `"`})
			i = j
		case c == '[':
			// [identifier] (SQL Server, SQLite) unless it follows an
			// expression, where it is an array subscript.
			end := strings.IndexByte(s[i+1:], ']')
			p := prevSig()
			subscript := p != nil && (p.kind == tkWord || p.kind == tkQuoted || p.kind == tkString || p.kind == tkNumber ||
				p.text == ")" || p.text == "]")
			if end > 0 && !subscript && bracketIdent(s[i+1:i+1+end]) {
				inner := s[i+1 : i+1+end]
				toks = append(toks, sqlToken{kind: tkQuoted, text: `"` + strings.ReplaceAll(inner, `"`, `""`) + `"`})
				i += end + 2
			} else {
				toks = append(toks, sqlToken{kind: tkPunct, text: "["})
				i++
			}
		case c == '$' && i+1 < len(s) && (s[i+1] == '$' || isIdentStart(s[i+1])):
			// $tag$ ... $tag$ dollar quoting; $1 parameters fall through.
			k := i + 1
			for k < len(s) && s[k] != '$' && isIdentChar(s[k]) {
				k++
			}
			if k < len(s) && s[k] == '$' {
				tag := s[i : k+1]
				j := strings.Index(s[k+1:], tag)
				end := len(s)
				if j >= 0 {
					end = k + 1 + j + len(tag)
				}
				toks = append(toks, sqlToken{kind: tkString, text: s[i:end]})
				i = end
			} else {
				toks = append(toks, sqlToken{kind: tkPunct, text: "$"})
				i++
			}
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
	var out []sqlToken
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
