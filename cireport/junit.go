package cireport

import (
	"encoding/xml"
	"strconv"
	"time"
)

// JUnit XML as the common readers take it (Jenkins' junit-10.xsd, GitLab,
// and the testmo description of the format): testsuites and testsuite
// carry tests, failures, errors, skipped, time and timestamp; every
// testcase has a time; system-out closes each testsuite.

// JUnitTotals are the attributes testsuites and testsuite share.
type JUnitTotals struct {
	Name      string `xml:"name,attr"`
	Tests     int    `xml:"tests,attr"`
	Failures  int    `xml:"failures,attr"`
	Errors    int    `xml:"errors,attr"`
	Skipped   int    `xml:"skipped,attr"`
	Time      string `xml:"time,attr"`
	Timestamp string `xml:"timestamp,attr"`
}

// JUnitSuites is the document root.
type JUnitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	JUnitTotals
	Suites []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one testsuite; Add keeps its counts.
type JUnitSuite struct {
	JUnitTotals
	Cases     []JUnitCase `xml:"testcase"`
	SystemOut string      `xml:"system-out"`
}

// JUnitCase is one testcase: at most one of Skipped, Error, Failure.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a failure (the check ran and said no) or an error (it
// could not run).
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnitSkipped marks a testcase that did not count.
type JUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnitRun is when a report's run started and how long it took; the
// caller measures it (rendering reads no clock).
type JUnitRun struct {
	Started time.Time
	Elapsed time.Duration
}

// Seconds is a JUnit time attribute: seconds with millisecond precision.
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// Timestamp is a JUnit timestamp attribute: ISO 8601 in UTC without a zone
// suffix, the form junit-10.xsd's pattern accepts.
func Timestamp(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

// NewSuite starts a testsuite of a run.
func NewSuite(name string, run JUnitRun) JUnitSuite {
	return JUnitSuite{JUnitTotals: JUnitTotals{Name: Printable(name), Time: Seconds(run.Elapsed), Timestamp: Timestamp(run.Started)}}
}

// Add appends a testcase, sanitizing its text and counting its outcome. A
// testcase the caller did not time gets time 0: the suite carries the run's
// time.
func (s *JUnitSuite) Add(c JUnitCase) {
	c.Name, c.Classname, c.SystemOut = Printable(c.Name), Printable(c.Classname), printableBlock(c.SystemOut)
	if c.Time == "" {
		c.Time = Seconds(0)
	}
	for _, p := range []*JUnitProblem{c.Failure, c.Error} {
		if p != nil {
			p.Message, p.Type, p.Text = Printable(p.Message), Printable(p.Type), printableBlock(p.Text)
		}
	}
	if c.Skipped != nil {
		c.Skipped.Message = Printable(c.Skipped.Message)
	}
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

// printableBlock keeps the line breaks of a multi-line text block and
// escapes every other control character.
func printableBlock(s string) string {
	var out []byte
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '\n' {
			out = append(out, Printable(s[start:i])...)
			if i < len(s) {
				out = append(out, '\n')
			}
			start = i + 1
		}
	}
	return string(out)
}

// MarshalJUnit writes the document with the totals of its suites.
func MarshalJUnit(name string, run JUnitRun, suites ...JUnitSuite) ([]byte, error) {
	doc := JUnitSuites{JUnitTotals: JUnitTotals{Name: Printable(name), Time: Seconds(run.Elapsed), Timestamp: Timestamp(run.Started)}, Suites: suites}
	for _, s := range suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}
