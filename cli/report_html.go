package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// writeReportHTMLFile writes the HTML report to path atomically.
func writeReportHTMLFile(ctx context.Context, path string, eng *app.Engine, all bool) error {
	page, err := reportPage(ctx, eng, all)
	if err != nil {
		return err
	}
	return app.WriteFileAtomic(path, func(f *os.File) error { return cireport.WriteHTML(f, page) })
}

// writeReportHTML writes the HTML report to w.
func writeReportHTML(ctx context.Context, w io.Writer, eng *app.Engine, all bool) error {
	page, err := reportPage(ctx, eng, all)
	if err != nil {
		return err
	}
	return cireport.WriteHTML(w, page)
}

// reportPage gathers the page from the engine: the report and its cases
// (the same pass as report --format json), and the recorded history.
func reportPage(ctx context.Context, eng *app.Engine, all bool) (cireport.HTMLPage, error) {
	d, err := eng.Suite.ReportDetail(ctx, all)
	if err != nil {
		return cireport.HTMLPage{}, err
	}
	hist, err := eng.Suite.ReportHistory(ctx, 0)
	if err != nil {
		return cireport.HTMLPage{}, err
	}
	page := cireport.HTMLPage{Source: displayDB(eng.Path()), Generated: eng.Now(), CSS: themes.PageCSS(themes.Light()),
		Reports: d.Reports}
	for _, l := range d.Labels {
		page.Labels = append(page.Labels, cireport.HTMLLabels{Labeled: l.Labeled, PartlyLabeled: l.PartlyLabeled,
			LabelPending: l.LabelPending, Suggested: l.Suggested})
	}
	for _, c := range d.Cases {
		page.Cases = append(page.Cases, htmlCase(c))
	}
	for _, h := range hist {
		page.History = append(page.History, cireport.HTMLHistory{At: h.At, Kind: h.Kind, Suite: h.Suite,
			ManifestSHA: h.ManifestSHA, Reports: h.Reports})
	}
	return page, nil
}

func htmlCase(c app.ReportCase) cireport.HTMLCase {
	v, m := c.Verdict, c.Metrics
	hc := cireport.HTMLCase{Server: c.Server, TraceID: c.TraceID, Correct: v.Correct, Grounded: v.Grounded,
		Review: v.Review, Precision: m.Precision, Recall: m.Recall, Definition: m.DefinitionMatch,
		Fresh: m.FreshnessPass, Violations: m.PolicyViolations, Calls: m.Calls, Clarifications: m.Clarifications,
		CostUSD: m.CostUSD}
	if v.Class != nil {
		hc.Class = string(*v.Class)
	}
	switch v.State {
	case app.LabelLabeled:
		hc.Decided = "a person"
	case app.LabelPartial:
		hc.Decided = "a person, in part"
	case app.LabelPending:
		hc.Decided = "the scorer (label pending)"
	default:
		hc.Decided = "the scorer"
	}
	return hc
}

// displayDB names a database for people: a file by its name (the page
// may travel; the folder it was made in says nothing), a URL as the
// engine prints it, without its password.
func displayDB(p string) string {
	if app.IsPostgres(p) {
		return p
	}
	return filepath.Base(p)
}

// writeReportHistory lists the recorded reports, one line per report
// and server, oldest first.
func writeReportHistory(w io.Writer, hist []app.HistoryEntry) error {
	if len(hist) == 0 {
		_, err := fmt.Fprintln(w, "no report recorded yet: tracelab export and tracelab check record the report they make")
		return err
	}
	tw := newTable(w, 0)
	head := []string{"#", "RECORDED", "BY", "SUITE", "SUITE.JSON", "SERVER", "CASES"}
	for _, m := range model.Metrics {
		head = append(head, strings.ToUpper(historyColumn[m.Key]))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, h := range hist {
		sha := cireport.NoValue
		if h.ManifestSHA != "" {
			sha = h.ManifestSHA[:min(12, len(h.ManifestSHA))]
		}
		lead := []string{strconv.FormatInt(h.ID, 10), h.At.UTC().Format("2006-01-02 15:04:05Z"), h.Kind,
			model.CleanLine(h.Suite), sha}
		if len(h.Reports) == 0 {
			fmt.Fprintln(tw, strings.Join(append(lead, "(no cases)"), "\t")+"\t")
			continue
		}
		for _, r := range h.Reports {
			cells := append(append([]string(nil), lead...), model.CleanLine(r.Server), strconv.Itoa(r.Cases))
			for _, m := range model.Metrics {
				if m.USD {
					cells = append(cells, fmtUSD(m.Of(r)))
				} else {
					cells = append(cells, fmtRate(m.Of(r)))
				}
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
	}
	return tw.Flush()
}

// historyColumn is each metric's short column name in --history.
var historyColumn = map[string]string{
	"grounding_precision": "precision", "grounding_recall": "recall", "definition_match_rate": "definition",
	"freshness_pass_rate": "freshness", "policy_violation_rate": "policy", "clarification_loops_per_task": "clar/task",
	"cost_per_correct_answer_usd": "usd/correct",
}
