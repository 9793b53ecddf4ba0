package cireport

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// contracts reads a JSON array of MCP tool objects, as the importers do.
func contracts(t testing.TB, js string) []model.ToolContract {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(js), &raws); err != nil {
		t.Fatalf("bad fixture %s: %v", js, err)
	}
	var out []model.ToolContract
	for _, r := range raws {
		var tc model.ToolContract
		if err := json.Unmarshal(r, &tc); err != nil {
			t.Fatalf("bad fixture %s: %v", r, err)
		}
		tc.Raw = r
		out = append(out, tc)
	}
	return out
}

func driftReport(t testing.TB, old, new string) scoring.DriftReport {
	t.Helper()
	res, err := scoring.DiffContracts(contracts(t, old), contracts(t, new))
	if err != nil {
		t.Fatal(err)
	}
	return scoring.NewDriftReport("old.json", "new.json", res, nil, scoring.LaneBreaking)
}

var testRun = JUnitRun{Started: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Elapsed: 1500 * time.Millisecond}

// Tool and property names come from untrusted listings: no format may let
// them start a CI log command, move the cursor or break the markup.
func TestRenderHostileNames(t *testing.T) {
	evil := "x\n::error title=pwned::owned\x1b[2J\u202e|gnp.exe`"
	rep := driftReport(t, `[{"name":"safe","inputSchema":{"type":"object","properties":{`+jsonStr(evil)+`:{"type":"string"}}}}]`,
		`[{"name":`+jsonStr(evil)+`,"inputSchema":{"type":"object"}}]`).
		WithCases([]scoring.AffectedCase{{CaseID: evil, Tool: "safe", Tier: scoring.TierCalled, Evidence: evil}})
	for _, format := range DriftFormats {
		out, err := RenderDrift(format, rep, testRun)
		if err != nil {
			t.Fatal(err)
		}
		bad := "\x1b\u202e\r"
		if format == "json" {
			bad = "\x1b\r" // JSON carries the names as data, escaped by the encoder
		}
		if strings.ContainsAny(out, bad) {
			t.Errorf("%s: control or bidi character reached the output", format)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if strings.HasPrefix(line, "::error title=pwned") {
				t.Errorf("%s: injected line %q", format, line)
			}
			if format == "github" && !strings.HasPrefix(line, "::") {
				t.Errorf("github: line is not a workflow command: %q", line)
			}
		}
		switch format {
		case "json":
			if !json.Valid([]byte(out)) {
				t.Error("json output not valid")
			}
		case "junit":
			if err := xml.Unmarshal([]byte(out), new(struct{})); err != nil {
				t.Errorf("junit output not XML: %v", err)
			}
		case "markdown":
			for _, line := range strings.Split(out, "\n") {
				if !strings.HasPrefix(line, "| ") {
					continue
				}
				cells := strings.Count(line, " |") - strings.Count(line, `\| `) - strings.Count(line, "\\|`")
				if cells != 5 && cells != 4 {
					t.Errorf("markdown row has %d cells: %q", cells, line)
				}
			}
		}
	}
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRenderNoFindings(t *testing.T) {
	rep := scoring.NewDriftReport("a.json", "b.json", scoring.DriftResult{Old: []scoring.ToolDigest{{Name: "t"}}, New: []scoring.ToolDigest{{Name: "t"}}}, nil, scoring.LaneBreaking)
	want := map[string]string{
		"text":     "No tool contract drift between a.json and b.json (1 tool(s) compared).\n",
		"json":     `"findings": []`,
		"markdown": "No changes.",
		"junit":    `<testcase name="t" classname="drift" time="0.000"></testcase>`,
		"github":   "::notice title=tracelab drift::0 breaking, 0 risky, 0 additive across 1 tool(s); PASS: no changes at or above breaking\n",
	}
	for format, w := range want {
		out, err := RenderDrift(format, rep, testRun)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, w) {
			t.Errorf("%s: %q lacks %q", format, out, w)
		}
	}
	if _, err := RenderDrift("yaml", rep, testRun); err == nil {
		t.Error("unknown format accepted")
	}
}

// A description change shows what the text now says, in every format a
// reviewer reads, not only that its length changed.
func TestRenderProseAsWordDiff(t *testing.T) {
	rep := driftReport(t, `[{"name":"t","description":"Set the confidence: high, medium or low.","inputSchema":{"type":"object"}}]`,
		`[{"name":"t","description":"Set the confidence: HIGH, MEDIUM or LOW.","inputSchema":{"type":"object"}}]`)
	want := "[-high, medium-] {+HIGH, MEDIUM+} or [-low.-] {+LOW.+}"
	for _, format := range []string{"text", "markdown", "github", "junit"} {
		out, err := RenderDrift(format, rep, testRun)
		if err != nil {
			t.Fatal(err)
		}
		w := want
		switch format {
		case "junit":
			w = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(want)
		case "markdown":
			w = Text(want) // outside text: its brackets escaped, shown the same
		}
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks the word diff %q:\n%s", format, w, out)
		}
	}
}

// risky-low is shown as such and annotated as a notice, not a warning.
func TestRenderRiskyLow(t *testing.T) {
	rep := driftReport(t, `[{"name":"t","annotations":{"title":"Reader."},"inputSchema":{"type":"object"}}]`,
		`[{"name":"t","annotations":{"title":"Reader"},"inputSchema":{"type":"object"}}]`)
	text, _ := RenderDrift("text", rep, testRun)
	if !strings.Contains(text, "  - risky-low: annotations.title changed") {
		t.Errorf("text lacks risky-low:\n%s", text)
	}
	gh, _ := RenderDrift("github", rep, testRun)
	if !strings.HasPrefix(gh, "::notice file=new.json,title=RISKY-LOW t%3A tool-title-changed::") {
		t.Errorf("github: %s", gh)
	}
}

func TestRenderAcks(t *testing.T) {
	rep := driftReport(t, `[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]`, `[]`)
	fpA, fpB := rep.Findings[0].Fingerprint, rep.Findings[1].Fingerprint
	acks, err := scoring.ParseDriftAcks("acks.txt", []byte(fpA+" retired in #12\n"+fpB+" expires=2026-01-31 clients moved\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep = rep.WithAcks(acks, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if rep.Summary.Breaking != 1 || rep.Summary.Acked != 1 || !rep.Summary.Failed {
		t.Fatalf("summary %+v", rep.Summary)
	}
	for format, want := range map[string][]string{
		"text":     {"Acknowledged (1, not counted):", "retired in #12 (acks.txt:1)", "expired 2026-01-31: clients moved (acks.txt:2)"},
		"markdown": {"### Acknowledged", "### Expired acknowledgements"},
		"github":   {"::warning file=acks.txt,title=tracelab drift%3A expired acknowledgement::" + fpB + " expired 2026-01-31 (line 2): clients moved"},
		"junit":    {"acknowledged " + fpA, "expired acknowledgement " + fpB},
		"json":     {`"acknowledged": [`, `"expired_acks": [`},
	} {
		out, err := RenderDrift(format, rep, testRun)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", format, w, out)
			}
		}
	}
}
