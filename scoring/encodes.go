package scoring

import "github.com/tracelab-dev/tracelab/model"

// EncodesDefinition says the trace got its data only through tools whose
// contracts say what they read: every call that read data (not a
// discovery call, not one the tool rejected) went to a tool with lineage
// (its contract's _meta.lineage, or the lineage file), and at least one
// of those tools encodes the definition itself (a "$tool" entry: the
// fields it reads whenever it is called, e.g. closed_won_total reads
// opportunities.stage and amount_usd and filters on closed_at). What such
// a trace used is the definition, decided by the tool's owner rather than
// by the agent, so the design counts it as a grounded trace of its
// question: the same question on another server is suggested those
// fields even when no person has labeled either trace (scoring's
// fromPeers reads it as a grounded peer). A trace with any call to a
// tool without lineage (run_sql, a search box) may have chosen its own
// columns, and does not count.
func (s *Scorer) EncodesDefinition(t *model.Trace) bool {
	lin := Lineage{}
	for _, tc := range t.Tools {
		lin = lin.Merge(s.contract(tc).lineage)
	}
	lin = lin.Merge(s.cfg.Lineage)
	hasLineage := map[string]bool{}
	for k := range lin {
		for i := 0; i < len(k); i++ {
			if k[i] == '.' {
				hasLineage[k[:i]] = true
				break
			}
		}
	}
	rejected := map[string]bool{} // calls whose result is an error read nothing
	for i := range t.Steps {
		if st := &t.Steps[i]; st.Kind == model.KindToolResult && st.IsError && st.CallID != "" {
			rejected[st.CallID] = true
		}
	}
	encodes := false
	for i := range t.Steps {
		st := &t.Steps[i]
		if st.Kind != model.KindToolCall || isDiscoveryTool(st.Tool) || (st.ID != "" && rejected[st.ID]) {
			continue
		}
		if !hasLineage[st.Tool] {
			return false
		}
		if len(lin[st.Tool+".$tool"]) > 0 {
			encodes = true
		}
	}
	return encodes
}
