package app

// ManifestJudge is one judge that labeled a suite's cases, as suite.json
// records it: a built-in judge's labels each name the model and the
// prompt's sha256, and the manifest says which ones the suite holds.
type ManifestJudge struct {
	Rater   string   `json:"rater"`
	Models  []string `json:"models,omitempty"`
	Prompts []string `json:"prompt_sha256,omitempty"`
	Labels  int      `json:"labels"` // the suite's cases it labeled
}
