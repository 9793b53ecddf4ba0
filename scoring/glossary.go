package scoring

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// GlossaryEntry is one governed business term.
type GlossaryEntry struct {
	Term            string   `json:"term"`
	Definition      string   `json:"definition"`          // prose, e.g. "active = subscription_status in (ACTIVE, PAUSED_BILLING) ..."
	Predicate       string   `json:"predicate,omitempty"` // optional SQL predicate, e.g. "subscription_status IN ('ACTIVE','PAUSED_BILLING')"
	RequiredFields  []string `json:"required_fields,omitempty"`
	ForbiddenFields []string `json:"forbidden_fields,omitempty"` // look-alikes
	TimestampColumn string   `json:"timestamp_column,omitempty"` // table.column the term's metric is dated by
	Calendar        string   `json:"calendar,omitempty"`         // fiscal | calendar
}

// ParseGlossary reads a glossary file: a JSON array of entries, or an
// object {"terms":[...]}. Every entry needs a term.
func ParseGlossary(data []byte) ([]GlossaryEntry, error) {
	var list []GlossaryEntry
	if err := json.Unmarshal(data, &list); err != nil {
		var wrap struct {
			Terms []GlossaryEntry `json:"terms"`
		}
		if err2 := json.Unmarshal(data, &wrap); err2 != nil {
			return nil, fmt.Errorf("glossary: expected a JSON array of {term, definition, ...}: %v", err)
		}
		list = wrap.Terms
	}
	for i, e := range list {
		if strings.TrimSpace(e.Term) == "" {
			return nil, fmt.Errorf("glossary: [%d].term: required", i)
		}
		if e.Calendar != "" && e.Calendar != "fiscal" && e.Calendar != "calendar" {
			return nil, fmt.Errorf("glossary: [%d].calendar: %q is not one of fiscal, calendar", i, e.Calendar)
		}
	}
	return list, nil
}

// termMatcher is a compiled glossary entry.
type termMatcher struct {
	entry GlossaryEntry
	re    *regexp.Regexp
	preds []Predicate // the governed predicate; nil when undecidable
	err   string      // why preds is nil
}

func compileTerm(e GlossaryEntry) termMatcher {
	tm := termMatcher{entry: e, re: regexp.MustCompile(`(?i)` + phrasePattern(strings.Join(strings.Fields(e.Term), " ")))}
	if e.Predicate != "" {
		// The predicate comes from the user's glossary file, not from a
		// trace; it is only parsed, never run.
		a := AnalyzeSQL("SELECT 1 FROM glossary_term WHERE "+e.Predicate, nil)
		if a.Err == "" && len(a.Where) > 0 {
			for _, p := range a.Where {
				p.Field = column(p.Field)
				tm.preds = append(tm.preds, p)
			}
			return tm
		}
	}
	if e.Definition != "" {
		if _, preds, err := ParseDefinition(e.Definition); err == nil {
			tm.preds = preds
			return tm
		} else {
			tm.err = err.Error()
		}
	} else if tm.err == "" {
		tm.err = "the glossary entry has no predicate"
	}
	return tm
}

// UsedBy reports whether a question uses the term (word-bounded, any case).
func (e GlossaryEntry) UsedBy(question string) bool {
	return compileTerm(GlossaryEntry{Term: e.Term}).re.MatchString(question)
}
