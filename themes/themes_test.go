package themes

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

func TestByName(t *testing.T) {
	cases := []struct {
		in, want string
		err      bool
	}{
		{"dark", "dark", false},
		{"Light", "light", false},
		{"high-contrast", "high-contrast", false},
		{"hc", "high-contrast", false},
		{"no-color", "no-color", false},
		{"solarized", "", true},
		{"", "", true},
	}
	for _, c := range cases {
		p, err := ByName(c.in)
		if (err != nil) != c.err || p.Name != c.want {
			t.Errorf("ByName(%q) = %q, %v", c.in, p.Name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "dark, light, high-contrast") {
			t.Errorf("error does not list the themes: %v", err)
		}
	}
}

func TestBuild(t *testing.T) {
	for _, p := range []Palette{Dark(), Light(), HighContrast(), NoColor()} {
		s := Build(p)
		mono := p.Name == "no-color"
		if s.Mono != mono {
			t.Errorf("%s: Mono = %v", p.Name, s.Mono)
		}
		kw := s.Chroma.Get(chroma.Keyword)
		if kw.Colour.IsSet() == mono {
			t.Errorf("%s: chroma keyword colored = %v", p.Name, kw.Colour.IsSet())
		}
		out := s.Selected.Render("row")
		if !strings.Contains(out, "row") || !strings.Contains(out, "\x1b[") {
			t.Errorf("%s: the selection is not visible: %q", p.Name, out)
		}
		if mono && strings.Contains(s.Error.Render("x")+s.OK.Render("x")+s.Marker.Render("x"), "38;") {
			t.Errorf("no-color palette draws a color")
		}
	}
	// Every role of the color palettes is set: an empty one would silently
	// fall back to the terminal's default.
	for _, p := range []Palette{Dark(), Light(), HighContrast()} {
		for _, v := range []string{p.Text, p.Subtle, p.Faint, p.Accent, p.OK, p.Warn, p.Error, p.Info, p.Marker,
			p.MarkerBg, p.SelFg, p.SelBg, p.Bar, p.StatusFg, p.StatusBg, p.HeaderBg, p.SynKeyword, p.SynString,
			p.SynNumber, p.SynName, p.SynPunct, p.SynComment, p.ClassHues[0], p.ClassHues[4]} {
			if len(v) != 7 || v[0] != '#' {
				t.Errorf("%s: role value %q is not #rrggbb", p.Name, v)
			}
		}
	}
}
