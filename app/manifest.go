package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/suite"
)

// ManifestName is the suite manifest export writes next to cases.jsonl.
const ManifestName = "suite.json"

// manifestVersion changes when a reader of an older manifest would
// misread a newer one.
const manifestVersion = 1

// SuiteManifest is suite.json: the scoring configuration a suite was
// exported with, so that check scores the new run the way report.json was
// scored. Every file it names sits in the suite's folder, with the sha256
// of its bytes.
type SuiteManifest struct {
	Version int          `json:"version"`
	Cases   ManifestFile `json:"cases"`
	Report  ManifestFile `json:"report"`
	// The scoring files; nil when the export had none.
	Policy   *ManifestFile `json:"policy,omitempty"`
	Lineage  *ManifestFile `json:"lineage,omitempty"`
	Glossary *ManifestFile `json:"glossary,omitempty"`
	Lexicon  *ManifestFile `json:"lexicon,omitempty"`
	// Contracts holds the tool contracts the cases were labeled against
	// and the approved ones, for check's contract gate (gate_contracts.go).
	Contracts *ManifestFile `json:"contracts,omitempty"`
	// PolicyOracle is the command the export's policy oracle ran. Check
	// never runs a command a suite names; it warns instead.
	PolicyOracle string `json:"policy_oracle,omitempty"`
	// Judges are the judges that labeled the suite's cases: for a built-in
	// judge the models and prompt hashes its labels name (judgemanifest.go).
	Judges []ManifestJudge `json:"judges,omitempty"`
}

// ManifestFile is one file of a suite.
type ManifestFile struct {
	File   string `json:"file"`           // name inside the suite's folder
	From   string `json:"from,omitempty"` // the file export copied it from, as given
	SHA256 string `json:"sha256"`         // of the file's bytes
	Note   string `json:"note,omitempty"` // how it was made when it is not a copy
}

// The names the scoring files get inside a suite.
const (
	suitePolicy   = "policy.json"
	suiteLineage  = "lineage.json"
	suiteGlossary = "glossary.json"
	suiteLexicon  = "lexicon.txt"
)

// writeSuiteManifest copies the engine's scoring files into dir, writes
// the glossary it scored with (the database's entries and --glossary) and
// then dir/suite.json naming them all with their hashes. cases.jsonl and
// report.json must already be written.
func (e *Engine) writeSuiteManifest(ctx context.Context, dir string, x *exportStream, reportSHA string) (string, error) {
	m := SuiteManifest{Version: manifestVersion, PolicyOracle: e.files.PolicyOracle}
	// The hashes of the two files were taken as they were written.
	m.Cases = ManifestFile{File: "cases.jsonl", SHA256: x.casesSHA}
	m.Report = ManifestFile{File: "report.json", SHA256: reportSHA}
	for _, c := range []struct {
		from, name string
		into       **ManifestFile
	}{
		{e.files.Policy, suitePolicy, &m.Policy},
		{e.files.Lineage, suiteLineage, &m.Lineage},
		{e.files.Lexicon, suiteLexicon, &m.Lexicon},
	} {
		if c.from == "" {
			continue
		}
		data, err := os.ReadFile(c.from)
		if err != nil {
			return "", err
		}
		mf, err := writeSuiteFile(dir, c.name, data)
		if err != nil {
			return "", err
		}
		mf.From = c.from
		*c.into = &mf
	}
	// The glossary is the one the export scored with: the database's
	// entries and --glossary merged, as check cannot see the database.
	if g := e.Config().Glossary; len(g) > 0 {
		data, err := json.MarshalIndent(g, "", "  ")
		if err != nil {
			return "", err
		}
		mf, err := writeSuiteFile(dir, suiteGlossary, append(data, '\n'))
		if err != nil {
			return "", err
		}
		mf.From, mf.Note = e.files.Glossary, "the database's glossary entries, then --glossary"
		m.Glossary = &mf
	}
	sc, err := collectSuiteContracts(ctx, e.st, x.contracts)
	if err != nil {
		return "", err
	}
	if sc != nil {
		data, err := json.MarshalIndent(sc, "", "  ")
		if err != nil {
			return "", err
		}
		mf, err := writeSuiteFile(dir, suiteContractsName, append(data, '\n'))
		if err != nil {
			return "", err
		}
		mf.Note = "the contracts the cases' contracts blocks name, and the approved ones"
		m.Contracts = &mf
	}
	m.Judges = x.manifestJudges()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, ManifestName)
	return path, store.WriteFileAtomic(path, func(f *os.File) error {
		_, err := f.Write(append(data, '\n'))
		return err
	})
}

func writeSuiteFile(dir, name string, data []byte) (ManifestFile, error) {
	err := store.WriteFileAtomic(filepath.Join(dir, name), func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
	return ManifestFile{File: name, SHA256: sha256Hex(data)}, err
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ReadSuiteManifest reads dir/suite.json; it returns nil and no error when
// the suite has none (a suite exported before manifests, or written by hand).
func ReadSuiteManifest(dir string) (*SuiteManifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, badInput("%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m SuiteManifest
	if err := dec.Decode(&m); err != nil {
		return nil, badInput("%s: expected a suite manifest {version, cases, report, policy, lineage, glossary, lexicon}: %v", path, err)
	}
	if m.Version != manifestVersion {
		return nil, badInput("%s: version %d; this tracelab reads version %d (re-export the suite)", path, m.Version, manifestVersion)
	}
	for _, mf := range []*ManifestFile{&m.Cases, &m.Report, m.Policy, m.Lineage, m.Glossary, m.Lexicon, m.Contracts} {
		if mf != nil && (mf.File == "" || mf.File == "." || mf.File == ".." || filepath.Base(mf.File) != mf.File) {
			return nil, badInput("%s: file %q: expected a file name inside the suite's folder", path, mf.File)
		}
	}
	return &m, nil
}

// verifySuitePair checks that the suite's cases.jsonl and report.json are
// the pair suite.json names. Export renames the two into place one after
// the other and writes suite.json last, so an export that stopped between
// its files (a crash, a full disk) leaves at least one of them unlike
// what the manifest, the old one, says: refused here, rather than a new
// cases.jsonl read beside an old report.json.
func verifySuitePair(dir string, m *SuiteManifest) error {
	var bad []string
	for _, mf := range []ManifestFile{m.Cases, m.Report} {
		p := filepath.Join(dir, mf.File)
		data, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			bad = append(bad, p+" is missing")
		case err != nil:
			return badInput("%v", err)
		case sha256Hex(data) != mf.SHA256:
			bad = append(bad, fmt.Sprintf("%s has sha256 %s, the manifest says %s", p, sha256Hex(data)[:12], mf.SHA256[:min(12, len(mf.SHA256))]))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return badInput("%s: %s and %s are not the pair one export wrote (%s): an export stopped between its files, or one was edited since; export the suite again",
		filepath.Join(dir, ManifestName), m.Cases.File, m.Report.File, strings.Join(bad, "; "))
}

// ReadReport reads a report.json file (suite.ReadReport); one that belongs
// to an exported suite must be the pair of its cases.jsonl, so a report
// diff never compares a report with a suite it was not exported with.
func ReadReport(path string) ([]model.Report, error) {
	if err := verifyReportPair(path); err != nil {
		return nil, err
	}
	return suite.ReadReport(path)
}

// verifyReportPair is verifySuitePair for a report.json read on its own:
// one that sits in a suite named by its suite.json.
func verifyReportPair(path string) error {
	dir := filepath.Dir(path)
	m, err := ReadSuiteManifest(dir)
	if err != nil || m == nil || m.Report.File != filepath.Base(path) {
		return err
	}
	return verifySuitePair(dir, m)
}

// SuiteFiles decides the scoring files check uses for the suite at
// suitePath: a file given by flag wins, else the one the suite's manifest
// names (its hash verified), so the new run is scored as report.json was.
// It warns when a flag overrides or adds to what the suite was scored with.
func SuiteFiles(suitePath string, given Files) (Files, []string, error) {
	dir := filepath.Dir(suitePath)
	m, err := ReadSuiteManifest(dir)
	if err != nil || m == nil {
		return given, nil, err
	}
	mpath := filepath.Join(dir, ManifestName)
	var warns []string
	if filepath.Base(suitePath) == m.Cases.File {
		if err := verifySuitePair(dir, m); err != nil {
			return given, nil, err
		}
	}
	out := given
	for _, c := range []struct {
		flag  string
		given string
		mf    *ManifestFile
		into  *string
	}{
		{"--policy", given.Policy, m.Policy, &out.Policy},
		{"--lineage", given.Lineage, m.Lineage, &out.Lineage},
		{"--glossary", given.Glossary, m.Glossary, &out.Glossary},
		{"--lexicon", given.Lexicon, m.Lexicon, &out.Lexicon},
	} {
		switch {
		case c.given != "" && c.mf == nil:
			warns = append(warns, fmt.Sprintf("%s %s: the suite was exported without one (%s), so scores may differ from its report.json", c.flag, c.given, mpath))
		case c.given != "":
			if data, err := os.ReadFile(c.given); err == nil && sha256Hex(data) == c.mf.SHA256 {
				continue // the same file: nothing overridden
			}
			warns = append(warns, fmt.Sprintf("%s %s overrides the suite's %s (%s): scores may differ from its report.json", c.flag, c.given, c.mf.File, mpath))
		case c.mf != nil:
			if c.flag == "--policy" && given.PolicyOracle != "" {
				warns = append(warns, fmt.Sprintf("--policy-oracle overrides the suite's %s (%s)", c.mf.File, mpath))
				continue
			}
			p := filepath.Join(dir, c.mf.File)
			data, err := os.ReadFile(p)
			if err != nil {
				return given, warns, badInput("%s names %s: %v", mpath, c.mf.File, err)
			}
			if got := sha256Hex(data); got != c.mf.SHA256 {
				return given, warns, badInput("%s: sha256 %s, but %s says %s: the file changed since export (re-export the suite, or give %s to score with it knowingly)",
					p, got[:12], mpath, c.mf.SHA256[:min(12, len(c.mf.SHA256))], c.flag)
			}
			*c.into = p
		}
	}
	if m.PolicyOracle != "" && given.PolicyOracle == "" && given.Policy == "" {
		warns = append(warns, fmt.Sprintf("the suite was scored with the policy oracle command %q (%s); check runs no command a suite names: give --policy-oracle to check leaks", m.PolicyOracle, mpath))
	}
	return out, warns, nil
}
