package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		out     string
		want    string // the label as "correct grounded class", or the error's start
		wantErr bool
	}{
		{`{"failure_class":"semantic","correct":false,"grounded":false,"rationale":"guessed"}`, "no no semantic", false},
		{`{"failure_class":null,"correct":true,"grounded":true,"rationale":""}`, "yes yes -", false},
		{` {"failure_class":"none","correct":null,"grounded":true}` + "\n", "? yes -", false},
		{`{"failure_class":"","correct":null,"grounded":null}`, "? ? -", false},
		{`{"failure_class":"vibes","correct":true,"grounded":true}`, `failure_class "vibes" is not one of`, true},
		{`{"correct":true,"grounded":true}`, `the verdict has no "failure_class"`, true},
		{`{"failure_class":null,"correct":"yes","grounded":true}`, "the verdict is malformed", true},
		{`{"failure_class":null,"correct":true,"grounded":true,"confidence":0.9}`, "the verdict is malformed", true},
		{`{"failure_class":null,"correct":true,"grounded":true}{}`, "expected one JSON object", true},
		{`[]`, "expected one JSON object", true},
		{``, "expected one JSON object", true},
	}
	for _, tt := range tests {
		rl, msg := parseVerdict([]byte(tt.out))
		if tt.wantErr {
			if !strings.HasPrefix(msg, tt.want) {
				t.Errorf("%s: error %q, want it to start %q", tt.out, msg, tt.want)
			}
			continue
		}
		if msg != "" {
			t.Errorf("%s: error %q", tt.out, msg)
			continue
		}
		class := "-"
		if rl.Label.FailureClass != nil {
			class = string(*rl.Label.FailureClass)
		}
		if got := boolStr(rl.Label.Correct) + " " + boolStr(rl.Label.Grounded) + " " + class; got != tt.want || rl.Kind != model.RaterJudge {
			t.Errorf("%s: %s (%s), want %s", tt.out, got, rl.Kind, tt.want)
		}
	}
}

// FuzzParseVerdict: whatever a judge writes is a label of a known class
// or a message, never a panic.
func FuzzParseVerdict(f *testing.F) {
	f.Add([]byte(`{"failure_class":"policy","correct":false,"grounded":true,"rationale":"x"}`))
	f.Add([]byte(`{"failure_class":null}`))
	f.Add([]byte("\x00{"))
	f.Fuzz(func(t *testing.T, out []byte) {
		rl, msg := parseVerdict(out)
		if msg == "" {
			if c := rl.Label.FailureClass; c != nil && !model.ValidClass(string(*c)) {
				t.Fatalf("class %q accepted", *c)
			}
		} else if rl.Label != (model.Label{}) {
			t.Fatalf("an error with a label: %q %+v", msg, rl.Label)
		}
	})
}

func TestJudgeName(t *testing.T) {
	for cmd, want := range map[string]string{
		"./judges/gpt.sh --fast":          "gpt",
		"sh testdata/raters/judge.sh":     "judge",
		"python3 -m judge.main --x":       "judge",
		"myjudge --temperature 0":         "myjudge",
		"  ":                              "",
		"go run ./cmd/judge --model=tiny": "judge",
	} {
		if got := JudgeName(cmd); got != want {
			t.Errorf("JudgeName(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// A judge over every trace, four at a time: each verdict is one label of
// rater judge:NAME; a failing judge stops the run with a JudgeError.
func TestJudgeRun(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	calls := 0
	res, err := e.Judges.Run(ctx, JudgeOptions{Command: "sh ../testdata/raters/judge.sh", Name: "sh", Jobs: 4,
		Progress: func(done, total int) { calls++ }})
	if err != nil || res.Rater != "judge:sh" || res.Judged != 32 || calls != 32 {
		t.Fatalf("judge run: %+v %v, %d progress calls", res, err, calls)
	}
	tr, err := e.Raters.Of(ctx, "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	j := tr.Rater("judge:sh")
	if j == nil || j.Kind != model.RaterJudge || j.Rationale == "" || classStr(j.Label.FailureClass) != "temporal" {
		t.Errorf("judge's label of a semantic trace: %+v", j)
	}
	_, err = e.Judges.Run(ctx, JudgeOptions{Command: "sh ../testdata/raters/judge.sh fail", Jobs: 4})
	var je *JudgeError
	if !errors.As(err, &je) || je.Judge != "judge:judge" || !strings.HasPrefix(je.Trace, "trace_") || je.Done != 0 {
		t.Errorf("failing judge: %v", err)
	}
	if _, err := e.Judges.Run(ctx, JudgeOptions{Command: " "}); err == nil {
		t.Error("a judge without a command ran")
	}
}
