package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// HistoryEntry is one report an export or a check recorded: when, which
// command, the suite it belongs to, and the report itself.
type HistoryEntry struct {
	ID   int64     `json:"id"`
	At   time.Time `json:"at"`
	Kind string    `json:"kind"` // "export" or "check"
	// Suite is the suite's folder as the command was given it;
	// ManifestSHA is the sha256 of its suite.json ("" when it had none):
	// two entries with the same hash scored with the same configuration.
	Suite       string         `json:"suite"`
	ManifestSHA string         `json:"manifest_sha256"`
	Reports     []model.Report `json:"report"`
}

// History kinds, the commands that record a report.
const (
	HistoryExport = store.HistoryExport
	HistoryCheck  = store.HistoryCheck
)

// ReportHistory returns the newest limit recorded reports (all when
// limit <= 0), oldest first.
func (su SuiteService) ReportHistory(ctx context.Context, limit int) ([]HistoryEntry, error) {
	rows, err := su.e.st.ReportHistory(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]HistoryEntry, len(rows))
	for i, r := range rows {
		out[i] = HistoryEntry{ID: r.ID, At: r.At, Kind: r.Kind, Suite: r.Suite, ManifestSHA: r.ManifestSHA}
		if err := json.Unmarshal(r.Report, &out[i].Reports); err != nil {
			return nil, fmt.Errorf("report history #%d: %w", r.ID, err)
		}
	}
	return out, nil
}

// RecordReport appends reports to the history as made by kind for the
// suite in folder suiteDir, with the sha256 of the suite.json there.
func (su SuiteService) RecordReport(ctx context.Context, kind, suiteDir string, reports []model.Report) error {
	sha, err := manifestSHA(suiteDir)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := model.WriteReportJSON(&buf, reports); err != nil {
		return err
	}
	_, err = su.e.st.RecordReport(ctx, store.HistoryEntry{Kind: kind, Suite: suiteDir, ManifestSHA: sha, Report: buf.Bytes()})
	return err
}

// RecordCheckReport records a check's report in the database at db: check
// itself runs on a temporary database, and the workbench's history is
// where its report joins the exports'. Only the store is opened (no
// scoring configuration is needed to append a row).
func RecordCheckReport(ctx context.Context, db, suitePath string, reports []model.Report, opts OpenOptions) error {
	st, err := store.OpenWith(ctx, db, opts)
	if err != nil {
		return err
	}
	defer st.Close()
	e := engineOver(st, Files{}, scoring.Config{}) // RecordReport reads the store alone
	return e.Suite.RecordReport(ctx, HistoryCheck, filepath.Dir(suitePath), reports)
}

// manifestSHA is the sha256 of dir/suite.json, "" when there is none.
func manifestSHA(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return sha256Hex(data), nil
}

// SetClock sets the clock the engine stamps rows (the history's among
// them) with: tests pin it.
func (e *Engine) SetClock(now func() time.Time) { e.st.SetClock(now) }

// Now is the engine's clock.
func (e *Engine) Now() time.Time { return e.st.Clock() }
