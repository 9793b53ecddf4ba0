package importers

import (
	"encoding/json"
	"testing"
)

func TestPathAt(t *testing.T) {
	type step struct {
		Kind string `json:"kind"`
		N    int    `json:"n"`
	}
	type doc struct {
		Steps []step          `json:"steps"`
		M     map[string]step `json:"m"`
		Usage struct {
			USD float64 `json:"usd"`
		} `json:"usage"`
	}
	tests := []struct {
		in, path string
	}{
		{`{"steps":[{"kind":"a"},{"kind":3}]}`, "steps[1].kind"},
		{`{"steps":[{"kind":"a"},{"n":"x"}]}`, "steps[1].n"},
		{`{"m":{"k":{"n":true}}}`, "m.k.n"},
		{`{"usage":{"usd":"cheap"}}`, "usage.usd"},
		{`{"steps":[{"kind":"a","n":1},{"kind":"b","n":2},{"kind":{"x":1}}]}`, "steps[2].kind"},
		{`{"steps":{"kind":"a"}}`, "steps"},
		// A hostile key is quoted: no raw escape reaches the terminal and
		// no dot in it poses as path structure.
		{`{"m":{"\u001b]0;owned\u0007":{"n":true}}}`, `m["\x1b]0;owned\a"].n`},
		{`{"m":{"a.b":{"n":true}}}`, `m["a.b"].n`},
	}
	for _, tt := range tests {
		var d doc
		err := json.Unmarshal([]byte(tt.in), &d)
		if err == nil {
			t.Fatalf("%s: expected an error", tt.in)
		}
		le := jsonError("f.jsonl", 3, []byte(tt.in), err)
		if le.Path != tt.path {
			t.Errorf("%s: path %q, want %q (%v)", tt.in, le.Path, tt.path, le)
		}
	}
}
