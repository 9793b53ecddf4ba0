package scoring

import "github.com/tracelab-dev/tracelab/model"

// AppendJSON appends the score as json.Marshal encodes it, byte for byte
// (TestAppendJSONMatchesMarshal, FuzzAppendJSON), and fails where it
// fails (a NaN or infinite number). The store encodes every score of a
// rescore to hash what it says, and encoding/json's reflection was a
// fifteenth of a 100k rescore's CPU.
func (ts *TraceScore) AppendJSON(b []byte) ([]byte, error) {
	e := &model.JSONAppender{B: b}
	e.Key('{', "trace_id")
	e.Str(ts.TraceID)
	e.Key(',', "case_id")
	e.Str(ts.CaseID)
	e.Key(',', "server")
	e.Str(ts.Server)
	e.Key(',', "fields_used")
	model.AppendJSONList(e, ts.FieldsUsed, func(f *FieldStatus) {
		e.Key('{', "field")
		e.Str(f.Field)
		e.Key(',', "status")
		e.Str(f.Status)
		e.Key(',', "steps")
		model.AppendJSONList(e, f.Steps, func(n *int) { e.Int(int64(*n)) })
		if len(f.Roles) > 0 {
			e.Key(',', "roles")
			model.AppendJSONList(e, f.Roles, func(r *Role) { e.Str(string(*r)) })
		}
		e.B = append(e.B, '}')
	})
	e.Key(',', "markers")
	model.AppendJSONList(e, ts.Markers, func(m *Marker) {
		e.Key('{', "step")
		e.Int(int64(m.Step))
		e.Key(',', "start")
		e.Int(int64(m.Start))
		e.Key(',', "end")
		e.Int(int64(m.End))
		e.Key(',', "text")
		e.Str(m.Text)
		e.B = append(e.B, '}')
	})
	if ts.MarkersMore != 0 {
		e.Key(',', "markers_more")
		e.Int(int64(ts.MarkersMore))
	}
	e.Key(',', "suggested_class")
	if ts.SuggestedClass == nil {
		e.Null()
	} else {
		e.Str(string(*ts.SuggestedClass))
	}
	e.Key(',', "classes")
	model.AppendJSONList(e, ts.Classes, func(c *ClassSuggestion) {
		e.Key('{', "class")
		e.Str(string(c.Class))
		e.Key(',', "confidence")
		e.Float(c.Confidence)
		e.Key(',', "evidence")
		model.AppendJSONList(e, c.Evidence, func(ev *Evidence) { appendEvidence(e, ev) })
		e.B = append(e.B, '}')
	})
	e.Key(',', "grounding_precision")
	appendFloatPtr(e, ts.GroundingPrecision)
	e.Key(',', "grounding_recall")
	appendFloatPtr(e, ts.GroundingRecall)
	if len(ts.CallGrounding) > 0 {
		e.Key(',', "call_grounding")
		model.AppendJSONList(e, ts.CallGrounding, func(g *CallGrounding) {
			e.Key('{', "step")
			e.Int(int64(g.Step))
			e.Key(',', "tool")
			e.Str(g.Tool)
			e.Key(',', "used")
			e.Int(int64(g.Used))
			e.Key(',', "required")
			e.Int(int64(g.Required))
			e.Key(',', "precision")
			e.Float(g.Precision)
			e.B = append(e.B, '}')
		})
	}
	e.Key(',', "definition_match")
	appendBoolPtr(e, ts.DefinitionMatch)
	e.Key(',', "freshness_pass")
	appendBoolPtr(e, ts.FreshnessPass)
	e.Key(',', "policy_violations")
	if ts.PolicyViolations == nil {
		e.Null()
	} else {
		e.Int(int64(*ts.PolicyViolations))
	}
	e.Key(',', "correct")
	appendBoolPtr(e, ts.Correct)
	e.Key(',', "grounded")
	appendBoolPtr(e, ts.Grounded)
	e.Key(',', "needs_human_review")
	e.Bool(ts.NeedsHumanReview)
	if ts.RunID != "" {
		e.Key(',', "run_id")
		e.Str(ts.RunID)
	}
	e.Key(',', "calls")
	e.Int(int64(ts.Calls))
	e.Key(',', "clarifications")
	e.Int(int64(ts.Clarifications))
	e.Key(',', "cost_usd")
	e.Float(ts.CostUSD)
	if len(ts.ReviewReasons) > 0 {
		e.Key(',', "review_reasons")
		model.AppendJSONList(e, ts.ReviewReasons, func(s *string) { e.Str(*s) })
	}
	if len(ts.Violations) > 0 {
		e.Key(',', "violations")
		model.AppendJSONList(e, ts.Violations, func(v *CallViolation) {
			e.Key('{', "step")
			e.Int(int64(v.Step))
			e.Key(',', "violations")
			model.AppendJSONList(e, v.Violations, func(v *Violation) {
				sep := byte('{')
				if v.Row != nil {
					e.Key(sep, "row")
					e.Int(int64(*v.Row))
					sep = ','
				}
				if v.Column != "" {
					e.Key(sep, "column")
					e.Str(v.Column)
					sep = ','
				}
				if v.Value != "" {
					e.Key(sep, "value")
					e.Str(v.Value)
					sep = ','
				}
				e.Key(sep, "reason")
				e.Str(v.Reason)
				e.B = append(e.B, '}')
			})
			e.B = append(e.B, '}')
		})
	}
	if len(ts.UnparsedSQL) > 0 {
		e.Key(',', "unparsed_sql")
		model.AppendJSONList(e, ts.UnparsedSQL, func(ev *Evidence) { appendEvidence(e, ev) })
	}
	if ts.Unscorable != "" {
		e.Key(',', "unscorable")
		e.Str(ts.Unscorable)
	}
	if ts.DetailMore > 0 {
		e.Key(',', "detail_more")
		e.Int(int64(ts.DetailMore))
	}
	e.B = append(e.B, '}')
	return e.B, e.Err
}

// appendEvidence writes one piece of evidence.
func appendEvidence(e *model.JSONAppender, ev *Evidence) {
	e.Key('{', "step")
	e.Int(int64(ev.Step))
	e.Key(',', "reason")
	e.Str(ev.Reason)
	e.B = append(e.B, '}')
}

func appendBoolPtr(e *model.JSONAppender, p *bool) {
	if p == nil {
		e.Null()
		return
	}
	e.Bool(*p)
}

func appendFloatPtr(e *model.JSONAppender, p *float64) {
	if p == nil {
		e.Null()
		return
	}
	e.Float(*p)
}
