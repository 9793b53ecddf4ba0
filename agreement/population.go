package agreement

import "fmt"

// Population says which cases a report compares raters on, so a reader
// can set its item count beside `tracelab report`'s: the rated cases
// among the cases the report counts (issue 26), and how many rated cases
// that leaves out.
type Population struct {
	// Counted is how many cases the report counts (its population).
	Counted int `json:"counted"`
	// Rated is how many of them some rater labeled: the items compared.
	Rated int `json:"rated"`
	// LeftOut is how many rated cases are outside the report's
	// population (not confirmed, or with no scored trace).
	LeftOut int `json:"left_out"`
}

// sentence is the population in words, one line.
func (p Population) sentence() string {
	s := fmt.Sprintf("Cases: %d rated of the %s the report counts (confirmed cases)",
		p.Rated, plural(p.Counted, "case"))
	if p.LeftOut > 0 {
		s += fmt.Sprintf("; %s outside it left out", plural(p.LeftOut, "rated case"))
	}
	return s
}
