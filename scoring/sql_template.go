package scoring

// Statements that differ only in literals share one parse.
//
// Agents rarely repeat a statement byte for byte: the same query comes
// back with another id, date or name, so the exact-text cache (sqlCache)
// misses and every statement paid pg_query's parse, two thirds of
// analyzing it (the C parser and reading its tree back). Here the parse
// tree of a normalized text is kept under its template: the text with
// each literal replaced by its class. A statement of a known template
// writes its own literals into the kept tree's constants and walks that
// tree again, so everything the analysis reads from a literal (predicate
// values, ORDER BY ordinals, a NOT of 'true', dates, LIMITs) is derived
// from the statement itself, never copied from the statement that was
// parsed. Only the parse is shared.
//
// That holds when the template decides the tree but for the constants'
// values and locations. It does for the literals taken here, which are
// exactly PostgreSQL's tokens: a plain '…' string (no prefix, no
// backslash) is always one Sconst; decimal digits that fit in an int32
// are one ICONST, other decimal numbers one FCONST kept as written. The
// walk reads no location but a double-quoted identifier's, which the
// template keeps. And before a template's tree is kept, every one of its
// literals must be found as exactly one constant at its offset (or, for a
// number after a minus sign, negated at the sign's offset, as the grammar
// folds it) with the literal's value: a literal the grammar reads another
// way (float(24), a string continued on the next line, -(5)) leaves
// that template to the parser every time.

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Literal classes, as they are written into a template.
const (
	litInt = 'i' // decimal digits that fit in an int32: an Integer constant
	litNum = 'f' // any other decimal number: a Float constant, as written
	litStr = 's' // a plain '…' string: a String constant
)

// templateTrees and templateSeen bound the template cache of one sqlCache:
// the trees kept, and the templates met once (a tree is kept from the
// second statement of a template on, so one-off statements cost only
// their key).
const (
	templateTrees = 512
	templateSeen  = 4096
)

// sqlLiteral is one literal of a normalized text.
type sqlLiteral struct {
	off   int    // where it starts in the normalized text
	class byte   // litInt, litNum or litStr
	text  string // as written
	ival  int32  // litInt's value
	str   string // litStr's value: the text without quotes, '' read as '
}

// sqlTemplate is a normalized text's key and its literals, in order.
type sqlTemplate struct {
	key  string
	lits []sqlLiteral
}

// templateOf splits a normalized text (and the tokens it is made of) into
// its template and literals. ok is false when the text has no literal to
// share a tree over, or holds a string this file does not take (dollar
// quoted, E'…', U&'…', a backslash, unterminated): the lexer here is not
// PostgreSQL's, and such strings are where the two could read the rest of
// the text differently. A NUL byte separates the key's markers from the
// text, which holds none (analyzeText refuses it first).
func templateOf(norm string, toks []sqlToken) (sqlTemplate, bool) {
	if !utf8.ValidString(norm) {
		return sqlTemplate{}, false
	}
	var t sqlTemplate
	var b strings.Builder
	b.Grow(len(norm) + 16)
	off := 0
	for _, tok := range toks {
		start := off
		off += len(tok.text)
		switch tok.kind {
		case tkString:
			l, ok := stringLiteral(norm, start, tok.text)
			if !ok {
				return sqlTemplate{}, false
			}
			t.lits = append(t.lits, l)
			b.WriteString("\x00s")
			continue
		case tkNumber:
			if l, ok := numberLiteral(norm, start, tok.text); ok {
				t.lits = append(t.lits, l)
				b.WriteByte(0)
				b.WriteByte(l.class)
				continue
			}
		case tkQuoted:
			if tok.dq {
				// The walk reads these by offset (sqlAnalyzer.dq): a
				// rewritten backtick identifier is not one of them.
				b.WriteString("\x00d")
			}
		}
		b.WriteString(tok.text)
	}
	if off != len(norm) || len(t.lits) == 0 {
		return sqlTemplate{}, false
	}
	t.key = b.String()
	return t, true
}

// stringLiteral reads a plain '…' string token starting at off.
func stringLiteral(norm string, off int, text string) (sqlLiteral, bool) {
	if len(text) < 2 || text[0] != '\'' || text[len(text)-1] != '\'' || strings.IndexByte(text, '\\') >= 0 {
		return sqlLiteral{}, false
	}
	if off > 0 && (isIdentChar(norm[off-1]) || norm[off-1] == '&') {
		return sqlLiteral{}, false // E'…', B'…', X'…', N'…', U&'…'
	}
	inner := text[1 : len(text)-1]
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\'' {
			if i+1 >= len(inner) || inner[i+1] != '\'' {
				return sqlLiteral{}, false // the string ended before the token did
			}
			i++
		}
	}
	return sqlLiteral{off: off, class: litStr, text: text, str: strings.ReplaceAll(inner, "''", "'")}, true
}

// numberLiteral reads a decimal number token starting at off, when it is
// one PostgreSQL token on its own: not part of a name or parameter ($1),
// not followed by what would continue it (1e5, 0x1F, 1_000, 5abc).
func numberLiteral(norm string, off int, text string) (sqlLiteral, bool) {
	if off > 0 && (isIdentChar(norm[off-1]) || norm[off-1] == '.') {
		return sqlLiteral{}, false
	}
	if end := off + len(text); end < len(norm) && (isIdentChar(norm[end]) || norm[end] == '.') {
		return sqlLiteral{}, false
	}
	dot, digits := false, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return sqlLiteral{}, false
		}
	}
	if digits == 0 {
		return sqlLiteral{}, false
	}
	l := sqlLiteral{off: off, class: litNum, text: text}
	if !dot {
		if v, err := strconv.ParseInt(text, 10, 32); err == nil {
			l.class, l.ival = litInt, int32(v)
		}
	}
	return l, true
}

// parsedTemplate is a kept tree and, for each literal of its template,
// the constant that holds it. The tree is rewritten by every statement
// that uses it: mu is held from the rewrite to the end of the walk.
type parsedTemplate struct {
	mu    sync.Mutex
	tree  *pg.ParseResult
	dq    map[int]bool // the double-quoted identifiers, in the tree's text
	slots []constSlot
}

// constSlot is the constant of one literal; neg when the grammar folded a
// minus sign into it (doNegate), so it holds the literal negated.
type constSlot struct {
	c   *pg.A_Const
	neg bool
}

// templateCache keeps parse trees by template (whatever the schema: the
// tree does not depend on it, the walk does).
type templateCache struct {
	mu      sync.Mutex
	trees   map[string][]*parsedTemplate // an empty list: the template's tree cannot be shared
	seen    map[string]bool              // templates met once
	maxTree int
	maxSeen int
	reused  atomic.Int64 // statements analyzed from a kept tree (for tests and benchmarks)
}

// treesPerTemplate is how many trees one template keeps: a scoring run
// analyzes on every core (Scorer.ScoreAll), and a tree is one
// goroutine's at a time.
const treesPerTemplate = 4

func newTemplateCache(maxTrees, maxSeen int) *templateCache {
	return &templateCache{trees: map[string][]*parsedTemplate{}, seen: map[string]bool{}, maxTree: maxTrees, maxSeen: maxSeen}
}

// reuse analyzes the statement of template t into out from a kept tree,
// and reports whether it could. A tree in use by another goroutine is not
// waited for: with every tree of the template busy, the caller parses
// (and remember keeps that tree too, up to treesPerTemplate).
func (tc *templateCache) reuse(t *sqlTemplate, idx *schemaIndex, out *SQLAnalysis) bool {
	tc.mu.Lock()
	ps := tc.trees[t.key]
	tc.mu.Unlock()
	for _, p := range ps {
		if p.mu.TryLock() {
			p.bind(t.lits)
			walkTree(out, p.tree, p.dq, idx)
			p.mu.Unlock()
			tc.reused.Add(1)
			return true
		}
	}
	return false
}

// remember notes a parsed statement of template t: the first of a
// template is only counted, the second's tree is kept when every literal
// is found in it, and later ones are kept while the template's trees are
// all busy and fewer than treesPerTemplate.
func (tc *templateCache) remember(t *sqlTemplate, norm string, tree *pg.ParseResult, dq map[int]bool) {
	tc.mu.Lock()
	ps, known := tc.trees[t.key]
	once := tc.seen[t.key]
	if !known && !once {
		if len(tc.seen) >= tc.maxSeen {
			clear(tc.seen)
		}
		tc.seen[t.key] = true
	}
	keep := known && len(ps) > 0 && len(ps) < treesPerTemplate || !known && once
	tc.mu.Unlock()
	if !keep {
		return
	}
	p := newParsedTemplate(t, norm, tree, dq) // nil when the tree cannot be shared
	tc.mu.Lock()
	defer tc.mu.Unlock()
	ps, known = tc.trees[t.key]
	if !known {
		if len(tc.trees) >= tc.maxTree {
			clear(tc.trees) // simple bound, as sqlCache's
		}
		delete(tc.seen, t.key)
		ps = []*parsedTemplate{}
	} else if len(ps) == 0 || len(ps) >= treesPerTemplate {
		return
	}
	if p != nil {
		ps = append(ps, p)
	}
	tc.trees[t.key] = ps
}

// newParsedTemplate finds each literal of t in tree as one constant at the
// literal's offset with its value (or at a minus sign just before a
// number, negated); nil when one is missing, found twice, holds another
// value, or a constant at a minus sign is not such a number's.
func newParsedTemplate(t *sqlTemplate, norm string, tree *pg.ParseResult, dq map[int]bool) *parsedTemplate {
	at := make(map[int]int, len(t.lits))
	for i, l := range t.lits {
		at[l.off] = i
	}
	slots := make([]constSlot, len(t.lits))
	var consts []*pg.A_Const
	collectConsts(tree.ProtoReflect(), &consts)
	for _, c := range consts {
		loc := int(c.GetLocation())
		neg := false
		i, ok := at[loc]
		if !ok && loc >= 0 && loc < len(norm) && norm[loc] == '-' {
			i, ok = at[afterSpace(norm, loc+1)]
			if !ok || t.lits[i].class == litStr {
				return nil
			}
			neg = true
		}
		if !ok {
			continue // a constant of the grammar's own (true, an interval's fields, FETCH FIRST ROW)
		}
		if slots[i].c != nil || !constHolds(c, t.lits[i], neg) {
			return nil
		}
		slots[i] = constSlot{c: c, neg: neg}
	}
	for _, s := range slots {
		if s.c == nil {
			return nil
		}
	}
	return &parsedTemplate{tree: tree, dq: dq, slots: slots}
}

// afterSpace is the offset of the first character at or after i that is
// not white space or a comment.
func afterSpace(s string, i int) int {
	for i < len(s) {
		end, ok := spaceOrCommentEnd(s, i)
		if !ok {
			break
		}
		i = end
	}
	return i
}

// constHolds says c is literal l's constant (negated with neg).
func constHolds(c *pg.A_Const, l sqlLiteral, neg bool) bool {
	if c.GetIsnull() {
		return false
	}
	switch l.class {
	case litInt:
		v := l.ival
		if neg {
			v = -v
		}
		return c.GetIval() != nil && c.GetIval().GetIval() == v
	case litNum:
		v := l.text
		if neg {
			v = "-" + v
		}
		return c.GetFval() != nil && c.GetFval().GetFval() == v
	case litStr:
		return !neg && c.GetSval() != nil && c.GetSval().GetSval() == l.str
	}
	return false
}

// bind writes a statement's literals into the tree's constants. The
// template is the same, so each literal has its slot's class.
func (p *parsedTemplate) bind(lits []sqlLiteral) {
	for i, s := range p.slots {
		l := lits[i]
		switch l.class {
		case litInt:
			v := l.ival
			if s.neg {
				v = -v
			}
			s.c.GetIval().Ival = v
		case litNum:
			v := l.text
			if s.neg {
				v = "-" + v
			}
			s.c.GetFval().Fval = v
		case litStr:
			s.c.GetSval().Sval = l.str
		}
	}
}

// collectConsts appends every A_Const of a tree.
func collectConsts(m protoreflect.Message, out *[]*pg.A_Const) {
	if c, ok := m.Interface().(*pg.A_Const); ok {
		*out = append(*out, c)
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				collectConsts(l.Get(i).Message(), out)
			}
		default:
			collectConsts(v.Message(), out)
		}
		return true
	})
}
