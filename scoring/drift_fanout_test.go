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
// place), and a real change 40 levels down was missed. References are
// now compared by name, each pair once: identical contracts never differ,
// and the change is found at the definition that holds it.
func TestFanOutRefs(t *testing.T) {
	same := inSchema(fanOut(40, false))
	// The same document with its keys in another order, and with only a
	// description changed deep down.
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
		if res.Old[0].Semantic != res.New[0].Semantic {
			t.Errorf("a fan-out contract has another semantic hash than itself")
		}
	}
	prose := strings.Replace(same, `"d39":{"type":"object"`, `"d39":{"description":"now documented","type":"object"`, 1)
	res, err := DiffContracts(testContracts(t, "["+same+"]"), testContracts(t, "["+prose+"]"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].ID != "input-description-changed" || res.Findings[0].Path != "inputSchema.$defs.d39.description" {
		t.Errorf("a description 39 levels down: want one input-description-changed at its definition, got:\n%s", dumpDriftFindings(res.Findings))
	}
	// The real change 40 levels down, both ways, and under the budget.
	for _, n := range []int{40, 6} {
		old, changed := inSchema(fanOut(n, false)), inSchema(fanOut(n, true))
		res, err = DiffContracts(testContracts(t, "["+old+"]"), testContracts(t, "["+changed+"]"))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].ID != "input-property-added-required" || res.Findings[0].Lane != LaneBreaking ||
			res.Findings[0].Path != fmt.Sprintf("inputSchema.$defs.d%d.properties.w", n) {
			t.Errorf("a change %d levels down: want one input-property-added-required at $defs.d%d, got:\n%s", n, n, dumpDriftFindings(res.Findings))
		}
		if res.Old[0].Semantic == res.New[0].Semantic {
			t.Errorf("a change %d levels down keeps the semantic hash", n)
		}
		back, err := DiffContracts(testContracts(t, "["+changed+"]"), testContracts(t, "["+old+"]"))
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Findings) != 1 || back.Findings[0].ID != "input-property-removed" {
			t.Errorf("the change %d levels down undone: want one input-property-removed, got:\n%s", n, dumpDriftFindings(back.Findings))
		}
	}
}

// TestFanOutRefsInWholeKeywords: a keyword compared as a whole (here not)
// that refers to a definition compares what the definition holds, not
// only its name.
func TestFanOutRefsInWholeKeywords(t *testing.T) {
	old := fanOut(40, false)
	withNot := func(schema string) string {
		return strings.Replace(schema, `"properties":{"root"`, `"not":{"$ref":"#/$defs/d38"},"properties":{"root"`, 1)
	}
	res, err := DiffContracts(testContracts(t, "["+inSchema(withNot(old))+"]"), testContracts(t, "["+inSchema(withNot(fanOut(40, true)))+"]"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range res.Findings {
		ids = append(ids, f.ID+" "+f.Path)
	}
	want := []string{"input-property-added-required inputSchema.$defs.d40.properties.w", "input-keyword-changed inputSchema.not"}
	if strings.Join(ids, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant %q", dumpDriftFindings(res.Findings), want)
	}
}

// nestedUnions is an object nested depth levels; with unions set, each
// level is an anyOf of that object and a string: comparing the two costs
// 2^depth union trials.
func nestedUnions(depth int, unions bool) string {
	s := `{"type":"string"}`
	for i := 0; i < depth; i++ {
		obj := `{"type":"object","properties":{"c":` + s + `}}`
		if unions {
			s = `{"anyOf":[` + obj + `,{"type":"integer"}]}`
		} else {
			s = obj
		}
	}
	return s
}

// TestUnionBudgetCutShort: when the union trials run out, what was found
// so far is not reported (it may be wrong); one review finding says the
// comparison was cut short.
func TestUnionBudgetCutShort(t *testing.T) {
	res, err := DiffContracts(testContracts(t, "["+inSchema(nestedUnions(16, false))+"]"), testContracts(t, "["+inSchema(nestedUnions(16, true))+"]"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].ID != "schema-comparison-cut-short" || res.Findings[0].Lane == LaneBreaking {
		t.Errorf("want one review finding, got:\n%s", dumpDriftFindings(res.Findings))
	}
	res, err = DiffContracts(testContracts(t, "["+inSchema(nestedUnions(3, false))+"]"), testContracts(t, "["+inSchema(nestedUnions(3, true))+"]"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.ID == "schema-comparison-cut-short" {
			t.Errorf("three nested unions were cut short")
		}
	}
}
