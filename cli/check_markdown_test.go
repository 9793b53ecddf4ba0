package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/suite"
)

// hostileMarkdown is trace text that tries every way into a CI summary:
// a backtick to end a hand-made code span, HTML, links, an image, an
// autolink, a bare URL, an e-mail address, www., math and a table pipe.
var hostileMarkdown = []string{
	"c`1` <img src=x onerror=alert(1)>",
	"t1 [click](https://evil.example/x) ![i](https://evil.example/p.png)",
	"<details><summary>open</summary>hidden</details> <a href=\"https://evil.example\">a</a>",
	"see https://evil.example/y and www.evil.example and mail@evil.example <https://evil.example/z>",
	"a | b &lt;script&gt; $x^2$ ~~gone~~ **bold** _em_ ``x``",
}

// TestCheckMarkdownRendersNoTraceMarkup renders check's markdown with a
// real GitHub-flavoured renderer (tables, autolinks) and finds no link,
// image or HTML from the trace, every table row with its four cells, and
// every hostile string shown as text.
func TestCheckMarkdownRendersNoTraceMarkup(t *testing.T) {
	var rep app.CheckReport
	for i, s := range hostileMarkdown {
		rep.Cases = append(rep.Cases, suite.CaseCheck{CaseID: s, TraceID: hostileMarkdown[(i+1)%len(hostileMarkdown)], Verdict: suite.VerdictRegressed, Reason: s})
	}
	rep.Contracts = []app.ContractDrift{{Server: hostileMarkdown[1], Tool: hostileMarkdown[0], Cases: hostileMarkdown[:2], Note: hostileMarkdown[3]}}
	var md bytes.Buffer
	if err := writeCheckMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	gfm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	if err := gfm.Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	out := html.String()
	for _, bad := range []string{"<a ", "<img", "<details", "<summary", "<script", "<del>", "<strong>bold", "<em>em"} {
		if strings.Contains(out, bad) {
			t.Errorf("the rendered summary holds %s from a trace:\n%s\n--- markdown:\n%s", bad, out, md.String())
		}
	}
	if n := strings.Count(out, "<tr>"); n != 1+len(hostileMarkdown)+2 {
		t.Errorf("%d table rows, want %d (headers and one per case and contract):\n%s", n, 1+len(hostileMarkdown)+2, out)
	}
	if n := strings.Count(out, "<td"); n != 4*len(hostileMarkdown)+6 {
		t.Errorf("%d cells, want %d: a trace string split a row:\n%s", n, 4*len(hostileMarkdown)+6, out)
	}
	// The case ids arrive whole inside code spans (a backtick in one no
	// longer ends it).
	if !strings.Contains(out, "<code>c`1` &lt;img src=x onerror=alert(1)&gt;</code>") {
		t.Errorf("the first case id is not one code span:\n%s", out)
	}
}
