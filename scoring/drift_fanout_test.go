package scoring

import (
	"fmt"
	"strings"
	"testing"
)

// fanOut is an input schema whose $defs fan out: d0 … dN, each referring
// to the next one twice, so inlining makes 2^N copies (a 1.4 KB contract
// at N=40). With deep set, the last definition gains a required property.
func fanOut(n int, deep bool) string {
	var defs []string
	for i := 0; i < n; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}}`, i, i+1, i+1))
	}
	last := `{"type":"object","properties":{"v":{"type":"string"}}}`
	if deep {
		last = `{"type":"object","properties":{"v":{"type":"string"},"w":{"type":"string"}},"required":["w"]}`
	}
	defs = append(defs, fmt.Sprintf(`"d%d":%s`, n, last))
	return `{"type":"object","properties":{"root":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
}

// TestFanOutRefs: past the inlining budget, a contract compared with
// itself gave "1 breaking, 6 risky, 1 additive" (each side cut at its own
// place), and a real change 40 levels down was missed. Identical
// contracts now never differ, and a change where the budget ran out is
// one review finding, never a phantom breaking change.
func TestFanOutRefs(t *testing.T) {
	same := inSchema(fanOut(40, false))
	// The same document with its keys in another order.
	reordered := strings.Replace(same, `"type":"object","properties":{"root"`, `"properties":{"root"`, 1)
	reordered = strings.Replace(reordered, `,"$defs"`, `,"type":"object","$defs"`, 1)
	for _, other := range []string{same, reordered} {
		res, err := DiffContracts(testContracts(t, "["+same+"]"), testContracts(t, "["+other+"]"))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 {
			t.Errorf("a fan-out contract differs from itself:\n%s", dumpDriftFindings(res.Findings))
		}
	}
	res, err := DiffContracts(testContracts(t, "["+same+"]"), testContracts(t, "["+inSchema(fanOut(40, true))+"]"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].ID != "schema-comparison-cut-short" || res.Findings[0].Lane == LaneBreaking {
		t.Errorf("a change 40 levels down: want one review finding, got:\n%s", dumpDriftFindings(res.Findings))
	}
	// Under the budget the change itself is found.
	res, err = DiffContracts(testContracts(t, "["+inSchema(fanOut(6, false))+"]"), testContracts(t, "["+inSchema(fanOut(6, true))+"]"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range res.Findings {
		found = found || f.ID == "input-property-added-required"
		if f.ID == "schema-comparison-cut-short" {
			t.Errorf("a small fan-out was cut short")
		}
	}
	if !found {
		t.Errorf("a change 6 levels down: no input-property-added-required in\n%s", dumpDriftFindings(res.Findings))
	}
}
