package model

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spliceAll makes every raw value take the in-place path for one test.
func spliceAll(t testing.TB) {
	old := rawSpliceFrom
	rawSpliceFrom = 0
	t.Cleanup(func() { rawSpliceFrom = old })
}

// hashOK: HashV1(v) is the sha256 of json.Marshal(v); false (and no
// check) when json.Marshal fails, where HashV1 must fail too.
func hashOK(t *testing.T, v any) (ok bool) {
	t.Helper()
	want, err := json.Marshal(v)
	h := sha256.New()
	herr := HashV1(h, v)
	if err != nil {
		if herr == nil {
			t.Errorf("json.Marshal failed (%v), HashV1 did not", err)
		}
		return false
	}
	if herr != nil {
		t.Errorf("HashV1: %v on %.200q", herr, want)
		return false
	}
	if sum := sha256.Sum256(want); !bytes.Equal(h.Sum(nil), sum[:]) {
		t.Errorf("HashV1 is not the hash of json.Marshal %.300q", want)
	}
	return true
}

// TestHashV1Spliced: with every raw value hashed in place, every record
// of the test data, read as a trace and as an object of raw values, hashes
// as json.Marshal of it: the hashes a database stored stay what they were.
func TestHashV1Spliced(t *testing.T) {
	spliceAll(t)
	traces, raws := 0, 0
	for _, root := range []string{"../testdata", "../importers/testdata", "../app/testdata"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".json") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			docs := [][]byte{b}
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				docs = append(docs, bytes.Clone(sc.Bytes()))
			}
			for _, doc := range docs {
				var tr Trace
				if json.Unmarshal(doc, &tr) == nil && hashOK(t, &tr) {
					traces++
				}
				var m map[string]json.RawMessage
				if json.Unmarshal(doc, &m) == nil && hashOK(t, m) {
					raws++
				}
				if json.Valid(doc) && hashOK(t, struct {
					A json.RawMessage `json:"a"`
					B []json.RawMessage
				}{doc, []json.RawMessage{doc, doc}}) {
					raws++
				}
			}
			return nil
		})
	}
	if traces < 100 || raws < 500 {
		t.Errorf("only %d traces and %d raw documents", traces, raws)
	}
	t.Logf("%d traces, %d raw documents", traces, raws)
}

// TestHashV1SplicedEdges: raw values with what compaction rewrites, at
// lengths around the encoder's flushes and the splicer's scratch buffer,
// beside and inside other values.
func TestHashV1SplicedEdges(t *testing.T) {
	spliceAll(t)
	type rec struct {
		S    string                     `json:"s"`
		Raw  json.RawMessage            `json:"raw,omitempty"`
		List []json.RawMessage          `json:"list"`
		Map  map[string]json.RawMessage `json:"map"`
		Ptr  *json.RawMessage           `json:"ptr"`
	}
	bodies := []string{
		`1`, `null`, ` "x" `, "{ \"a\" : [ 1 , 2 ,\n\t3 ] , \"b\" : { } }",
		`"<b>&amp;</b> \u003c \/ \\ \" \n"`, "\"\u2028\u2029\u2027\u202a\u00e9\u4e16\U0001F600\"",
		`[1e400, -0, 0.5E-3, 12345678901234567890123, true, false, null]`,
		`{"a":1,"a":2}`, `"\ud800"`, `"` + "\x7f" + `"`,
		"\"\xff\"", `"` + "\uFFFD" + `"`, `{"a":1`, ``, `nul`, "\"a\x01\"", // invalid or U+FFFD: the library's way
	}
	for _, n := range []int{4080, 4096, 32<<10 - 20, 32 << 10, 32<<10 + 7, 1<<16 + 3} {
		bodies = append(bodies,
			`"`+strings.Repeat("a", n)+`<>&`+"\u2028"+`"`,
			`[`+strings.Repeat(` "<", `, n/6)+`"\\"]`,
			"\""+strings.Repeat("\u2028", n/3)+"\"",
			`{"k" :`+strings.Repeat(" ", n)+`"v"}`,
		)
	}
	for i, b := range bodies {
		raw := json.RawMessage(b)
		for _, pre := range []int{0, 1, 4090, 3 << 10} {
			v := rec{S: strings.Repeat("s", pre), Raw: raw, List: []json.RawMessage{raw, json.RawMessage(`2`), raw},
				Map: map[string]json.RawMessage{"x": raw, "y": raw}, Ptr: &raw}
			if !hashOK(t, v) && b != "" && json.Valid([]byte(b)) {
				t.Errorf("%d: valid raw value %.50q failed", i, b)
			}
		}
	}
}

// FuzzHashV1Spliced: a raw value hashed in place hashes as json.Marshal
// writes it, whatever it holds.
func FuzzHashV1Spliced(f *testing.F) {
	for _, s := range []string{`{"a" : "<&>"}`, "[ 1,\n2 ]", "\"\u2028 \\u2028 \\\" \xe2\x80\"", `"\ud800\udc00"`, "\"\xff\""} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, b []byte, pre int) {
		spliceAll(t)
		pre = min(max(pre, 0), 1<<14)
		raw := json.RawMessage(b)
		hashOK(t, struct {
			S   string            `json:"s"`
			Raw json.RawMessage   `json:"raw"`
			L   []json.RawMessage `json:"l"`
		}{strings.Repeat("x", pre), raw, []json.RawMessage{raw, raw}})
	})
}
