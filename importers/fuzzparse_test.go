package importers

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
)

// fuzzParse fuzzes a format's parser, seeded with every fixture file of
// the folder fixtures and the extra seeds: whatever it emits is a record
// checkFuzzRecord accepts.
func fuzzParse(f *testing.F, fixtures string, parse func(context.Context, io.Reader, string, Emit) error, seeds ...string) {
	for _, p := range fixtureFiles(f, fixtures) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = parse(context.Background(), bytes.NewReader(data), "fuzz", func(r Record) error {
			checkFuzzRecord(t, r)
			return nil
		})
	})
}

// oneError parses in as x.jsonl and returns the error of its one record,
// failing the test when it gives anything else.
func oneError(t *testing.T, parse func(context.Context, *bytes.Reader, string, Emit) error, in string) string {
	t.Helper()
	recs := parseAll(t, parse, "x.jsonl", []byte(in))
	if len(recs) != 1 || recs[0].Err == nil {
		t.Fatalf("got %+v, want one record with an error", recs)
	}
	return recs[0].Err.Error()
}
