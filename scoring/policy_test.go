package scoring

import (
	"encoding/json"
	"strings"
	"testing"
)

// The policy file shape the brief and testdata/policy.json use.
const policyJSON = `{"scopes":{"all_regions":{},"region:EMEA":{"rows":{"region":["EMEA"]},"deny_columns":["email"]}},
 "users":{"sales.mgr.emea.03":"region:EMEA","fin.analyst.02":"all_regions"}}`

func TestPolicyFile(t *testing.T) {
	p, err := ParsePolicy([]byte(policyJSON))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		call    PolicyCall
		want    []string // violation reasons, in order
		wantErr bool
	}{
		{"columns+rows shape", PolicyCall{AsUser: "sales.mgr.emea.03", Result: json.RawMessage(
			`{"columns":["deal","region","amount"],"rows":[["d1","EMEA",10],["d2","AMER",20],["d3","emea",5]]}`)},
			[]string{"row 1 has region = AMER, outside the scope's EMEA"}, false},
		{"rows of objects", PolicyCall{AsUser: "sales.mgr.emea.03", Result: json.RawMessage(
			`{"rows":[{"region":"APAC","email":"a@x"},{"region":"EMEA","email":"b@x"}]}`)},
			[]string{"column email is denied to the scope", "row 0 has region = APAC, outside the scope's EMEA"}, false},
		{"bare array", PolicyCall{AsUser: "sales.mgr.emea.03", Result: json.RawMessage(`[{"Region":"LATAM"}]`)},
			[]string{"row 0 has Region = LATAM, outside the scope's EMEA"}, false},
		{"all regions sees everything", PolicyCall{AsUser: "fin.analyst.02", Result: json.RawMessage(
			`{"columns":["region","email"],"rows":[["AMER","a@x"]]}`)}, nil, false},
		{"case scope overrides the user's", PolicyCall{AsUser: "fin.analyst.02", Scope: "region:EMEA", Result: json.RawMessage(
			`[{"region":"AMER"}]`)}, []string{"row 0 has region = AMER, outside the scope's EMEA"}, false},
		{"unknown user is undecidable", PolicyCall{AsUser: "nobody", Result: json.RawMessage(`[]`)}, nil, true},
		{"unknown scope is undecidable", PolicyCall{AsUser: "nobody", Scope: "region:MARS"}, nil, true},
		{"non-tabular result", PolicyCall{AsUser: "sales.mgr.emea.03", Result: json.RawMessage(`{"count":3}`)}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := p.Check(tt.call)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Reason)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParsePolicyErrors(t *testing.T) {
	for _, bad := range []string{`[]`, `{"users":{}}`, `{"scopes":{},"users":{"u":"missing"}}`} {
		if _, err := ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("ParsePolicy(%s): want an error", bad)
		}
	}
}

func FuzzPolicyCheck(f *testing.F) {
	f.Add(`{"columns":["region"],"rows":[["AMER"],[1,2,3]]}`)
	f.Add(`[{"region":null},{"region":["x"]},3]`)
	f.Add(`{"rows":[[1],{"region":"EMEA"}]}`)
	p, err := ParsePolicy([]byte(policyJSON))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, result string) {
		vs, err := p.Check(PolicyCall{AsUser: "sales.mgr.emea.03", Result: json.RawMessage(result)})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if v.Reason == "" {
				t.Fatalf("violation without a reason: %+v", v)
			}
		}
	})
}

func FuzzParsePolicy(f *testing.F) {
	f.Add(policyJSON)
	f.Fuzz(func(t *testing.T, data string) {
		p, err := ParsePolicy([]byte(data))
		if err != nil {
			return
		}
		for u := range p.Users {
			if _, err := p.Check(PolicyCall{AsUser: u}); err != nil {
				t.Fatalf("user %q of a valid policy: %v", u, err)
			}
		}
	})
}
