package importers

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

func TestDebugA(t *testing.T) {
	f := os.Getenv("DEBUG_FILE")
	if f == "" {
		t.Skip()
	}
	fh, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	format, err := Parse(context.Background(), fh, f, os.Getenv("DEBUG_FORMAT"), func(r Record) error {
		if r.Err != nil {
			t.Logf("ERR %v", r.Err)
			return nil
		}
		b, _ := json.MarshalIndent(r.Trace, "", " ")
		t.Logf("line %d: %s", r.Line, b)
		return nil
	})
	t.Logf("format %s err %v", format.Name, err)
}
