package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/suite"
)

func TestMatchByQuestion(t *testing.T) {
	cases := []model.Case{{Server: "a"}, {Server: "b"}, {Server: ""}, {Server: "a"}}
	for _, tt := range []struct {
		name      string
		idx       []int
		server    string
		want      []int
		ambiguous bool
	}{
		{"own server and serverless", []int{0, 1, 2}, "a", []int{0, 2}, false},
		{"other server only", []int{1}, "a", nil, false},
		{"untagged, serverless case", []int{0, 1, 2}, "", []int{2}, false},
		{"untagged, one server", []int{0, 3}, "", []int{0, 3}, false},
		{"untagged, two servers", []int{0, 1}, "", nil, true},
		{"tagged, unknown server", []int{0, 1}, "c", nil, false},
	} {
		got, amb := matchByQuestion(cases, tt.idx, tt.server)
		if !slices.Equal(got, tt.want) || amb != tt.ambiguous {
			t.Errorf("%s: %v %v, want %v %v", tt.name, got, amb, tt.want, tt.ambiguous)
		}
	}
}

// twoServerSuite is one question asked of two servers: both cases were
// labeled correct and grounded.
func twoServerSuite(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, s := range []string{"alpha", "beta"} {
		fmt.Fprintf(&b, `{"case_id":"%s-count","source_trace":"old_%s","server":"%s","user_role":"analyst","as_user":"u1","question":"How many orders?","gold":{"answer":7,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":1,"usd":0}}`+"\n", s, s, s)
	}
	p := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// newTrace answers the suite's question; server "" leaves it untagged.
func newTrace(id, server, answer string) string {
	srv := ""
	if server != "" {
		srv = fmt.Sprintf(`"server":%q,`, server)
	}
	return fmt.Sprintf(`{"trace_id":%q,%s"as_user":"u1","question":"How many orders?","outcome":"pass","steps":[{"kind":"user","text":"How many orders?"},{"kind":"tool_call","id":"c1","tool":"count_orders","args":{},"credential":"u1"},{"kind":"tool_result","call_id":"c1","result":{"n":7},"as_of":"2026-07-03T08:00:00Z"},{"kind":"answer","text":%q}]}`+"\n", id, srv, answer)
}

func TestCheckMatchesByServer(t *testing.T) {
	dir := t.TempDir()
	suitePath := twoServerSuite(t, dir)
	check := func(name, traces string, in CheckInput) CheckReport {
		t.Helper()
		p := filepath.Join(dir, name+".jsonl")
		os.WriteFile(p, []byte(traces), 0o644)
		in.Suite, in.Traces, in.TempDir = suitePath, []string{p}, dir
		rep, err := RunCheck(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return rep
	}
	verdicts := func(rep CheckReport) string {
		var vs []string
		for _, c := range rep.Cases {
			vs = append(vs, c.CaseID+"="+string(c.Verdict))
		}
		return strings.Join(vs, " ")
	}
	// beta's new answer is wrong: only beta's case regresses, alpha's passes.
	rep := check("tagged", newTrace("n1", "alpha", "7")+newTrace("n2", "beta", "9"), CheckInput{})
	if got := verdicts(rep); got != "alpha-count=pass beta-count=regressed" {
		t.Errorf("tagged traces: %s", got)
	}
	// An untagged wrong answer regresses no case: it cannot say whose it is.
	rep = check("untagged", newTrace("n1", "alpha", "7")+newTrace("n3", "", "9"), CheckInput{Gate: suite.Gate{AllowMissing: true}})
	if got := verdicts(rep); got != "alpha-count=pass beta-count=missing" || rep.Summary.Untagged != 1 || rep.Summary.Unmatched != 1 {
		t.Errorf("untagged trace: %s, summary %+v", got, rep.Summary)
	}
	// --server tags it.
	rep = check("server-flag", newTrace("n3", "", "9"), CheckInput{Server: "beta", Gate: suite.Gate{AllowMissing: true}})
	if got := verdicts(rep); got != "alpha-count=missing beta-count=regressed" {
		t.Errorf("--server beta: %s", got)
	}
	// metadata.case_id outranks the server.
	tagged := strings.Replace(newTrace("n4", "", "9"), `"as_user"`, `"metadata":{"case_id":"alpha-count"},"as_user"`, 1)
	rep = check("case-id", tagged, CheckInput{Gate: suite.Gate{AllowMissing: true}})
	if got := verdicts(rep); got != "alpha-count=regressed beta-count=missing" {
		t.Errorf("metadata.case_id: %s", got)
	}
}

func TestCheckCoverageGate(t *testing.T) {
	dir := t.TempDir()
	suitePath := twoServerSuite(t, dir)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	one := filepath.Join(dir, "one.jsonl")
	os.WriteFile(one, []byte(newTrace("n1", "alpha", "7")), 0o644)
	for _, tt := range []struct {
		name   string
		traces string
		gate   suite.Gate
		failed bool
	}{
		{"empty run", empty, suite.Gate{}, true},
		{"empty run, allow-missing", empty, suite.Gate{AllowMissing: true}, true},
		{"1 of 2", one, suite.Gate{}, true},
		{"1 of 2, min 0.5", one, suite.Gate{MinCoverage: 0.5}, false},
		{"1 of 2, allow-missing", one, suite.Gate{AllowMissing: true}, false},
	} {
		rep, err := RunCheck(context.Background(), CheckInput{Suite: suitePath, Traces: []string{tt.traces}, TempDir: dir, Gate: tt.gate})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		s := rep.Summary
		if s.Failed != tt.failed || s.Coverage.Failed != tt.failed || s.Regressed != 0 {
			t.Errorf("%s: %+v", tt.name, s)
		}
	}
}
