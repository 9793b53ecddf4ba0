package scoring

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Peer is another trace the caller knows about, offered as a source of gold
// for a trace that has none: its question, server, its gold when a person
// confirmed one, whether it is grounded (confirmed or scored), and the
// fields its calls used.
type Peer struct {
	TraceID    string
	Question   string
	Server     string
	StartedAt  string      // when it was asked: the period its relative words name
	Gold       *model.Gold // confirmed gold, nil when none
	Grounded   bool
	FieldsUsed []string
}

// GoldSuggestion is a pre-filled gold record and where each part came from.
type GoldSuggestion struct {
	Gold    model.Gold
	Sources []string // "customers.sales_region: required by the glossary term \"active\""
}

// SameQuestion compares two questions ignoring case, spacing and final punctuation.
func SameQuestion(a, b string) bool { return normText(a) == normText(b) }

// SuggestGold proposes gold for a trace without a confirmed one: required
// fields from the glossary terms its question uses and from grounded peers
// asking the same question on another server; forbidden fields from the
// glossary's look-alikes and from the columns the trace used after a guess
// marker that are not required (join keys aside). ts is the trace's score.
func (s *Scorer) SuggestGold(t *model.Trace, ts TraceScore, peers []Peer) GoldSuggestion {
	d := goldDraft{req: map[string]string{}, forb: map[string]string{}}
	d.fromGlossary(s, t)
	d.fromPeers(t, peers)
	d.fromPeerAnswers(t, peers)
	if len(d.req) > 0 {
		d.fromGuesses(t, ts)
	}
	return d.suggestion()
}

// goldDraft is a gold suggestion as SuggestGold gathers it: each field
// with the reason it is there, the first reason kept.
type goldDraft struct {
	req, forb  map[string]string
	g          model.Gold
	defs       []string
	answerFrom string // where the answer came from, "" when none
}

// fromGlossary takes what the glossary terms the question uses say.
func (d *goldDraft) fromGlossary(s *Scorer, t *model.Trace) {
	for _, tm := range s.terms {
		if !tm.re.MatchString(t.Question) {
			continue
		}
		why := fmt.Sprintf("glossary term %q", tm.entry.Term)
		for _, f := range tm.entry.RequiredFields {
			setOnce(d.req, NormField(f), "required by the "+why)
		}
		for _, f := range tm.entry.ForbiddenFields {
			setOnce(d.forb, NormField(f), "a look-alike of the "+why)
		}
		if tm.entry.Definition != "" {
			d.defs = append(d.defs, tm.entry.Definition)
		}
		if tm.entry.Calendar != "" && d.g.Window == nil {
			d.g.Window = &model.Window{Calendar: tm.entry.Calendar}
		}
	}
}

// fromPeers takes what grounded traces of the same question on other
// servers used, or their confirmed gold. A relative period is the
// trace's own, resolved from when it was asked: a peer whose gold covers
// other dates for the same words teaches nothing (window_relative.go).
// The trace's own window is not set from it alone yet: a window nobody
// confirmed would turn the scorer's temporal evidence on every relative
// question.
func (d *goldDraft) fromPeers(t *model.Trace, peers []Peer) {
	cal := ""
	if d.g.Window != nil {
		cal = d.g.Window.Calendar
	}
	own, relative := RelativeWindow(t.Question, t.StartedAt, cal)
	for _, p := range sortedPeers(peers) {
		if p.Server == t.Server || !p.Grounded || !SameQuestion(p.Question, t.Question) {
			continue
		}
		if relative && p.Gold != nil && p.Gold.Window != nil && !sameBounds(p.Gold.Window, &own) {
			continue // the same words about another period
		}
		why := fmt.Sprintf("used by grounded trace %s on %s", p.TraceID, p.Server)
		fields := p.FieldsUsed
		if p.Gold != nil {
			fields = p.Gold.RequiredFields
			why = fmt.Sprintf("required by the confirmed gold of %s on %s", p.TraceID, p.Server)
			d.fromPeerGold(p)
		}
		for _, f := range fields {
			setOnce(d.req, NormField(f), why)
		}
	}
}

// fromPeerAnswers takes the answer a person gave the same question
// about the same period and scope, on any server: the number is a fact
// of the data, not of the tools that found it. Only a question with a
// relative period shares its answer, that period being each trace's own (RelativeWindow from when it was asked, or
// the window the person's gold names), so "last quarter" asked in July
// and in August shares an answer and asked in October does not. Peers
// are read in SuggestGold's order; the first answer found is kept.
func (d *goldDraft) fromPeerAnswers(t *model.Trace, peers []Peer) {
	cal := ""
	if d.g.Window != nil {
		cal = d.g.Window.Calendar
	}
	own, relative := RelativeWindow(t.Question, t.StartedAt, cal)
	if !relative {
		// "What are the open tickets for Acme?" names no period: its
		// answer is the state when it was asked, and "in August" is
		// another August a year later. Only a period resolved from each
		// trace's own date is known to be the same.
		return
	}
	for _, p := range sortedPeers(peers) {
		if p.TraceID == t.TraceID || p.Gold == nil || !hasAnswer(p.Gold.Answer) || !SameQuestion(p.Question, t.Question) {
			continue
		}
		if p.Gold.PolicyScope != d.g.PolicyScope {
			continue // another scope sees other rows
		}
		theirs, ok := RelativeWindow(p.Question, p.StartedAt, cal)
		w := &theirs
		if p.Gold.Window != nil {
			w, ok = p.Gold.Window, true
		}
		if !ok || !sameBounds(w, &own) {
			continue // the same words about another period
		}
		d.g.Answer = append([]byte(nil), p.Gold.Answer...)
		if p.Gold.Tolerance != nil {
			tol := *p.Gold.Tolerance
			d.g.Tolerance = &tol
		}
		d.answerFrom = fmt.Sprintf("answer: confirmed by a person for %s on %s", p.TraceID, p.Server)
		return
	}
}

func hasAnswer(a []byte) bool {
	s := strings.TrimSpace(string(a))
	return s != "" && s != "null"
}

// sortedPeers is peers by server, then trace id: the order SuggestGold
// reads them in, whatever order the caller gave.
func sortedPeers(peers []Peer) []Peer {
	sorted := append([]Peer(nil), peers...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Server != sorted[j].Server {
			return sorted[i].Server < sorted[j].Server
		}
		return sorted[i].TraceID < sorted[j].TraceID
	})
	return sorted
}

// fromPeerGold takes a peer's confirmed gold: its forbidden fields, and
// the definition, window, freshness and scope nothing gave yet.
func (d *goldDraft) fromPeerGold(p Peer) {
	for _, f := range p.Gold.ForbiddenFields {
		setOnce(d.forb, NormField(f), fmt.Sprintf("forbidden by the confirmed gold of %s on %s", p.TraceID, p.Server))
	}
	if len(d.defs) == 0 && p.Gold.Definition != "" {
		d.defs = append(d.defs, p.Gold.Definition)
	}
	if d.g.Window == nil && p.Gold.Window != nil {
		w := *p.Gold.Window
		d.g.Window = &w
	}
	if d.g.FreshnessBoundHours == nil && p.Gold.FreshnessBoundHours != nil {
		h := *p.Gold.FreshnessBoundHours
		d.g.FreshnessBoundHours = &h
	}
	if d.g.PolicyScope == "" {
		d.g.PolicyScope = p.Gold.PolicyScope
	}
}

// fromGuesses forbids the columns the trace used after its first guess
// marker that are not required (join keys aside): look-alikes.
func (d *goldDraft) fromGuesses(t *model.Trace, ts TraceScore) {
	firstGuess := -1
	for _, m := range ts.Markers {
		if m.Step < len(t.Steps) && t.Steps[m.Step].Kind == model.KindReasoning {
			firstGuess = m.Step
			break
		}
	}
	if firstGuess < 0 {
		return
	}
	for _, f := range ts.FieldsUsed {
		if d.req[f.Field] != "" || onlyJoin(f.Roles) || len(f.Steps) == 0 || f.Steps[len(f.Steps)-1] < firstGuess {
			continue
		}
		setOnce(d.forb, f.Field, fmt.Sprintf("a look-alike used after the guess at step %d", firstGuess))
	}
}

// suggestion is the gold drafted, each field with its reason.
func (d *goldDraft) suggestion() GoldSuggestion {
	for f := range d.forb {
		if d.req[f] != "" {
			delete(d.forb, f) // required wins: model.Gold.Problems refuses a field in both
		}
	}
	g := d.g
	g.RequiredFields, g.ForbiddenFields = keys(d.req), keys(d.forb)
	g.Definition = strings.Join(d.defs, "; ")
	var src []string
	for _, f := range g.RequiredFields {
		src = append(src, f+": "+d.req[f])
	}
	for _, f := range g.ForbiddenFields {
		src = append(src, f+": "+d.forb[f])
	}
	if d.answerFrom != "" {
		src = append(src, d.answerFrom)
	}
	return GoldSuggestion{Gold: g, Sources: src}
}

func setOnce(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func onlyJoin(rs []Role) bool {
	return len(rs) > 0 && !containsRole(rs, RoleSelect) && !containsRole(rs, RoleWhere) &&
		!containsRole(rs, RoleGroup) && !containsRole(rs, RoleOrder) && !containsRole(rs, RoleAggregate)
}

func containsRole(rs []Role, r Role) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
