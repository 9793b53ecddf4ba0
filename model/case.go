package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// FailureClass is one of the seed's five grounding failure classes.
type FailureClass string

const (
	ClassEntity     FailureClass = "entity"
	ClassSemantic   FailureClass = "semantic"
	ClassStructural FailureClass = "structural"
	ClassTemporal   FailureClass = "temporal"
	ClassPolicy     FailureClass = "policy"
)

// Classes lists the failure classes in the seed's order, which is also the
// order of the 1-5 keys and the tie-break order of suggestions.
var Classes = []FailureClass{ClassEntity, ClassSemantic, ClassStructural, ClassTemporal, ClassPolicy}

// ValidClass reports whether s names a failure class.
func ValidClass(s string) bool {
	for _, c := range Classes {
		if string(c) == s {
			return true
		}
	}
	return false
}

// Case is one line of cases.jsonl, with the keys in the seed's order.
// Field order here is the export order: do not reorder.
type Case struct {
	CaseID      string `json:"case_id"`
	SourceTrace string `json:"source_trace,omitempty"`
	// Server is the source trace's server, so check matches a new trace
	// to its own server's case. Optional: a case without one matches any
	// server (the seed's schema has no server).
	Server   string `json:"server,omitempty"`
	UserRole string `json:"user_role"`
	AsUser   string `json:"as_user"`
	Question string `json:"question"`
	Gold     Gold   `json:"gold"`
	Label    Label  `json:"label"`
	Cost     Cost   `json:"cost"`
	// Contracts maps each tool the trace saw to its contract fingerprint,
	// so a suite knows what it was labeled against. Omitted when unknown.
	Contracts map[string]string `json:"contracts,omitempty"`
	// Labeler names the person whose label this line is: an import adds
	// it as that rater's label beside the others'. Omitted by export.
	Labeler string `json:"labeler,omitempty"`
	// Labels is every rater's label of the case (export --labels all,
	// people, judges and tracelab's suggestion); an import adds the
	// people's and judges' beside the others'. Label stays the final one.
	Labels []RaterLabel `json:"labels,omitempty"`
	// Adjudication is the label someone settled the raters' disagreement
	// with, when there is one (export --labels all only).
	Adjudication *Adjudication `json:"adjudication,omitempty"`
}

// Gold is the governed truth for a case, written by someone who knows the data.
type Gold struct {
	Answer              json.RawMessage `json:"answer"` // number | string | array, kept as written
	Tolerance           *float64        `json:"tolerance"`
	RequiredFields      []string        `json:"required_fields"`
	ForbiddenFields     []string        `json:"forbidden_fields"`
	Definition          string          `json:"definition"`
	Window              *Window         `json:"window"`
	FreshnessBoundHours *float64        `json:"freshness_bound_hours"`
	PolicyScope         string          `json:"policy_scope"`
}

// Window is the time range a question is about.
type Window struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Calendar string `json:"calendar"` // fiscal | calendar
}

// Label is the verdict on a trace.
type Label struct {
	Correct      *bool         `json:"correct"`
	Grounded     *bool         `json:"grounded"`
	FailureClass *FailureClass `json:"failure_class"` // null when none
	Note         string        `json:"note"`          // a person's words only
	// MachineNote is the scorer's evidence for the label it suggested,
	// kept out of Note so the human note stays human.
	MachineNote string `json:"machine_note,omitempty"`
}

// Cost is the cost block of a case, from the trace's usage.
type Cost struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	ToolCalls    int64   `json:"tool_calls"`
	Turns        int64   `json:"turns"`
	USD          float64 `json:"usd"`
}

// Status says who stands behind a case's gold and label.
type Status string

const (
	StatusNone      Status = "none"      // no case yet
	StatusSuggested Status = "suggested" // the machine's suggestion
	StatusConfirmed Status = "confirmed" // a person accepted it
	// StatusPending is a case whose gold a person confirmed (imported from
	// a suite, say) but whose label nobody set yet: the scorer's verdict
	// counts for it until someone labels it.
	StatusPending Status = "pending"
)

// Report is one object of report.json: the seed's report fields for one server.
// Rates with an empty denominator are nil and encode as JSON null.
type Report struct {
	Server                    string      `json:"server"`
	RunID                     string      `json:"run_id"`
	Cases                     int         `json:"cases"`
	Correct                   int         `json:"correct"`
	CorrectAndGrounded        int         `json:"correct_and_grounded"`
	GroundingPrecision        *float64    `json:"grounding_precision"`
	GroundingRecall           *float64    `json:"grounding_recall"`
	DefinitionMatchRate       *float64    `json:"definition_match_rate"`
	FreshnessPassRate         *float64    `json:"freshness_pass_rate"`
	PolicyViolationRate       *float64    `json:"policy_violation_rate"`
	ClarificationLoopsPerTask *float64    `json:"clarification_loops_per_task"`
	CostTotalUSD              float64     `json:"cost_total_usd"`
	CostPerCorrectAnswerUSD   *float64    `json:"cost_per_correct_answer_usd"`
	FailuresByClass           ClassCounts `json:"failures_by_class"`
	NeedsHumanReview          int         `json:"needs_human_review"`
}

// ClassCounts counts failures per class name. It encodes with the classes
// in the seed's order (entity, semantic, structural, temporal, policy),
// every class present, then any other key sorted, so report.json reads
// like the seed's report whatever the map order.
type ClassCounts map[string]int

// MarshalJSON writes the classes in the seed's order.
func (cc ClassCounts) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	seen := map[string]bool{}
	write := func(k string) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		fmt.Fprintf(&b, ":%d", cc[k])
		seen[k] = true
	}
	for _, c := range Classes {
		write(string(c))
	}
	var rest []string
	for k := range cc {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		write(k)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// WindowProblem explains what is wrong with a gold window, or returns "".
func WindowProblem(w Window) string {
	var start, end time.Time
	var err error
	if w.Start != "" {
		if start, err = time.Parse(time.DateOnly, w.Start); err != nil {
			return fmt.Sprintf("start: %q is not a date like 2026-04-01", w.Start)
		}
	}
	if w.End != "" {
		if end, err = time.Parse(time.DateOnly, w.End); err != nil {
			return fmt.Sprintf("end: %q is not a date like 2026-06-30", w.End)
		}
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return fmt.Sprintf("end %s is before start %s", w.End, w.Start)
	}
	if w.Calendar != "" && w.Calendar != "fiscal" && w.Calendar != "calendar" {
		return fmt.Sprintf("calendar: %q is not one of fiscal, calendar", w.Calendar)
	}
	return ""
}

// Unset says no person set any of correct, grounded and failure_class: an
// all-null label is no label (a note alone does not make one).
func (l Label) Unset() bool {
	return l.Correct == nil && l.Grounded == nil && l.FailureClass == nil
}

// QueueStatus is the status a case shows in lists: a case confirmed by an
// import (confirmedBy "import:FILE") whose label is unset is "pending",
// gold confirmed and label still to do. A person who confirmed an unset
// label on purpose (confirm anyway) gets "confirmed".
func QueueStatus(s Status, l Label, confirmedBy string) Status {
	if s == StatusConfirmed && l.Unset() && strings.HasPrefix(confirmedBy, "import:") {
		return StatusPending
	}
	return s
}
