package scoring

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// An ack file acknowledges reviewed findings by fingerprint, so a change
// a team accepted stops failing the gate without lowering its check's
// lane for everyone else. One entry per line:
//
//	FINGERPRINT [expires=YYYY-MM-DD] REASON...
//
// A line starting with # is a comment, and so is the rest of a line after
// " # "; a reason may name an issue like #12. An entry holds through its expiry day (UTC); after
// that it suppresses nothing and is listed as expired, so acceptances are
// revisited instead of silently living forever.

// DriftAck is one entry of an ack file.
type DriftAck struct {
	Fingerprint string `json:"fingerprint"`
	Reason      string `json:"reason"`
	// Expires is the last day the entry holds, "" for never.
	Expires string `json:"expires,omitempty"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	until   time.Time
}

// DriftAcks is a parsed ack file.
type DriftAcks []DriftAck

// AckedFinding is a finding an ack suppressed, with the ack.
type AckedFinding struct {
	Finding DriftFinding `json:"finding"`
	Ack     DriftAck     `json:"ack"`
}

var fingerprintRE = regexp.MustCompile(`^[0-9a-f]{12}$`)

// ParseDriftAcks reads an ack file. A bad fingerprint, a bad expiry date, a
// missing reason or a fingerprint listed twice is an error naming FILE:LINE.
func ParseDriftAcks(file string, data []byte) (DriftAcks, error) {
	var out DriftAcks
	seenAt := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if j := strings.Index(line, " # "); j >= 0 {
			line = line[:j] // a trailing comment; "#12" in a reason stays
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		bad := func(format string, args ...any) (DriftAcks, error) {
			return nil, &DriftSeverityError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
		}
		a := DriftAck{Fingerprint: fields[0], File: file, Line: n}
		if !fingerprintRE.MatchString(a.Fingerprint) {
			return bad("expected `FINGERPRINT [expires=YYYY-MM-DD] REASON`: %q is not a 12-digit lowercase hex fingerprint", a.Fingerprint)
		}
		rest := fields[1:]
		if len(rest) > 0 && strings.HasPrefix(rest[0], "expires=") {
			day := strings.TrimPrefix(rest[0], "expires=")
			t, err := time.Parse("2006-01-02", day)
			if err != nil {
				return bad("expires=%q: expected a date like 2026-12-31", day)
			}
			a.Expires, a.until = day, t.AddDate(0, 0, 1)
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return bad("%s has no reason: say why the change is accepted", a.Fingerprint)
		}
		a.Reason = strings.Join(rest, " ")
		if prev, dup := seenAt[a.Fingerprint]; dup {
			return bad("%s already acknowledged on line %d", a.Fingerprint, prev)
		}
		seenAt[a.Fingerprint] = n
		out = append(out, a)
	}
	return out, nil
}

// Expired reports whether the entry no longer holds at now.
func (a DriftAck) Expired(now time.Time) bool {
	return !a.until.IsZero() && !now.Before(a.until)
}

// AckResult is what Apply did.
type AckResult struct {
	Findings []DriftFinding // not acknowledged, in their order
	Acked    []AckedFinding // suppressed by an entry in force
	Expired  []DriftAck     // past their expiry: they suppressed nothing
	Unused   []DriftAck     // in force but matched no finding (the change is gone, or the fingerprint is wrong)
}

// Apply suppresses exactly the findings whose fingerprint an entry in force
// at now names.
func (acks DriftAcks) Apply(fs []DriftFinding, now time.Time) AckResult {
	var res AckResult
	live := map[string]DriftAck{}
	for _, a := range acks {
		if a.Expired(now) {
			res.Expired = append(res.Expired, a)
		} else {
			live[a.Fingerprint] = a
		}
	}
	used := map[string]bool{}
	res.Findings = make([]DriftFinding, 0, len(fs))
	for _, f := range fs {
		if a, ok := live[f.Fingerprint]; ok {
			res.Acked = append(res.Acked, AckedFinding{Finding: f, Ack: a})
			used[f.Fingerprint] = true
			continue
		}
		res.Findings = append(res.Findings, f)
	}
	for _, a := range acks {
		if _, ok := live[a.Fingerprint]; ok && !used[a.Fingerprint] {
			res.Unused = append(res.Unused, a)
		}
	}
	return res
}
