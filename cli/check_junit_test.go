package cli

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCheckJUnitSchema reads check.xml token by token against what the
// Jenkins JUnit schema (junit-10.xsd, which GitLab and the GitHub test
// reporters also take) asks: testsuites and testsuite carry tests,
// failures, errors, skipped, time and timestamp; every testcase has name,
// classname and time; testsuite's children come in the schema's order
// (testcase..., system-out); counts agree with the testcases.
func TestCheckJUnitSchema(t *testing.T) {
	suitePath, _ := exportedSuite(t)
	junit := filepath.Join(t.TempDir(), "check.xml")
	if _, errs, code := run(t, "check", "--suite", suitePath, "--policy", "testdata/policy.json", "--junit", junit,
		"testdata/check/new-run.jsonl"); code != 1 {
		t.Fatalf("check: exit %d %s", code, errs)
	}
	f, err := os.Open(junit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	timestamp := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`) // xs:dateTime as the schema restricts it, no zone
	seconds := func(where, v string) {
		if x, err := strconv.ParseFloat(v, 64); err != nil || x < 0 {
			t.Errorf("%s: time %q is not a non-negative decimal", where, v)
		}
	}
	attrs := func(se xml.StartElement) map[string]string {
		m := map[string]string{}
		for _, a := range se.Attr {
			m[a.Name.Local] = a.Value
		}
		return m
	}
	suiteAttrs := func(where string, a map[string]string) {
		for _, k := range []string{"name", "tests", "failures", "errors", "skipped", "time", "timestamp"} {
			if _, ok := a[k]; !ok {
				t.Errorf("%s has no %s attribute", where, k)
			}
		}
		for _, k := range []string{"tests", "failures", "errors", "skipped"} {
			if _, err := strconv.Atoi(a[k]); err != nil {
				t.Errorf("%s %s=%q is not an integer", where, k, a[k])
			}
		}
		seconds(where, a["time"])
		if !timestamp.MatchString(a["timestamp"]) {
			t.Errorf("%s timestamp %q is not yyyy-mm-ddThh:mm:ss", where, a["timestamp"])
		}
	}
	dec := xml.NewDecoder(f)
	var path []string
	var order []string // testsuite's children
	var suite map[string]string
	counted := map[string]int{}
	var inCase string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("check.xml does not parse: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			name := tk.Name.Local
			parent := strings.Join(path, "/")
			path = append(path, name)
			a := attrs(tk)
			switch {
			case parent == "" && name != "testsuites":
				t.Fatalf("root element %s, want testsuites", name)
			case parent == "":
				suiteAttrs("testsuites", a)
			case parent == "testsuites" && name == "testsuite":
				suite = a
				suiteAttrs("testsuite", a)
			case parent == "testsuites/testsuite":
				if len(order) == 0 || order[len(order)-1] != name {
					order = append(order, name)
				}
				if name == "testcase" {
					inCase = a["name"]
					counted["tests"]++
					if a["classname"] == "" || a["name"] == "" {
						t.Errorf("testcase %v lacks name or classname", a)
					}
					seconds("testcase "+a["name"], a["time"])
				}
			case parent == "testsuites/testsuite/testcase":
				switch name {
				case "failure":
					counted["failures"]++
					if a["message"] == "" || a["type"] == "" {
						t.Errorf("testcase %s: failure without message or type", inCase)
					}
				case "skipped":
					counted["skipped"]++
				case "system-out", "error", "system-err":
				default:
					t.Errorf("testcase %s holds %s, which the schema does not allow", inCase, name)
				}
			}
		case xml.EndElement:
			path = path[:len(path)-1]
		}
	}
	if strings.Join(order, ",") != "testcase,system-out" {
		t.Errorf("testsuite children in order %v, want testcase..., system-out", order)
	}
	for _, k := range []string{"tests", "failures", "skipped"} {
		if strconv.Itoa(counted[k]) != suite[k] {
			t.Errorf("testsuite %s=%s, but %d counted", k, suite[k], counted[k])
		}
	}
}
