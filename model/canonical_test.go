package model

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":[3,1,{"z":null,"y":true}]}`, `{"a":[3,1,{"y":true,"z":null}],"b":1}`},
		{` { "x" : 1.50 , "<":"a&b" } `, `{"<":"a&b","x":1.50}`},
		{`"\u00e9"`, `"é"`},
	}
	for _, tt := range tests {
		got, err := CanonicalJSON([]byte(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: got %s want %s", tt.in, got, tt.want)
		}
	}
	if _, err := CanonicalJSON([]byte(`{"a":1} {"b":2}`)); err == nil {
		t.Error("trailing data accepted")
	}
	a, _ := Fingerprint([]byte(`{"name":"t","inputSchema":{"type":"object","required":["a"]}}`))
	b, _ := Fingerprint([]byte(`{"inputSchema":{"required":["a"],"type":"object"},"name":"t"}`))
	if a != b || len(a) != 64 {
		t.Errorf("reordered keys changed the fingerprint: %s vs %s", a, b)
	}
}

func TestClassCountsKeepTheSeedsOrder(t *testing.T) {
	b, err := json.Marshal(Report{FailuresByClass: ClassCounts{"policy": 2, "entity": 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := `"failures_by_class":{"entity":1,"semantic":0,"structural":0,"temporal":0,"policy":2}`
	if !strings.Contains(string(b), want) {
		t.Errorf("got %s", b)
	}
}
