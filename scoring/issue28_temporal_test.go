package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// Issue 28, rule 4. Seed trace symptom (temporal): "A window computed from
// today's date with no fiscal calendar lookup."
func TestWindowFromTodayIsTemporal(t *testing.T) {
	fiscal := &model.Window{Start: "2026-04-01", End: "2026-06-30", Calendar: "fiscal"}
	calendar := &model.Window{Start: "2026-04-01", End: "2026-06-30", Calendar: "calendar"}
	lookup := `{"kind":"tool_call","id":"c0","tool":"run_sql","args":{"sql":"SELECT quarter_start, quarter_end FROM fiscal_calendar WHERE fiscal_quarter = '2026-Q2'"}},
		{"kind":"tool_result","call_id":"c0","result":[{"quarter_start":"2026-04-01","quarter_end":"2026-06-30"}]},`
	tests := []struct {
		name   string
		pre    string
		sql    string
		window *model.Window
		want   bool
	}{
		{"now()", "", `SELECT COUNT(*) FROM customers WHERE created_at >= now() - interval '90 days'`, fiscal, true},
		{"current_date", "", `SELECT COUNT(*) FROM customers WHERE created_at >= current_date - 90`, fiscal, true},
		{"CURRENT_TIMESTAMP", "", `SELECT COUNT(*) FROM customers WHERE created_at >= CURRENT_TIMESTAMP - interval '3 months'`, fiscal, true},
		{"date_trunc('quarter', now())", "", `SELECT COUNT(*) FROM customers WHERE created_at >= date_trunc('quarter', now()) - interval '3 months' AND created_at < date_trunc('quarter', now())`, fiscal, true},
		// Must not fire.
		{"a fiscal calendar lookup first", lookup, `SELECT COUNT(*) FROM customers WHERE created_at >= date_trunc('quarter', now())`, fiscal, false},
		{"a calendar-quarter case", "", `SELECT COUNT(*) FROM customers WHERE created_at >= date_trunc('quarter', now())`, calendar, false},
		{"literal dates", "", `SELECT COUNT(*) FROM customers WHERE created_at >= '2026-04-01' AND created_at < '2026-07-01'`, fiscal, false},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := json.Marshal(tt.sql)
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("w", "fin.analyst.02", sqlTool, tt.pre+
				`{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":`+string(q)+`}},
				 {"kind":"tool_result","call_id":"c1","result":[{"count":1284}],"as_of":"2026-08-04T08:30:00Z"},
				 {"kind":"answer","text":"1,284"}`)))
			if lerr != nil {
				t.Fatal(lerr)
			}
			ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`1284`), Window: tt.window})
			if got := hasKind(ts, "temporal", "from today's date"); got != tt.want {
				t.Errorf("today-window evidence = %v, want %v; classes %s", got, tt.want, mustJSON(t, ts.Classes))
			}
			if tt.want && (ts.SuggestedClass == nil || *ts.SuggestedClass != model.ClassTemporal) {
				t.Errorf("suggested %v, want temporal", ts.SuggestedClass)
			}
		})
	}
	// A glossary term that says fiscal stands for the gold window.
	g, err := NewScorer(Config{Glossary: []GlossaryEntry{{Term: "active customers", Definition: "active = subscription_status in (ACTIVE) in the fiscal quarter"}}})
	if err != nil {
		t.Fatal(err)
	}
	tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(strings.Replace(classTrace("w", "fin.analyst.02", sqlTool,
		`{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers WHERE created_at >= date_trunc('quarter', now())"}},
		 {"kind":"tool_result","call_id":"c1","result":[{"count":3}]},
		 {"kind":"answer","text":"3"}`), `"question":"q"`, `"question":"How many active customers last quarter?"`, 1)))
	if lerr != nil {
		t.Fatal(lerr)
	}
	if ts := g.Score(tr, nil); !hasKind(ts, "temporal", `the glossary term "active customers" is fiscal`) {
		t.Errorf("glossary: classes %s", mustJSON(t, ts.Classes))
	}
}

// Issue 28, Also: an as_of later than the trace's start by more than a few
// minutes is clock skew. Seed: "Freshness pass rate = tasks where the
// as_of timestamp of every result was within the task's
// freshness_bound_hours" — a timestamp from the future is not within
// anything a scorer can measure.
func TestAsOfAheadOfTheTraceIsClockSkew(t *testing.T) {
	tests := []struct {
		asOf       string
		wantPass   any
		wantReview bool
	}{
		{"2026-08-04T08:30:00Z", true, false},      // 30 min old
		{"2026-08-04T09:04:00Z", true, false},      // 4 min ahead: clocks round, calls take time
		{"2026-08-04T11:00:00Z", nil, true},        // 2 h ahead: skew
		{"2026-08-04T11:00:00+02:00", true, false}, // 09:00Z: an offset, not skew
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := 24.0
	for _, tt := range tests {
		t.Run(tt.asOf, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("k", "fin.analyst.02", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"}},
				 {"kind":"tool_result","call_id":"c1","result":[{"id":"d1"}],"as_of":"`+tt.asOf+`"},
				 {"kind":"answer","text":"1 deal"}`)))
			if lerr != nil {
				t.Fatal(lerr)
			}
			ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`1`), FreshnessBoundHours: &h})
			if bptr(ts.FreshnessPass) != tt.wantPass {
				t.Errorf("freshness_pass = %v, want %v", bptr(ts.FreshnessPass), tt.wantPass)
			}
			review := strings.Contains(strings.Join(ts.ReviewReasons, "; "), "clock skew")
			if review != tt.wantReview {
				t.Errorf("clock skew review = %v, want %v: %q", review, tt.wantReview, ts.ReviewReasons)
			}
			if tt.wantReview && (ts.Grounded != nil || !ts.NeedsHumanReview) {
				t.Errorf("skew: grounded %v review %v, want null and true", bptr(ts.Grounded), ts.NeedsHumanReview)
			}
		})
	}
}

// Issue 28, Also. Seed (semantic): "A reasoning step that contains
// 'sounds like,' 'probably,' or 'I will assume.'" A trace with no gold
// where a guess marker comes before a field-using call suggests semantic,
// and its grounded is null, not true.
func TestHedgeWithoutGold(t *testing.T) {
	chat := func(text, sql string) string {
		q, _ := json.Marshal(sql)
		return classTrace("h", "fin.analyst.02", sqlTool,
			`{"kind":"assistant","text":`+mustJSONString(text)+`},
			 {"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":`+string(q)+`}},
			 {"kind":"tool_result","call_id":"c1","result":[{"n":1284}]},
			 {"kind":"answer","text":"1,284"}`)
	}
	sql := `SELECT COUNT(*) FROM customers WHERE is_active = true`
	tests := []struct {
		name      string
		trace     string
		gold      *model.Gold
		wantClass bool
		wantGr    any
	}{
		{"assistant text hedges before a field-using call, no gold", chat("is_active probably means active, I will filter on it.", sql), nil, true, nil},
		{"the same with an empty machine gold", chat("is_active probably means active, I will filter on it.", sql), &model.Gold{}, true, nil},
		// Must not fire.
		{"no hedge, empty gold", chat("I will filter on is_active.", sql), &model.Gold{}, false, true},
		{"a hedge before a call that uses no field", chat("Probably a count will do.", "SELECT 1"), nil, false, nil},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(tt.trace))
			if lerr != nil {
				t.Fatal(lerr)
			}
			ts := s.Score(tr, tt.gold)
			got := ts.SuggestedClass != nil && *ts.SuggestedClass == model.ClassSemantic && hasKind(ts, "semantic", "guess marker")
			if got != tt.wantClass {
				t.Errorf("semantic from the hedge = %v, want %v; classes %s", got, tt.wantClass, mustJSON(t, ts.Classes))
			}
			if bptr(ts.Grounded) != tt.wantGr {
				t.Errorf("grounded = %v, want %v", bptr(ts.Grounded), tt.wantGr)
			}
		})
	}
}

func mustJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
