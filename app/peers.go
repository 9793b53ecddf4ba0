package app

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// peerBook holds, per question key, the peers that can teach a trace of
// that question its gold, sorted and compressed once (see compressPeers).
type peerBook map[string][]scoring.Peer

// load reads the peers of the questions of ts not in the book yet, through
// the question index.
func (b peerBook) load(ctx context.Context, st *store.Store, ts []*model.Trace) error {
	var keys []string
	for _, t := range ts {
		k := store.QuestionKey(t.Question)
		if _, ok := b[k]; !ok {
			b[k] = nil
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	rows, err := st.Peers(ctx, keys)
	if err != nil {
		return err
	}
	byKey := map[string][]scoring.Peer{}
	taught := map[[2]string]bool{} // (question key, server) a person taught
	for _, r := range rows {
		if !r.Encodes {
			taught[[2]string{store.QuestionKey(r.Question), r.Server}] = true
		}
	}
	for _, r := range rows {
		k := store.QuestionKey(r.Question)
		if r.Encodes && taught[[2]string{k, r.Server}] {
			// A person's word on that server wins over its contracts:
			// the confirmed gold says more (forbidden fields, window).
			continue
		}
		if p, ok := peerOfRow(r); ok {
			byKey[k] = append(byKey[k], p)
		}
	}
	for k, ps := range byKey {
		b[k] = compressPeers(ps)
	}
	return nil
}

// peerOfRow is what a labeled trace offers others of its question: a
// person's gold, or the fields it used, when it is grounded. Grounded only
// counts when measured against a person's gold or said by a person, or
// when the trace's tools' contracts encode the definition (r.Encodes):
// against the machine's own guess every trace looks grounded and would
// teach its own mistakes to the others.
func peerOfRow(r store.PeerRow) (scoring.Peer, bool) {
	p := scoring.Peer{TraceID: r.TraceID, Question: r.Question, Server: r.Server, StartedAt: r.StartedAt, Gold: r.HumanGold}
	var grounded *bool
	if r.HumanGold != nil {
		grounded = r.ScoreGrounded
	}
	if r.Confirmed && r.LabelGrounded != nil {
		grounded = r.LabelGrounded
	}
	p.Grounded = grounded != nil && *grounded
	if r.Encodes {
		// Its tools' contracts say what it read: the definition, decided
		// by the tools' owner, not guessed by the agent (the design's
		// "a task-specific tool whose contract encodes the definition").
		p.Grounded = true
	}
	if !p.Grounded {
		// A person's answer teaches the same question's answer (scoring's
		// fromPeerAnswers) however the trace that got it went.
		answered := r.HumanGold != nil && len(r.HumanGold.Answer) > 0
		return p, answered // otherwise scoring.SuggestGold learns nothing from it
	}
	if len(r.Detail) > 0 {
		var d struct {
			FieldsUsed []struct {
				Field string `json:"field"`
			} `json:"fields_used"`
		}
		if err := json.Unmarshal(r.Detail, &d); err == nil { // a detail from an older scorer offers no fields
			for _, f := range d.FieldsUsed {
				p.FieldsUsed = append(p.FieldsUsed, f.Field)
			}
		}
	}
	return p, true
}

// compressPeers sorts a question's peers as scoring.SuggestGold reads them
// (server, then trace id) and drops every peer that adds nothing to the
// peers before it with the same server and question text. SuggestGold
// keeps the first source of each field, definition, window, freshness
// bound and policy scope, and takes or skips all peers of one server
// together, so a dropped peer could never have contributed: the
// suggestion is the same, and a question shared by 25,000 traces costs
// each of them a handful of peers instead of the whole bucket.
func compressPeers(ps []scoring.Peer) []scoring.Peer {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Server != ps[j].Server {
			return ps[i].Server < ps[j].Server
		}
		return ps[i].TraceID < ps[j].TraceID
	})
	type group struct {
		server, question string
		grounded         bool // an ungrounded peer teaches its answer only
	}
	seen := map[group]map[string]bool{}
	out := ps[:0]
	for _, p := range ps {
		g := group{p.Server, p.Question, p.Grounded}
		have := seen[g]
		if have == nil {
			have = map[string]bool{}
			seen[g] = have
		}
		novel := false
		add := func(k string) {
			if !have[k] {
				have[k] = true
				novel = true
			}
		}
		fields := p.FieldsUsed
		if p.Gold != nil {
			fields = p.Gold.RequiredFields
			for _, f := range p.Gold.ForbiddenFields {
				add("forbidden " + scoring.NormField(f))
			}
			if p.Gold.Definition != "" {
				add("definition")
			}
			if w := p.Gold.Window; w != nil { // by its dates: another month is another period
				add("window " + w.Start + ".." + w.End)
			}
			if p.Gold.FreshnessBoundHours != nil {
				add("freshness")
			}
			if p.Gold.PolicyScope != "" {
				add("scope")
			}
			if len(p.Gold.Answer) > 0 { // one answer per period and scope
				add("answer " + p.StartedAt + " " + p.Gold.PolicyScope)
			}
		}
		for _, f := range fields {
			add("required " + scoring.NormField(f))
		}
		if novel {
			out = append(out, p)
		}
	}
	return out
}
