package app

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// GoldError is an edit refused because the gold it leaves breaks
// model.Gold.Problems, the rule the importer and the editor use too.
type GoldError struct{ Problems []model.GoldProblem }

func (e *GoldError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return "gold not saved: " + strings.Join(msgs, "; ")
}

// checkGoldEdits refuses edits that leave the case's gold with a problem
// it did not have before: a gold stored before the rule tightened can
// still have its label edited, but no edit adds a new problem.
func checkGoldEdits(cur model.Case, edits []FieldEdit) error {
	if !slices.ContainsFunc(edits, func(ed FieldEdit) bool { return strings.HasPrefix(ed.Field, "gold.") }) {
		return nil
	}
	// SetField decodes into the slices and pointers in place: give the copy
	// its own gold so the record read from the store stays as it was.
	next := cur
	b, err := json.Marshal(cur.Gold)
	if err != nil {
		return err
	}
	next.Gold = model.Gold{}
	if err := json.Unmarshal(b, &next.Gold); err != nil {
		return err
	}
	for _, ed := range edits {
		if !strings.HasPrefix(ed.Field, "gold.") {
			continue // the label, the status, an adjudication: not the gold
		}
		if err := next.SetField(ed.Field, ed.Value); err != nil {
			return err
		}
	}
	had := cur.Gold.Problems()
	var added []model.GoldProblem
	for _, p := range next.Gold.Problems() {
		if !slices.Contains(had, p) {
			added = append(added, p)
		}
	}
	if len(added) > 0 {
		return &GoldError{Problems: added}
	}
	return nil
}
