package suite

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// DroppedGroup is a question every server's case passes correct and
// grounded: it exposes nothing, so an expose-only export leaves it out.
type DroppedGroup struct {
	Question string
	CaseIDs  []string
}

// ExposeOnly keeps the cases that expose grounding: every case of a
// question (cases grouped by question, one per server's trace) where at
// least one case is labeled wrong, or correct but not grounded, or not
// labeled either way. The questions every case passes correct and
// grounded are dropped, in case_id order of their first case.
func ExposeOnly(cases []store.CaseRecord) (kept []store.CaseRecord, dropped []DroppedGroup) {
	groups := map[string][]int{}
	var order []string
	for i, c := range cases {
		k := store.QuestionKey(c.Case.Question)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	keep := make([]bool, len(cases))
	for _, k := range order {
		exposes := false
		for _, i := range groups[k] {
			if !WasGood(cases[i].Case.Label) {
				exposes = true
			}
		}
		if exposes {
			for _, i := range groups[k] {
				keep[i] = true
			}
			continue
		}
		g := DroppedGroup{Question: cases[groups[k][0]].Case.Question}
		for _, i := range groups[k] {
			g.CaseIDs = append(g.CaseIDs, cases[i].Case.CaseID)
		}
		sort.Strings(g.CaseIDs)
		dropped = append(dropped, g)
	}
	for i, c := range cases {
		if keep[i] {
			kept = append(kept, c)
		}
	}
	sort.Slice(dropped, func(i, j int) bool { return dropped[i].CaseIDs[0] < dropped[j].CaseIDs[0] })
	return kept, dropped
}

// SampleDims are the attributes a sample can be stratified by.
var SampleDims = []string{"tool", "user_role", "outcome", "server"}

// MinSampleTraces is the seed's floor: "Two hundred traces is enough to
// start. Fewer than fifty is not."
const MinSampleTraces = 50

// SampleOptions steer a stratified sample.
type SampleOptions struct {
	N    int
	Seed uint64
	By   []string // dimensions from SampleDims; nil means tool, user_role, outcome
	// Oversample weighs traces by outcome (retry=3 makes a retry three
	// times as likely to be drawn as a pass); outcomes not named weigh 1.
	Oversample map[model.Outcome]float64
	Force      bool // sample even when fewer than MinSampleTraces traces exist
}

// Stratum is one cell of the stratification.
type Stratum struct {
	Key        string  `json:"stratum"`
	Population int     `json:"population"`
	Weight     float64 `json:"weight"` // sum of the oversampling weights of its traces
	Sampled    int     `json:"sampled"`
}

// SampleResult is a drawn sample.
type SampleResult struct {
	TraceIDs   []string  `json:"trace_ids"`
	Strata     []Stratum `json:"strata"`
	Population int       `json:"population"` // traces eligible (not yet confirmed)
	Skipped    int       `json:"skipped"`    // traces left out because a person confirmed their case
}

// ErrTooFewTraces refuses a sample below the seed's floor.
var ErrTooFewTraces = errors.New("too few traces")

// maxOversample bounds a weight, so the strata's weights always sum to a finite number.
const maxOversample = 1000

// ParseOversample reads "retry=3,clarification=3" ("" or "none": no oversampling).
func ParseOversample(s string) (map[model.Outcome]float64, error) {
	out := map[model.Outcome]float64{}
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("--oversample %q: expected OUTCOME=FACTOR, e.g. retry=3", part)
		}
		o := model.Outcome(strings.TrimSpace(k))
		if !slices.Contains(model.Outcomes, o) {
			return nil, fmt.Errorf("--oversample: %q is not an outcome (%s)", k, joinOutcomes())
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0) || f > maxOversample {
			return nil, fmt.Errorf("--oversample %s: %q is not a positive number up to %d", k, v, maxOversample)
		}
		out[o] = f
	}
	return out, nil
}

func joinOutcomes() string {
	s := make([]string, len(model.Outcomes))
	for i, o := range model.Outcomes {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

// stratumKey names a candidate's stratum, e.g. "run_sql+describe_table | finance_analyst | retry".
func stratumKey(c store.SampleCandidate, by []string) string {
	parts := make([]string, len(by))
	for i, d := range by {
		v := ""
		switch d {
		case "tool":
			v = strings.Join(c.Tools, "+")
		case "user_role":
			v = c.UserRole
		case "outcome":
			v = string(c.Outcome)
		case "server":
			v = c.Server
		}
		if v == "" {
			v = "(none)"
		}
		parts[i] = v
	}
	return strings.Join(parts, " | ")
}

// Sample draws a stratified sample. It is deterministic for a given seed
// and candidate set, whatever order the candidates come in. Traces whose
// case a person confirmed are not drawn again. Every stratum gets one
// trace when N allows, the rest is shared in proportion to the strata's
// weights (largest remainder, capped by stratum size); within a stratum,
// traces are drawn without replacement with probability proportional to
// their outcome's weight (Efraimidis-Spirakis keys).
func Sample(cands []store.SampleCandidate, opts SampleOptions) (SampleResult, error) {
	by := opts.By
	if len(by) == 0 {
		by = []string{"tool", "user_role", "outcome"}
	}
	for _, d := range by {
		if !slices.Contains(SampleDims, d) {
			return SampleResult{}, fmt.Errorf("--by: %q is not one of %s", d, strings.Join(SampleDims, ", "))
		}
	}
	if opts.N <= 0 {
		return SampleResult{}, fmt.Errorf("--n must be a positive number of traces")
	}
	sorted := append([]store.SampleCandidate(nil), cands...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].TraceID < sorted[j].TraceID })
	var res SampleResult
	type stratum struct {
		Stratum
		members []store.SampleCandidate
	}
	byKey := map[string]*stratum{}
	for _, c := range sorted {
		// A pending case (gold confirmed, label unset) still needs a
		// person: it stays in the population.
		if c.Status == model.StatusConfirmed {
			res.Skipped++
			continue
		}
		res.Population++
		k := stratumKey(c, by)
		s := byKey[k]
		if s == nil {
			s = &stratum{Stratum: Stratum{Key: k}}
			byKey[k] = s
		}
		s.members = append(s.members, c)
		s.Population++
		s.Weight += weightOf(c.Outcome, opts.Oversample)
	}
	if total := res.Population + res.Skipped; total < MinSampleTraces && !opts.Force {
		return res, fmt.Errorf("%w: the database holds %d traces; the seed asks for at least %d "+
			"(\"two hundred traces is enough to start; fewer than fifty is not\"): import more traces, or pass --force",
			ErrTooFewTraces, total, MinSampleTraces)
	}
	strata := make([]*stratum, 0, len(byKey))
	for _, s := range byKey {
		strata = append(strata, s)
	}
	sort.Slice(strata, func(i, j int) bool { return strata[i].Key < strata[j].Key })
	// Allocation.
	n := min(opts.N, res.Population)
	remaining := n
	if n >= len(strata) {
		for _, s := range strata {
			s.Sampled = 1
		}
		remaining -= len(strata)
	}
	for remaining > 0 {
		var open []*stratum
		w := 0.0
		for _, s := range strata {
			if s.Sampled < s.Population {
				open = append(open, s)
				w += s.Weight
			}
		}
		if len(open) == 0 {
			break
		}
		type share struct {
			s    *stratum
			frac float64
		}
		var shares []share
		given := 0
		for _, s := range open {
			q := float64(remaining) * s.Weight / w
			whole := min(int(q), s.Population-s.Sampled)
			s.Sampled += whole
			given += whole
			shares = append(shares, share{s, q - math.Floor(q)})
		}
		remaining -= given
		if given > 0 {
			continue
		}
		// Every quota is below one: hand out single traces by largest remainder.
		sort.SliceStable(shares, func(i, j int) bool { return shares[i].frac > shares[j].frac })
		for _, sh := range shares {
			if remaining == 0 {
				break
			}
			if sh.s.Sampled < sh.s.Population {
				sh.s.Sampled++
				remaining--
			}
		}
	}
	// Drawing.
	rng := rand.New(rand.NewPCG(opts.Seed, 0x7472_6163_656c_6162)) // "tracelab"
	for _, s := range strata {
		type keyed struct {
			id  string
			key float64
		}
		ks := make([]keyed, len(s.members))
		for i, c := range s.members {
			u := rng.Float64()
			for u == 0 {
				u = rng.Float64()
			}
			ks[i] = keyed{c.TraceID, -math.Log(u) / weightOf(c.Outcome, opts.Oversample)}
		}
		sort.SliceStable(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
		for _, k := range ks[:s.Sampled] {
			res.TraceIDs = append(res.TraceIDs, k.id)
		}
		res.Strata = append(res.Strata, s.Stratum)
	}
	return res, nil
}

func weightOf(o model.Outcome, over map[model.Outcome]float64) float64 {
	if w, ok := over[o]; ok {
		return w
	}
	return 1
}
