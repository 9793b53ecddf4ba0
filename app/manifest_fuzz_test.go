package app

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadSuiteManifest: suite.json comes from a repository, so any bytes
// give a manifest that names only files inside the suite's folder, or a
// bad-input error; never a panic.
func FuzzReadSuiteManifest(f *testing.F) {
	f.Add([]byte(`{"version":1,"cases":{"file":"cases.jsonl","sha256":"ab"},"report":{"file":"report.json","sha256":"cd"},"policy":{"file":"policy.json","from":"p.json","sha256":"ef"}}`))
	f.Add([]byte(`{"version":1,"cases":{"file":"../x","sha256":""},"report":{"file":"","sha256":""}}`))
	f.Add([]byte(`{"version":1,"cases":{"file":"..","sha256":""},"report":{"file":"report.json","sha256":""}}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ManifestName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadSuiteManifest(dir)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error not marked bad input: %v", err)
			}
			return
		}
		for _, mf := range []*ManifestFile{&m.Cases, &m.Report, m.Policy, m.Lineage, m.Glossary, m.Lexicon, m.Contracts} {
			if mf != nil && (mf.File == "" || filepath.Base(mf.File) != mf.File || mf.File == "." || mf.File == "..") {
				t.Fatalf("manifest names %q, outside the suite's folder", mf.File)
			}
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	})
}
