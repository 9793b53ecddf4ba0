package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"tracelab/model"
)

// ExportResult says what Export wrote.
type ExportResult struct {
	Path  string
	Cases int
}

// ExportCases writes DIR/cases.jsonl: confirmed cases (every case with all),
// sorted by case_id. The file is written next to its final name and renamed
// into place, so a crash never leaves a half-written suite.
func (s *Store) ExportCases(ctx context.Context, dir string, all bool) (ExportResult, error) {
	recs, err := s.Cases(ctx, all)
	if err != nil {
		return ExportResult{}, err
	}
	cases := make([]model.Case, len(recs))
	for i, r := range recs {
		cases[i] = r.Case
	}
	path := filepath.Join(dir, "cases.jsonl")
	err = WriteFileAtomic(path, func(f *os.File) error { return model.WriteCasesJSONL(f, cases) })
	return ExportResult{Path: path, Cases: len(cases)}, err
}

// WriteFileAtomic writes path through a temporary file in the same folder
// and renames it into place once fully written and synced.
func WriteFileAtomic(path string, write func(*os.File) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
