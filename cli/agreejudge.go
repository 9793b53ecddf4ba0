package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
)

// maxJudgeDisagreements bounds the disagreements agree --judge lists in
// text and markdown (json has them all).
const maxJudgeDisagreements = 50

var (
	judgeAspectHeader = []string{"aspect", "cases", "agreement", "kappa"}
	judgeClassHeader  = []string{"class", "people", "judge", "cases", "agreement", "kappa"}
	judgeDisHeader    = []string{"case", "aspect", "judge", "people", "judge's reason"}
)

// writeJudgeCalibration writes agree --judge in one of agree's formats.
func writeJudgeCalibration(w io.Writer, format string, cal app.JudgeCalibration) error {
	if format == "json" {
		enc := model.NewJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(cal)
	}
	esc := model.CleanLine
	if format == "markdown" {
		esc = cireport.Cell
	}
	aspects := make([][]string, 0, len(cal.Aspects))
	for _, a := range cal.Aspects {
		aspects = append(aspects, []string{a.Aspect, strconv.Itoa(a.Pair.N), a.Pair.Agreement.Percent(), a.Pair.Kappa.Fixed(3)})
	}
	classes := make([][]string, 0, len(cal.Classes))
	for _, c := range cal.Classes {
		classes = append(classes, []string{c.Class, strconv.Itoa(c.People), strconv.Itoa(c.Judge), strconv.Itoa(c.N),
			c.Agreement.Percent(), c.Kappa.Fixed(3)})
	}
	var dis [][]string
	for i, d := range cal.Disagreements {
		if i == maxJudgeDisagreements {
			dis = append(dis, []string{fmt.Sprintf("… and %d more (--format json lists them all)", len(cal.Disagreements)-i), "", "", "", ""})
			break
		}
		dis = append(dis, []string{esc(d.ID), d.Aspect, d.Judge, d.People, esc(truncRunes(d.Rationale, 80))})
	}
	title := fmt.Sprintf("%s against people: %d cases both labeled", esc(cal.Judge), cal.Cases)
	var class *app.JudgeAspect
	for i := range cal.Aspects {
		if cal.Aspects[i].Aspect == model.AspectClass {
			class = &cal.Aspects[i]
		}
	}
	if format == "markdown" {
		var b strings.Builder
		fmt.Fprintf(&b, "## %s\n\n", title)
		if len(cal.Models) > 0 {
			fmt.Fprintf(&b, "Model %s, prompt sha256 %s\n\n", esc(strings.Join(cal.Models, ", ")), esc(strings.Join(cal.Prompts, ", ")))
		}
		b.WriteString(mdTable(judgeAspectHeader, "lrrr", aspects) + "\n### Per class (this class or not)\n\n" +
			mdTable(judgeClassHeader, "lrrrrr", classes))
		if class != nil {
			b.WriteString("\n### Confusion: judge (rows) by people (columns)\n\n" + app.ConfusionMarkdown(class.Pair, class.Categories).String())
		}
		if len(dis) > 0 {
			b.WriteString("\n### Disagreements\n\n" + mdTable(judgeDisHeader, "lllll", dis))
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintln(w, title)
	if len(cal.Models) > 0 {
		fmt.Fprintf(w, "model %s, prompt sha256 %s\n", esc(strings.Join(cal.Models, ", ")), esc(strings.Join(cal.Prompts, ", ")))
	}
	fmt.Fprintln(w)
	textRows(w, judgeAspectHeader, aspects)
	fmt.Fprintln(w, "\nPer class (this class or not)")
	textRows(w, judgeClassHeader, classes)
	if class != nil {
		fmt.Fprintln(w, "\nConfusion: judge (rows) by people (columns)")
		io.WriteString(w, app.ConfusionText(class.Categories, class.Pair.Confusion))
	}
	if len(dis) > 0 {
		fmt.Fprintln(w, "\nDisagreements")
		textRows(w, judgeDisHeader, dis)
	}
	return nil
}

func textRows(w io.Writer, header []string, rows [][]string) {
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "  "+strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
	}
	tw.Flush()
}

func mdTable(header []string, align string, rows [][]string) string {
	t := cireport.Table{Header: header, Rows: rows}
	for _, a := range align {
		t.Align = append(t.Align, string(a))
	}
	return t.String()
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
