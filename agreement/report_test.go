package agreement

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/")

// teamReport is the report for two labelers and tracelab's suggestion on
// nine traces, with one trace left unrated by bo, one by ana and one
// suggestion nobody checked, and the required and forbidden field sets of the same traces.
func teamReport() Report {
	classes := []string{"entity", "semantic", "structural", "temporal", "policy"}
	r := fromColumns([]string{"ana", "bo", "tracelab"}, [][]string{
		{"entity", "entity", "semantic", "temporal", "policy", "entity", "", "structural", ""},
		{"entity", "semantic", "semantic", "temporal", "", "entity", "policy", "entity", ""},
		{"entity", "entity", "semantic", "semantic", "policy", "entity", "policy", "structural", "temporal"},
	})
	r.Categories = classes
	sets := func(field string, items []SetItem) SetResult {
		s := Sets([]string{"ana", "bo"}, items)
		s.Field = field
		return s
	}
	return Report{
		By:      "class",
		Nominal: new(Nominal(r)),
		Machine: "tracelab",
		Trust:   MachineTrust(r, "tracelab"),
		Sets: []SetResult{
			sets("required", []SetItem{
				{ID: "1", Sets: map[string][]string{"ana": {"orders.id"}, "bo": {"orders.id"}}},
				{ID: "2", Sets: map[string][]string{"ana": {"orders.id", "orders.total"}, "bo": {"orders.total"}}},
				{ID: "3", Sets: map[string][]string{"ana": {}, "bo": {}}},
			}),
			sets("forbidden", []SetItem{
				{ID: "1", Sets: map[string][]string{"ana": {"users.ssn"}, "bo": {"users.email"}}},
				{ID: "2", Sets: map[string][]string{"ana": {"users.ssn"}}},
			}),
		},
	}
}

// wideReport has more categories, with longer names, than fit in one
// confusion block at 80 columns.
func wideReport() Report {
	var cats []string
	for i := range 12 {
		cats = append(cats, fmt.Sprintf("category-%02d", i+1))
	}
	r := Ratings{Raters: []string{"ana", "bo"}, Categories: cats}
	for i := range 30 {
		r.Items = append(r.Items, Item{ID: fmt.Sprint(i), Values: map[string]string{
			"ana": cats[i%12], "bo": cats[(i*i)%12],
		}})
	}
	return Report{By: "class", Nominal: new(Nominal(r))}
}

// TestReportGolden compares the three renderings with testdata/;
// go test ./agreement -run Golden -update rewrites them.
func TestReportGolden(t *testing.T) {
	hostile := teamReport()
	// A rater name from an imported file that tries to recolor the
	// terminal, and one too long for a column.
	hostile.Nominal.Pairs[0].A = "ana\x1b[31m|red"
	hostile.Nominal.Pairs[1].B = "judge:a-very-long-judge-command-name-v2"
	reports := map[string]Report{
		"team":    teamReport(),
		"hostile": hostile,
		"empty":   {By: "correct", Nominal: new(Nominal(Ratings{}))},
		"wide":    wideReport(),
		"fields":  {By: "fields", Sets: teamReport().Sets},
	}
	writers := map[string]func(Report, *bytes.Buffer) error{
		"txt":  func(r Report, b *bytes.Buffer) error { return r.WriteText(b) },
		"json": func(r Report, b *bytes.Buffer) error { return r.WriteJSON(b) },
		"md":   func(r Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) },
	}
	for name, rep := range reports {
		for ext, write := range writers {
			t.Run(name+"."+ext, func(t *testing.T) {
				var got bytes.Buffer
				if err := write(rep, &got); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", name+"."+ext)
				if *updateGolden {
					if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./agreement -run Golden -update creates it)", err)
				}
				if got.String() != string(want) {
					t.Errorf("%s differs from the output:\n%s", path, got.String())
				}
				if strings.ContainsRune(got.String(), '\x1b') {
					t.Errorf("%s output holds an escape character", path)
				}
				if ext == "txt" {
					for i, line := range strings.Split(got.String(), "\n") {
						if w := ansi.StringWidth(line); w > lineWidth {
							t.Errorf("line %d is %d columns wide: %q", i+1, w, line)
						}
					}
				}
			})
		}
	}
}

// TestReportJSONRoundTrip reads the JSON back: stable field names, and
// undefined statistics survive as undefined (null), not as zero.
func TestReportJSONRoundTrip(t *testing.T) {
	rep := teamReport()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rep) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, rep)
	}
	if !strings.Contains(b.String(), `"trust": null`) {
		t.Errorf("no undefined trust written as null in\n%s", b.String())
	}
}
