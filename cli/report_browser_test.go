package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// chromiumPath finds Debian's chromium. Without it the browser test skips,
// saying so, unless CI is set: .ci/run installs it, so there a missing
// browser is a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed and CI is set: .ci/run installs Debian's chromium for this test")
	}
	t.Skip("chromium is not installed (apt-get install chromium); the HTML report's browser test needs it (it fails instead when CI is set)")
	return ""
}

// browse renders a page in headless chromium: a screenshot to png, the
// DOM after load, and the console messages chromium logged (a page with
// no script has none unless something failed: a load, a parse). profile
// is chromium's user data folder, one per browser.
func browse(chromium, profile, page, png string) (dom string, console []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--user-data-dir="+profile, "--enable-logging=stderr", "--v=0",
		"--window-size=1200,1800", "--screenshot="+png, "--dump-dom", "file://"+page)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", nil, fmt.Errorf("chromium on %s: %v\n%s", page, err, errb.String())
	}
	for _, line := range strings.Split(errb.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return out.String(), console, nil
}

// The HTML report in a real browser: it renders to a PNG with no console
// message, and the numbers in the rendered DOM are report.json's.
func TestReportHTMLInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	suitePath, db := exportedSuite(t)
	// A check adds a second point to the history's charts.
	if _, errs, code := run(t, "check", "--db", db, "--suite", suitePath, "testdata/check/new-run.jsonl", "--allow-missing"); code == 2 {
		t.Fatalf("check: %s", errs)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if _, errs, code := run(t, "report", "--db", db, "--html", page); code != 0 {
		t.Fatalf("report --html: %s", errs)
	}
	out, errs, code := run(t, "report", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("report: %s", errs)
	}
	var reps []model.Report
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatal(err)
	}

	// The detector itself: a page that logs an error is caught. It runs
	// beside the real page's browser, to spend one launch's wait on both.
	bad := writeIn(t, dir, "bad.html", `<!DOCTYPE html><html><body><script>console.error("deliberate")</script></body></html>`)
	caught := make(chan int, 1)
	go func() {
		_, console, err := browse(chromium, t.TempDir(), bad, filepath.Join(dir, "bad.png"))
		if err != nil {
			t.Error(err)
		}
		caught <- len(console)
	}()
	shot := filepath.Join(dir, "report.png")
	dom, console, err := browse(chromium, t.TempDir(), page, shot)
	if err != nil {
		t.Fatal(err)
	}
	if <-caught == 0 {
		t.Fatal("chromium logged no console message for a page that writes one: the check below would see nothing")
	}
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	checkScreenshot(t, shot)

	got, want := pageNumbers(dom), reportNumbers(t, reps)
	if len(got) != len(reps) {
		t.Fatalf("the rendered DOM has numbers of %d servers, report.json %d", len(got), len(reps))
	}
	n := 0
	for server, metrics := range got {
		for k, v := range metrics {
			n++
			if want[server][k] != v {
				t.Errorf("%s %s: page %s, report.json %s", server, k, v, want[server][k])
			}
		}
	}
	if n != 12*len(reps) {
		t.Errorf("%d numbers in the DOM, want 12 per server", n)
	}
	// What people read is report.json's number too, rounded for reading.
	for _, r := range reps {
		for _, m := range model.Metrics {
			text := shown(m.Of(r), m.USD)
			if !strings.Contains(dom, `data-metric="`+m.Key+`" data-value="`+want[r.Server][m.Key]+`">`+text+`</a>`) {
				t.Errorf("%s %s: the page does not show %s", r.Server, m.Key, text)
			}
		}
		for c, k := range r.FailuresByClass {
			if !strings.Contains(dom, `data-class="`+c+`" data-value="`+strconv.Itoa(k)+`">`+strconv.Itoa(k)+`</a>`) {
				t.Errorf("%s: failures of class %s are not %d on the page", r.Server, c, k)
			}
		}
	}
}

// shown is how the page prints a metric: two decimals, dollars with four.
func shown(p *float64, usd bool) string {
	switch {
	case p == nil:
		return "—"
	case usd:
		return "$" + strconv.FormatFloat(*p, 'f', 4, 64)
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

// checkScreenshot fails a PNG that is not the window's size or is blank.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 1800 {
		t.Errorf("screenshot is %dx%d, want 1200x1800", b.Dx(), b.Dy())
	}
	colours := map[[4]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y && len(colours) < 16; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 16 {
		t.Errorf("the screenshot has %d colours: blank or nearly", len(colours))
	}
}
