package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The full-text index over each trace's question and steps (migration
// 0018): an FTS5 table with a row per trace on SQLite, a tsvector table
// with a row for the question and one for each part of the step body
// (0047) and a GIN index on PostgreSQL, both filled by triggers on traces
// and step_bodies so that every import path keeps them current (a bulk
// import on PostgreSQL writes the same rows itself, pgsearch.go). A
// search is a list of terms, each a word or a "quoted phrase"; a step is
// a hit when it holds every term. Words match whole, as written, ignoring
// case: is_active finds is_active, not is or active alone. The index finds
// the traces; which of their steps are hits is decided here, from the
// trace's body, the same way on both backends.

// notSearchIndex (a condition on sqlite_master m) leaves out the FTS5
// table and its shadow tables: staging and copy move plain rows, and the
// index is rebuilt by the triggers where the rows land.
const notSearchIndex = `NOT EXISTS (SELECT 1 FROM sqlite_master v WHERE v.type = 'table' AND v.sql LIKE 'CREATE VIRTUAL TABLE%'
	AND (m.name = v.name OR substr(m.name, 1, length(v.name) + 1) = v.name || '_'))`

// QuestionStep is the step index of a hit in the trace's question.
const QuestionStep = -1

// SearchHit is one step (or question) holding every term of a search.
type SearchHit struct {
	TraceID string
	Step    int    // index in the trace's steps; QuestionStep for the question
	Kind    string // the step's kind, or "question"
	Snippet string // the text around the first match, on one line, not sanitized
}

// SearchQuery asks for the hits of Text among the traces Filter keeps
// (its Search is ignored), in trace and step order, at most Limit
// (default 100).
type SearchQuery struct {
	Text   string
	Filter Filter
	Limit  int
}

// SearchTerms splits a search into its terms: "quoted phrases" and the
// words between them. Terms with nothing to index (no letter, digit or
// underscore) are dropped; an unclosed quote runs to the end.
func SearchTerms(text string) []string {
	var terms []string
	add := func(t string) {
		t = strings.Join(strings.Fields(t), " ")
		if strings.IndexFunc(t, isTokenRune) >= 0 {
			terms = append(terms, t)
		}
	}
	for text != "" {
		text = strings.TrimLeftFunc(text, unicode.IsSpace)
		if strings.HasPrefix(text, `"`) {
			phrase, rest, _ := strings.Cut(text[1:], `"`)
			add(phrase)
			text = rest
			continue
		}
		end := strings.IndexFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(text)
		}
		add(text[:end])
		text = text[end:]
	}
	return terms
}

func isTokenRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// ftsQuery is the FTS5 query of terms: each term a quoted string (FTS5
// tokenizes it into a phrase), side by side (all must match). Quoting
// keeps FTS5's own syntax (AND, NEAR, column filters, *) out of the user's
// text.
func ftsQuery(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(q, " ")
}

// searchMatch is the condition that a trace's index rows hold every
// term, on the dialect d, with its parameters, a row of the trace
// (its id pk) for each: on SQLite the FTS5 table's one row per trace (its
// rowid the trace's id), on PostgreSQL its rows (the question and the
// body in parts, migration 0047), a term in any of them. On PostgreSQL
// the condition is exact only when asked (see below); a search reading
// the candidates' bodies (searchCandidates) decides for itself.
func (d *dialect) searchMatch(terms []string, exact bool) (pk, from, where string, args []any) {
	if d == sqliteDialect {
		return "step_search.rowid", "step_search", "step_search MATCH ?", []any{ftsQuery(terms)}
	}
	// The index splits words at '_' too (is_active is the phrase
	// is <-> active): it finds the rows holding the parts, the pattern
	// keeps those holding the term's words whole, as FTS5 does. The
	// planner cannot weigh a pattern over texts wider than its statistics
	// keep (1 KB, and a row's text is up to 30,000 characters): it took
	// the pattern to keep one row in 10,000, and a word every trace holds
	// then read all of their rows for a page of 100 (2.4 s at 100,000
	// traces, where reading in trace order stops after the page: 2 ms).
	// Inside COALESCE (the same value: text is never NULL) it is taken to
	// keep half; without it the index's own estimate is left alone.
	holds := func(row string) string {
		c := row + ".tsv @@ phraseto_tsquery('simple', search_words(?))"
		if exact {
			c += " AND COALESCE(" + row + ".text ~* ?, FALSE)"
		}
		return c
	}
	var conds []string
	for i, t := range terms {
		if i == 0 {
			conds = append(conds, holds("step_search"))
		} else {
			s := fmt.Sprintf("s%d", i)
			conds = append(conds, "step_search.trace_pk IN (SELECT "+s+".trace_pk FROM step_search "+s+" WHERE "+holds(s)+")")
		}
		args = append(args, t)
		if exact {
			args = append(args, wordsPattern(t))
		}
	}
	return "step_search.trace_pk", "step_search", strings.Join(conds, " AND "), args
}

// wordsPattern is a POSIX regular expression matching the words of term
// (runs of letters, digits and '_') whole and in order, with anything but
// a word character between them.
func wordsPattern(term string) string {
	words := strings.FieldsFunc(term, func(r rune) bool { return !isTokenRune(r) })
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	const sep = `[^[:alnum:]_]`
	return `(^|` + sep + `)` + strings.Join(words, sep+`+`) + `($|` + sep + `)`
}

// stepSearchCond is the condition that trace t holds every term of text
// in its question or steps, for Filter.where; "" when there is no term.
func (d *dialect) stepSearchCond(text string) (string, []any) {
	terms := SearchTerms(text)
	if len(terms) == 0 {
		return "", nil
	}
	pk, from, where, args := d.searchMatch(terms, true)
	return "t.id IN (SELECT " + pk + " FROM " + from + " WHERE " + where + ")", args
}

// queueSearchCond is the queue's `/` for Filter.where: trace t has text
// in its question, trace id or case id (a substring, ASCII case ignored),
// or holds its terms in its question or steps. Each part is found from an
// index (on SQLite the ids' trigrams, else the trace id's and the cases'
// (trace_pk, case_id); the question key's; the full-text one) and the
// page is read from the ids they give: an OR of LIKEs on t's own columns
// read every trace row, answer and metadata included, to fill a page
// (130-700 ms for a rare text at 100,000 traces).
func (d *dialect) queueSearchCond(text string) (string, []any) {
	return d.queueSearchCondPage(text, nil)
}

// searchPageBound is where a page in trace id order starts (after, 0
// for the first page; desc for the order from the newest) and how many
// ids it needs at most.
type searchPageBound struct {
	after int64
	desc  bool
	limit int
}

// queueSearchCondPage is queueSearchCond for one page in trace id order
// when b is set (SQLite only): the full-text part gives only the first
// b.limit ids of the traces holding the terms past the page's start, in
// the page's order, and so does the id part where the trigram index
// answers it. A page then reads as many of the index's ids as it shows,
// where a word every trace holds made it read (and keep) every trace's
// id: half a second at a million traces. The page keeps its rows: each
// part still gives every id of the page's first b.limit it holds. Only
// for a filter that is the search alone: another condition could drop
// the ids given and leave the page short.
func (d *dialect) queueSearchCondPage(text string, b *searchPageBound) (string, []any) {
	if d != sqliteDialect {
		b = nil
	}
	pat := "%" + likeEscape(text) + "%"
	like := d.like + ` ? ESCAPE '\'`
	// t.case_id is the trace's first case, one of its rows in cases; the
	// question key is the question lower-cased with every run of other
	// characters one space (QuestionKey), so it holds text's key wherever
	// the question holds text. The indexes narrow, the LIKE on the row
	// decides.
	ids, args := d.idsHolding(text, pat, b)
	keys := `SELECT id FROM traces WHERE question_key ` + like
	if d == sqliteDialect {
		// Each distinct question once (migration 0034), then its traces
		// from the question key's index.
		keys = `SELECT id FROM traces WHERE question_key IN (SELECT key FROM question_keys WHERE key ` + like + `)`
	}
	ids += ` UNION ALL SELECT q.id FROM traces q WHERE q.id IN (` + keys + `) AND q.question ` + like
	args = append(args, "%"+likeEscape(QuestionKey(text))+"%", pat)
	if terms := SearchTerms(text); len(terms) > 0 {
		pk, from, where, margs := d.searchMatch(terms, true)
		part, pargs := b.ids(pk, from, where, margs)
		ids += ` UNION ALL ` + part
		args = append(args, pargs...)
	}
	return "t.id IN (" + ids + ")", args
}

// idsHolding is the query of the traces whose trace id or case id (the
// trace's first case's) holds text, its LIKE pattern pat, with its
// parameters; b as in queueSearchCondPage (SQLite only).
func (d *dialect) idsHolding(text, pat string, b *searchPageBound) (string, []any) {
	if d == sqliteDialect && idSearchable(text) {
		return idsByTrigrams(text, pat, b)
	}
	return d.idsByScan(pat)
}

// idsByScan reads every trace id and every case id for pat.
func (d *dialect) idsByScan(pat string) (string, []any) {
	like := d.like + ` ? ESCAPE '\'`
	q := `SELECT id FROM traces WHERE trace_id ` + like +
		` UNION ALL SELECT c.id FROM traces c WHERE c.id IN (SELECT trace_pk FROM cases WHERE case_id ` + like + `) AND c.case_id ` + like
	return q, []any{pat, pat, pat}
}

// idsByTrigrams finds the ids holding text's trigrams from the index of
// migration 0035 (SQLite), then keeps those whose row's LIKE holds:
// what idsByScan gives, when idSearchable(text).
func idsByTrigrams(text, pat string, b *searchPageBound) (string, []any) {
	return b.ids("id_search.rowid", "id_search JOIN traces i ON i.id = id_search.rowid",
		`id_search MATCH ? AND (i.trace_id LIKE ? ESCAPE '\' OR i.case_id LIKE ? ESCAPE '\')`, []any{idMatch(text), pat, pat})
}

// ids is the query of the trace ids pk from from where where holds
// (parameters args): with a bound, only the first b.limit past the
// page's start, in the page's order (pk is an index's rowid, which reads
// them in that order); without one, every one.
func (b *searchPageBound) ids(pk, from, where string, args []any) (string, []any) {
	if b == nil {
		return `SELECT ` + pk + ` FROM ` + from + ` WHERE ` + where, args
	}
	args = slices.Clone(args)
	cmp, dir := " > ?", ""
	if b.desc {
		cmp, dir = " < ?", " DESC"
	}
	if b.after != 0 || !b.desc {
		where += " AND " + pk + cmp
		args = append(args, b.after)
	}
	return `SELECT pk FROM (SELECT ` + pk + ` AS pk FROM ` + from + ` WHERE ` + where +
		` ORDER BY ` + pk + dir + ` LIMIT ?)`, append(args, b.limit)
}

// idSearchable says the trigram index of migration 0035 finds every id
// holding text (ASCII case ignored): text has a trigram (three
// characters or more), and SQLite's LIKE reads it as written, which it
// does not past a NUL (the pattern ends there) and may not in bytes that
// are not UTF-8. A shorter text reads every id.
func idSearchable(text string) bool {
	return utf8.RuneCountInString(text) >= 3 && utf8.ValidString(text) && !strings.ContainsRune(text, 0)
}

// idMatch is the FTS5 query of the ids holding text: text as one quoted
// string (a phrase of its trigrams, consecutive: a substring, case
// folded), or a row whose ids were too long to index (column long).
func idMatch(text string) string {
	return `"` + strings.ReplaceAll(text, `"`, `""`) + `" OR long : "long"`
}

// searchPage is how many candidate traces a search reads at a time.
const searchPage = 64

// Search returns the hits of q: which step of which trace holds every
// term, with a snippet around the first match.
func (s *Store) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	terms := SearchTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	if q.Limit <= 0 {
		q.Limit = 100
	}
	match := matcherOf(terms)
	f := q.Filter
	f.Search = ""
	where, fargs := f.where(s.d)
	if where != "" {
		where = " AND " + strings.TrimPrefix(where, " WHERE ")
	}
	query, cargs := s.d.searchCandidates(terms, where)
	var hits []SearchHit
	for after := int64(0); len(hits) < q.Limit; {
		n, err := s.searchPage(ctx, query, append(append(append([]any{}, cargs...), after), append(fargs, searchPage)...),
			func(pk int64, id, question, body string) error {
				after = pk
				var err error
				hits, err = match.hits(hits, id, question, body)
				return err
			})
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if n < searchPage {
			break
		}
	}
	return hits[:min(len(hits), q.Limit)], nil
}

// searchCandidates is the query of the next page of traces that may hold
// terms (after the trace id of its next to last parameter, at most the
// number of its last), with the parameters before those. On SQLite the
// FTS5 table drives it in rowid order: a word every trace holds then
// costs a page, not a pass over the whole index.
func (d *dialect) searchCandidates(terms []string, where string) (string, []any) {
	const sel = `SELECT t.id, t.trace_id, t.question, b.body, b.parts FROM `
	if d == sqliteDialect {
		return sel + `step_search JOIN traces t ON t.id = step_search.rowid JOIN step_bodies b ON b.trace_pk = t.id
			WHERE step_search MATCH ? AND step_search.rowid > ?` + where + ` ORDER BY step_search.rowid LIMIT ?`, []any{ftsQuery(terms)}
	}
	pk, from, match, args := d.searchMatch(terms, false) // the bodies read decide
	return sel + `traces t JOIN step_bodies b ON b.trace_pk = t.id
		WHERE t.id IN (SELECT ` + pk + ` FROM ` + from + ` WHERE ` + match + `) AND t.id > ?` + where + ` ORDER BY t.id LIMIT ?`, args
}

// searchPage reads one page of candidate traces.
func (s *Store) searchPage(ctx context.Context, query string, args []any, fn func(pk int64, id, question, body string) error) (int, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var pk int64
		var id, question, body string
		var parts int
		if err := rows.Scan(&pk, &id, &question, &body, &parts); err != nil {
			return n, err
		}
		if body, err = wholeBody(ctx, s.db, pk, body, parts); err != nil {
			return n, err
		}
		n++
		if err := fn(pk, id, question, body); err != nil {
			return n, err
		}
	}
	return n, rows.Err()
}

// SearchSteps lists the steps of one trace that hold every term of text,
// in order (QuestionStep first when the question does): the trace
// screen's n/N.
func (s *Store) SearchSteps(ctx context.Context, traceID, text string) ([]int, error) {
	terms := SearchTerms(text)
	if len(terms) == 0 {
		return nil, nil
	}
	var question, body string
	var pk int64
	var parts int
	err := s.db.QueryRowContext(ctx, `SELECT t.id, t.question, b.body, b.parts FROM traces t JOIN step_bodies b ON b.trace_pk = t.id
		WHERE t.trace_id = ?`, traceID).Scan(&pk, &question, &body, &parts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("trace %q: %w", traceID, ErrNotFound)
	}
	if err == nil {
		body, err = wholeBody(ctx, s.db, pk, body, parts)
	}
	if err != nil {
		return nil, err
	}
	hits, err := matcherOf(terms).hits(nil, traceID, question, body)
	steps := make([]int, len(hits))
	for i, h := range hits {
		steps[i] = h.Step
	}
	return steps, err
}

// SearchTraceCount counts the traces f keeps (its Search ignored) that
// hold every term of text in their question or steps.
func (s *Store) SearchTraceCount(ctx context.Context, text string, f Filter) (int, error) {
	cond, args := s.d.stepSearchCond(text)
	if cond == "" {
		return 0, nil
	}
	f.Search = ""
	where, fargs := f.where(s.d)
	var n int
	if where == "" && s.d == sqliteDialect {
		// Every row of the FTS5 table is a stored trace's (the triggers
		// see to it): counted there, without a join.
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM step_search WHERE step_search MATCH ?`, args...).Scan(&n)
		return n, err
	}
	if where != "" {
		where = " AND " + strings.TrimPrefix(where, " WHERE ")
	}
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM traces t WHERE `+cond+where, append(args, fargs...)...).Scan(&n)
	return n, err
}

// Snippet is the text around the first place text holds one of terms
// (or one of their words), on one line: about 30 bytes before and 60
// after, cut at rune boundaries, "…" where it was cut.
func Snippet(text string, terms []string) string {
	at, n := firstMatch(text, terms)
	from, to := max(0, at-30), min(len(text), at+n+60)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	out := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		out = "…" + out
	}
	if to < len(text) {
		out += "…"
	}
	return out
}

// firstMatch is where text first holds a term, else a word of a term,
// ignoring ASCII case; 0, 0 when it holds neither.
func firstMatch(text string, terms []string) (at, n int) {
	lower := asciiLower(text)
	best := -1
	try := func(w string) {
		if i := strings.Index(lower, asciiLower(w)); i >= 0 && (best < 0 || i < best) {
			best, n = i, len(w)
		}
	}
	for _, t := range terms {
		try(t)
	}
	if best < 0 {
		for _, t := range terms {
			for _, w := range strings.Fields(t) {
				try(w)
			}
		}
	}
	return max(best, 0), n
}

// asciiLower folds ASCII letters only, so byte offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
