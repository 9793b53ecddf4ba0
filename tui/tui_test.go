package tui

import (
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/themes"
)

func TestThemes(t *testing.T) {
	st, _ := openFixtureStore(t)
	cases := []struct {
		name      string
		opts      Options
		bg        color.Color // a BackgroundColorMsg answer, nil for none
		wantTheme string
		wantColor bool
	}{
		{"detected dark", Options{}, color.Black, "dark", true},
		{"detected light", Options{}, color.White, "light", true},
		{"flag wins over detection", Options{Theme: "high-contrast"}, color.White, "high-contrast", true},
		{"no color", Options{NoColor: true}, color.Black, "no-color", false},
		{"unknown theme falls back", Options{Theme: "solarized"}, nil, "dark", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.StatusTTL = -1
			m := New(st, c.opts)
			d := &driver{t: t, m: m}
			d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
			d.run(m.Init())
			if c.bg != nil {
				d.send(tea.BackgroundColorMsg{Color: c.bg})
			}
			if got := d.m.sty.Palette.Name; got != c.wantTheme {
				t.Fatalf("theme %q, want %q", got, c.wantTheme)
			}
			v := d.view()
			if has := strings.Contains(v, "38;2;"); has != c.wantColor {
				t.Errorf("truecolor in the view = %v, want %v", has, c.wantColor)
			}
			if c.name == "unknown theme falls back" && !strings.Contains(d.plain(), "unknown theme") {
				t.Errorf("no message about the unknown theme:\n%s", d.plain())
			}
		})
	}
	t.Run("NO_COLOR", func(t *testing.T) {
		t.Setenv("NO_COLOR", "1")
		if got := New(st, Options{Theme: "dark"}).sty.Palette.Name; got != "no-color" {
			t.Errorf("NO_COLOR set: theme %q", got)
		}
	})
}

func TestEveryPaletteBuilds(t *testing.T) {
	for _, name := range append(themes.Names, "no-color") {
		p, err := themes.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		s := themes.Build(p)
		if s.Chroma == nil {
			t.Fatalf("%s: no chroma style", name)
		}
		lines := highlight(&s, "sql", "SELECT count(*) FROM customers WHERE status = 'ACTIVE'")
		if len(lines) != 1 || !strings.Contains(stripStyles(lines[0]), "SELECT count(*)") {
			t.Errorf("%s: highlight = %q", name, lines)
		}
		if colored := strings.Contains(lines[0], "\x1b["); colored != (name != "no-color") {
			t.Errorf("%s: highlighted with color = %v", name, colored)
		}
	}
	if _, err := themes.ByName("nope"); err == nil {
		t.Error("unknown theme accepted")
	}
}

// TestResizeAnyTime draws every screen at sizes from tiny to very wide:
// every frame is exactly the terminal's size.
func TestResizeAnyTime(t *testing.T) {
	st, _ := openFixtureStore(t)
	disagree(t, st, "trace_9f31c2") // the first trace shows its raters side by side
	d := newDriver(t, st, 80, 24)
	walk := [][]string{nil, {"enter"}, {"tab"}, {"tab"}, {"e"}, {"esc", "R"}, {"?"}, {"esc", "D"}, {"esc", "f"},
		{"esc", "T", "A"}, {"e"}}
	for _, keys := range walk {
		d.keys(keys...)
		for _, sz := range [][2]int{{80, 24}, {40, 10}, {60, 15}, {132, 40}, {300, 90}, {39, 9}, {1, 1}} {
			d.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			lines := strings.Split(d.view(), "\n")
			if sz[0] < minWidth || sz[1] < minHeight {
				if !strings.Contains(d.plain(), "too small") {
					t.Errorf("%v: no too-small message", sz)
				}
				continue
			}
			if len(lines) != sz[1] {
				t.Errorf("after %v at %v: %d lines", keys, sz, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w != sz[0] {
					t.Errorf("after %v at %v: line %d is %d wide", keys, sz, i, w)
					break
				}
			}
		}
		d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	}
	d.mustSee("Final label") // the walk reached the label editor over the raters
}

func TestMouseWheelScrolls(t *testing.T) {
	st, _ := openFixtureStore(t)
	d := newDriver(t, st, 100, 30)
	d.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown, X: 10, Y: 10})
	if d.m.queue.cursor != 3 {
		t.Fatalf("wheel down: cursor %d, want 3", d.m.queue.cursor)
	}
	d.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: 10, Y: 10})
	if d.m.queue.cursor != 0 {
		t.Fatalf("wheel up: cursor %d", d.m.queue.cursor)
	}
	d.key("enter")
	d.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown, X: 5, Y: 10}) // over the steps
	if d.m.trace.step != 1 {
		t.Fatalf("wheel over steps: step %d", d.m.trace.step)
	}
}

func TestReportOpensTheQueueOfAClass(t *testing.T) {
	st, _ := openFixtureStore(t)
	d := newDriver(t, st, 120, 40)
	d.keys("R", "j", "j", "j") // entity, semantic, structural, temporal
	d.mustSee("temporal")
	d.key("enter")
	if d.m.screen != screenQueue || len(d.m.queue.filter.Classes) != 1 || d.m.queue.filter.Classes[0] != "temporal" {
		t.Fatalf("screen %d filter %+v", d.m.screen, d.m.queue.filter)
	}
	if len(d.m.queue.rows) == 0 {
		t.Fatal("no temporal rows")
	}
	for _, r := range d.m.queue.rows {
		if r.Class() != "temporal" {
			t.Errorf("row %s has class %q", r.TraceID, r.Class())
		}
	}
}

func TestStatusFades(t *testing.T) {
	st, _ := openFixtureStore(t)
	d := newDriver(t, st, 100, 30)
	d.m.opts.StatusTTL = time.Hour // the tick is not run here; its message is sent by hand
	nm, _ := d.m.Update(keyMsg("s"))
	d.m = nm.(*Model)
	first := d.m.statusSeq
	if d.m.status == "" || first == 0 {
		t.Fatalf("no status after s: %q seq %d", d.m.status, first)
	}
	nm, _ = d.m.Update(keyMsg("s"))
	d.m = nm.(*Model)
	nm, _ = d.m.Update(clearStatusMsg{seq: first}) // the first message's timer: a newer one is up
	d.m = nm.(*Model)
	if d.m.status == "" {
		t.Fatal("an old timer cleared a newer message")
	}
	nm, _ = d.m.Update(clearStatusMsg{seq: d.m.statusSeq})
	d.m = nm.(*Model)
	if d.m.status != "" {
		t.Fatalf("status %q after its timer", d.m.status)
	}
}
