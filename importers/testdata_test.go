package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tracelab-dev/tracelab/model"
)

// The bundled sample data (testdata/ at the repository root) is the demo
// and the fixture of every later feature; these tests keep it loadable and
// self-consistent. testdata/README.md is its answer key.
const sampleDir = "../testdata"

// loadSampleTraces parses every line of testdata/traces/*.jsonl with the
// native parser and fails the test on any error.
func loadSampleTraces(t *testing.T) []*model.Trace {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sampleDir, "traces", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no trace files under %s/traces", sampleDir)
	}
	var out []*model.Trace
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		err = lines(context.Background(), f, func(n int, line []byte) error {
			tr, lerr := ParseNativeTrace(file, n, line)
			if lerr != nil {
				t.Errorf("%v", lerr)
				return nil
			}
			tr.Source = model.Source{File: file, Format: "native", Line: n}
			out = append(out, tr)
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return out
}

func TestSampleTraces(t *testing.T) {
	traces := loadSampleTraces(t)
	if len(traces) < 30 {
		t.Errorf("%d sample traces, want at least 30", len(traces))
	}
	servers := map[string]int{}
	ids := map[string]string{}
	for _, tr := range traces {
		at := tr.Source.File + ":" + strconv.Itoa(tr.Source.Line)
		servers[tr.Server]++
		if prev, dup := ids[tr.TraceID]; dup {
			t.Errorf("%s: trace_id %s already used at %s", at, tr.TraceID, prev)
		}
		ids[tr.TraceID] = at
		if tr.Server == "" || tr.AsUser == "" || tr.UserRole == "" || tr.RunID == "" || tr.StartedAt == "" {
			t.Errorf("%s: server, as_user, user_role, run_id and started_at are all required in the samples", at)
		}
		if len(tr.Tools) == 0 {
			t.Errorf("%s: no tools[]: the samples carry the contracts the model saw", at)
		}
		if tr.Usage.InputTokens == 0 || tr.Usage.OutputTokens == 0 || tr.Usage.USD == 0 {
			t.Errorf("%s: usage is incomplete: %+v", at, tr.Usage)
		}
		if tr.FinalAnswer() == "" {
			t.Errorf("%s: no answer step", at)
		}
		seen := map[string]bool{}
		for _, tc := range tr.Tools {
			seen[tc.Name] = true
		}
		for i, s := range tr.Steps {
			if s.Kind == model.KindToolCall {
				if !seen[s.Tool] {
					t.Errorf("%s: steps[%d] calls %s, which is not in tools[]", at, i, s.Tool)
				}
				if s.Credential == "" {
					t.Errorf("%s: steps[%d] tool_call without a credential", at, i)
				}
			}
			if s.Kind == model.KindToolResult && s.CallID == "" {
				t.Errorf("%s: steps[%d] tool_result without a call_id", at, i)
			}
		}
	}
	if len(servers) < 2 {
		t.Errorf("samples cover servers %v, want at least two", servers)
	}
}

// TestSampleTraceFilesDetectAsNative checks that format detection, not only
// the native parser called directly, reads every sample file.
func TestSampleTraceFilesDetectAsNative(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sampleDir, "traces", "*.jsonl"))
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		format, err := Parse(context.Background(), f, file, "", func(r Record) error {
			if r.Err != nil {
				t.Errorf("%v", r.Err)
			}
			n++
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if format.Name != "native" || n == 0 {
			t.Errorf("%s: detected %q with %d records, want native with at least one", file, format.Name, n)
		}
	}
}

func TestSampleCases(t *testing.T) {
	traces := map[string]*model.Trace{}
	for _, tr := range loadSampleTraces(t) {
		traces[tr.TraceID] = tr
	}
	file := filepath.Join(sampleDir, "cases.jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	classes := map[string]bool{}
	servers := map[string]bool{}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		n := i + 1
		c, lerr := ParseCase(file, n, line)
		if lerr != nil {
			t.Errorf("%v", lerr)
			continue
		}
		ids = append(ids, c.CaseID)

		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
		if got := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, line) {
			t.Errorf("%s:%d: not in canonical form\n     file: %s\ncanonical: %s", file, n, line, got)
		}

		tr, ok := traces[c.SourceTrace]
		if !ok {
			t.Errorf("%s:%d: source_trace %q is not among the sample traces", file, n, c.SourceTrace)
			continue
		}
		servers[tr.Server] = true
		if c.Label.FailureClass != nil {
			classes[string(*c.Label.FailureClass)] = true
		}
		if c.AsUser != tr.AsUser || c.UserRole != tr.UserRole || c.Question != tr.Question {
			t.Errorf("%s:%d: as_user, user_role or question differ from trace %s", file, n, tr.TraceID)
		}
		want := model.Cost{
			InputTokens:  tr.Usage.InputTokens,
			OutputTokens: tr.Usage.OutputTokens,
			ToolCalls:    int64(tr.ToolCalls()),
			Turns:        int64(tr.Turns()),
			USD:          tr.Usage.USD,
		}
		if c.Cost != want {
			t.Errorf("%s:%d: cost %+v, want %+v from trace %s", file, n, c.Cost, want, tr.TraceID)
		}
	}
	if len(ids) < 12 {
		t.Errorf("%d cases, want at least 12", len(ids))
	}
	if !sort.StringsAreSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("case ids must be unique and sorted: %v", ids)
	}
	for _, cl := range model.Classes {
		if !classes[string(cl)] {
			t.Errorf("no case labeled %s", cl)
		}
	}
	if len(servers) < 2 {
		t.Errorf("cases cover servers %v, want at least two", servers)
	}
}

// TestSamplePolicyAndLineage checks that policy.json names a scope for every
// sample user and that lineage.json agrees with the contracts' _meta.lineage.
func TestSamplePolicyAndLineage(t *testing.T) {
	traces := loadSampleTraces(t)
	var policy struct {
		Scopes map[string]struct {
			Rows        map[string][]string `json:"rows"`
			DenyColumns []string            `json:"deny_columns"`
		} `json:"scopes"`
		Users map[string]string `json:"users"`
	}
	readJSON(t, filepath.Join(sampleDir, "policy.json"), &policy)
	var lineage map[string][]string
	readJSON(t, filepath.Join(sampleDir, "lineage.json"), &lineage)

	for _, tr := range traces {
		scope, ok := policy.Users[tr.AsUser]
		if !ok {
			t.Errorf("%s: as_user %s has no entry in policy.json", tr.TraceID, tr.AsUser)
		} else if _, ok := policy.Scopes[scope]; !ok {
			t.Errorf("policy.json: user %s has scope %q, which is not defined", tr.AsUser, scope)
		}
		for _, tc := range tr.Tools {
			var meta struct {
				Meta struct {
					Lineage map[string][]string `json:"lineage"`
				} `json:"_meta"`
			}
			if err := json.Unmarshal(tc.Raw, &meta); err != nil {
				t.Fatal(err)
			}
			for arg, fields := range meta.Meta.Lineage {
				key := tc.Name + "." + arg
				if got := lineage[key]; !slices.Equal(got, fields) {
					t.Errorf("lineage.json %s = %v, contract %s declares %v", key, got, tc.Name, fields)
				}
			}
		}
	}
	for key, fields := range lineage {
		if !strings.Contains(key, ".") || len(fields) == 0 {
			t.Errorf("lineage.json: %q must be tool.argument with at least one table.column", key)
		}
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestSampleCallsAgainstContracts validates every call's arguments against
// the inputSchema the model saw, and every successful result against the
// tool's outputSchema (JSON Schema 2020-12, the MCP default). The only
// invalid arguments in the samples are the deliberate ones: the three
// entity-class ids and the rejected period label of the APAC retry.
func TestSampleCallsAgainstContracts(t *testing.T) {
	wantInvalidArgs := []string{
		"trace_07b9c4 steps[1]", // period "last quarter", rejected by the server
		"trace_0c9d4e steps[3]", // ACC-00412 where ^C2-[0-9]{6}$ is documented
		"trace_3f2a95 steps[4]", // BA-20931
		"trace_4c6e03 steps[3]", // ACC-01877
	}
	compiled := map[string]*jsonschema.Schema{}
	compile := func(raw json.RawMessage) *jsonschema.Schema {
		if len(raw) == 0 {
			return nil
		}
		if s, ok := compiled[string(raw)]; ok {
			return s
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource("contract.json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("contract.json")
		if err != nil {
			t.Fatalf("schema %s: %v", raw, err)
		}
		compiled[string(raw)] = s
		return s
	}
	validate := func(s *jsonschema.Schema, raw json.RawMessage) error {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return err
		}
		return s.Validate(v)
	}
	var invalid []string
	for _, tr := range loadSampleTraces(t) {
		tools := map[string]model.ToolContract{}
		for _, tc := range tr.Tools {
			tools[tc.Name] = tc
		}
		callTool := map[string]string{}
		for i, s := range tr.Steps {
			at := fmt.Sprintf("%s steps[%d]", tr.TraceID, i)
			switch s.Kind {
			case model.KindToolCall:
				callTool[s.ID] = s.Tool
				if sch := compile(tools[s.Tool].InputSchema); sch != nil {
					if err := validate(sch, s.Args); err != nil {
						invalid = append(invalid, at)
					}
				}
			case model.KindToolResult:
				if s.IsError {
					continue
				}
				if sch := compile(tools[callTool[s.CallID]].OutputSchema); sch != nil {
					if err := validate(sch, s.Result); err != nil {
						t.Errorf("%s: result does not match the outputSchema of %s: %v", at, callTool[s.CallID], err)
					}
				}
			}
		}
	}
	sort.Strings(invalid)
	if !slices.Equal(invalid, wantInvalidArgs) {
		t.Errorf("calls with arguments outside their inputSchema:\n got %v\nwant %v", invalid, wantInvalidArgs)
	}
}

// TestSampleAnswerKey checks that testdata/README.md has one row per trace
// and that its class agrees with the case label wherever a case exists.
func TestSampleAnswerKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(sampleDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| trace_") || strings.HasPrefix(line, "| trace_id ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 8 {
			t.Errorf("README row has %d cells, want 8: %s", len(cells), line)
			continue
		}
		if _, dup := rows[cells[0]]; dup {
			t.Errorf("README: %s has two rows", cells[0])
		}
		rows[cells[0]] = cells
	}
	traces := loadSampleTraces(t)
	for _, tr := range traces {
		cells, ok := rows[tr.TraceID]
		if !ok {
			t.Errorf("README: no row for %s", tr.TraceID)
			continue
		}
		if cells[1] != tr.Server || cells[2] != tr.RunID || cells[3] != tr.AsUser || cells[5] != string(tr.Outcome) {
			t.Errorf("README row %v disagrees with the trace (server %s, run %s, as_user %s, outcome %s)",
				cells[:6], tr.Server, tr.RunID, tr.AsUser, tr.Outcome)
		}
		if cells[6] != "clean" && !model.ValidClass(cells[6]) {
			t.Errorf("README: %s has class %q", tr.TraceID, cells[6])
		}
	}
	if len(rows) != len(traces) {
		t.Errorf("README has %d trace rows, the samples have %d traces", len(rows), len(traces))
	}

	file := filepath.Join(sampleDir, "cases.jsonl")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = lines(context.Background(), f, func(n int, line []byte) error {
		c, lerr := ParseCase(file, n, line)
		if lerr != nil {
			return lerr
		}
		want := "clean"
		if c.Label.FailureClass != nil {
			want = string(*c.Label.FailureClass)
		}
		if cells := rows[c.SourceTrace]; cells != nil && cells[6] != want {
			t.Errorf("%s: README says %s is %s, the case label says %s", c.CaseID, c.SourceTrace, cells[6], want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
