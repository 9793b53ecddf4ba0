package importers

import (
	"context"
	"fmt"
	"io"

	"github.com/tracelab-dev/tracelab/model"
)

// The seed's cases.jsonl: one labeled case per line.
func init() {
	register(Format{
		Name:     "cases",
		Priority: 100,
		Doc:      "cases.jsonl: one labeled case per line (case_id, gold, label, cost), as tracelab export writes it",
		Detect:   func(head []byte) bool { return hasKeys(firstJSONLine(head), "case_id", "gold") },
		Parse:    parseCases,
	})
}

func parseCases(ctx context.Context, r io.Reader, file string, emit Emit) error {
	return lines(ctx, r, perRecord(file, emit, ParseCase, setCase))
}

// ParseCase reads and validates one cases.jsonl line.
func ParseCase(file string, line int, data []byte) (*model.Case, *LineError) {
	if len(data) == 0 || data[0] != '{' {
		return nil, &LineError{File: file, Line: line, Msg: "expected a JSON object (one case per line)"}
	}
	var c model.Case
	if lerr := decodeLine(file, line, data, &c); lerr != nil {
		return nil, lerr
	}
	bad := func(path, format string, args ...any) (*model.Case, *LineError) {
		return nil, &LineError{File: file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	if c.CaseID == "" {
		return bad("case_id", "required, a non-empty string")
	}
	if c.Question == "" {
		return bad("question", "required, the user's words")
	}
	if lc := c.Label.FailureClass; lc != nil && !model.ValidClass(string(*lc)) {
		return bad("label.failure_class", "%q is not one of %s, or null", *lc, quoteList(model.Classes))
	}
	for i, rl := range c.Labels {
		at := fmt.Sprintf("labels[%d]", i)
		switch {
		case rl.Rater == "":
			return bad(at+".rater", "required, the rater's name")
		case rl.Kind != model.RaterHuman && rl.Kind != model.RaterJudge && rl.Kind != model.RaterMachine:
			return bad(at+".kind", "%q is not one of human, judge, machine", rl.Kind)
		case (rl.Kind == model.RaterMachine) != (rl.Rater == model.MachineRater):
			return bad(at+".rater", "only %q, tracelab's own suggestion, is of kind machine", model.MachineRater)
		case rl.Status != "" && rl.Status != model.StatusSuggested && rl.Status != model.StatusConfirmed:
			return bad(at+".status", "%q is not one of suggested, confirmed", rl.Status)
		}
		if lc := rl.Label.FailureClass; lc != nil && !model.ValidClass(string(*lc)) {
			return bad(at+".label.failure_class", "%q is not one of %s, or null", *lc, quoteList(model.Classes))
		}
	}
	if a := c.Adjudication; a != nil {
		if a.By == "" {
			return bad("adjudication.by", "required, who settled the case")
		}
		if lc := a.Label.FailureClass; lc != nil && !model.ValidClass(string(*lc)) {
			return bad("adjudication.label.failure_class", "%q is not one of %s, or null", *lc, quoteList(model.Classes))
		}
	}
	if ps := c.Gold.Problems(); len(ps) > 0 {
		return bad(ps[0].Field, "%s", ps[0].Msg)
	}
	return &c, nil
}
