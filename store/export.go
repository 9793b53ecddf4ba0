package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tracelab-dev/tracelab/model"
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
	return WriteFilesAtomic([]AtomicFile{{Path: path, Write: write}})
}

// AtomicFile is one file of WriteFilesAtomic.
type AtomicFile struct {
	Path  string
	Write func(*os.File) error
}

// WriteFilesAtomic writes every file to a temporary file beside it, syncs
// them all, and only when every one is complete renames them into place:
// a failure while writing leaves every old file as it was. The files get
// the mode a plain create gives (0666 less the umask), like the database.
func WriteFilesAtomic(files []AtomicFile) error {
	tmps := make([]string, len(files))
	defer func() {
		for i, t := range tmps {
			if t != "" {
				os.Remove(t) // no-op after the rename
			}
			// A write that failed (export streams cases.jsonl and may
			// stop half way) leaves no empty tmpDir behind either.
			tidyTmp(filepath.Dir(files[i].Path))
		}
	}()
	for i, af := range files {
		tmp, err := writeTemp(af)
		if err != nil {
			return err
		}
		tmps[i] = tmp
	}
	dirs := map[string]bool{}
	for i, af := range files {
		if err := os.Rename(tmps[i], af.Path); err != nil {
			return err
		}
		tmps[i] = ""
		dirs[filepath.Dir(af.Path)] = true
	}
	for d := range dirs {
		syncDir(d)
		tidyTmp(d)
	}
	return nil
}

// tidyTmp removes tmpDir when nothing but its .gitignore is left in it.
func tidyTmp(folder string) {
	dir := filepath.Join(folder, tmpDir)
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 || ents[0].Name() != ".gitignore" {
		return
	}
	os.Remove(filepath.Join(dir, ".gitignore"))
	os.Remove(dir)
}

// writeTemp writes one file's content to a new temporary file beside it.
func writeTemp(af AtomicFile) (string, error) {
	dir := filepath.Dir(af.Path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	f, err := createBeside(af.Path)
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	if err := af.Write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", af.Path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// tmpDir is the folder, beside the files written, that holds their
// temporary files: a .gitignore of "*" inside keeps a killed export's
// leftovers out of `git add suite/` (they used to sit beside the files as
// .cases.jsonl.XXXX), and the next write removes them.
const tmpDir = ".tracelab-tmp"

// createBeside creates a new temporary file for path in tmpDir of path's
// folder (the same file system, so the rename stays atomic), with mode
// 0666 so the umask decides the final mode (os.CreateTemp would make it
// 0600). Its name carries this process's id, so a later write knows a
// leftover from a process that is gone.
func createBeside(path string) (*os.File, error) {
	dir := filepath.Join(filepath.Dir(path), tmpDir)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); err != nil {
		if err := os.WriteFile(ignore, []byte("# tracelab's temporary files: never part of a suite\n*\n"), 0o666); err != nil {
			return nil, err
		}
	}
	removeLeftovers(filepath.Dir(path))
	for range 100 {
		name := filepath.Join(dir, fmt.Sprintf("%s.%d.%s", filepath.Base(path), os.Getpid(), strconv.FormatUint(rand.Uint64(), 36)))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temporary file for %s: too many collisions", path)
}

// removeLeftovers deletes the temporary files of writers that are gone:
// in tmpDir, those whose process id names no running process; beside the
// files, the .NAME.XXXX files older tracelabs left, once an hour old.
func removeLeftovers(folder string) {
	dir := filepath.Join(folder, tmpDir)
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			parts := strings.Split(e.Name(), ".")
			if len(parts) < 3 {
				continue
			}
			pid, err := strconv.Atoi(parts[len(parts)-2])
			if err != nil || pid <= 0 || processAlive(pid) {
				continue
			}
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	for _, base := range []string{"cases.jsonl", "report.json"} {
		old, _ := filepath.Glob(filepath.Join(folder, "."+base+".*"))
		for _, o := range old {
			if fi, err := os.Stat(o); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > time.Hour {
				os.Remove(o)
			}
		}
	}
}

// processAlive says a process with that id exists (signal 0 reaches it,
// or it exists under another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// syncDir makes the renames durable; a folder that cannot be synced (some
// file systems refuse) loses nothing but that guarantee.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
