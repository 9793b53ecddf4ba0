package tui

import (
	"encoding/json"
	"sort"
)

// scoreView is the part of scoring's per-trace JSON (scoring.TraceScore,
// stored by Store.SaveScores) that the trace screen draws. Decoding into a
// local view keeps the screen working on scores written by any version of
// the scorer: unknown keys are ignored, missing ones stay zero.
type scoreView struct {
	FieldsUsed         []fieldUse        `json:"fields_used"`
	Markers            []markerSpan      `json:"markers"`
	SuggestedClass     *string           `json:"suggested_class"`
	Classes            []classSuggestion `json:"classes"`
	GroundingPrecision *float64          `json:"grounding_precision"`
	GroundingRecall    *float64          `json:"grounding_recall"`
	DefinitionMatch    *bool             `json:"definition_match"`
	FreshnessPass      *bool             `json:"freshness_pass"`
	PolicyViolations   *int              `json:"policy_violations"`
	Correct            *bool             `json:"correct"`
	Grounded           *bool             `json:"grounded"`
	NeedsHumanReview   bool              `json:"needs_human_review"`
	ReviewReasons      []string          `json:"review_reasons"`
	SuggestedGold      *struct {
		RequiredFields  []string `json:"required_fields"`
		ForbiddenFields []string `json:"forbidden_fields"`
	} `json:"suggested_gold"`
}

// fieldUse is one field a trace used and what the gold said of it when scored.
type fieldUse struct {
	Field  string   `json:"field"`
	Status string   `json:"status"` // required | forbidden | neutral
	Steps  []int    `json:"steps"`
	Roles  []string `json:"roles"`
}

// markerSpan is a guess marker: byte offsets into a step's text.
type markerSpan struct {
	Step  int    `json:"step"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

type classSuggestion struct {
	Class      string     `json:"class"`
	Confidence float64    `json:"confidence"`
	Evidence   []evidence `json:"evidence"`
}

type evidence struct {
	Step   int    `json:"step"`
	Reason string `json:"reason"`
}

// decodeScore reads a stored score; nil raw means not scored.
func decodeScore(raw json.RawMessage) (*scoreView, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var sv scoreView
	if err := json.Unmarshal(raw, &sv); err != nil {
		return nil, err
	}
	sort.SliceStable(sv.Markers, func(i, j int) bool {
		a, b := sv.Markers[i], sv.Markers[j]
		if a.Step != b.Step {
			return a.Step < b.Step
		}
		return a.Start < b.Start
	})
	return &sv, nil
}

// markersIn returns the markers of one step.
func (sv *scoreView) markersIn(step int) []markerSpan {
	if sv == nil {
		return nil
	}
	var out []markerSpan
	for _, mk := range sv.Markers {
		if mk.Step == step {
			out = append(out, mk)
		}
	}
	return out
}
