package scoring

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the score as json.Marshal encodes it, byte for byte
// (TestAppendJSONMatchesMarshal, FuzzAppendJSON), and fails where it
// fails (a NaN or infinite number). The store encodes every score of a
// rescore to hash what it says, and encoding/json's reflection was a
// fifteenth of a 100k rescore's CPU.
func (ts *TraceScore) AppendJSON(b []byte) ([]byte, error) {
	e := jsonAppender{b: b}
	e.key('{', "trace_id")
	e.str(ts.TraceID)
	e.key(',', "case_id")
	e.str(ts.CaseID)
	e.key(',', "server")
	e.str(ts.Server)
	e.key(',', "fields_used")
	appendList(&e, ts.FieldsUsed, func(f *FieldStatus) {
		e.key('{', "field")
		e.str(f.Field)
		e.key(',', "status")
		e.str(f.Status)
		e.key(',', "steps")
		appendList(&e, f.Steps, func(n *int) { e.int(*n) })
		if len(f.Roles) > 0 {
			e.key(',', "roles")
			appendList(&e, f.Roles, func(r *Role) { e.str(string(*r)) })
		}
		e.b = append(e.b, '}')
	})
	e.key(',', "markers")
	appendList(&e, ts.Markers, func(m *Marker) {
		e.key('{', "step")
		e.int(m.Step)
		e.key(',', "start")
		e.int(m.Start)
		e.key(',', "end")
		e.int(m.End)
		e.key(',', "text")
		e.str(m.Text)
		e.b = append(e.b, '}')
	})
	e.key(',', "suggested_class")
	if ts.SuggestedClass == nil {
		e.null()
	} else {
		e.str(string(*ts.SuggestedClass))
	}
	e.key(',', "classes")
	appendList(&e, ts.Classes, func(c *ClassSuggestion) {
		e.key('{', "class")
		e.str(string(c.Class))
		e.key(',', "confidence")
		e.float(c.Confidence)
		e.key(',', "evidence")
		appendList(&e, c.Evidence, e.evidence)
		e.b = append(e.b, '}')
	})
	e.key(',', "grounding_precision")
	e.floatPtr(ts.GroundingPrecision)
	e.key(',', "grounding_recall")
	e.floatPtr(ts.GroundingRecall)
	if len(ts.CallGrounding) > 0 {
		e.key(',', "call_grounding")
		appendList(&e, ts.CallGrounding, func(g *CallGrounding) {
			e.key('{', "step")
			e.int(g.Step)
			e.key(',', "tool")
			e.str(g.Tool)
			e.key(',', "used")
			e.int(g.Used)
			e.key(',', "required")
			e.int(g.Required)
			e.key(',', "precision")
			e.float(g.Precision)
			e.b = append(e.b, '}')
		})
	}
	e.key(',', "definition_match")
	e.boolPtr(ts.DefinitionMatch)
	e.key(',', "freshness_pass")
	e.boolPtr(ts.FreshnessPass)
	e.key(',', "policy_violations")
	if ts.PolicyViolations == nil {
		e.null()
	} else {
		e.int(*ts.PolicyViolations)
	}
	e.key(',', "correct")
	e.boolPtr(ts.Correct)
	e.key(',', "grounded")
	e.boolPtr(ts.Grounded)
	e.key(',', "needs_human_review")
	e.b = strconv.AppendBool(e.b, ts.NeedsHumanReview)
	if ts.RunID != "" {
		e.key(',', "run_id")
		e.str(ts.RunID)
	}
	e.key(',', "calls")
	e.int(ts.Calls)
	e.key(',', "clarifications")
	e.int(ts.Clarifications)
	e.key(',', "cost_usd")
	e.float(ts.CostUSD)
	if len(ts.ReviewReasons) > 0 {
		e.key(',', "review_reasons")
		appendList(&e, ts.ReviewReasons, func(s *string) { e.str(*s) })
	}
	if len(ts.Violations) > 0 {
		e.key(',', "violations")
		appendList(&e, ts.Violations, func(v *CallViolation) {
			e.key('{', "step")
			e.int(v.Step)
			e.key(',', "violations")
			appendList(&e, v.Violations, func(v *Violation) {
				sep := byte('{')
				if v.Row != nil {
					e.key(sep, "row")
					e.int(*v.Row)
					sep = ','
				}
				if v.Column != "" {
					e.key(sep, "column")
					e.str(v.Column)
					sep = ','
				}
				if v.Value != "" {
					e.key(sep, "value")
					e.str(v.Value)
					sep = ','
				}
				e.key(sep, "reason")
				e.str(v.Reason)
				e.b = append(e.b, '}')
			})
			e.b = append(e.b, '}')
		})
	}
	if len(ts.UnparsedSQL) > 0 {
		e.key(',', "unparsed_sql")
		appendList(&e, ts.UnparsedSQL, e.evidence)
	}
	e.b = append(e.b, '}')
	return e.b, e.err
}

// jsonAppender writes JSON as encoding/json does; err is the first value
// it could not write.
type jsonAppender struct {
	b   []byte
	err error
}

// appendList writes xs as a JSON array, each element with one; a nil
// slice is null, as encoding/json writes it.
func appendList[T any](e *jsonAppender, xs []T, one func(*T)) {
	if xs == nil {
		e.null()
		return
	}
	e.b = append(e.b, '[')
	for i := range xs {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		one(&xs[i])
	}
	e.b = append(e.b, ']')
}

// key writes sep ('{' or ',') and a member's name, which needs no escape.
func (e *jsonAppender) key(sep byte, name string) {
	e.b = append(e.b, sep, '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':')
}

func (e *jsonAppender) evidence(ev *Evidence) {
	e.key('{', "step")
	e.int(ev.Step)
	e.key(',', "reason")
	e.str(ev.Reason)
	e.b = append(e.b, '}')
}

func (e *jsonAppender) null() { e.b = append(e.b, "null"...) }

func (e *jsonAppender) int(n int) { e.b = strconv.AppendInt(e.b, int64(n), 10) }

func (e *jsonAppender) boolPtr(p *bool) {
	if p == nil {
		e.null()
		return
	}
	e.b = strconv.AppendBool(e.b, *p)
}

func (e *jsonAppender) floatPtr(p *float64) {
	if p == nil {
		e.null()
		return
	}
	e.float(*p)
}

// float writes f as encoding/json does: like ES6's number to string,
// 'e' notation outside [1e-6, 1e21) with no padded exponent.
func (e *jsonAppender) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if e.err == nil {
			e.err = fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
		}
		e.null()
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(e.b)
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9
		if n := len(e.b); n-start >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

// str writes s as a JSON string as encoding/json does: HTML's <, > and &
// escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func (e *jsonAppender) str(s string) {
	const hex = "0123456789abcdef"
	b := append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	e.b = append(b, '"')
}

// jsonSafe says an ASCII byte stands for itself in a string as
// encoding/json writes it (its htmlSafeSet).
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
