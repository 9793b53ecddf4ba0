package scoring

import "testing"

// TestSpecDefaultsAreNotChanges: an MCP SDK upgrade that spells out the
// spec's defaults (execution.taskSupport "forbidden", every annotation
// hint at its default) gave 9 risky "tool field changed" findings for
// nothing; spelling a default out, or dropping it, is no change and keeps
// the semantic fingerprint. A real change from the default still counts.
func TestSpecDefaultsAreNotChanges(t *testing.T) {
	const bare = `[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]`
	const spelled = `[{"name":"a","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"},
		"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}},
		{"name":"b","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"},"annotations":{"readOnlyHint":true}}]`
	for _, pair := range [][2]string{{bare, spelled}, {spelled, bare}} {
		res, err := DiffContracts(testContracts(t, pair[0]), testContracts(t, pair[1]))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 {
			t.Errorf("spelling out the spec's defaults gave findings:\n%s", dumpDriftFindings(res.Findings))
		}
		for i := range res.Old {
			if res.Old[i].Semantic != res.New[i].Semantic {
				t.Errorf("tool %d: semantic fingerprint moved with a default spelled out", i)
			}
		}
	}
	optional := `[{"name":"a","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"b","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]`
	res, err := DiffContracts(testContracts(t, spelled), testContracts(t, optional))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].ID != "tool-field-changed" {
		t.Errorf("forbidden → optional: want one tool-field-changed, got:\n%s", dumpDriftFindings(res.Findings))
	}
}
