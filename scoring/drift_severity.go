package scoring

import (
	"fmt"
	"strings"
)

// DriftSeverity overrides the lane of checks by id.
type DriftSeverity map[string]Lane

// DriftSeverityError names the file and line of a bad severity line.
type DriftSeverityError struct {
	File string
	Line int
	Msg  string
}

func (e *DriftSeverityError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ParseDriftSeverity reads a severity file: one `CHECK-ID LANE` per line, where
// LANE is breaking, risky, additive or ignore; blank lines and text after
// # are skipped. Unknown ids, unknown lanes and repeated ids are errors.
func ParseDriftSeverity(file string, data []byte) (DriftSeverity, error) {
	known := checkIndex()
	sev := DriftSeverity{}
	seenAt := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		bad := func(format string, args ...any) (DriftSeverity, error) {
			return nil, &DriftSeverityError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
		}
		if len(fields) != 2 {
			return bad("expected `CHECK-ID LANE`, got %d fields", len(fields))
		}
		id, lane := fields[0], fields[1]
		if _, ok := known[id]; !ok {
			return bad("unknown check id %q (see docs/drift-checks.md)", id)
		}
		l, ok := ParseLane(lane)
		if !ok {
			return bad("unknown lane %q for %s: expected breaking, risky, additive or ignore", lane, id)
		}
		if prev, dup := seenAt[id]; dup {
			return bad("%s already set on line %d", id, prev)
		}
		seenAt[id] = n
		sev[id] = l
	}
	return sev, nil
}

// Apply returns the findings with overridden lanes, without the ignored
// ones, and how many were ignored. Fingerprints do not change.
func (s DriftSeverity) Apply(fs []DriftFinding) ([]DriftFinding, int) {
	out := make([]DriftFinding, 0, len(fs))
	ignored := 0
	for _, f := range fs {
		if l, ok := s[f.ID]; ok {
			if l == LaneIgnore {
				ignored++
				continue
			}
			f.Lane = l
			f.Low = f.Low && l == LaneRisky
		}
		out = append(out, f)
	}
	SortDriftFindings(out)
	return out, ignored
}
