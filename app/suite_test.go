package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// openTestdata imports the bundled traces (and, when withCases, the gold
// cases) into a fresh store.
func openTestdata(t *testing.T, withCases bool) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	files, _ := filepath.Glob("../testdata/traces/*.jsonl")
	if withCases {
		files = append(files, "../testdata/cases.jsonl")
	}
	for _, f := range files {
		if _, err := importFile(context.Background(), st, nil, f, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func policy(t *testing.T) scoring.PolicyOracle {
	data, err := os.ReadFile("../testdata/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := scoring.ParsePolicy(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScoreAllStoresScoresAndSuggestions(t *testing.T) {
	st := openTestdata(t, false)
	ctx := context.Background()
	results, err := engineOver(st, Files{}, scoring.Config{Policy: policy(t)}).scoreAll(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 32 {
		t.Fatalf("%d results", len(results))
	}
	// The seed's Server A trace is flagged semantic, with its markers counted in the queue.
	page, _, err := st.ListTraces(ctx, store.Query{Filter: store.Filter{TraceIDs: []string{"trace_9f31c2"}}})
	if err != nil || len(page) != 1 {
		t.Fatal(err)
	}
	if page[0].SuggestedClass != "semantic" || page[0].Markers < 2 || page[0].Status != model.StatusSuggested {
		t.Errorf("queue row for trace_9f31c2: %+v", page[0])
	}
	cr, _ := st.CaseForTrace(ctx, "trace_9f31c2")
	if cr == nil || cr.GoldOrigin != "machine" || cr.Case.Label.FailureClass == nil {
		t.Fatalf("no machine suggestion stored: %+v", cr)
	}
	if d, _ := st.Score(ctx, "trace_9f31c2"); !strings.Contains(string(d), `"suggested_class":"semantic"`) {
		t.Errorf("score detail: %s", d)
	}
}

func TestHumanGoldWinsAndReportCountsOnlyIt(t *testing.T) {
	st := openTestdata(t, true)
	ctx := context.Background()
	cfg := scoring.Config{Policy: policy(t)}
	results, err := engineOver(st, Files{}, cfg).scoreAll(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	human := 0
	for _, r := range results {
		if r.HumanGold {
			human++
			if r.Suggested != nil {
				t.Errorf("%s has human gold and a suggestion", r.Score.TraceID)
			}
		}
	}
	if human != 28 {
		t.Errorf("%d traces scored against human gold, want 28", human)
	}
	reports, err := engineOver(st, Files{}, cfg).Suite.Report(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, r := range reports {
		cases += r.Cases
	}
	if cases != 28 || len(reports) != 3 {
		t.Errorf("report over %d cases on %d servers", cases, len(reports))
	}
	all, _ := engineOver(st, Files{}, cfg).Suite.Report(ctx, true)
	// The report reads the scores' columns; the same numbers come out of
	// the results scoring returned.
	for _, tt := range []struct {
		all  bool
		read []model.Report
	}{{false, reports}, {true, all}} {
		want, _ := json.Marshal(BuildReport(results, tt.all))
		if got, _ := json.Marshal(tt.read); string(got) != string(want) {
			t.Errorf("report (all=%v) from stored columns:\n got %s\nwant %s", tt.all, got, want)
		}
	}
	n := 0
	for _, r := range all {
		n += r.Cases
	}
	// Every case, confirmed or suggested: the 3 traces the scorer could
	// suggest nothing for have none, and export --all writes 29 too.
	if n != 29 {
		t.Errorf("--all report over %d cases, want 29", n)
	}
	// The imported suite's labels are untouched by scoring.
	cr, _ := st.Case(ctx, "emea-active-q2-017")
	if cr.GoldOrigin != "human" || cr.Status != model.StatusConfirmed || *cr.Case.Label.FailureClass != model.ClassSemantic {
		t.Errorf("suite case changed: %+v", cr)
	}
}

func TestScoringASubsetLearnsFromStoredPeers(t *testing.T) {
	st := openTestdata(t, true)
	ctx := context.Background()
	if _, err := engineOver(st, Files{}, scoring.Config{}).scoreAll(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	full, err := engineOver(st, Files{}, scoring.Config{}).evaluate(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, r := range full {
		if r.Suggested != nil {
			want[r.Score.TraceID] = strings.Join(r.Suggested.Gold.RequiredFields, ",")
		}
	}
	// trace_2d8f61 has no case; the same question has confirmed gold on
	// the other servers, which a subset run must still see.
	const id = "trace_2d8f61"
	if want[id] == "" {
		t.Fatalf("full run suggested no required fields for %s", id)
	}
	sub, err := engineOver(st, Files{}, scoring.Config{}).evaluate(ctx, []string{id}, nil)
	if err != nil || len(sub) != 1 || sub[0].Suggested == nil {
		t.Fatalf("%v %+v", err, sub)
	}
	if got := strings.Join(sub[0].Suggested.Gold.RequiredFields, ","); got != want[id] {
		t.Errorf("subset suggestion %q, full run %q", got, want[id])
	}
}

func TestCommandOracle(t *testing.T) {
	call := scoring.PolicyCall{AsUser: "u", Scope: "region:EMEA", Tool: "run_sql"}
	tests := []struct {
		name, cmd string
		want      int
		errHas    string
	}{
		{"allows", `cat >/dev/null; echo '{"violations":[]}'`, 0, ""},
		{"reads the call", `grep -q '"as_user":"u"' && echo '{"violations":[{"column":"email","reason":"masked"}]}'`, 1, ""},
		{"fails", `echo 'no such user' >&2; exit 3`, 0, "failed: no such user"},
		{"garbage", `echo ok`, 0, `expected {"violations":[...]}`},
		{"hangs", `sleep 30`, 0, "did not answer within 300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A generous timeout for answering oracles (a loaded CI machine
			// is slow to start a shell), a short one for the hanging oracle.
			timeout := 20 * time.Second
			if tt.name == "hangs" {
				timeout = 300 * time.Millisecond
			}
			o := &CommandOracle{Command: tt.cmd, Timeout: timeout}
			start := time.Now()
			v, err := o.Check(call)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.errHas)
				}
				if o.Err() == nil {
					t.Error("failure not remembered")
				}
				if time.Since(start) > 10*time.Second {
					t.Error("a hanging oracle was not stopped")
				}
				return
			}
			if err != nil || len(v) != tt.want {
				t.Fatalf("violations %v, err %v", v, err)
			}
		})
	}
}
