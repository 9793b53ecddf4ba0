package importers

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// parseBytes parses data with opts and returns the records and the error.
func parseBytes(t *testing.T, data []byte, opts Options) (Format, []Record, error) {
	t.Helper()
	var recs []Record
	f, err := ParseWith(context.Background(), bytes.NewReader(data), "in.jsonl", opts, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return f, recs, err
}

// nativeLine is one native trace; id and result go in as written (raw
// bytes, no escaping), so a test can put invalid UTF-8 in them.
func nativeLine(id, result string) string {
	return `{"trace_id":"` + id + `","question":"q?","steps":[{"kind":"tool_call","id":"c1","tool":"t","args":{}},{"kind":"tool_result","call_id":"c1","result":"` + result + `"},{"kind":"answer","text":"a"}]}` + "\n"
}

func chatPair(content string) string {
	return `{"request":{"model":"m","messages":[{"role":"user","content":"` + content + `"}]},"response":{"id":"r","choices":[{"message":{"role":"assistant","content":"a"}}]}}`
}

// TestRecordCap: a record past --max-record stops the parse with an error
// naming the file, the line the record starts on and the cap, whichever
// reader holds it; records under the cap parse.
func TestRecordCap(t *testing.T) {
	big := strings.Repeat("x", 4096)
	pretty := "{\n  \"request\": {\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"" + big + "\"}]},\n  \"response\": {\"id\": \"r\", \"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"a\"}}]}\n}\n"
	tests := []struct {
		name   string
		in     string
		format string
		line   int // 0: must parse
	}{
		{"JSONL under the cap", nativeLine("t1", "ok") + nativeLine("t2", "ok"), "", 0},
		{"JSONL line over the cap", nativeLine("t1", "ok") + nativeLine("t2", big), "", 2},
		{"array element over the cap", "[\n" + chatPair("q1") + ",\n" + chatPair(big) + "\n]\n", "openai_chat", 3},
		{"a whole document over the cap", pretty, "openai_chat", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, recs, err := parseBytes(t, []byte(tt.in), Options{Format: tt.format, MaxRecord: 2048})
			if tt.line == 0 {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					if r.Err != nil {
						t.Fatal(r.Err)
					}
				}
				return
			}
			var lerr *LineError
			if !errors.As(err, &lerr) {
				t.Fatalf("error %v (records %d), want a LineError", err, len(recs))
			}
			if lerr.File != "in.jsonl" || lerr.Line != tt.line || !strings.Contains(lerr.Msg, "over 2 KiB") || !strings.Contains(lerr.Msg, "--max-record") {
				t.Errorf("got %q (line %d), want in.jsonl:%d naming the 2 KiB cap and --max-record", lerr.Error(), lerr.Line, tt.line)
			}
		})
	}
}

// TestFirstRecordOverHead: a first line longer than the 1 MiB detection
// head is still detected, whether its marker keys come before or after
// the cut.
func TestFirstRecordOverHead(t *testing.T) {
	big := strings.Repeat("y", HeadSize+HeadSize/2)
	keysAfter := `{"steps":[{"kind":"answer","text":"` + big + `"}],"question":"q?","trace_id":"late"}` + "\n"
	for name, in := range map[string]string{
		"keys before the cut": nativeLine("early", big) + nativeLine("next", "ok"),
		"keys after the cut":  keysAfter + nativeLine("next", "ok"),
	} {
		t.Run(name, func(t *testing.T) {
			f, recs, err := parseBytes(t, []byte(in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != "native" || len(recs) != 2 || recs[0].Trace == nil || recs[1].Trace == nil || recs[1].Line != 2 {
				t.Fatalf("format %q, %d records (%+v)", f.Name, len(recs), recs)
			}
		})
	}
}

func zipWith(t *testing.T, name string) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	fw, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("{}"))
	w.Close()
	return b.Bytes()
}

// TestUnknownFormatSaysWhatWasFound: a refusal says what the file holds,
// with keys and member names quoted so hostile ones stay inert.
func TestUnknownFormatSaysWhatWasFound(t *testing.T) {
	tests := []struct {
		name, in string
		max      int64
		want     string
	}{
		{"object keys", `{"hello":1,"world":2}`, 0, `a JSON document whose first object has keys "hello", "world"`},
		{"JSONL", "{\"a\":1}\n{\"a\":2}\n", 0, `JSONL whose first object has keys "a"`},
		{"array of scalars", `[1,2,3]`, 0, "a JSON array of 3 element(s) that are not objects"},
		{"hostile key", `{"\u001b]0;pwned\u0007":1}`, 0, `"\x1b]0;pwned\a"`},
		{"text", "hello there\nmore", 0, `text that is not JSON, JSONL, SSE or a YAML cassette; it starts "hello there"`},
		{"invalid JSON", `{"a":}`, 0, "invalid JSON at byte"},
		{"deep", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), 0, "nests deeper than the JSON reader's limit"},
		{"zip", string(zipWith(t, "evil\x1b[2J.json")), 0, `a zip archive whose first member is "evil\x1b[2J.json"`},
		{"first record over the cap", `{"x":"` + strings.Repeat("z", HeadSize+10) + `"}`, HeadSize + 5, "its first record is over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parseBytes(t, []byte(tt.in), Options{MaxRecord: tt.max})
			if !errors.Is(err, ErrUnknownFormat) {
				t.Fatalf("error %v, want ErrUnknownFormat", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
			if strings.ContainsAny(err.Error(), "\x1b\x07") {
				t.Errorf("raw control bytes in %q", err)
			}
		})
	}
}

// TestIDsMustBeValidUTF8: an id with invalid bytes is an error naming the
// line and the field, so two ids that differ only there cannot collide.
func TestIDsMustBeValidUTF8(t *testing.T) {
	in := nativeLine("run\xff", "ok") + nativeLine("run\xfe", "ok") +
		`{"trace_id":"ok","question":"q?","steps":[{"kind":"tool_call","id":"c` + "\xc3" + `","tool":"t","args":{}},{"kind":"answer","text":"a"}]}` + "\n" +
		nativeLine("fine", "\xff in a result is not an id")
	_, recs, err := parseBytes(t, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		path string
	}{{1, "trace_id"}, {2, "trace_id"}, {3, "steps[0].id"}}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for i, w := range want {
		e := recs[i].Err
		if e == nil || e.Line != w.line || e.Path != w.path || !strings.Contains(e.Msg, "invalid UTF-8") || e.File != "in.jsonl" {
			t.Errorf("record %d: %v, want in.jsonl:%d: %s: invalid UTF-8", i, e, w.line, w.path)
		}
	}
	if recs[3].Trace == nil {
		t.Errorf("record 4 (invalid bytes in a result only) refused: %v", recs[3].Err)
	}
}

// FuzzDescribeHead: what a refusal says of any content never panics and
// never carries a raw control character.
func FuzzDescribeHead(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[{"b":2}]`, "PK\x03\x04", `{"events":[{"event":"model","input":[],"output":{}}]}`, "text\x1b]0;t\x07", `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(bytes.TrimSpace(data)) == 0 {
			return
		}
		why := describeHead(bytes.TrimSpace(data), true, recordLimit{max: DefaultMaxRecord})
		if why == "" {
			t.Fatal("empty description")
		}
		for _, r := range why {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("control character %U in %q", r, why)
			}
		}
	})
}

// TestInvalidUTF8InContent: invalid bytes in a tool's arguments, result
// or a step's text come out as valid UTF-8 with U+FFFD where they were,
// the JSON still valid and the rest of the bytes as written.
func TestInvalidUTF8InContent(t *testing.T) {
	in := `{"trace_id":"u1","question":"q` + "\xff" + `?","steps":[{"kind":"tool_call","id":"c1","tool":"t","args":{"path":"a` + "\xfe" + `b"}},` +
		`{"kind":"tool_result","call_id":"c1","result":{"out":"x` + "\xc3" + `"}},{"kind":"answer","text":"a` + "\xff" + `"}]}` + "\n"
	_, recs, err := parseBytes(t, []byte(in), Options{})
	if err != nil || len(recs) != 1 || recs[0].Trace == nil {
		t.Fatalf("%v %+v", err, recs)
	}
	tr := recs[0].Trace
	want := map[string]string{
		"args":   `{"path":"a` + "\uFFFD" + `b"}`,
		"result": `{"out":"x` + "\uFFFD" + `"}`,
		"answer": "a\uFFFD",
	}
	got := map[string]string{"args": string(tr.Steps[0].Args), "result": string(tr.Steps[1].Result), "answer": tr.Steps[2].Text}
	for k, w := range want {
		if got[k] != w || !utf8.ValidString(got[k]) {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
	if !json.Valid(tr.Steps[0].Args) || !json.Valid(tr.Steps[1].Result) || !utf8.ValidString(tr.Question) {
		t.Errorf("not valid: args %q result %q question %q", tr.Steps[0].Args, tr.Steps[1].Result, tr.Question)
	}
}

// TestWholeFileReadersTakeTheRecordCap: the formats read whole (VCR
// cassettes, Claude Agent SDK YAML recordings, mcp-recorder sessions) are
// one record: --max-record is their cap too, not a cap of their own.
func TestWholeFileReadersTakeTheRecordCap(t *testing.T) {
	for _, path := range []string{
		"testdata/formats/openai_chat/cassette.yaml",
		"testdata/formats/claude_agent_sdk/recording.yaml",
		"testdata/formats/mcp_recorder/session.json",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(len(data))
		if _, _, err := parseBytes(t, data, Options{MaxRecord: n}); err != nil {
			t.Errorf("%s at a cap of its size: %v", path, err)
		}
		_, _, err = parseBytes(t, data, Options{MaxRecord: n - 1})
		var lerr *LineError
		if !errors.As(err, &lerr) || lerr.File != "in.jsonl" || lerr.Line != 1 || !strings.Contains(lerr.Msg, "--max-record") {
			t.Errorf("%s at a cap one byte under its size: %v, want in.jsonl:1 naming --max-record", path, err)
		}
	}
}
