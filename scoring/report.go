package scoring

import (
	"fmt"
	"sort"
	"strings"

	"tracelab/model"
)

// CaseResult is one scored trace as the report counts it.
type CaseResult struct {
	Score TraceScore
	// Label is the case's label as stored; it is read only when Confirmed.
	Label *model.Label
	// Confirmed: a person stands behind the case (its gold, and the label
	// fields they set). Otherwise gold and label are the machine's.
	Confirmed bool
}

// Final resolves a result to its verdict through DecideVerdict.
func (r CaseResult) Final() Verdict {
	var human *model.Label
	if r.Confirmed {
		human = r.Label
		if human == nil {
			human = &model.Label{} // confirmed gold, no label at all: pending
		}
	}
	return DecideVerdict(human, r.Score)
}

// ServerLabels says, per server, how many of the report's cases rest on a
// person's label and how many on the scorer's: a separate section beside
// report.json, whose objects keep exactly the seed's fields.
type ServerLabels struct {
	Server        string `json:"server"`
	Cases         int    `json:"cases"`
	Labeled       int    `json:"labeled"`        // a person decided correct, grounded and class
	PartlyLabeled int    `json:"partly_labeled"` // a person set some fields, the scorer the rest
	LabelPending  int    `json:"label_pending"`  // gold confirmed, label pending: all the scorer's
	Suggested     int    `json:"suggested"`      // no person behind the case (report --all)
}

// BuildLabelStatus counts the label states of results per server, sorted
// by server like BuildReport, so the two print side by side.
func BuildLabelStatus(results []CaseResult) []ServerLabels {
	by := map[string]*ServerLabels{}
	var servers []string
	for _, r := range results {
		sl := by[r.Score.Server]
		if sl == nil {
			sl = &ServerLabels{Server: r.Score.Server}
			by[r.Score.Server] = sl
			servers = append(servers, r.Score.Server)
		}
		sl.Cases++
		switch r.Final().State {
		case LabelLabeled:
			sl.Labeled++
		case LabelPartial:
			sl.PartlyLabeled++
		case LabelPending:
			sl.LabelPending++
		default:
			sl.Suggested++
		}
	}
	sort.Strings(servers)
	out := make([]ServerLabels, 0, len(servers))
	for _, s := range servers {
		out = append(out, *by[s])
	}
	return out
}

// SuggestLabel is the machine's label for a scored trace: correct from the
// answer check, grounded and the class from the scoring, and a machine note
// naming the strongest evidence (Note stays empty: it is the labeler's). A
// confirmed human label always wins over it.
func SuggestLabel(ts TraceScore) model.Label {
	l := model.Label{Correct: ts.Correct, Grounded: ts.Grounded, FailureClass: ts.SuggestedClass}
	var notes []string
	if ts.SuggestedClass != nil {
		for _, c := range ts.Classes {
			if c.Class != *ts.SuggestedClass {
				continue
			}
			var why []string
			for i, e := range c.Evidence {
				if i == 3 {
					why = append(why, fmt.Sprintf("and %d more", len(c.Evidence)-3))
					break
				}
				why = append(why, fmt.Sprintf("step %d: %s", e.Step, e.Reason))
			}
			notes = append(notes, fmt.Sprintf("%s (%.2f): %s", c.Class, c.Confidence, strings.Join(why, "; ")))
		}
	}
	if ts.NeedsHumanReview {
		notes = append(notes, "review: "+strings.Join(ts.ReviewReasons, "; "))
	}
	l.MachineNote = strings.Join(notes, ". ")
	return l
}

// BuildReport aggregates results into report.json: one object per server,
// sorted by server, with the seed's metrics. A rate whose denominator is
// empty is nil (JSON null). Grounding precision and recall are means over
// the tasks that have a value; definition match and freshness rates count
// the tasks where the check decided (undecided ones are in
// needs_human_review, never a silent pass or fail); the policy violation
// rate is per call, over the calls of the tasks the oracle checked.
func BuildReport(results []CaseResult) []model.Report {
	byServer := map[string][]CaseResult{}
	for _, r := range results {
		byServer[r.Score.Server] = append(byServer[r.Score.Server], r)
	}
	servers := make([]string, 0, len(byServer))
	for s := range byServer {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	out := make([]model.Report, 0, len(servers))
	for _, s := range servers {
		rs := byServer[s]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Score.TraceID < rs[j].Score.TraceID })
		out = append(out, serverReport(s, rs))
	}
	return out
}

func serverReport(server string, rs []CaseResult) model.Report {
	rep := model.Report{Server: server, Cases: len(rs), FailuresByClass: map[string]int{}}
	for _, c := range model.Classes {
		rep.FailuresByClass[string(c)] = 0
	}
	runs := map[string]bool{}
	var prec, rec []float64
	defN, defOK, frN, frOK, calls, violating, policyChecked, clar := 0, 0, 0, 0, 0, 0, 0, 0
	cost := 0.0
	for _, r := range rs {
		ts := r.Score
		v := r.Final()
		if ts.RunID != "" {
			runs[ts.RunID] = true
		}
		if v.Correct != nil && *v.Correct {
			rep.Correct++
			if v.Grounded != nil && *v.Grounded {
				rep.CorrectAndGrounded++
			}
		}
		if v.Class != nil {
			rep.FailuresByClass[string(*v.Class)]++
		}
		if v.Review {
			rep.NeedsHumanReview++
		}
		if ts.GroundingPrecision != nil {
			prec = append(prec, *ts.GroundingPrecision)
		}
		if ts.GroundingRecall != nil {
			rec = append(rec, *ts.GroundingRecall)
		}
		if ts.DefinitionMatch != nil {
			defN++
			if *ts.DefinitionMatch {
				defOK++
			}
		}
		if ts.FreshnessPass != nil {
			frN++
			if *ts.FreshnessPass {
				frOK++
			}
		}
		if ts.PolicyViolations != nil {
			policyChecked++
			calls += ts.Calls
			violating += *ts.PolicyViolations
		}
		clar += ts.Clarifications
		cost += ts.CostUSD
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rep.RunID = strings.Join(ids, ",")
	rep.GroundingPrecision = mean(prec)
	rep.GroundingRecall = mean(rec)
	rep.DefinitionMatchRate = ratio(defOK, defN)
	rep.FreshnessPassRate = ratio(frOK, frN)
	if policyChecked > 0 {
		rep.PolicyViolationRate = ratio(violating, calls)
	}
	rep.ClarificationLoopsPerTask = ratio(clar, len(rs))
	rep.CostTotalUSD = round6(cost)
	if rep.CorrectAndGrounded > 0 {
		v := round6(cost / float64(rep.CorrectAndGrounded))
		rep.CostPerCorrectAnswerUSD = &v
	}
	return rep
}

func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	v := round6(sum / float64(len(xs)))
	return &v
}
