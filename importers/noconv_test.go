package importers

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func TestNoConversationRefusal(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // "" when the file is refused as an unknown format instead
	}{
		{"question list", `{"id": "q1", "question": [[{"role": "user", "content": "Weather in Oslo?"}]], "function": [{"name": "weather"}]}` + "\n",
			`holds no conversation: a benchmark's question list (first object's keys "function", "id", "question")`},
		{"prompt with tools", `{"prompt": "add 2 and 3", "tools": [{"name": "add"}]}`, "holds no conversation"},
		{"answered", `{"question": "x", "function": [], "answer": "y"}`, ""},
		{"no tools", `{"question": "x"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(context.Background(), bytes.NewReader([]byte(tt.in)), "q.jsonl", "", func(Record) error { return nil })
			switch {
			case err == nil:
				t.Fatal("no refusal")
			case tt.want == "" && !errors.Is(err, ErrUnknownFormat):
				t.Fatalf("err = %v, want unknown format", err)
			case tt.want != "" && (!errors.Is(err, ErrNoConversation) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
