package store

import (
	"context"
	"reflect"
	"testing"
)

// A case page carries each case's report row as the report reads it
// (EachReportRow): the row of the case's trace, whose case is the trace's
// own. A trace with two cases gives both the row of its first case; a
// case without a trace has none.
func TestCasesAfterCarryTheirTracesReportRow(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		importThreeCases(t, st)
		yes, prec, viol := true, 0.5, 2
		if err := st.SaveScores(ctx, []ScoreRow{{TraceID: "t1", SuggestedClass: "temporal", NeedsReview: true, Correct: &yes, GoldSHA: "x", ConfigSHA: "c",
			Metrics: ScoreMetrics{Precision: &prec, PolicyViolations: &viol, Calls: 1, CostUSD: 0.01}}}, nil); err != nil {
			t.Fatal(err)
		}
		var want *ReportRow
		if err := st.EachReportRow(ctx, ScopeAll, func(rows []ReportRow) error {
			for i := range rows {
				if rows[i].TraceID == "t1" {
					want = &rows[i]
				}
			}
			return nil
		}); err != nil || want == nil {
			t.Fatalf("no report row for t1: %v", err)
		}
		if want.Label == nil || want.Label.Correct == nil || !*want.Label.Correct {
			t.Fatalf("t1's report row %+v: want the label of its first case, k1", want)
		}
		recs, err := st.CasesAfter(ctx, true, "", 10)
		if err != nil || len(recs) != 3 {
			t.Fatalf("%d cases, %v", len(recs), err)
		}
		if recs[0].Case.CaseID != "k0" || recs[0].Report != nil || recs[0].Case.Cost.InputTokens != 3 {
			t.Errorf("k0 (no trace): %+v, want no report row and its imported cost", recs[0])
		}
		for _, r := range recs[1:] {
			if r.Report == nil || !reflect.DeepEqual(*r.Report, *want) {
				t.Errorf("%s: report row %+v, want t1's %+v", r.Case.CaseID, r.Report, want)
			}
			if r.Case.Cost.InputTokens != 10 || len(r.Case.Contracts) != 1 {
				t.Errorf("%s: cost %+v contracts %v, want the trace's", r.Case.CaseID, r.Case.Cost, r.Case.Contracts)
			}
		}
		if recs[2].Case.Label.Correct == nil || *recs[2].Case.Label.Correct {
			t.Errorf("k2's own label %+v, want its own (correct false)", recs[2].Case.Label)
		}
		page, err := st.CasesAfter(ctx, false, "k1", 1)
		if err != nil || len(page) != 1 || page[0].Case.CaseID != "k2" {
			t.Errorf("the page after k1: %+v, %v", page, err)
		}
	})
}

// importThreeCases imports goodTraces and three confirmed cases: k1 and
// k2 of trace t1 (k1 labeled correct, k2 not), and k0 of a trace that is
// not there.
func importThreeCases(t *testing.T, st *Store) {
	t.Helper()
	if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	mk := func(id, trace, correct string) string {
		return `{"case_id":"` + id + `","source_trace":"` + trace + `","user_role":"r","as_user":"u1","question":"How many?","gold":{"answer":1,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":` + correct + `,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":3,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}` + "\n"
	}
	if _, err := importString(t, st, "cases.jsonl", mk("k2", "t1", "false")+mk("k1", "t1", "true")+mk("k0", "gone", "true"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Export cuts the cases into ranges with CaseAfterN and reads each with
// CasesUpTo (several at once): the cut must fall where CasesAfter's page
// of n of all cases ends, and a range must hold what CasesAfter lists up
// to its end, for all cases and for the confirmed ones (the cut counts
// every case either way), on both backends.
func TestCaseRangesMatchCasesAfter(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		importThreeCases(t, st)
		if _, err := st.db.ExecContext(ctx, `UPDATE cases SET status = 'suggested' WHERE case_id = 'k1'`); err != nil {
			t.Fatal(err)
		}
		ids := func(recs []CaseRecord) (out []string) {
			for _, r := range recs {
				out = append(out, r.Case.CaseID)
			}
			return out
		}
		upTo := func(recs []CaseRecord, upto string) []CaseRecord {
			out := []CaseRecord{} // as a page with none
			for _, r := range recs {
				if upto == "" || r.Case.CaseID <= upto {
					out = append(out, r)
				}
			}
			return out
		}
		every, err := st.CasesAfter(ctx, true, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"k0", "k1", "k2"}; !reflect.DeepEqual(ids(every), want) {
			t.Fatalf("cases %v, want %v", ids(every), want)
		}
		for _, after := range append([]string{""}, ids(every)...) {
			for n := 1; n <= len(every)+1; n++ {
				page, err := st.CasesAfter(ctx, true, after, n)
				if err != nil {
					t.Fatal(err)
				}
				upto, more, err := st.CaseAfterN(ctx, after, n)
				if err != nil {
					t.Fatal(err)
				}
				if full := len(page) == n; more != full || full && upto != page[n-1].Case.CaseID {
					t.Errorf("CaseAfterN(%q, %d) = %q, %v; CasesAfter's page: %v", after, n, upto, more, ids(page))
				}
				if !more {
					upto = "" // export's last range
				}
				for _, all := range []bool{true, false} {
					rest, err := st.CasesAfter(ctx, all, after, 100)
					if err != nil {
						t.Fatal(err)
					}
					rng, err := st.CasesUpTo(ctx, all, after, upto, 100)
					if err != nil {
						t.Fatal(err)
					}
					if want := upTo(rest, upto); !reflect.DeepEqual(rng, want) {
						t.Errorf("all=%v CasesUpTo(%q, %q): %v, want CasesAfter's %v", all, after, upto, ids(rng), ids(want))
					}
				}
			}
		}
		confirmed, err := st.CasesAfter(ctx, false, "", 100)
		if want := []string{"k0", "k2"}; err != nil || !reflect.DeepEqual(ids(confirmed), want) {
			t.Errorf("confirmed cases %v, %v; want %v (k1 is not)", ids(confirmed), err, want)
		}
	})
}
