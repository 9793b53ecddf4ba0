package scoring

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

// Tool and property names come from untrusted listings: no format may let
// them start a CI log command, move the cursor or break the markup.
func TestRenderHostileNames(t *testing.T) {
	evil := "x\n::error title=pwned::owned\x1b[2J\u202e|gnp.exe"
	old := []string{`{"name":"safe","inputSchema":{"type":"object","properties":{` + jsonStr(evil) + `:{"type":"string"}}}}`}
	newer := `{"name":` + jsonStr(evil) + `,"inputSchema":{"type":"object"}}`
	res, err := DiffContracts(testContracts(t, "["+old[0]+"]"), testContracts(t, "["+newer+"]"))
	if err != nil {
		t.Fatal(err)
	}
	rep := NewDriftReport("old.json", "new.json", res, nil, LaneBreaking).WithCases([]AffectedCase{{CaseID: evil, Tool: "safe", Tier: TierCalled, Evidence: evil}})
	for _, format := range DriftFormats {
		out, err := RenderDrift(format, rep)
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
				if strings.HasPrefix(line, "| ") && strings.Count(line, " | ")-strings.Count(line, `\| `) != 4 && strings.Count(line, " | ")-strings.Count(line, `\| `) != 3 {
					t.Errorf("markdown row has extra cells: %q", line)
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
	rep := NewDriftReport("a.json", "b.json", DriftResult{Old: []ToolDigest{{Name: "t"}}, New: []ToolDigest{{Name: "t"}}}, nil, LaneBreaking)
	want := map[string]string{
		"text":     "No tool contract drift between a.json and b.json (1 tool(s) compared).\n",
		"json":     `"findings": []`,
		"markdown": "No changes.",
		"junit":    `<testcase name="t" classname="drift"></testcase>`,
		"github":   "::notice title=tracelab drift::0 breaking, 0 risky, 0 additive across 1 tool(s); PASS: no changes at or above breaking\n",
	}
	for format, w := range want {
		out, err := RenderDrift(format, rep)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, w) {
			t.Errorf("%s: %q lacks %q", format, out, w)
		}
	}
	if _, err := RenderDrift("yaml", rep); err == nil {
		t.Error("unknown format accepted")
	}
}
