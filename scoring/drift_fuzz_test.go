package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// fuzzListing decodes a JSON array of MCP-shaped tools without the importers
// (scoring depends on model only); nil when data is not such an array.
func fuzzListing(data []byte) []model.ToolContract {
	var raws []json.RawMessage
	if json.Unmarshal(data, &raws) != nil {
		return nil
	}
	var out []model.ToolContract
	seen := map[string]bool{}
	for _, r := range raws {
		var tc model.ToolContract
		if json.Unmarshal(r, &tc) != nil || tc.Name == "" || seen[tc.Name] {
			return nil
		}
		for _, s := range []json.RawMessage{tc.InputSchema, tc.OutputSchema, tc.Annotations} {
			if len(s) > 0 && !json.Valid(s) {
				return nil
			}
		}
		seen[tc.Name] = true
		tc.Raw = r
		out = append(out, tc)
	}
	return out
}

// FuzzDiffContracts feeds untrusted schemas to the engine: it must not
// panic, must be deterministic, and must find nothing between a listing
// and itself.
func FuzzDiffContracts(f *testing.F) {
	for _, c := range driftCases[:len(driftCases):len(driftCases)] {
		o, n := c.old, c.new
		if !strings.HasPrefix(o, "[") {
			o, n = "["+o+"]", "["+n+"]"
		}
		f.Add([]byte(o), []byte(n))
	}
	f.Add([]byte(`[{"name":"t","inputSchema":{"$ref":"#"}}]`), []byte(`[{"name":"t","inputSchema":{"items":[{"$ref":"#/items/0"}],"enum":[null,{"a":1}]}}]`))
	f.Fuzz(func(t *testing.T, oldData, newData []byte) {
		old, new := fuzzListing(oldData), fuzzListing(newData)
		if old == nil || new == nil {
			return
		}
		res, err := DiffContracts(old, new)
		if err != nil {
			return
		}
		again, _ := DiffContracts(old, new)
		if fmt.Sprint(res.Findings) != fmt.Sprint(again.Findings) {
			t.Fatal("non-deterministic findings")
		}
		for _, f := range res.Findings {
			if _, ok := checksByID[f.ID]; !ok || len(f.Fingerprint) != 12 {
				t.Fatalf("bad finding %+v", f)
			}
		}
		self, err := DiffContracts(old, old)
		if err != nil || len(self.Findings) != 0 {
			t.Fatalf("listing differs from itself: %v\n%s", err, dumpDriftFindings(self.Findings))
		}
		// Every tool called once with empty args and an empty result: the
		// NEW and OLD schemas compile and validate without panicking.
		var calls []CaseCall
		var listed []string
		for _, tc := range append(append([]model.ToolContract(nil), old...), new...) {
			calls = append(calls, CaseCall{Tool: tc.Name, Args: json.RawMessage(`{}`), Result: json.RawMessage(`{"a":[1]}`)})
			listed = append(listed, tc.Name)
		}
		cases := AffectedCasesBetween(res.Findings, old, new, []CaseTools{{CaseID: "c", Calls: calls, Listed: listed}})
		for _, c := range cases {
			if c.Tier < TierInputFails || c.Tier > TierListed || c.Evidence == "" {
				t.Fatalf("bad affected case %+v", c)
			}
		}
	})
}

func BenchmarkDiffContracts(b *testing.B) {
	// 200 tools with nested objects, arrays, enums and $defs; NEW changes
	// every tenth tool.
	mk := func(i int, changed bool) string {
		extra := ""
		if changed {
			extra = `,"since":{"type":"string","format":"date"}`
		}
		return fmt.Sprintf(`{"name":"tool_%03d","description":"Tool number %d","inputSchema":{"type":"object","$defs":{"win":{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}%s}}},
		"properties":{"id":{"type":"string","pattern":"^x_"},"mode":{"enum":["a","b","c"]},"window":{"$ref":"#/$defs/win"},"tags":{"type":"array","items":{"type":"string","maxLength":40}}},"required":["id"]},
		"outputSchema":{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"number"}}}}}},"annotations":{"readOnlyHint":true}}`, i, i, extra)
	}
	var olds, news []string
	for i := 0; i < 200; i++ {
		olds = append(olds, mk(i, false))
		news = append(news, mk(i, i%10 == 0))
	}
	old, new := fuzzListing([]byte("["+strings.Join(olds, ",")+"]")), fuzzListing([]byte("["+strings.Join(news, ",")+"]"))
	if len(old) != 200 || len(new) != 200 {
		b.Fatal("bad benchmark listing")
	}
	b.ResetTimer()
	var findings int
	for i := 0; i < b.N; i++ {
		res, err := DiffContracts(old, new)
		if err != nil {
			b.Fatal(err)
		}
		findings = len(res.Findings)
	}
	b.ReportMetric(float64(len(old))*float64(b.N)/b.Elapsed().Seconds(), "tools/s")
	b.ReportMetric(float64(findings), "findings")
}

// FuzzInstancePathOf: finding paths may come back from stored JSON.
func FuzzInstancePathOf(f *testing.F) {
	for _, s := range []string{"outputSchema.properties.a", `outputSchema.properties["a.b"].items`, "outputSchema.oneOf[2]", `x["`, "[", "a[99999999999999999999]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		segs, ok := parseFindingPath(p)
		if !ok {
			return
		}
		// What parses re-renders to a path that parses to the same steps.
		var b string
		for _, s := range segs {
			if s.isIndex {
				b = jsonPathIndex(b, s.index)
			} else {
				b = jsonPathKey(b, s.key)
			}
		}
		again, ok := parseFindingPath(b)
		if !ok || fmt.Sprint(again) != fmt.Sprint(segs) {
			t.Fatalf("%q -> %q: %v vs %v", p, b, segs, again)
		}
		instancePathOf(p, true, json.RawMessage(`"x"`))
	})
}
