package scoring

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
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
	var acc ReportAccumulator
	for _, r := range results {
		acc.Add(r)
	}
	return acc.Labels()
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

// BuildReport aggregates results into report.json (see ReportAccumulator).
func BuildReport(results []CaseResult) []model.Report {
	var acc ReportAccumulator
	for _, r := range results {
		acc.Add(r)
	}
	return acc.Reports()
}

// ReportAccumulator builds report.json and the label status from results
// fed one at a time, so a report over a whole database holds a few numbers
// per server instead of every result. The sums are exact (see exactSum),
// so the report does not depend on the order results arrive in.
//
// report.json is one object per server, sorted by server, with the seed's
// metrics. A rate whose denominator is empty is nil (JSON null). Grounding
// precision and recall are means over the tasks that have a value;
// definition match and freshness rates count the tasks where the check
// decided (undecided ones are in needs_human_review, never a silent pass
// or fail); the policy violation rate is per call, over the calls of the
// tasks the oracle checked.
type ReportAccumulator struct {
	servers map[string]*serverAcc
}

// serverAcc is what the report keeps of one server's results.
type serverAcc struct {
	rep                                                           model.Report
	labels                                                        ServerLabels
	runs                                                          map[string]bool
	prec, rec, cost                                               exactSum
	precN, recN                                                   int
	defN, defOK, frN, frOK, calls, violating, policyChecked, clar int
}

// Add counts one result.
func (a *ReportAccumulator) Add(r CaseResult) {
	if a.servers == nil {
		a.servers = map[string]*serverAcc{}
	}
	ts := r.Score
	sa := a.servers[ts.Server]
	if sa == nil {
		sa = &serverAcc{rep: model.Report{Server: ts.Server, FailuresByClass: map[string]int{}},
			labels: ServerLabels{Server: ts.Server}, runs: map[string]bool{}}
		for _, c := range model.Classes {
			sa.rep.FailuresByClass[string(c)] = 0
		}
		a.servers[ts.Server] = sa
	}
	rep := &sa.rep
	rep.Cases++
	v := r.Final()
	sa.labels.Cases++
	switch v.State {
	case LabelLabeled:
		sa.labels.Labeled++
	case LabelPartial:
		sa.labels.PartlyLabeled++
	case LabelPending:
		sa.labels.LabelPending++
	default:
		sa.labels.Suggested++
	}
	if ts.RunID != "" {
		sa.runs[ts.RunID] = true
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
		sa.prec.add(*ts.GroundingPrecision)
		sa.precN++
	}
	if ts.GroundingRecall != nil {
		sa.rec.add(*ts.GroundingRecall)
		sa.recN++
	}
	if ts.DefinitionMatch != nil {
		sa.defN++
		if *ts.DefinitionMatch {
			sa.defOK++
		}
	}
	if ts.FreshnessPass != nil {
		sa.frN++
		if *ts.FreshnessPass {
			sa.frOK++
		}
	}
	if ts.PolicyViolations != nil {
		sa.policyChecked++
		sa.calls += ts.Calls
		sa.violating += *ts.PolicyViolations
	}
	sa.clar += ts.Clarifications
	sa.cost.add(ts.CostUSD)
}

// sorted lists the servers in order.
func (a *ReportAccumulator) sorted() []*serverAcc {
	out := make([]*serverAcc, 0, len(a.servers))
	for _, sa := range a.servers {
		out = append(out, sa)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rep.Server < out[j].rep.Server })
	return out
}

// Reports is report.json over the results added so far.
func (a *ReportAccumulator) Reports() []model.Report {
	servers := a.sorted()
	out := make([]model.Report, 0, len(servers))
	for _, sa := range servers {
		out = append(out, sa.report())
	}
	return out
}

// Labels is the label status per server, in the order of Reports.
func (a *ReportAccumulator) Labels() []ServerLabels {
	servers := a.sorted()
	out := make([]ServerLabels, 0, len(servers))
	for _, sa := range servers {
		out = append(out, sa.labels)
	}
	return out
}

func (sa *serverAcc) report() model.Report {
	rep := sa.rep
	rep.FailuresByClass = make(map[string]int, len(sa.rep.FailuresByClass))
	for k, v := range sa.rep.FailuresByClass {
		rep.FailuresByClass[k] = v
	}
	ids := make([]string, 0, len(sa.runs))
	for id := range sa.runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rep.RunID = strings.Join(ids, ",")
	rep.GroundingPrecision = sa.prec.mean(sa.precN)
	rep.GroundingRecall = sa.rec.mean(sa.recN)
	rep.DefinitionMatchRate = ratio(sa.defOK, sa.defN)
	rep.FreshnessPassRate = ratio(sa.frOK, sa.frN)
	if sa.policyChecked > 0 {
		rep.PolicyViolationRate = ratio(sa.violating, sa.calls)
	}
	rep.ClarificationLoopsPerTask = ratio(sa.clar, rep.Cases)
	cost := sa.cost.value()
	rep.CostTotalUSD = round6(cost)
	if rep.CorrectAndGrounded > 0 {
		v := round6(cost / float64(rep.CorrectAndGrounded))
		rep.CostPerCorrectAnswerUSD = &v
	}
	return rep
}

// exactSum adds float64s without rounding: a float of this precision holds
// the sum of any 2^100 finite float64s exactly, so the total is the same
// in whatever order the values come, and it is rounded once, at the end.
// A non-finite value (which big.Float cannot carry through NaN) is summed
// apart in plain float64 and poisons the total as float64 addition would.
type exactSum struct {
	sum       *big.Float
	nonFinite float64
}

// exactPrec covers float64's exponent range (about 2,100 bits) with room
// for the carries of 2^100 additions.
const exactPrec = 2200

func (s *exactSum) add(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		s.nonFinite += x
		return
	}
	if s.sum == nil {
		s.sum = new(big.Float).SetPrec(exactPrec)
	}
	var v big.Float
	s.sum.Add(s.sum, v.SetFloat64(x))
}

// value is the sum rounded to the nearest float64 (±Inf past its range).
func (s *exactSum) value() float64 {
	v := 0.0
	if s.sum != nil {
		v, _ = s.sum.Float64()
	}
	return v + s.nonFinite
}

// mean is the sum over n values, rounded to six decimals; nil for none.
func (s *exactSum) mean(n int) *float64 {
	if n == 0 {
		return nil
	}
	v := 0.0
	if s.sum != nil {
		var q big.Float
		q.SetPrec(53).Quo(s.sum, new(big.Float).SetInt64(int64(n)))
		v, _ = q.Float64()
	}
	v = round6(v + s.nonFinite/float64(n))
	return &v
}
