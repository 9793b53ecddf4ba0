package app

import (
	"context"
	"sort"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// ManifestJudge is one judge that labeled a suite's cases, as suite.json
// records it: a built-in judge's labels each name the model and the
// prompt's sha256, and the manifest says which ones the suite holds.
type ManifestJudge struct {
	Rater   string   `json:"rater"`
	Models  []string `json:"models,omitempty"`
	Prompts []string `json:"prompt_sha256,omitempty"`
	Labels  int      `json:"labels"` // the suite's cases it labeled
}

// suiteJudges lists the judges that labeled the exported cases.
func (e *Engine) suiteJudges(ctx context.Context, recs []store.CaseRecord) ([]ManifestJudge, error) {
	in := make(map[string]bool, len(recs))
	for _, r := range recs {
		in[r.Case.CaseID] = true
	}
	trs, err := e.Raters.RatedCases(ctx)
	if err != nil {
		return nil, err
	}
	type acc struct {
		n               int
		models, prompts map[string]bool
	}
	by := map[string]*acc{}
	for _, tr := range trs {
		if !in[tr.CaseID] {
			continue
		}
		for _, l := range tr.Labels {
			if l.Kind != model.RaterJudge {
				continue
			}
			a := by[l.Rater]
			if a == nil {
				a = &acc{models: map[string]bool{}, prompts: map[string]bool{}}
				by[l.Rater] = a
			}
			a.n++
			if l.Model != "" {
				a.models[l.Model] = true
			}
			if l.PromptSHA256 != "" {
				a.prompts[l.PromptSHA256] = true
			}
		}
	}
	out := make([]ManifestJudge, 0, len(by))
	for r, a := range by {
		out = append(out, ManifestJudge{Rater: r, Models: sortedSet(a.models), Prompts: sortedSet(a.prompts), Labels: a.n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rater < out[j].Rater })
	return out, nil
}
