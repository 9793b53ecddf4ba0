package scoring

import (
	"fmt"
	"testing"
	"time"
)

// Minimal pairs for the lane rules of drift-rules.md that are about what is
// NOT reported, or about how many findings one change gives.

// A schema wrapped in a one-branch union, or split into a union of the same
// values, is no change in either direction.
func TestPureWrapsAreNoChange(t *testing.T) {
	pairs := []struct{ name, old, new string }{
		{"one-branch anyOf", `{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`,
			`{"anyOf":[{"type":"object","properties":{"a":{"type":"string","minLength":1}}}]}`},
		{"one-branch oneOf on a property", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"}]}}}`},
		{"one-branch anyOf with the prose outside", `{"type":"object","properties":{"a":{"type":"integer","description":"count"}}}`,
			`{"type":"object","properties":{"a":{"description":"count","anyOf":[{"type":"integer"}]}}}`},
		{"type list split into a union", `{"type":"object","properties":{"id":{"type":["string","integer"]}}}`,
			`{"type":"object","properties":{"id":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`},
		{"nullable type split into typed branches", `{"type":"object","properties":{"id":{"type":["string","integer"],"description":"an id"}}}`,
			`{"type":"object","properties":{"id":{"type":["string","integer"],"description":"an id","anyOf":[{"type":"string"},{"type":"integer"}]}}}`},
		{"union of the old shape and a narrower one", `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			`{"type":"object","properties":{"n":{"anyOf":[{"type":"integer"},{"type":"integer","minimum":0}]}}}`},
	}
	for _, p := range pairs {
		for _, side := range []struct {
			name string
			wrap func(string) string
		}{{"input", inSchema}, {"output", outSchema}} {
			for _, dir := range []struct{ name, a, b string }{{"wrap", p.old, p.new}, {"unwrap", p.new, p.old}} {
				t.Run(p.name+"/"+side.name+"/"+dir.name, func(t *testing.T) {
					res, err := DiffContracts(testContracts(t, side.wrap(dir.a)), testContracts(t, side.wrap(dir.b)))
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Findings) != 0 {
						t.Errorf("a pure wrap gave findings:\n%s", dumpDriftFindings(res.Findings))
					}
				})
			}
		}
	}
}

// A change inside a union branch is reported once, at the branch.
func TestUnionBranchDetailIsReportedAtTheBranch(t *testing.T) {
	res, err := DiffContracts(testContracts(t, inSchema(`{"type":"object","properties":{"a":{"type":"string"}}}`)),
		testContracts(t, inSchema(`{"anyOf":[{"type":"object","properties":{"a":{"type":"string","maxLength":5}}}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].ID != "input-bound-tightened" || res.Findings[0].Path != "inputSchema.anyOf[0].properties.a.maxLength" {
		t.Errorf("want one input-bound-tightened at inputSchema.anyOf[0].properties.a.maxLength, got:\n%s", dumpDriftFindings(res.Findings))
	}
}

// When a parent's type changes, what changed inside it is part of that one
// change.
func TestTypeChangeFoldsChildren(t *testing.T) {
	old := outSchema(`{"type":"object","properties":{"content":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"type":{"const":"text"},"text":{"type":"string"}},"required":["type","text"]}}}}`)
	cur := outSchema(`{"type":"object","properties":{"content":{"type":"string"}}}`)
	for _, dir := range [][2]string{{old, cur}, {cur, old}} {
		res, err := DiffContracts(testContracts(t, dir[0]), testContracts(t, dir[1]))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].ID != "output-type-changed" || res.Findings[0].Path != "outputSchema.properties.content.type" {
			t.Errorf("want one output-type-changed at outputSchema.properties.content.type, got:\n%s", dumpDriftFindings(res.Findings))
		}
	}
	// A widening keeps the children: integer → number is no reason to hide
	// the rest.
	res, err := DiffContracts(testContracts(t, inSchema(`{"type":"object","properties":{"a":{"type":"string"}}}`)),
		testContracts(t, inSchema(`{"type":["object","null"],"properties":{"a":{"type":"integer"}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 2 {
		t.Errorf("a widened parent must not fold its children:\n%s", dumpDriftFindings(res.Findings))
	}
}

// risky-low is risky with the Low mark; nothing else carries it.
func TestRiskyLow(t *testing.T) {
	for _, tc := range driftCases {
		res, err := DiffContracts(testContracts(t, tc.old), testContracts(t, tc.new))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			if want := lowChecks[f.ID]; f.Low != want {
				t.Errorf("%s: %s low=%v, want %v", tc.name, f.ID, f.Low, want)
			}
			if f.Low && f.Lane != LaneRisky {
				t.Errorf("%s: %s low but lane %s", tc.name, f.ID, f.Lane)
			}
		}
	}
	// An override to another lane drops the mark.
	fs, _ := DriftSeverity{"tool-title-changed": LaneBreaking}.Apply([]DriftFinding{{ID: "tool-title-changed", Lane: LaneRisky, Low: true}})
	if fs[0].Low {
		t.Error("a finding moved to breaking kept its risky-low mark")
	}
}

// Paths point into the listing as written, through $refs and union branches.
func TestWrittenPath(t *testing.T) {
	doc := map[string]any{"inputSchema": map[string]any{
		"$defs": map[string]any{"r": map[string]any{"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}}}},
		"properties": map[string]any{
			"w":    map[string]any{"$ref": "#/$defs/r"},
			"n":    map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
			"a.b":  map[string]any{"anyOf": []any{map[string]any{"type": "string", "maxLength": 3}}},
			"keep": map[string]any{"type": "string"},
		},
	}}
	for _, tc := range []struct{ in, want string }{
		{"inputSchema.properties.w.properties.to", "inputSchema.$defs.r.properties.to"},
		{"inputSchema.properties.n.type", "inputSchema.properties.n.oneOf"},
		{`inputSchema.properties["a.b"].maxLength`, `inputSchema.properties["a.b"].anyOf[0].maxLength`},
		{"inputSchema.properties.keep.type", "inputSchema.properties.keep.type"},
		{"inputSchema.properties.keep.minLength", "inputSchema.properties.keep.minLength"}, // absent in both: the deepest prefix, then the rest
		{"description", "description"},
	} {
		if got := writtenPath(tc.in, doc, nil); got != tc.want {
			t.Errorf("writtenPath(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Unions nested in union branches, appearing at every level, stay cheap:
// each level compares its branches again, under a budget.
func TestNestedUnionsStayBounded(t *testing.T) {
	leaf := `{"type":"string"}`
	nested := leaf
	for i := 0; i < 30; i++ {
		nested = `{"anyOf":[` + nested + `,{"type":"integer","minimum":` + fmt.Sprint(i) + `}]}`
	}
	start := time.Now()
	if _, err := DiffContracts(testContracts(t, inSchema(`{"type":"object","properties":{"a":`+leaf+`}}`)),
		testContracts(t, inSchema(`{"type":"object","properties":{"a":`+nested+`}}`))); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("30 nested unions took %v", d)
	}
}
