package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/scoring"
)

// The -update flag rewrites golden files. Another test file of package
// main may define it too; register it only once.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func driftUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// runDriftCmd runs `tracelab drift args...` and returns its output and
// exit code (0 on success).
func runDriftCmd(t *testing.T, stdin string, args ...string) (string, int, error) {
	out, _, code, err := runDriftCmdErr(t, stdin, args...)
	return out, code, err
}

func runDriftCmdErr(t *testing.T, stdin string, args ...string) (string, string, int, error) {
	t.Helper()
	cmd := newDriftCmd()
	var out, stderr bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&stderr)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return out.String(), stderr.String(), 0, nil
	}
	var coded interface{ ExitCode() int }
	if !errors.As(err, &coded) {
		t.Fatalf("drift %v: error without exit code: %v", args, err)
	}
	return out.String(), stderr.String(), coded.ExitCode(), err
}

func TestDriftWarnsOnPartialListing(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page1.json")
	if err := os.WriteFile(page, []byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code, _ := runDriftCmdErr(t, "", page, page)
	if code != 0 || !strings.Contains(stderr, `page1.json is one page of a paginated tools/list (nextCursor "p2")`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, _, _ = runDriftCmdErr(t, "", driftOldListing, driftNewListing)
	if strings.Contains(stderr, "warning") {
		t.Errorf("unexpected warning %q", stderr)
	}
}

func driftGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "drift", name)
	if driftUpdating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestDriftGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it)\n--- got\n%s", path, t.Name(), got)
	}
}

var junitClock = regexp.MustCompile(`\b(time|timestamp)="[^"]*"`)

const (
	driftOldListing = "testdata/drift/old.json"
	driftNewListing = "testdata/drift/new.json"
	driftTraces     = "testdata/drift/traces.jsonl"
)

func TestDriftGolden(t *testing.T) {
	for _, format := range cireport.DriftFormats {
		t.Run(format, func(t *testing.T) {
			out, code, _ := runDriftCmd(t, "", "--format", format, "--traces", driftTraces, driftOldListing, driftNewListing)
			if code != 1 {
				t.Errorf("exit %d, want 1 (breaking drift)", code)
			}
			// JUnit carries when the diff ran and how long it took.
			out = junitClock.ReplaceAllString(out, `$1="X"`)
			driftGolden(t, format+".golden", out)
		})
	}
}

func TestDriftJSONShape(t *testing.T) {
	out, _, _ := runDriftCmd(t, "", "--format", "json", "--traces", driftTraces, driftOldListing, driftNewListing)
	var rep struct {
		Findings []map[string]json.RawMessage `json:"findings"`
		Summary  map[string]json.RawMessage   `json:"summary"`
		Cases    []scoring.AffectedCase       `json:"cases"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 {
		t.Fatal("no findings")
	}
	for _, f := range rep.Findings {
		for _, k := range []string{"id", "tool", "side", "path", "lane", "security", "message", "old", "new", "fingerprint"} {
			if _, ok := f[k]; !ok {
				t.Errorf("finding %s lacks %q", f["id"], k)
			}
		}
	}
	// The seed's example: a new required field on workspace.read breaks
	// the recorded call that lacks it, and not the one that sends it.
	tiers := map[string]scoring.Tier{}
	for _, c := range rep.Cases {
		if c.Tool == "workspace.read" {
			tiers[c.CaseID] = c.Tier
		}
	}
	if tiers["read-basic"] != scoring.TierInputFails || tiers["read-code-window"] != scoring.TierInputFails {
		t.Errorf("workspace.read tiers %v", tiers)
	}
	want := map[string]scoring.Tier{"customer-email/lookup_customer": scoring.TierOutputFails, "legacy-search/legacy.search": scoring.TierCalled,
		"notes-pull/notes.sync": scoring.TierCalled, "notes-pull/workspace.list": scoring.TierListed}
	for _, c := range rep.Cases {
		if w, ok := want[c.CaseID+"/"+c.Tool]; ok && c.Tier != w {
			t.Errorf("%s/%s: tier %d, want %d (%s)", c.CaseID, c.Tool, c.Tier, w, c.Evidence)
		}
	}
}

// TestDriftJSONSchema checks the json output, with and without cases and
// findings, against the schema CI consumers can rely on.
func TestDriftJSONSchema(t *testing.T) {
	schema, err := os.ReadFile("testdata/drift/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--format", "json", "--traces", driftTraces, driftOldListing, driftNewListing},
		{"--format", "json", driftOldListing, driftOldListing},
		{"--format", "json", "--severity", "testdata/drift/severity.txt", driftNewListing, driftOldListing},
	} {
		out, _, _ := runDriftCmd(t, "", args...)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%v: output does not match report.schema.json: %v", args, err)
		}
	}
}

func TestDriftJUnitParses(t *testing.T) {
	out, _, _ := runDriftCmd(t, "", "--format", "junit", driftOldListing, driftNewListing)
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("junit output is not XML: %v\n%s", err, out)
	}
	failed := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed[c.Name] = c.Failure.Text
		}
	}
	for _, tool := range []string{"workspace.read", "notes.sync", "legacy.search", "workspace.list"} {
		if _, ok := failed[tool]; !ok {
			t.Errorf("%s should fail: %v", tool, failed)
		}
	}
	if _, ok := failed["workspace.grep"]; ok {
		t.Errorf("an added tool must not fail")
	}
	// lookup_customer only lost an optional output field and gained an
	// output enum value: risky, below the default --fail-on breaking.
	if _, ok := failed["lookup_customer"]; ok {
		t.Errorf("lookup_customer has no breaking change, yet fails")
	}
	if !strings.Contains(failed["workspace.read"], "input-property-added-required") || doc.Failures != len(failed) || doc.Tests != 6 {
		t.Errorf("failures %d tests %d: %v", doc.Failures, doc.Tests, failed)
	}
}

func TestDriftExitCodes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TRACELAB_DB", filepath.Join(dir, "none.db"))
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := write("same.json", `[{"inputSchema":{"type":"object"},"name":"workspace.read"}]`)
	base := write("base.json", `{"tools":[{"name":"workspace.read","inputSchema":{"type":"object"}}]}`)
	risky := write("risky.json", `{"tools":[{"name":"workspace.read","description":"now with a description","inputSchema":{"type":"object"}}]}`)
	notListing := write("bad.json", `{"name":"x"}`)
	// A sparse file one byte past the cap: refused by its size, unread.
	huge := write("huge.json", "[")
	if err := os.Truncate(huge, app.MaxListing+1); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in the output or the error
	}{
		{"no change", []string{base, same}, 0, "No tool contract drift"},
		{"breaking", []string{driftOldListing, driftNewListing}, 1, "Lane: BREAKING"},
		{"risky passes by default", []string{base, risky}, 0, "PASS: no changes at or above breaking"},
		{"fail on risky", []string{"--fail-on", "risky", base, risky}, 1, "FAIL: changes at or above risky"},
		{"severity lowers a lane", []string{"--severity", write("sev", "tool-description-changed additive\n"), "--fail-on", "risky", base, risky}, 0, "0 risky, 1 additive"},
		{"severity ignores", []string{"--severity", write("sev2", "tool-description-changed ignore # noise\n"), base, risky}, 0, "1 finding(s) ignored"},
		{"severity file lowers output-enum-widened", []string{"--severity", "testdata/drift/severity.txt", "--format", "json", driftOldListing, driftNewListing}, 1, `"risky": 3,
    "additive": 2,`},
		{"ack file acknowledges every breaking change", []string{"--ack", write("acks", "# reviewed in #88\n3d69829b0836 legacy.search retired\n6746048d9fe6 expires=2999-12-31 notes.sync writes now\n9fff89ebbd1b rename shipped with adapters\nef7cf5fff498 limit lowered on purpose\n31aaeb6b4d16 callers updated\n19c5d5501cdb expires=2026-01-01 old review\n"),
			driftOldListing, driftNewListing}, 0, "0 breaking, 4 risky, 1 additive (2 security); 5 acknowledged"},
		{"expired ack is listed", []string{"--ack", write("acks2", "19c5d5501cdb expires=2026-01-01 old review\n"), driftOldListing, driftNewListing}, 1, "19c5d5501cdb expired 2026-01-01: old review"},
		{"bad ack file", []string{"--ack", write("acks3", "\n3d69829b0836\n"), base, same}, 2, "acks3:2: 3d69829b0836 has no reason"},
		{"bad severity file", []string{"--severity", "testdata/drift/bad-severity.txt", driftOldListing, driftNewListing}, 2, `testdata/drift/bad-severity.txt:2: unknown lane "sometimes"`},
		{"unknown check id", []string{"--severity", write("sev3", "\n\ninput-typo breaking\n"), base, risky}, 2, `sev3:3: unknown check id "input-typo"`},
		{"not a listing", []string{base, notListing}, 2, "bad.json: tools: required"},
		{"missing file", []string{base, filepath.Join(dir, "nope.json")}, 2, "no such file"},
		{"db source without a database", []string{"db:warehouse@r1", base}, 2, "no database at " + filepath.Join(dir, "none.db")},
		{"db source without a server", []string{"db:@r1", base}, 2, "db:@r1: no server"},
		{"cases and suite", []string{"--cases", "--suite", "x.jsonl", base, same}, 2, "--cases and --suite are exclusive"},
		{"bad format", []string{"--format", "yaml", base, same}, 2, "unknown format"},
		{"bad fail-on", []string{"--fail-on", "ignore", base, same}, 2, "--fail-on"},
		{"bad traces", []string{"--traces", notListing, base, risky}, 2, "not a supported trace format"},
		{"stdin", []string{"-", same}, 0, "No tool contract drift"},
		{"stdin past the listing cap", []string{"-", same}, 2, "stdin: over 64 MiB, more than any tool listing"},
		{"file past the listing cap", []string{huge, same}, 2, "huge.json: 64 MiB, more than any tool listing (at most 64 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin := ""
			switch tt.name {
			case "stdin":
				stdin = `[{"name":"workspace.read","inputSchema":{"type":"object"}}]`
			case "stdin past the listing cap":
				stdin = "[" + strings.Repeat(" ", int(app.MaxListing)) + "]"
			}
			out, code, err := runDriftCmd(t, stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (err %v)\n%s", code, tt.code, err, out)
			}
			text := out
			if err != nil {
				text += "\n" + err.Error()
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, text)
			}
		})
	}
}

// The same tool given to OpenAI, Anthropic and over MCP has different wire
// hashes (what the model saw differs) but one semantic hash, so switching
// provider reports no contract change.
func TestDriftAcrossShapes(t *testing.T) {
	listings := map[string]string{
		// platform.openai.com/docs/guides/function-calling
		"openai": `[{"type":"function","function":{"name":"get_weather","description":"Weather now","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}]`,
		// docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview
		"anthropic": `[{"name":"get_weather","description":"Weather now","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]`,
		// modelcontextprotocol.io/specification/2025-11-25/server/tools
		"mcp": `{"tools":[{"name":"get_weather","description":"Weather now","inputSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}`,
	}
	wire, sem := map[string]bool{}, map[string]bool{}
	for name, l := range listings {
		tools, err := importers.ParseToolListing([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h, err := scoring.SemanticFingerprint(tools[0])
		if err != nil {
			t.Fatal(err)
		}
		wire[tools[0].Fingerprint()], sem[h] = true, true
	}
	if len(wire) != 3 || len(sem) != 1 {
		t.Errorf("wire hashes %d (want 3), semantic hashes %d (want 1)", len(wire), len(sem))
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(a, []byte(listings["openai"]), 0o644)
	os.WriteFile(b, []byte(listings["mcp"]), 0o644)
	out, code, err := runDriftCmd(t, "", a, b)
	if code != 0 || !strings.Contains(out, "No tool contract drift") {
		t.Errorf("openai vs mcp shape of one tool: exit %d %v\n%s", code, err, out)
	}
}

// TestDriftMCPSpecSamples diffs the official get_weather listing of MCP
// 2025-11-25 against the one of 2026-07-28: only `execution` went away.
func TestDriftMCPSpecSamples(t *testing.T) {
	dir := "../shared/samples/mcp"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repo in CI): %v", dir, err)
	}
	old := filepath.Join(dir, "spec-2025-11-25-tools-mdx-blocks/block02-tools-list-response.json")
	new := filepath.Join(dir, "schema-2026-07-28-examples/ListToolsResult/tools-list-with-cursor-and-ttl.json")
	out, stderr, code, err := runDriftCmdErr(t, "", "--format", "json", old, new)
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var rep struct {
		Findings []scoring.DriftFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "tool-field-changed" || rep.Findings[0].Path != "execution" {
		t.Errorf("findings %+v", rep.Findings)
	}
	if strings.Count(stderr, "one page of a paginated tools/list") != 2 {
		t.Errorf("both samples carry nextCursor; stderr %q", stderr)
	}
	// The draft-07 and 2020-12 versions of calculate_sum differ in dialect only.
	a, _ := os.ReadFile(filepath.Join(dir, "schema-2026-07-28-examples/Tool/with-default-2020-12-input-schema.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "schema-2026-07-28-examples/Tool/with-explicit-draft-07-input-schema.json"))
	ta, err1 := importers.ParseToolListing(append(append([]byte("["), a...), ']'))
	tb, err2 := importers.ParseToolListing(append(append([]byte("["), b...), ']'))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	res, err := scoring.DiffContracts(ta, tb)
	if err != nil || len(res.Findings) != 1 || res.Findings[0].ID != "input-schema-dialect-changed" {
		t.Errorf("%v %+v", err, res.Findings)
	}
}
