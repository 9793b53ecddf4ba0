package importers

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/tracelab-dev/tracelab/model"
)

// rezip rewrites an .eval archive with every member compressed by method,
// as Inspect's current default (zstd, method 93) writes them.
func rezip(t *testing.T, data []byte, method uint16) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zipMethodZstd, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	zw.Close()
	return buf.Bytes()
}

func inspectTraces(t *testing.T, name string, data []byte) ([]string, error) {
	t.Helper()
	var out []string
	_, err := Parse(context.Background(), bytes.NewReader(data), name, "", func(r Record) error {
		if r.Err != nil {
			return r.Err
		}
		r.Trace.Source = model.Source{}
		b, _ := json.Marshal(r.Trace)
		out = append(out, string(b))
		return nil
	})
	return out, err
}

func TestInspectZstdMembers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(formatsDir, "inspect", "eval.eval"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := inspectTraces(t, "eval.eval", data)
	if err != nil || len(want) == 0 {
		t.Fatalf("deflate archive: %v", err)
	}
	got, err := inspectTraces(t, "z.eval", rezip(t, data, zipMethodZstd))
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("zstd archive: %v\n%q\nwant\n%q", err, got, want)
	}
}

func TestInspectInflateCaps(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join(formatsDir, "inspect", "eval.eval"))
	zipped := rezip(t, data, zipMethodZstd)
	size := int64(len(zipped))
	for _, tt := range []struct {
		member, file int64
		want         string
		named        bool // the message names the member
	}{
		{64, 1 << 30, "inflates past 0 MiB, the cap on one .eval member", true},
		{1 << 30, size, "the cap on a whole .eval file", true},
		// The archive itself over the cap is refused before it is held.
		{1 << 30, size - 1, "the .eval archive is over 0 MiB, the cap on a whole .eval file", false},
	} {
		mm, ma := maxMemberBytes, maxArchiveBytes
		maxMemberBytes, maxArchiveBytes = tt.member, tt.file
		_, err := inspectTraces(t, "bomb.eval", zipped)
		maxMemberBytes, maxArchiveBytes = mm, ma
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), ".json") != tt.named {
			t.Errorf("caps %d/%d: %v, want %q (member named: %v)", tt.member, tt.file, err, tt.want, tt.named)
		}
		if err != nil && strings.Contains(err.Error(), `header.json."header.json"`) {
			t.Errorf("caps %d/%d: %v names its member twice", tt.member, tt.file, err)
		}
	}
}

// A member is one record: the record cap (--max-record) bounds it too.
func TestInspectMemberTakesTheRecordCap(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join(formatsDir, "inspect", "eval.eval"))
	_, err := ParseWith(context.Background(), bytes.NewReader(rezip(t, data, zipMethodZstd)), "bomb.eval", Options{MaxRecord: 64},
		func(r Record) error { return r.Err })
	if err == nil || !strings.Contains(err.Error(), "the cap on one .eval member") {
		t.Errorf("record cap 64 bytes: %v, want the member cap named", err)
	}
}

// The same log written as .json and as .eval is one trace: same id, same
// content.
func TestWildInspectJSONAndEvalAgree(t *testing.T) {
	dir := filepath.Join(wildDir, "inspect")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("wild samples not found at %s: %v", dir, err)
	}
	read := func(name string) []string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out, err := inspectTraces(t, name, data)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if j, e := read("log_formats.json"), read("log_formats.eval"); !slices.Equal(j, e) || len(j) != 1 {
		t.Errorf("log_formats.json gives\n%q\nlog_formats.eval gives\n%q", j, e)
	}
}

// TestEvalMemberNamesQuoted: an .eval member's name reaches an error
// quoted, so escape sequences in it stay inert.
func TestEvalMemberNamesQuoted(t *testing.T) {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for name, body := range map[string]string{
		"header.json":                 `{"version":2,"status":"success","eval":{"eval_id":"E","task":"t"}}`,
		"samples/\x1b]0;owned\a.json": `{"id":1,"epoch":1,"messages":[`,
	} {
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(body))
	}
	w.Close()
	var errs []string
	_, err := Parse(context.Background(), bytes.NewReader(b.Bytes()), "x.eval", "inspect", func(r Record) error {
		if r.Err != nil {
			errs = append(errs, r.Err.Error())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], `"samples/\x1b]0;owned\a.json"`) || strings.ContainsAny(errs[0], "\x1b\a") {
		t.Fatalf("errors %q, want one naming the member quoted", errs)
	}
}
