package agreement

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
)

// Report is what `tracelab agree` prints: the statistics for one field
// and, when a machine rater took part, the trust figure for its
// suggestions. Nil sections are left out of text and markdown and are
// null in JSON, so the JSON always has the same keys.
type Report struct {
	// By names the field compared: class, correct, grounded or fields.
	By string `json:"by"`
	// Nominal is the people among themselves: machine raters (judges,
	// the machine's suggestion) are left out of its pairs and its group
	// figures, and compared with each person in Machines instead.
	Nominal  *Result      `json:"nominal"`
	Machines []Pair       `json:"machines"`
	Sets     []SetResult  `json:"sets"`
	Machine  string       `json:"machine"`
	Trust    []ClassTrust `json:"trust"`
	// Population, when set, names the cases compared (population.go).
	Population *Population `json:"population,omitempty"`
}

// WriteJSON writes the report as one indented JSON document. Undefined
// statistics are null.
func (r Report) WriteJSON(w io.Writer) error {
	enc := model.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// lineWidth is what the text report is laid out for.
const lineWidth = 80

// maxCell is the widest a name (rater, category) is drawn in text
// before it is cut with an ellipsis, so one long judge name cannot push
// every column off the screen.
const maxCell = 24

// WriteText writes the report as aligned plain text for a terminal.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Agreement by %s\n", name(r.By))
	if r.Population != nil {
		b.WriteString(r.Population.sentence() + "\n")
	}
	if n := r.Nominal; n != nil {
		w := r.words()
		fmt.Fprintf(&b, "%s, %s rated\n\n", w.count(len(n.Raters)), plural(n.Items, "item"))
		b.WriteString(w.group + "\n")
		textTable(&b, nil, "lrl", [][]string{
			{"Fleiss' kappa", n.Fleiss.Kappa.Fixed(3), fleissOver(n.Fleiss)},
			{"Krippendorff's alpha", n.Alpha.Alpha.Fixed(3), alphaOver(n.Alpha)},
		})
		textPairs(&b, "\n"+w.pairs+"\n", n.Pairs, n.Categories)
		if r.Machines != nil {
			textPairs(&b, "\nMachine raters against people\n", r.Machines, n.Categories)
		}
	}
	if r.Trust != nil {
		fmt.Fprintf(&b, "\nTrust in %s's suggestions\n  trust: %s\n", name(r.Machine), trustMeaning)
		textTable(&b, trustHeader, "lrrrrr", trustRows(r.Trust, name))
	}
	for _, s := range r.Sets {
		fmt.Fprintf(&b, "\nField sets: %s (mean Jaccard; two empty sets agree)\n", name(s.Field))
		textTable(&b, []string{"rater", "rater", "items", "jaccard"}, "llrr", setRows(s, name))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as markdown tables (for a pull
// request or the closing note of a labeling round).
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Agreement by %s\n", cireport.Cell(r.By))
	if r.Population != nil {
		b.WriteString("\n" + r.Population.sentence() + ".\n")
	}
	if n := r.Nominal; n != nil {
		w := r.words()
		fmt.Fprintf(&b, "\n%s, %s rated.\n\n", w.count(len(n.Raters)), plural(n.Items, "item"))
		if r.Machines != nil {
			b.WriteString("### " + w.group + "\n\n")
		}
		b.WriteString(cireport.Table{
			Header: []string{"statistic", "value", "over"},
			Align:  []string{"l", "r", "l"},
			Rows: [][]string{
				{"Fleiss' kappa", n.Fleiss.Kappa.Fixed(3), fleissOver(n.Fleiss)},
				{"Krippendorff's alpha", n.Alpha.Alpha.Fixed(3), alphaOver(n.Alpha)},
			},
		}.String())
		markdownPairs(&b, "### "+w.pairs, n.Pairs, n.Categories)
		if r.Machines != nil {
			markdownPairs(&b, "### Machine raters against people", r.Machines, n.Categories)
		}
	}
	if r.Trust != nil {
		fmt.Fprintf(&b, "\n### Trust in %s's suggestions\n\nTrust: %s.\n\n", cireport.Cell(r.Machine), trustMeaning)
		b.WriteString(cireport.Table{Header: trustHeader, Align: []string{"l", "r", "r", "r", "r", "r"}, Rows: trustRows(r.Trust, cireport.Cell)}.String())
	}
	for _, s := range r.Sets {
		fmt.Fprintf(&b, "\n### Field sets: %s\n\nMean Jaccard index per pair; two empty sets agree.\n\n", cireport.Cell(s.Field))
		b.WriteString(cireport.Table{Header: []string{"rater", "rater", "items", "jaccard"}, Align: []string{"l", "l", "r", "r"}, Rows: setRows(s, cireport.Cell)}.String())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// trustMeaning says in words what the trust column is.
const trustMeaning = "the share of the other raters' labels that matched the suggestion"

var trustHeader = []string{"class", "suggested", "rated", "ratings", "agreed", "trust"}

// trustRows is one row per class and a total; esc makes names safe for
// the output at hand.
func trustRows(ts []ClassTrust, esc func(string) string) [][]string {
	row := func(t ClassTrust) []string {
		return []string{esc(t.Class), strconv.Itoa(t.Suggested), strconv.Itoa(t.Rated), strconv.Itoa(t.Ratings), strconv.Itoa(t.Agreed), t.Trust.Percent()}
	}
	rows := make([][]string, 0, len(ts)+1)
	for _, t := range ts {
		rows = append(rows, row(t))
	}
	return append(rows, row(TrustTotal(ts)))
}

// setRows is one row per pair and one pooling all pairs.
func setRows(s SetResult, esc func(string) string) [][]string {
	rows := make([][]string, 0, len(s.Pairs)+1)
	for _, p := range s.Pairs {
		rows = append(rows, []string{esc(p.A), esc(p.B), strconv.Itoa(p.N), p.Jaccard.Fixed(3)})
	}
	return append(rows, []string{"all pairs", "", strconv.Itoa(s.N), s.Jaccard.Fixed(3)})
}

func fleissOver(f Fleiss) string {
	if f.Items == 0 {
		return "no item has two ratings"
	}
	each := strconv.Itoa(f.MinRaters)
	if f.MaxRaters != f.MinRaters {
		each = fmt.Sprintf("%d to %d", f.MinRaters, f.MaxRaters)
	}
	return fmt.Sprintf("%s, %s ratings each", plural(f.Items, "item"), each)
}

func alphaOver(a Alpha) string {
	if a.Units == 0 {
		return "no item has two ratings"
	}
	return fmt.Sprintf("%s, %s", plural(a.Units, "item"), plural(a.Values, "value"))
}

// reportWords name the raters of Nominal: people where the machine
// raters are reported apart (Machines set), raters otherwise.
type reportWords struct {
	group, pairs string
	count        func(int) string
}

func (r Report) words() reportWords {
	if r.Machines != nil {
		return reportWords{"Among people", "Pairs of people", func(n int) string {
			if n == 1 {
				return "1 person"
			}
			return strconv.Itoa(n) + " people"
		}}
	}
	return reportWords{"Across all raters", "Rater pairs", func(n int) string { return plural(n, "rater") }}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// name makes an untrusted name (raters and categories come from imported
// files) safe and short enough for a text cell.
func name(s string) string {
	return ansi.Truncate(cireport.Printable(s), maxCell, "…")
}

// textTable writes rows as columns separated by two spaces under an
// optional header, indented by two; align holds 'l' or 'r' per column.
// Widths are display widths, so wide runes do not shift the columns.
func textTable(b *strings.Builder, header []string, align string, rows [][]string) {
	all := rows
	if header != nil {
		all = append([][]string{header}, rows...)
	}
	widths := make([]int, len(align))
	for _, row := range all {
		for i, c := range row {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	for _, row := range all {
		line := " "
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(c))
			if align[i] == 'r' {
				line += " " + pad + c
			} else {
				line += " " + c + pad
			}
			if i < len(row)-1 {
				line += " "
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// textConfusion writes a confusion matrix with category names as column
// headers, split into blocks of as many columns as fit in lineWidth, so
// a long list of categories wraps instead of running off the screen.
func textConfusion(b *strings.Builder, cats []string, m [][]int) {
	labels := make([]string, len(cats))
	rowWidth := 0
	for i, c := range cats {
		labels[i] = name(c)
		rowWidth = max(rowWidth, ansi.StringWidth(labels[i]))
	}
	colWidth := make([]int, len(cats))
	for j := range cats {
		colWidth[j] = ansi.StringWidth(labels[j])
		for i := range cats {
			colWidth[j] = max(colWidth[j], len(strconv.Itoa(m[i][j])))
		}
	}
	for first := 0; first < len(cats); {
		last, width := first+1, 2+rowWidth+2+colWidth[first]
		for last < len(cats) && width+2+colWidth[last] <= lineWidth {
			width += 2 + colWidth[last]
			last++
		}
		if first > 0 {
			b.WriteString("\n")
		}
		header := append([]string{""}, labels[first:last]...)
		rows := make([][]string, len(cats))
		for i := range cats {
			rows[i] = []string{labels[i]}
			for _, x := range m[i][first:last] {
				rows[i] = append(rows[i], strconv.Itoa(x))
			}
		}
		textTable(b, header, "l"+strings.Repeat("r", last-first), rows)
		first = last
	}
}

func markdownConfusion(p Pair, cats []string) cireport.Table {
	t := cireport.Table{Header: []string{cireport.Cell(p.A) + ` \ ` + cireport.Cell(p.B)}, Align: []string{"l"}}
	for i, c := range cats {
		t.Header = append(t.Header, cireport.Cell(c))
		t.Align = append(t.Align, "r")
		row := []string{cireport.Cell(c)}
		for _, x := range p.Confusion[i] {
			row = append(row, strconv.Itoa(x))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// pairHeader heads a table of rater pairs.
var pairHeader = []string{"rater", "rater", "items", "agreement", "kappa", "alpha"}

func pairRow(p Pair, esc func(string) string) []string {
	return []string{esc(p.A), esc(p.B), strconv.Itoa(p.N), p.Agreement.Percent(), p.Kappa.Fixed(3), p.Alpha.Fixed(3)}
}

// textPairs writes a table of pairs under title and each pair's
// confusion matrix; nothing when there are no pairs.
func textPairs(b *strings.Builder, title string, ps []Pair, cats []string) {
	if len(ps) == 0 {
		return
	}
	b.WriteString(title)
	rows := make([][]string, 0, len(ps))
	for _, p := range ps {
		rows = append(rows, pairRow(p, name))
	}
	textTable(b, pairHeader, "llrrrr", rows)
	for _, p := range ps {
		fmt.Fprintf(b, "\nConfusion: %s (rows) by %s (columns)\n", name(p.A), name(p.B))
		textConfusion(b, cats, p.Confusion)
	}
}

// markdownPairs is textPairs in markdown.
func markdownPairs(b *strings.Builder, title string, ps []Pair, cats []string) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n\n", title)
	t := cireport.Table{Header: pairHeader, Align: []string{"l", "l", "r", "r", "r", "r"}}
	for _, p := range ps {
		t.Rows = append(t.Rows, pairRow(p, cireport.Cell))
	}
	b.WriteString(t.String())
	for _, p := range ps {
		fmt.Fprintf(b, "\n### Confusion: %s (rows) by %s (columns)\n\n", cireport.Cell(p.A), cireport.Cell(p.B))
		b.WriteString(markdownConfusion(p, cats).String())
	}
}
