package scoring

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ParseDefinition reads the governed predicate out of gold definition text
// such as
//
//	active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter
//
// into its term ("active") and AND-joined predicates. The term is what
// precedes "=", ":" or "means" when a predicate follows it; a text that is
// only a predicate has term "". Bare words are constants; prose after the
// last predicate is dropped. Accepted tests: =, <>, !=, <, <=, >, >=, in,
// not in, like, not like, between, is null, is not null. A text with no
// predicate, or one joined by OR (which cannot be dropped without changing
// the meaning), is an error: the caller treats it as undecidable.
func ParseDefinition(text string) (term string, preds []Predicate, err error) {
	toks := sigTokens(joinHyphenated(lexSQL(text)))
	// Term, then separator, then predicate; else the whole text.
	for i, t := range toks {
		sep := 0
		switch {
		case t.text == ":" || t.text == "=" && (i+1 >= len(toks) || !isCompareTail(toks[i+1])) && !isCompareHead(toks, i):
			sep = 1
		case isWord(t, "means"):
			sep = 1
		case isWord(t, "is") && i+2 < len(toks) && isWord(toks[i+1], "defined") && isWord(toks[i+2], "as"):
			sep = 3
		}
		if sep == 0 || i == 0 {
			continue
		}
		if p, err := parsePredicates(toks[i+sep:]); err == nil {
			return termText(toks[:i]), p, nil
		} else if !errors.Is(err, errNoPredicate) {
			return "", nil, err
		}
		// "bookings = SUM(amount_usd) of opportunities with stage = closed_won":
		// the predicate follows a measure; look for it after a word that
		// introduces a condition.
		if p, err := embeddedPredicates(toks[i+sep:]); err == nil {
			return termText(toks[:i]), p, nil
		} else if !errors.Is(err, errNoPredicate) {
			return "", nil, err
		}
		break
	}
	p, err := parsePredicates(toks)
	if err != nil {
		return "", nil, fmt.Errorf("definition %q: %w", text, err)
	}
	return "", p, nil
}

var errNoPredicate = errors.New("no predicate found")

// joinHyphenated keeps a hyphenated word ("mid-market", "PAUSED-BILLING")
// one word: SQL lexes it as word, minus, word, which would render as
// "mid - market" in evidence and cut a bare value at the hyphen.
func joinHyphenated(ts []sqlToken) []sqlToken {
	out := ts[:0:0]
	for i := 0; i < len(ts); i++ {
		n := len(out)
		if ts[i].text == "-" && n > 0 && out[n-1].kind == tkWord && i+1 < len(ts) && ts[i+1].kind == tkWord {
			out[n-1].text += "-" + ts[i+1].text
			i++
			continue
		}
		out = append(out, ts[i])
	}
	return out
}

// embeddedPredicates finds the first predicate introduced by a condition
// word (with, where, when, whose, having, if) inside prose, or opening a
// parenthesis that glosses a word ("open opportunity (stage not in
// closed_won, closed_lost)").
func embeddedPredicates(toks []sqlToken) ([]Predicate, error) {
	for j := 0; j+1 < len(toks); j++ {
		switch strings.ToLower(toks[j].text) {
		case "(":
			if p, err := parsePredicates(glossList(toks[j+1:])); !errors.Is(err, errNoPredicate) {
				return p, err
			}
		case "with", "where", "when", "whose", "having", "if":
			if p, err := parsePredicates(toks[j+1:]); !errors.Is(err, errNoPredicate) {
				return p, err
			}
		}
	}
	return nil, errNoPredicate
}

// glossList reads "stage not in closed_won, closed_lost)", the inside of
// a parenthesis with an IN list written without its own parentheses, as
// "stage not in (closed_won, closed_lost)": the gloss's ")" closes it.
func glossList(ts []sqlToken) []sqlToken {
	for i := 1; i < len(ts) && i < 5; i++ {
		if isWord(ts[i], "in") {
			if i+1 < len(ts) && ts[i+1].text != "(" {
				return append(append(ts[:i+1:i+1], sqlToken{kind: tkPunct, text: "("}), ts[i+1:]...)
			}
			break
		}
	}
	return ts
}

// isCompareHead reports whether the "=" at i is the tail of <=, >=, !=.
func isCompareHead(toks []sqlToken, i int) bool {
	return i > 0 && (toks[i-1].text == "<" || toks[i-1].text == ">" || toks[i-1].text == "!" || toks[i-1].text == "=")
}

func isCompareTail(t sqlToken) bool { return t.text == "=" }

func termText(ts []sqlToken) string {
	var words []string
	for _, t := range ts {
		words = append(words, identOrText(t))
	}
	return strings.ToLower(strings.Join(words, " "))
}

func identOrText(t sqlToken) string {
	switch t.kind {
	case tkQuoted:
		return identText(t)
	case tkString:
		return unquote(t.text)
	}
	return t.text
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

// parsePredicates reads field op value [AND field op value ...] from the
// start of toks and ignores what follows the last one.
func parsePredicates(toks []sqlToken) ([]Predicate, error) {
	var out []Predicate
	i := 0
	for {
		p, n, ok := parseOnePredicate(toks[i:])
		if !ok {
			break
		}
		i += n
		// status = A or status = B (or status in (...)): one column, so
		// an IN list. OR across columns cannot be dropped or split.
		for i < len(toks) && isWord(toks[i], "or") {
			q, m, ok := parseOnePredicate(toks[i+1:])
			merged, same := orSameColumn(p, q)
			if !ok || !same {
				return nil, errors.New("OR between predicates on different columns is not supported")
			}
			p = merged
			i += 1 + m
		}
		out = append(out, p)
		if i < len(toks) && isWord(toks[i], "and") {
			if _, _, ok := parseOnePredicate(toks[i+1:]); ok {
				i++
				continue
			}
		}
		break
	}
	if len(out) == 0 {
		return nil, errNoPredicate
	}
	return out, nil
}

// parseOnePredicate reads one test; n is how many tokens it used.
func parseOnePredicate(toks []sqlToken) (p Predicate, n int, ok bool) {
	// Field: name or dotted name.
	i := 0
	var parts []string
	for i < len(toks) && (toks[i].kind == tkWord || toks[i].kind == tkQuoted) {
		parts = append(parts, strings.ToLower(identOrText(toks[i])))
		if i+1 < len(toks) && toks[i+1].text == "." {
			i += 2
			continue
		}
		i++
		break
	}
	if len(parts) == 0 || i >= len(toks) {
		return p, 0, false
	}
	p.Field = strings.Join(parts, ".")
	word := func(j int, w string) bool { return j < len(toks) && isWord(toks[j], w) }
	switch {
	case word(i, "in") || word(i, "not") && word(i+1, "in"):
		p.Op = "in"
		if word(i, "not") {
			p.Op, i = "not in", i+1
		}
		i++
		vals, used, ok := parseValueList(toks[i:])
		if !ok {
			return p, 0, false
		}
		p.Values = vals
		return p, i + used, true
	case word(i, "is") && word(i+1, "null"):
		p.Op = "is null"
		return p, i + 2, true
	case word(i, "is") && word(i+1, "not") && word(i+2, "null"):
		p.Op = "is not null"
		return p, i + 3, true
	case word(i, "like") || word(i, "not") && word(i+1, "like"):
		p.Op = "like"
		if word(i, "not") {
			p.Op, i = "not like", i+1
		}
		i++
		if i >= len(toks) || !isValue(toks[i]) {
			return p, 0, false
		}
		p.Values = []string{identOrText(toks[i])}
		return p, i + 1, true
	case word(i, "between"):
		if i+3 < len(toks) && isValue(toks[i+1]) && isWord(toks[i+2], "and") && isValue(toks[i+3]) {
			p.Op = "between"
			p.Values = []string{identOrText(toks[i+1]), identOrText(toks[i+3])}
			return p, i + 4, true
		}
		return p, 0, false
	}
	// Comparison operators arrive as single-character tokens.
	op := ""
	for i < len(toks) && toks[i].kind == tkPunct && strings.Contains("<>=!", toks[i].text) && len(op) < 2 {
		op += toks[i].text
		i++
	}
	norm, ok := compareOps[op]
	if !ok || i >= len(toks) || !isValue(toks[i]) {
		return p, 0, false
	}
	if i+1 < len(toks) && (toks[i+1].text == "(" || toks[i+1].text == ".") {
		return p, 0, false // a function call or another column, not a constant
	}
	p.Op = norm
	p.Values = []string{identOrText(toks[i])}
	return p, i + 1, true
}

func isValue(t sqlToken) bool {
	return t.kind == tkWord || t.kind == tkString || t.kind == tkNumber || t.kind == tkQuoted
}

// parseValueList reads ( v, v, ... ); a value may be several bare words.
func parseValueList(toks []sqlToken) ([]string, int, bool) {
	if len(toks) == 0 || toks[0].text != "(" {
		return nil, 0, false
	}
	var vals []string
	var cur []string
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.text == "," || t.text == ")":
			if len(cur) == 0 {
				return nil, 0, false
			}
			vals = append(vals, strings.Join(cur, " "))
			cur = nil
			if t.text == ")" {
				return vals, i + 1, true
			}
		case isValue(t) || t.text == "-" && i+1 < len(toks) && toks[i+1].kind == tkNumber:
			if t.text == "-" {
				i++
				cur = append(cur, "-"+toks[i].text)
				continue
			}
			cur = append(cur, identOrText(t))
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// orSameColumn merges a OR b into one IN list when both test one column
// for equality (=, in); ok is false for anything else.
func orSameColumn(a, b Predicate) (Predicate, bool) {
	ao, av := canonicalOp(a)
	bo, bv := canonicalOp(b)
	if a.Field == "" || !strings.EqualFold(a.Field, b.Field) || ao != "in" || bo != "in" || len(av) == 0 || len(bv) == 0 {
		return Predicate{}, false
	}
	return Predicate{Field: a.Field, Op: "in", Values: append(append([]string(nil), av...), bv...)}, true
}

// PredicateEquivalent reports whether a call's predicate got applies the
// governed predicate def, both in canonical form (see canonicalPreds for
// what is rewritten). Columns match when equal, or, when def names a bare
// column, when got's column part has that name. IN lists compare as sets;
// constants compare without regard to case.
func PredicateEquivalent(def Predicate, got Predicate) bool {
	if !sameColumn(def.Field, got.Field) {
		return false
	}
	dop, dvals := canonicalOp(def)
	gop, gvals := canonicalOp(got)
	if dop != gop || dop == "other" {
		return false
	}
	if dop == "in" || dop == "not in" {
		return equalSets(dvals, gvals)
	}
	if len(dvals) != len(gvals) {
		return false
	}
	for i := range dvals {
		if !strings.EqualFold(dvals[i], gvals[i]) {
			return false
		}
	}
	return true
}

// canonicalPreds rewrites a conjunction so spellings of one test agree:
// x BETWEEN a AND b becomes x >= a and x <= b (so it meets the two
// comparisons in any order). The rest is done where predicates are built
// or compared: an OR of equalities on one column is an IN list (predicate,
// parsePredicates); = and <> are one-value IN and NOT IN (canonicalOp);
// NOT (x IN ...) is x NOT IN (negateOp); casts are looked through
// (predField, constValue); conjunct order never matters (DefinitionApplied).
func canonicalPreds(ps []Predicate) []Predicate {
	split := false
	for _, p := range ps {
		if p.Op == "between" && len(p.Values) == 2 {
			split = true
		}
	}
	if !split {
		return ps
	}
	out := make([]Predicate, 0, len(ps)+1)
	for _, p := range ps {
		if p.Op == "between" && len(p.Values) == 2 {
			out = append(out, Predicate{Field: p.Field, Op: ">=", Values: p.Values[:1]}, Predicate{Field: p.Field, Op: "<=", Values: p.Values[1:]})
			continue
		}
		out = append(out, p)
	}
	return out
}

// DefinitionApplied reports whether every predicate of a definition has an
// equivalent among a call's WHERE predicates.
func DefinitionApplied(def, where []Predicate) bool {
	ok, _ := MatchDefinition(def, where)
	return ok
}

// MatchDefinition compares a definition with a WHERE, both normalized:
// matched when every definition predicate has an equivalent; otherwise
// undecided when some definition column is tested in a way the normal form
// cannot express (a function of it, an IN over a subquery, a mixed OR):
// those go to a human, never to a silent mismatch.
func MatchDefinition(def, where []Predicate) (matched, undecided bool) {
	if len(def) == 0 {
		return false, false
	}
	def, where = canonicalPreds(def), canonicalPreds(where)
	for _, d := range def {
		found, unsure := false, false
		for _, w := range where {
			if PredicateEquivalent(d, w) {
				found = true
				break
			}
			if readsColumn(w, d.Field) {
				unsure = true
			}
		}
		if !found {
			return false, unsure
		}
	}
	return true, false
}

// readsColumn: w tests col in a form the normal form cannot compare: an
// "other" test reading it, or an IN over a subquery (no values).
func readsColumn(w Predicate, col string) bool {
	switch w.Op {
	case "other":
		if sameColumn(col, w.Field) {
			return true
		}
		for _, f := range w.Values {
			if sameColumn(col, f) {
				return true
			}
		}
	case "in", "not in":
		return len(w.Values) == 0 && sameColumn(col, w.Field)
	}
	return false
}

func sameColumn(def, got string) bool {
	def, got = strings.ToLower(def), strings.ToLower(got)
	if def == "" || got == "" {
		return false
	}
	if def == got {
		return true
	}
	if strings.Contains(def, ".") {
		return false
	}
	_, col, ok := strings.Cut(got, ".")
	return ok && col == def
}

func canonicalOp(p Predicate) (string, []string) {
	switch {
	case p.Op == "=" && len(p.Values) == 1:
		return "in", p.Values
	case p.Op == "<>" && len(p.Values) == 1:
		return "not in", p.Values
	}
	return p.Op, p.Values
}

func equalSets(a, b []string) bool {
	norm := func(xs []string) []string {
		seen := map[string]bool{}
		var out []string
		for _, x := range xs {
			x = strings.ToLower(x)
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
		sort.Strings(out)
		return out
	}
	x, y := norm(a), norm(b)
	if len(x) != len(y) || len(x) == 0 {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
