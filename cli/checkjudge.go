package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/app"
)

// writeJudgeGateText writes the judge gate of check --min-judge-kappa:
// per judge, its kappa on the class and what falls short.
func writeJudgeGateText(w io.Writer, g *app.JudgeGate) {
	if g == nil {
		return
	}
	fmt.Fprintf(w, "\nJUDGES (kappa against the suite's people, at least %g)\n", g.Min)
	if len(g.Judges) == 0 {
		if g.Failed {
			fmt.Fprintf(w, "  %s\n", ciText(g.Reason))
		} else {
			fmt.Fprintln(w, "  no judge labeled this suite")
		}
	}
	for _, j := range g.Judges {
		cal := j.Calibration
		kappa := "-"
		for _, a := range cal.Aspects {
			if a.Aspect == "class" {
				kappa = a.Pair.Kappa.Fixed(3)
			}
		}
		verdict := "ok"
		if len(j.Short) > 0 {
			verdict = "SHORT on " + strings.Join(j.Short, ", ")
		}
		fmt.Fprintf(w, "  %s: %d cases, class kappa %s: %s\n", ciText(cal.Judge), cal.Cases, kappa, verdict)
		for _, c := range cal.Classes {
			if c.People+c.Judge > 0 {
				fmt.Fprintf(w, "    %-10s kappa %s (people %d, judge %d)\n", c.Class, c.Kappa.Fixed(3), c.People, c.Judge)
			}
		}
	}
}
