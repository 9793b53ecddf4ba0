package cireport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// HTMLPage is what `tracelab report --html` shows: the report, the cases
// behind it and the recorded history. The page is one file: its style is
// inline (CSS, from themes/), its charts are inline SVG, and it has no
// script and fetches nothing. Every text from a trace goes through
// html/template's escaping, and nothing from a trace becomes a link or an
// image: anchors are made of indexes.
type HTMLPage struct {
	Source    string    // the database, as named to people
	Generated time.Time // the engine's clock
	CSS       string    // the stylesheet (themes.PageCSS)
	Reports   []model.Report
	Labels    []HTMLLabels // per server, in the order of Reports
	Cases     []HTMLCase   // by server
	History   []HTMLHistory
	// CaseLimit is how many cases of one server the page lists (0: 500).
	CaseLimit int
}

// HTMLLabels is how many of a server's cases rest on a person's label.
type HTMLLabels struct {
	Labeled, PartlyLabeled, LabelPending, Suggested int
}

// HTMLCase is one case the report counted, with its verdict.
type HTMLCase struct {
	Server, TraceID       string
	Correct, Grounded     *bool
	Class                 string // "" for none
	Review                bool
	Precision, Recall     *float64
	Definition, Fresh     *bool
	Violations            *int
	Calls, Clarifications int
	CostUSD               float64
	Decided               string // who decided the verdict: "person", "partly", "pending", "scorer"
}

// HTMLHistory is one recorded report.
type HTMLHistory struct {
	At                       time.Time
	Kind, Suite, ManifestSHA string
	Reports                  []model.Report
}

//go:embed report.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"yesno":   yesNo,
	"rate":    func(p *float64) string { return Fixed(p, 2) },
	"usd":     func(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 4, 64) },
	"when":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"short":   func(s string) string { return s[:min(12, len(s))] },
	"noValue": func() string { return NoValue },
	"barMax":  func() int { return barMax },
	"inc":     func(i int) int { return i + 1 },
	"cases": func(rs []model.Report) int {
		n := 0
		for _, r := range rs {
			n += r.Cases
		}
		return n
	},
	"viol": func(p *int) string {
		if p == nil {
			return NoValue
		}
		return strconv.Itoa(*p)
	},
}).Parse(pageTemplate))

// WriteHTML writes the page.
func WriteHTML(w io.Writer, p HTMLPage) error {
	return pageTmpl.Execute(w, buildView(p))
}

func yesNo(p *bool) string {
	switch {
	case p == nil:
		return "?"
	case *p:
		return "yes"
	}
	return "no"
}

// pageView is the page as the template draws it: every number formatted,
// every anchor and chart coordinate computed.
type pageView struct {
	HTMLPage
	CSS      template.CSS
	Servers  []serverView
	Rows     []metricRow
	Classes  []classView
	Charts   []chartView
	Legend   []legendItem
	Recorded int
}

type legendItem struct {
	Name   string
	Series int
}

type serverView struct {
	Index   int
	Series  int
	Name    string
	Anchor  string
	Labels  HTMLLabels
	Cases   []caseView
	ByClass []classCases
	Omitted int // cases past the limit, not listed
	Total   int
}

type caseView struct {
	HTMLCase
	Anchor string
}

type classCases struct {
	Class  string
	Anchor string
	Cases  []caseView
}

// metricRow is one row of the side-by-side table; Key is report.json's
// field, which the cells carry with their exact value for tests and
// scrapers (data-metric, data-value).
type metricRow struct {
	Name, Key string
	Group     bool // the row starts a group (a rule above it)
	Cells     []metricCell
}

type metricCell struct {
	Text, Value, Href string
}

type classView struct {
	Name  string
	Index int
	Bars  []barView
}

type barView struct {
	Server string
	Series int
	N      int
	Width  int
	Href   string
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH      = 260, 90
	chartPadL, chartPad = 42, 8
	barMax              = 160
	series              = 6 // server colours before they repeat (themes.PageCSS)
)

type chartView struct {
	Name, Key   string
	W, H        int
	Top, Bottom string // the y axis' labels
	First, Last string // the x axis' labels
	YTop, YBot  float64
	X0, X1      float64 // the x axis' ends
	LabelY      float64 // the x axis' labels' baseline
	Lines       []lineView
	Empty       bool
}

type lineView struct {
	Series int
	Points string
	Dots   []dotView
}

type dotView struct {
	X, Y  float64
	Title string
}

func buildView(p HTMLPage) pageView {
	if p.CaseLimit <= 0 {
		p.CaseLimit = 500
	}
	// Trace text is escaped by the template; bidi and C1 controls, which
	// escaping leaves alone, are shown as \u escapes as in text output.
	p.Source = model.CleanLine(p.Source)
	p.History = append([]HTMLHistory(nil), p.History...)
	for i := range p.History {
		p.History[i].Suite = model.CleanLine(p.History[i].Suite)
	}
	v := pageView{HTMLPage: p, CSS: template.CSS(p.CSS), Recorded: len(p.History)}
	index := map[string]int{}
	for i, r := range p.Reports {
		sv := serverView{Index: i, Name: model.CleanLine(r.Server), Anchor: fmt.Sprintf("s%d", i)}
		if i < len(p.Labels) {
			sv.Labels = p.Labels[i]
		}
		v.Servers = append(v.Servers, sv)
		index[r.Server] = i
	}
	for _, c := range p.Cases {
		i, ok := index[c.Server]
		if !ok {
			continue
		}
		sv := &v.Servers[i]
		sv.Total++
		if len(sv.Cases) >= p.CaseLimit {
			sv.Omitted++
			continue
		}
		c.TraceID = model.CleanLine(c.TraceID)
		sv.Cases = append(sv.Cases, caseView{HTMLCase: c, Anchor: fmt.Sprintf("%s-t%d", sv.Anchor, len(sv.Cases))})
	}
	for i := range v.Servers {
		sv := &v.Servers[i]
		for ci, c := range model.Classes {
			cc := classCases{Class: string(c), Anchor: fmt.Sprintf("%s-c%d", sv.Anchor, ci)}
			for _, cv := range sv.Cases {
				if cv.Class == string(c) {
					cc.Cases = append(cc.Cases, cv)
				}
			}
			sv.ByClass = append(sv.ByClass, cc)
		}
	}
	// One colour per server across the page: the table's, the bars' and
	// the charts' (a server only the history knows included).
	var all []model.Report
	for _, h := range p.History {
		all = append(all, h.Reports...)
	}
	names := historyServers([]HTMLHistory{{Reports: append(all, p.Reports...)}})
	seriesOf := map[string]int{}
	for i, n := range names {
		seriesOf[n] = i % series
		v.Legend = append(v.Legend, legendItem{Name: model.CleanLine(n), Series: i % series})
	}
	for i := range v.Servers {
		v.Servers[i].Series = seriesOf[p.Reports[i].Server]
	}
	v.Rows = metricRows(p.Reports)
	v.Classes = classBars(p.Reports, seriesOf)
	v.Charts = charts(p.History, seriesOf)
	return v
}

// metricRows is the side-by-side table: counts, the seed's metrics, cost
// and review, each cell linking to the cases behind it.
func metricRows(reps []model.Report) []metricRow {
	count := func(n int) (string, string) { s := strconv.Itoa(n); return s, s }
	exact := func(p *float64) string {
		if p == nil {
			return "null"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	row := func(name, key string, group bool, f func(model.Report) (text, value string)) metricRow {
		mr := metricRow{Name: name, Key: key, Group: group}
		for i, r := range reps {
			t, val := f(r)
			mr.Cells = append(mr.Cells, metricCell{Text: t, Value: val, Href: fmt.Sprintf("#s%d-cases", i)})
		}
		return mr
	}
	rows := []metricRow{
		row("cases", "cases", false, func(r model.Report) (string, string) { return count(r.Cases) }),
		row("correct", "correct", false, func(r model.Report) (string, string) { return count(r.Correct) }),
		row("correct and grounded", "correct_and_grounded", false, func(r model.Report) (string, string) { return count(r.CorrectAndGrounded) }),
	}
	for i, m := range model.Metrics {
		rows = append(rows, row(m.Name, m.Key, i == 0, func(r model.Report) (string, string) {
			x := m.Of(r)
			if m.USD {
				if x == nil {
					return NoValue, "null"
				}
				return "$" + strconv.FormatFloat(*x, 'f', 4, 64), exact(x)
			}
			return Fixed(x, 2), exact(x)
		}))
	}
	rows = append(rows,
		row("cost total", "cost_total_usd", true, func(r model.Report) (string, string) {
			return "$" + strconv.FormatFloat(r.CostTotalUSD, 'f', 4, 64), exact(&r.CostTotalUSD)
		}),
		row("needs human review", "needs_human_review", false, func(r model.Report) (string, string) { return count(r.NeedsHumanReview) }))
	return rows
}

// classBars is failures by class: one bar per server, scaled to the
// largest count on the page.
func classBars(reps []model.Report, seriesOf map[string]int) []classView {
	most := 1
	for _, r := range reps {
		for _, n := range r.FailuresByClass {
			most = max(most, n)
		}
	}
	var out []classView
	for ci, c := range model.Classes {
		cv := classView{Name: string(c), Index: ci}
		for si, r := range reps {
			n := r.FailuresByClass[string(c)]
			cv.Bars = append(cv.Bars, barView{Server: model.CleanLine(r.Server), Series: seriesOf[r.Server], N: n,
				Width: int(math.Round(float64(n) / float64(most) * barMax)), Href: fmt.Sprintf("#s%d-c%d", si, ci)})
		}
		out = append(out, cv)
	}
	return out
}

// charts draws each metric across the history: one line per server, a
// dot per recorded report with its value in a tooltip (SVG <title>).
func charts(hist []HTMLHistory, seriesOf map[string]int) []chartView {
	servers := historyServers(hist)
	var out []chartView
	for _, m := range model.Metrics {
		cv := chartView{Name: m.Name, Key: m.Key, W: chartW, H: chartH, YBot: chartH - chartPad - 12, YTop: chartPad,
			X0: chartPadL, X1: chartW - chartPad, LabelY: chartH - 4}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, h := range hist {
			for _, r := range h.Reports {
				if x := m.Of(r); x != nil {
					lo, hi = math.Min(lo, *x), math.Max(hi, *x)
				}
			}
		}
		if math.IsInf(lo, 1) {
			cv.Empty = true
			out = append(out, cv)
			continue
		}
		// Rates sit on 0..1 (unless they leave it), other numbers on 0..max.
		lo = math.Min(lo, 0)
		if m.USD || m.Key == "clarification_loops_per_task" {
			hi = math.Max(hi, 1e-9)
		} else {
			hi = math.Max(hi, 1)
		}
		cv.Top, cv.Bottom = axisLabel(hi, m.USD), axisLabel(lo, m.USD)
		cv.First, cv.Last = axisDates(hist[0].At, hist[len(hist)-1].At)
		for _, s := range servers {
			lv := lineView{Series: seriesOf[s]}
			var pts []string
			for hi2, h := range hist {
				x := m.Of(reportOf(h.Reports, s))
				if x == nil {
					continue
				}
				px := float64(chartPadL)
				if len(hist) > 1 {
					px += float64(hi2) * float64(chartW-chartPadL-chartPad) / float64(len(hist)-1)
				}
				py := cv.YBot - (*x-lo)/(hi-lo)*(cv.YBot-cv.YTop)
				px, py = round2(px), round2(py)
				pts = append(pts, fmt.Sprintf("%g,%g", px, py))
				lv.Dots = append(lv.Dots, dotView{X: px, Y: py, Title: fmt.Sprintf("%s · %s %s · %s", model.CleanLine(s),
					h.Kind, h.At.UTC().Format("2006-01-02 15:04Z"), strconv.FormatFloat(*x, 'g', 6, 64))})
			}
			if len(pts) == 0 {
				continue
			}
			lv.Points = strings.Join(pts, " ")
			cv.Lines = append(cv.Lines, lv)
		}
		out = append(out, cv)
	}
	return out
}

// axisDates labels the x axis' ends: dates, or times of day when the
// history is one day's.
func axisDates(first, last time.Time) (string, string) {
	first, last = first.UTC(), last.UTC()
	if first.Format("2006-01-02") == last.Format("2006-01-02") {
		return first.Format("Jan 2 15:04Z"), last.Format("15:04Z")
	}
	return first.Format("2006-01-02"), last.Format("2006-01-02")
}

func axisLabel(x float64, usd bool) string {
	if usd {
		return "$" + strconv.FormatFloat(x, 'g', 3, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// historyServers lists every server of the history in order.
func historyServers(hist []HTMLHistory) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range hist {
		for _, r := range h.Reports {
			if !seen[r.Server] {
				seen[r.Server] = true
				out = append(out, r.Server)
			}
		}
	}
	sort.Strings(out)
	return out
}

func reportOf(reps []model.Report, server string) model.Report {
	for _, r := range reps {
		if r.Server == server {
			return r
		}
	}
	return model.Report{}
}
