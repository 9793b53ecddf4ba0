package scoring

import (
	"strings"
	"testing"
	"time"
)

func TestParseDriftAcks(t *testing.T) {
	acks, err := ParseDriftAcks("acks.txt", []byte("# reviewed drift\n\n3d69829b0836 retired, see #412 # trailing comment\n6746048d9fe6 expires=2026-12-31 writes by design\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(acks) != 2 || acks[0].Reason != "retired, see #412" || acks[0].Expires != "" || acks[0].Line != 3 ||
		acks[1].Expires != "2026-12-31" || acks[1].Reason != "writes by design" || acks[1].Line != 4 {
		t.Fatalf("parsed %+v", acks)
	}
	for _, tc := range []struct{ in, want string }{
		{"3D69829B0836 upper case", `acks.txt:1: expected`},
		{"3d69829b08 short", `is not a 12-digit lowercase hex fingerprint`},
		{"3d69829b0836", `acks.txt:1: 3d69829b0836 has no reason`},
		{"3d69829b0836 expires=2026-12-31", `has no reason`},
		{"3d69829b0836 expires=31.12.2026 why", `expires="31.12.2026": expected a date like 2026-12-31`},
		{"3d69829b0836 a\n\n3d69829b0836 b", `acks.txt:3: 3d69829b0836 already acknowledged on line 1`},
	} {
		_, err := ParseDriftAcks("acks.txt", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDriftAcksApply(t *testing.T) {
	fs := []DriftFinding{{ID: "tool-removed", Fingerprint: "aaaaaaaaaaaa"}, {ID: "tool-added", Fingerprint: "bbbbbbbbbbbb"}, {ID: "tool-removed", Fingerprint: "cccccccccccc"}}
	acks, err := ParseDriftAcks("a", []byte("aaaaaaaaaaaa ok\ncccccccccccc expires=2026-11-30 until the migration\ndddddddddddd gone already\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name            string
		now             time.Time
		kept, acked     []string
		expired, unused []string
	}{
		{"on the expiry day the entry holds", time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC),
			[]string{"bbbbbbbbbbbb"}, []string{"aaaaaaaaaaaa", "cccccccccccc"}, nil, []string{"dddddddddddd"}},
		{"the day after it expired", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
			[]string{"bbbbbbbbbbbb", "cccccccccccc"}, []string{"aaaaaaaaaaaa"}, []string{"cccccccccccc"}, []string{"dddddddddddd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := acks.Apply(fs, tc.now)
			fps := func(fs []DriftFinding) []string {
				var out []string
				for _, f := range fs {
					out = append(out, f.Fingerprint)
				}
				return out
			}
			var acked, expired, unused []string
			for _, a := range res.Acked {
				acked = append(acked, a.Finding.Fingerprint)
			}
			for _, a := range res.Expired {
				expired = append(expired, a.Fingerprint)
			}
			for _, a := range res.Unused {
				unused = append(unused, a.Fingerprint)
			}
			if got := strings.Join(fps(res.Findings), ","); got != strings.Join(tc.kept, ",") {
				t.Errorf("kept %s, want %v", got, tc.kept)
			}
			if strings.Join(acked, ",") != strings.Join(tc.acked, ",") || strings.Join(expired, ",") != strings.Join(tc.expired, ",") ||
				strings.Join(unused, ",") != strings.Join(tc.unused, ",") {
				t.Errorf("acked %v expired %v unused %v", acked, expired, unused)
			}
		})
	}
}

// Acks recount the report: an acknowledged breaking change no longer fails.
func TestDriftReportWithAcks(t *testing.T) {
	res := DriftResult{Findings: []DriftFinding{{ID: "tool-removed", Lane: LaneBreaking, Fingerprint: "aaaaaaaaaaaa"}, {ID: "tool-added", Lane: LaneAdditive, Fingerprint: "bbbbbbbbbbbb"}}}
	rep := NewDriftReport("o", "n", res, nil, LaneBreaking)
	if !rep.Summary.Failed {
		t.Fatal("a breaking change did not fail")
	}
	acks, _ := ParseDriftAcks("a", []byte("aaaaaaaaaaaa retired on purpose"))
	rep = rep.WithAcks(acks, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if rep.Summary.Failed || rep.Summary.Breaking != 0 || rep.Summary.Additive != 1 || rep.Summary.Acked != 1 || len(rep.Findings) != 1 {
		t.Errorf("after acks: %+v, %d findings", rep.Summary, len(rep.Findings))
	}
}

// An ack file is outside input: any bytes give entries or an error naming
// a line, never a panic, and every entry parsed is well formed.
func FuzzParseDriftAcks(f *testing.F) {
	f.Add([]byte("3d69829b0836 retired, see #412 # trailing\n6746048d9fe6 expires=2026-12-31 by design\n"))
	f.Add([]byte("# only a comment\n\n"))
	f.Add([]byte("3d69829b0836 expires=2026-02-30 bad day\n"))
	f.Add([]byte("3d69829b0836\x00 x\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		acks, err := ParseDriftAcks("f", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, a := range acks {
			if !fingerprintRE.MatchString(a.Fingerprint) || a.Reason == "" || a.Line < 1 || seen[a.Fingerprint] {
				t.Fatalf("bad entry %+v", a)
			}
			seen[a.Fingerprint] = true
			if (a.Expires == "") != a.until.IsZero() {
				t.Fatalf("expiry %q without its day", a.Expires)
			}
		}
		res := acks.Apply([]DriftFinding{{Fingerprint: "3d69829b0836"}}, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
		if len(res.Findings)+len(res.Acked) != 1 {
			t.Fatalf("apply lost or duplicated a finding: %+v", res)
		}
	})
}
