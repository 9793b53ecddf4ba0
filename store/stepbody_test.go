package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tracelab-dev/tracelab/model"
)

func TestStepsBodyRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		steps []model.Step
	}{
		{"none", nil},
		{"one of each field", []model.Step{{Kind: model.KindToolCall, ID: "c1", CallID: "c0", Text: "t", Tool: "run_sql",
			Args: json.RawMessage(`{"sql":"SELECT 1"}`), Result: json.RawMessage(`[1]`), AsOf: "2026-07-03T08:00:00Z",
			IsError: true, Credential: "svc", NextCursor: "n2", HasMore: true}}},
		{"escapes and controls", []model.Step{{Kind: model.KindReasoning, Text: "a \"quote\", a \\ and\n\t\r\x00\x01\x1f\x7f"}}},
		{"not UTF-8 and not JSON", []model.Step{{Kind: model.KindToolResult, Text: "\xff\xfe", Result: json.RawMessage("not json \xc3")}}},
		{"unicode", []model.Step{{Kind: model.KindAnswer, Text: "résumé 🎉 \u2028"}}},
		{"many", []model.Step{{Kind: model.KindUser, Text: "q"}, {Kind: model.KindToolCall, Tool: "x", Args: json.RawMessage(`{}`)},
			{Kind: model.KindToolResult, CallID: "c", Result: json.RawMessage(`"s\"\\"`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := stepsBody(tt.steps)
			if n := stepsBodyLen(tt.steps); n != len(body) {
				t.Errorf("stepsBodyLen %d, body %d bytes", n, len(body))
			}
			if utf8.ValidString(body) && !json.Valid([]byte(body)) {
				t.Fatalf("body is not JSON: %s", body)
			}
			got, err := decodeStepsBody(body, nil)
			if err != nil {
				t.Fatalf("decode %s: %v", body, err)
			}
			if len(tt.steps) == 0 && len(got) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.steps) {
				t.Errorf("round trip:\n got %#v\nwant %#v", got, tt.steps)
			}
		})
	}
}

// A body written by another JSON encoder (encoding/json, as the workbench's
// benchmark writes, or PostgreSQL's json functions: spaces, \/, \u escapes,
// surrogate pairs, true and false) reads the same.
func TestStepsBodyOtherEncoders(t *testing.T) {
	body := `[ [ "user", "", "", "caf\u00e9 \ud83c\udf89 \/ \u003c", "", null, null, "", false, "", "", true ] ,
		["tool_call","c1","","","t","{\"a\":1}",null,"",true,"","",false]]`
	got, err := decodeStepsBody(body, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Step{{Kind: model.KindUser, Text: "café 🎉 / <", HasMore: true},
		{Kind: model.KindToolCall, ID: "c1", Tool: "t", Args: json.RawMessage(`{"a":1}`), IsError: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestStepsBodyErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{``, "expected '[' to open the steps"},
		{`[`, "expected '[' to open a step"},
		{`[["user"]]`, "expected ',' before id"},
		{`[["user","","","","",1,null,"",0,"","",0]]`, "args: step body, byte 21: expected a string or null"},
		{`[["user","","","","",null,null,"",2,"","",0]]`, "is_error: step body, byte 34: expected 0 or 1"},
		{`[["user","","","\q","",null,null,"",0,"","",0]]`, "text: step body, byte 18: bad escape"},
		{`[["user","","","\u12","",null,null,"",0,"","",0]]`, "text: step body, byte 18: bad escape"},
		{`[["user","","","x`, "text: step body, byte 17: unterminated string"},
		{`[["user","","","","",null,null,"",0,"","",0,7]]`, "expected ']' to close a step"},
		{`[["user","","","","",null,null,"",0,"","",0]] x`, "text after the steps"},
	}
	for _, tt := range tests {
		_, err := decodeStepsBody(tt.body, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("decode %q: got %v, want an error containing %q", tt.body, err, tt.want)
		}
	}
}

// FuzzStepsBody: steps written come back byte for byte, and no input makes
// the reader panic or read past its body.
func FuzzStepsBody(f *testing.F) {
	f.Add("tool_call", "c1", "run_sql", `{"sql":"SELECT 1"}`, "\x00\"\\\n", true)
	f.Add("reasoning", "", "", "", "\xff \xed\xa0\xbc", false)
	f.Add("[", "]", ",", "null", `\u0000`, true)
	f.Fuzz(func(t *testing.T, kind, id, tool, args, text string, flag bool) {
		steps := []model.Step{{Kind: model.StepKind(kind), ID: id, Tool: tool, Text: text, IsError: flag,
			HasMore: !flag, Credential: text + id}}
		if args != "" {
			steps[0].Args = json.RawMessage(args)
			steps[0].Result = json.RawMessage(args + text)
		}
		steps = append(steps, steps[0])
		body := stepsBody(steps)
		if n := stepsBodyLen(steps); n != len(body) {
			t.Fatalf("stepsBodyLen %d, body %d bytes", n, len(body))
		}
		got, err := decodeStepsBody(body, nil)
		if err != nil {
			t.Fatalf("decode %q: %v", body, err)
		}
		if !reflect.DeepEqual(got, steps) {
			t.Fatalf("round trip of %q:\n got %#v\nwant %#v", body, got, steps)
		}
		// Any text at all, and every prefix of a good body, is read or refused.
		decodeStepsBody(text, nil)
		for i := range body {
			decodeStepsBody(body[:i], nil)
		}
	})
}
