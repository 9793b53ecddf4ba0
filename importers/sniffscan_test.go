package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// decoderTokens is what encoding/json's Decoder.Token reads from b, up to
// its first error, in the form tokenTrail writes: the reference the
// scanner is held to.
func decoderTokens(b []byte, max int) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	var out []string
	for range max {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			out = append(out, v.String())
		case string:
			out = append(out, fmt.Sprintf("s%q", v))
		default:
			out = append(out, "v")
		}
	}
	return out
}

// scannerTokens is decoderTokens read by the tokenScanner.
func scannerTokens(b []byte, max int) []string {
	sc := tokenScanner{b: b}
	var out []string
	for range max {
		tok, ok := sc.next()
		if !ok {
			break
		}
		switch {
		case tok.delim != 0:
			out = append(out, string(tok.delim))
		case tok.isStr:
			out = append(out, fmt.Sprintf("s%q", tok.str))
		default:
			out = append(out, "v")
		}
	}
	return out
}

func TestTokenScannerReadsAsDecoderToken(t *testing.T) {
	for _, in := range []string{
		`{"a":1,"b":[true,false,null,"x"],"c":{"d":-0.5e+3}}`,
		`{"a" 1}`, `{"a":}`, `[1,]`, `[,1]`, `{,"a":1}`, `{"a":1,}`, `]`, `}{`, `[}`, `{]`,
		`01`, `[01]`, `1.`, `1.e5`, `-`, `-a`, `1e`, `1e+`, `1E-2`, `truex`, `tru`, `nul`, `[truex]`,
		`1e400`, `[1e400, "after"]`, `1e-400`, `"a""b"`, `{}{}`, `1 2 "three"`, `{"a":1}]`,
		"\"tab\there\"", `"bad \x escape"`, `"\ud800"`, `"\ud83d\ude00"`, `"\ud800\u0041"`, "\"\xff\xfe\"",
		`"unterminated`, `{"key"`, `{"key":`, ` `, ``, "\t\r\n[\t1 ,\n2 ]",
	} {
		want, got := decoderTokens([]byte(in), 100), scannerTokens([]byte(in), 100)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: scanner %v, Decoder.Token %v", in, got, want)
		}
	}
}

// The tokens of every test file and real-world sample head come out as
// Decoder.Token gave them.
func TestTokenScannerOnSamples(t *testing.T) {
	n := 0
	for _, root := range []string{"testdata", "../testdata", samplesDir} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			n++
			b = b[:min(len(b), HeadSize)]
			if want, got := decoderTokens(b, sniffBudget), scannerTokens(b, sniffBudget); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: the scanner's tokens differ from Decoder.Token's", path)
			}
			return nil
		})
	}
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("compared %d test files; real-world samples not found at %s: %v", n, samplesDir, err)
	}
	t.Logf("%d files", n)
}

func FuzzSniffScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",{"c":null}]}`, `01`, `[1e400]`, `"\ud800\u0041"`, "{\"k\":\"\xff\"}", `{"a" 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, got := decoderTokens(b, 1000), scannerTokens(b, 1000)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: scanner %v, Decoder.Token %v", b, got, want)
		}
	})
}

func BenchmarkSniffHead(b *testing.B) {
	head := nativeHead()
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		sniffHead(head)
	}
}

// BenchmarkDetectHead: detecting the format of a 1 MiB head of native
// JSONL, which every format before the native one is asked about first.
// The head's shape is sniffed once (it is remembered across runs, as
// across the detectors of one file).
func BenchmarkDetectHead(b *testing.B) {
	head := nativeHead()
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		if f, err := detect("bench.jsonl", head, false, recordLimit{max: DefaultMaxRecord}); err != nil || f.Name != "native" {
			b.Fatal(f.Name, err)
		}
	}
}

// nativeHead is HeadSize bytes of native traces, one per line.
func nativeHead() []byte {
	var buf bytes.Buffer
	for buf.Len() < HeadSize {
		buf.WriteString(`{"trace_id":"trace_0100000","server":"billing-tools","question":"How many active customers?","steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT 1"}},{"kind":"tool_result","call_id":"c1","result":{"rows":[[1,2.5,true,null]]}}]}` + "\n")
	}
	return buf.Bytes()[:HeadSize]
}
