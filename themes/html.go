package themes

import (
	"fmt"
	"strings"
)

// PageCSS is the stylesheet of the HTML report (`tracelab report
// --html`), built from a palette like the workbench's styles: classes
// s0..s5 colour the servers (lines, dots, swatches), c0..c4 the failure
// classes. The page is for reading and printing, so it is drawn on the
// light palette's colours whatever the terminal's theme.
func PageCSS(p Palette) string {
	if p.Text == "" {
		p = Light() // the page needs colours to tell its lines apart
	}
	var b strings.Builder
	fmt.Fprintf(&b, `:root{color-scheme:light}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:%[1]s;background:#ffffff}
header,main,footer{max-width:1240px;margin:0 auto;padding:0 20px}
header{padding-top:18px;border-bottom:1px solid %[3]s}
h1{margin:0;font-size:22px;color:%[4]s}
h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid %[3]s;padding-bottom:3px}
h3{font-size:15px;margin:22px 0 4px}
.meta,.note,.none,footer{color:%[2]s}
.none{font-style:italic}
nav{margin:6px 0 10px}
nav a{margin-right:14px}
a{color:%[4]s;text-decoration:none}
a:hover{text-decoration:underline}
table.metrics td a,table.bars td a{color:%[1]s}
.top{display:flex;flex-wrap:wrap;gap:0 48px;align-items:flex-start}
.top section{flex:0 1 auto}
.top .note{max-width:660px}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:3px 10px;text-align:left;vertical-align:middle}
thead th{color:%[2]s;font-weight:600;border-bottom:1px solid %[3]s}
tbody th{font-weight:normal;color:%[2]s}
tr.group>*{border-top:1px solid %[3]s}
.num{text-align:right;font-variant-numeric:tabular-nums}
.id{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
table.cases{font-size:12.5px}
table.cases td{white-space:nowrap}
table.cases tbody tr:nth-child(even){background:%[5]s}
tr:target,li:target{background:%[6]s}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:baseline}
.legend .key{margin-right:16px}
.charts{display:flex;flex-wrap:wrap;gap:10px 18px}
figure{margin:0}
figcaption{font-size:12.5px;color:%[2]s}
svg .axis{stroke:%[3]s;stroke-width:1}
svg .tick{fill:%[2]s;font-size:9px}
svg .line{fill:none;stroke-width:1.8}
svg .track{fill:%[5]s}
ul.byclass{padding-left:18px;font-size:12.5px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
footer{margin-top:30px;padding-bottom:24px;border-top:1px solid %[3]s;font-size:12.5px}
`, p.Text, p.Subtle, p.Faint, p.Accent, p.StatusBg, p.SelBg)
	for i, c := range pageSeries(p) {
		fmt.Fprintf(&b, ".sw.s%[1]d{background:%[2]s}\nsvg .line.s%[1]d{stroke:%[2]s}\nsvg .dot.s%[1]d{fill:%[2]s}\n", i, c)
	}
	for i, c := range p.ClassHues {
		fmt.Fprintf(&b, "th.cls.c%[1]d{color:%[2]s;font-weight:600}\nsvg .fill.c%[1]d{fill:%[2]s}\n", i, c)
	}
	return b.String()
}

// pageSeries are the servers' colours on the page, six before they repeat.
func pageSeries(p Palette) [6]string {
	return [6]string{p.Accent, p.ClassHues[0], p.OK, p.Info, p.Error, p.Warn}
}
