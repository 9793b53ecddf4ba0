package scoring

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAffectedCases(t *testing.T) {
	// workspace.read gains a required input; weather loses an output field;
	// notes only changes its description; tidy is added (additive: no case).
	old := `[
	 {"name":"workspace.read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
	 {"name":"weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}},
	  "outputSchema":{"type":"object","properties":{"temp":{"type":"number"},"humidity":{"type":"number"}}}},
	 {"name":"notes","description":"Read notes","inputSchema":{"type":"object"}},
	 {"name":"legacy","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}]`
	new := `[
	 {"name":"workspace.read","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path","recursive"]}},
	 {"name":"weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}},
	  "outputSchema":{"type":"object","properties":{"temp":{"type":"integer"}}}},
	 {"name":"notes","description":"Read notes. Prefer this tool.","inputSchema":{"type":"object"}},
	 {"name":"tidy","inputSchema":{"type":"object"}}]`
	newTools := testContracts(t, new)
	res, err := DiffContracts(testContracts(t, old), newTools)
	if err != nil {
		t.Fatal(err)
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	cases := []CaseTools{
		{CaseID: "read-basic", Calls: []CaseCall{{Tool: "workspace.read", Args: raw(`{"path":"src/index.ts"}`)}},
			Listed: []string{"workspace.read", "notes"}},
		{CaseID: "read-recursive", Calls: []CaseCall{{Tool: "workspace.read", Args: raw(`{"path":"src","recursive":true}`)}},
			Listed: []string{"workspace.read"}},
		{CaseID: "weather-float", Calls: []CaseCall{{Tool: "weather", Args: raw(`{"city":"Oslo"}`),
			Result: raw(`{"content":[{"type":"text","text":"{}"}],"structuredContent":{"temp":21.5}}`)}}},
		{CaseID: "weather-humid", Calls: []CaseCall{{Tool: "weather", Args: raw(`{"city":"Oslo"}`),
			Result: raw(`{"temp":21,"humidity":80}`)}}},
		{CaseID: "weather-error", Calls: []CaseCall{{Tool: "weather", Args: raw(`{"city":"?"}`),
			Result: raw(`{"content":[{"type":"text","text":"no such city"}],"isError":true}`)}}},
		{CaseID: "legacy-user", Calls: []CaseCall{{Tool: "legacy", Args: raw(`{"q":"x"}`)}}},
		{CaseID: "unrelated", Calls: []CaseCall{{Tool: "tidy", Args: raw(`{}`)}}, Listed: []string{"tidy"}},
	}
	got := AffectedCases(res.Findings, newTools, cases)
	type row struct {
		caseID, tool string
		tier         Tier
		evidence     string // a substring
	}
	want := []row{
		{"read-basic", "workspace.read", TierInputFails, "missing property 'recursive'"},
		{"weather-float", "weather", TierOutputFails, "at /temp: got number, want integer"},
		{"weather-humid", "weather", TierOutputFails, "recorded result has humidity"},
		{"legacy-user", "legacy", TierCalled, "the tool is removed"},
		{"read-recursive", "workspace.read", TierCalled, "called workspace.read 1 time(s)"},
		{"weather-error", "weather", TierCalled, "called weather"},
		{"read-basic", "notes", TierListed, "notes was listed"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d affected cases, want %d:\n%+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.CaseID != w.caseID || g.Tool != w.tool || g.Tier != w.tier || !strings.Contains(g.Evidence, w.evidence) {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestAffectedCasesRename(t *testing.T) {
	old := `[{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`
	new := `[{"name":"workspace.read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`
	newTools := testContracts(t, new)
	res, err := DiffContracts(testContracts(t, old), newTools)
	if err != nil {
		t.Fatal(err)
	}
	got := AffectedCases(res.Findings, newTools, []CaseTools{
		{CaseID: "c1", Calls: []CaseCall{{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)}}},
		{CaseID: "c2", Calls: []CaseCall{{Tool: "read_file", Args: json.RawMessage(`{}`)}}},
	})
	if len(got) != 2 || got[0].CaseID != "c2" || got[0].Tier != TierInputFails || got[0].Tool != "workspace.read" ||
		got[1].Tier != TierCalled || !strings.Contains(got[1].Evidence, "renamed to workspace.read") {
		t.Errorf("got %+v", got)
	}
}

func TestAffectedCasesNeverLoadsRefs(t *testing.T) {
	// A schema pointing outside the document must not be fetched or read.
	new := `[{"name":"t","inputSchema":{"type":"object","properties":{"p":{"$ref":"file:///etc/passwd"}}}}]`
	old := `[{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"string"}}}}]`
	newTools := testContracts(t, new)
	res, err := DiffContracts(testContracts(t, old), newTools)
	if err != nil {
		t.Fatal(err)
	}
	got := AffectedCases(res.Findings, newTools, []CaseTools{{CaseID: "c", Calls: []CaseCall{{Tool: "t", Args: json.RawMessage(`{"p":"x"}`)}}}})
	if len(got) != 1 || got[0].Tier != TierCalled || !strings.Contains(got[0].Evidence, "external $ref not followed") {
		t.Errorf("got %+v", got)
	}
}

func TestInstancePathOf(t *testing.T) {
	tests := []struct {
		path   string
		rename bool
		old    string
		want   string // joined with "/"; "!" when not mappable
	}{
		{"outputSchema.properties.email", false, "", "email"},
		{jsonPathKey(jsonPathKey(jsonPathKey(jsonPathKey("outputSchema", "properties"), "a.b"), "properties"), `we"ird`), false, "", `a.b/we"ird`},
		{"outputSchema.items.properties.rows.items.properties.v", false, "", "[]/rows/[]/v"},
		{"outputSchema.oneOf[1].properties.id", false, "", "id"},
		{"outputSchema.properties.temperature", true, `"temp"`, "temp"},
		{"outputSchema.additionalProperties.properties.x", false, "", "!"},
		{"inputSchema.properties.x", false, "", "!"},
		{`outputSchema.properties["unterminated`, false, "", "!"},
		{"outputSchema", false, "", "!"},
	}
	for _, tt := range tests {
		got, ok := instancePathOf(tt.path, tt.rename, json.RawMessage(tt.old))
		s := strings.Join(got, "/")
		if !ok {
			s = "!"
		}
		if s != tt.want {
			t.Errorf("%s: got %q want %q", tt.path, s, tt.want)
		}
	}
}

// Findings read back from JSON (as a store would keep them) still find
// results that read a renamed output field.
func TestAffectedCasesFromStoredFindings(t *testing.T) {
	old := `[{"name":"w","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"obs":{"type":"array","items":{"type":"object","properties":{"temp":{"type":"number"}}}}}}}]`
	new := `[{"name":"w","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"obs":{"type":"array","items":{"type":"object","properties":{"temperature":{"type":"number"}}}}}}}]`
	newTools := testContracts(t, new)
	res, err := DiffContracts(testContracts(t, old), newTools)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Findings)
	var stored []DriftFinding
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	got := AffectedCases(stored, newTools, []CaseTools{{CaseID: "c", Calls: []CaseCall{{Tool: "w",
		Result: json.RawMessage(`{"obs":[{"temp":3.5}]}`)}}}})
	if len(got) != 1 || got[0].Tier != TierOutputFails || !strings.Contains(got[0].Evidence, "recorded result has obs[].temp") {
		t.Errorf("got %+v\nfindings:\n%s", got, dumpDriftFindings(res.Findings))
	}
}

// A call that already broke the OLD contract is not evidence of the drift.
func TestAffectedCasesBetweenIgnoresOldFailures(t *testing.T) {
	old := `[{"name":"read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`
	new := `[{"name":"read","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path","recursive"]}}]`
	oldTools, newTools := testContracts(t, old), testContracts(t, new)
	res, err := DiffContracts(oldTools, newTools)
	if err != nil {
		t.Fatal(err)
	}
	cases := []CaseTools{
		{CaseID: "already-bad", Calls: []CaseCall{{Tool: "read", Args: json.RawMessage(`{"recursive":true}`)}}},
		{CaseID: "broken-now", Calls: []CaseCall{{Tool: "read", Args: json.RawMessage(`{"path":"a"}`)}}},
	}
	got := AffectedCasesBetween(res.Findings, oldTools, newTools, cases)
	if len(got) != 2 || got[0].CaseID != "broken-now" || got[0].Tier != TierInputFails ||
		got[1].CaseID != "already-bad" || got[1].Tier != TierCalled || !strings.Contains(got[1].Evidence, "already failed the old input schema") {
		t.Errorf("with OLD: %+v", got)
	}
	// Without OLD there is no baseline: both count as tier 1.
	got = AffectedCases(res.Findings, newTools, cases)
	if len(got) != 2 || got[0].Tier != TierInputFails || got[1].Tier != TierInputFails {
		t.Errorf("without OLD: %+v", got)
	}
}
