// Package themes holds every color tracelab draws with. A theme is a
// palette of semantic roles (text, subtle, accent, ok, warn, error, marker,
// selection, …) and Build turns a palette into every lipgloss style the
// workbench uses plus a chroma style for SQL and JSON. No other package
// defines a color.
package themes

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
)

// Names lists the themes `--theme` accepts, in help order.
var Names = []string{"dark", "light", "high-contrast"}

// Palette names colors by role. Values are "#rrggbb"; "" means the
// terminal's default (no color), which is what the no-color palette uses.
type Palette struct {
	Name string

	Text      string // body text
	Subtle    string // secondary text: ids, timestamps, hints
	Faint     string // rules, borders, empty bars
	Accent    string // titles, the focused pane's border, keys in help
	OK        string // required fields, confirmed, pass
	Warn      string // suggested, retries, needs review
	Error     string // forbidden fields, failures, validation errors
	Info      string // chips, the other fields
	Marker    string // guess-marker foreground
	MarkerBg  string // guess-marker background
	SelFg     string // selected row foreground
	SelBg     string // selected row background
	Bar       string // report bars
	StatusFg  string // status bar
	StatusBg  string
	HeaderBg  string // title bar background
	ClassHues [5]string

	// Syntax roles for chroma.
	SynKeyword, SynString, SynNumber, SynName, SynPunct, SynComment string
}

// Dark is the default palette on a dark background.
func Dark() Palette {
	return Palette{
		Name: "dark", Text: "#d8dee9", Subtle: "#8b95a7", Faint: "#4c566a", Accent: "#88c0d0",
		OK: "#a3be8c", Warn: "#ebcb8b", Error: "#bf616a", Info: "#b48ead",
		Marker: "#2e3440", MarkerBg: "#ebcb8b", SelFg: "#eceff4", SelBg: "#3b4252",
		Bar: "#81a1c1", StatusFg: "#d8dee9", StatusBg: "#2e3440", HeaderBg: "#3b4252",
		ClassHues:  [5]string{"#d08770", "#b48ead", "#81a1c1", "#ebcb8b", "#bf616a"},
		SynKeyword: "#81a1c1", SynString: "#a3be8c", SynNumber: "#b48ead", SynName: "#8fbcbb",
		SynPunct: "#8b95a7", SynComment: "#616e88",
	}
}

// Light is the palette for a light background.
func Light() Palette {
	return Palette{
		Name: "light", Text: "#24292f", Subtle: "#57606a", Faint: "#afb8c1", Accent: "#0969da",
		OK: "#1a7f37", Warn: "#9a6700", Error: "#cf222e", Info: "#8250df",
		Marker: "#24292f", MarkerBg: "#ffd33d", SelFg: "#24292f", SelBg: "#ddf4ff",
		Bar: "#0969da", StatusFg: "#24292f", StatusBg: "#eaeef2", HeaderBg: "#d0d7de",
		ClassHues:  [5]string{"#bc4c00", "#8250df", "#0969da", "#9a6700", "#cf222e"},
		SynKeyword: "#cf222e", SynString: "#0a3069", SynNumber: "#0550ae", SynName: "#953800",
		SynPunct: "#57606a", SynComment: "#6e7781",
	}
}

// HighContrast uses pure, saturated colors on black for low vision and
// bright rooms.
func HighContrast() Palette {
	return Palette{
		Name: "high-contrast", Text: "#ffffff", Subtle: "#d0d0d0", Faint: "#9e9e9e", Accent: "#00ffff",
		OK: "#00ff00", Warn: "#ffff00", Error: "#ff3030", Info: "#ff80ff",
		Marker: "#000000", MarkerBg: "#ffff00", SelFg: "#000000", SelBg: "#00ffff",
		Bar: "#00ffff", StatusFg: "#000000", StatusBg: "#ffffff", HeaderBg: "#303030",
		ClassHues:  [5]string{"#ff8000", "#ff80ff", "#00ffff", "#ffff00", "#ff3030"},
		SynKeyword: "#00ffff", SynString: "#00ff00", SynNumber: "#ff80ff", SynName: "#ffff00",
		SynPunct: "#ffffff", SynComment: "#9e9e9e",
	}
}

// NoColor draws with attributes only (bold, reverse, underline): NO_COLOR.
func NoColor() Palette { return Palette{Name: "no-color"} }

// ByName returns the palette called name.
func ByName(name string) (Palette, error) {
	switch strings.ToLower(name) {
	case "dark":
		return Dark(), nil
	case "light":
		return Light(), nil
	case "high-contrast", "highcontrast", "hc":
		return HighContrast(), nil
	case "no-color", "none":
		return NoColor(), nil
	}
	return Palette{}, fmt.Errorf("unknown theme %q (want one of %s)", name, strings.Join(Names, ", "))
}

// Styles is every style the workbench draws with, built from one palette.
type Styles struct {
	Palette Palette
	Mono    bool // no colors: selection and markers use attributes

	Text, Subtle, Faint, Accent, Bold  lipgloss.Style
	OK, Warn, Error, Info              lipgloss.Style
	Title, Header                      lipgloss.Style // screen title bar, table header
	Selected, Cursor                   lipgloss.Style // selected row, cursor marker
	SelectedIdle                       lipgloss.Style // the cursor row of a pane without focus
	Marker                             lipgloss.Style // a guess-marker span
	MarkerCurrent                      lipgloss.Style // the marker ] / [ went to
	Placeholder                        lipgloss.Style // an input's example text
	Chip, ChipKey                      lipgloss.Style // active filter chips
	Pane, PaneFocused                  lipgloss.Style // border color of panes
	Status, StatusKey, StatusMsg       lipgloss.Style
	StatusErr                          lipgloss.Style
	Dialog                             lipgloss.Style
	Bar, BarEmpty                      lipgloss.Style
	Spark                              lipgloss.Style    // a metric's history (report screen)
	Class                              [5]lipgloss.Style // per failure class, seed order
	Required, Forbidden, Neutral       lipgloss.Style    // field statuses
	Confirmed, Suggested, Unlabeled    lipgloss.Style    // label statuses
	HelpKey, HelpDesc, HelpSep         lipgloss.Style
	InputPrompt, InputText, InputError lipgloss.Style

	// Chroma is the syntax style for SQL and JSON, built from the palette.
	Chroma *chroma.Style
	tokens map[chroma.TokenType]lipgloss.Style // Token's cache
}

func col(hex string) color.Color {
	if hex == "" {
		return lipgloss.NoColor{}
	}
	return lipgloss.Color(hex)
}

// Build makes every style from a palette.
func Build(p Palette) Styles {
	mono := p.Text == ""
	fg := func(hex string) lipgloss.Style { return lipgloss.NewStyle().Foreground(col(hex)) }
	s := Styles{Palette: p, Mono: mono}
	s.Text = fg(p.Text)
	s.Subtle = fg(p.Subtle)
	s.Faint = fg(p.Faint)
	s.Accent = fg(p.Accent).Bold(true)
	s.Bold = fg(p.Text).Bold(true)
	s.OK = fg(p.OK)
	s.Warn = fg(p.Warn)
	s.Error = fg(p.Error).Bold(true)
	s.Info = fg(p.Info)
	s.Title = lipgloss.NewStyle().Foreground(col(p.Text)).Background(col(p.HeaderBg)).Bold(true)
	s.Header = fg(p.Subtle).Bold(true).Underline(mono)
	s.Selected = lipgloss.NewStyle().Foreground(col(p.SelFg)).Background(col(p.SelBg)).Bold(true)
	s.Cursor = fg(p.Accent).Bold(true)
	s.SelectedIdle = lipgloss.NewStyle().Foreground(col(p.SelFg)).Background(col(p.SelBg))
	s.Marker = lipgloss.NewStyle().Foreground(col(p.Marker)).Background(col(p.MarkerBg)).Bold(true)
	s.MarkerCurrent = lipgloss.NewStyle().Foreground(col(p.Marker)).Background(col(p.Accent)).Bold(true).Underline(true)
	s.Placeholder = fg(p.Faint).Italic(true)
	s.Chip = lipgloss.NewStyle().Foreground(col(p.Info))
	s.ChipKey = fg(p.Subtle)
	s.Pane = fg(p.Faint)
	s.PaneFocused = fg(p.Accent)
	if mono {
		s.PaneFocused = lipgloss.NewStyle().Bold(true)
	}
	s.Status = lipgloss.NewStyle().Foreground(col(p.StatusFg)).Background(col(p.StatusBg))
	s.StatusKey = lipgloss.NewStyle().Foreground(col(p.Accent)).Background(col(p.StatusBg)).Bold(true)
	s.StatusMsg = lipgloss.NewStyle().Foreground(col(p.OK)).Background(col(p.StatusBg))
	s.StatusErr = lipgloss.NewStyle().Foreground(col(p.Error)).Background(col(p.StatusBg)).Bold(true)
	s.Dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(col(p.Accent)).Padding(0, 1)
	s.Bar = fg(p.Bar)
	s.BarEmpty = fg(p.Faint)
	s.Spark = fg(p.Accent)
	for i, h := range p.ClassHues {
		s.Class[i] = fg(h)
	}
	s.Required = fg(p.OK).Bold(true)
	s.Forbidden = fg(p.Error).Bold(true)
	s.Neutral = fg(p.Subtle)
	s.Confirmed = fg(p.OK)
	s.Suggested = fg(p.Warn)
	s.Unlabeled = fg(p.Subtle)
	s.HelpKey = fg(p.Accent).Bold(true)
	s.HelpDesc = fg(p.Subtle)
	s.HelpSep = fg(p.Faint)
	s.InputPrompt = fg(p.Accent)
	s.InputText = fg(p.Text)
	s.InputError = fg(p.Error)
	if mono {
		// Attributes carry what color would: reverse for the selection and
		// the markers, bold for statuses that matter.
		s.Selected = lipgloss.NewStyle().Reverse(true)
		s.SelectedIdle = lipgloss.NewStyle().Underline(true)
		s.Marker = lipgloss.NewStyle().Reverse(true).Underline(true)
		s.MarkerCurrent = lipgloss.NewStyle().Reverse(true).Bold(true).Italic(true)
		s.Placeholder = lipgloss.NewStyle().Faint(true).Italic(true)
		s.Required = lipgloss.NewStyle().Bold(true)
		s.Forbidden = lipgloss.NewStyle().Bold(true).Underline(true)
		s.Status = lipgloss.NewStyle().Reverse(true)
		s.StatusKey = lipgloss.NewStyle().Reverse(true).Bold(true)
		s.StatusMsg = lipgloss.NewStyle().Reverse(true)
		s.StatusErr = lipgloss.NewStyle().Reverse(true).Bold(true)
		s.Title = lipgloss.NewStyle().Bold(true).Reverse(true)
	}
	s.Chroma = chromaStyle(p)
	s.tokens = map[chroma.TokenType]lipgloss.Style{}
	return s
}

// chromaStyle builds the syntax style of a palette; the no-color palette
// gets an empty style (plain text).
func chromaStyle(p Palette) *chroma.Style {
	name := "tracelab-" + p.Name
	if p.Text == "" {
		return chroma.MustNewStyle(name, chroma.StyleEntries{})
	}
	return chroma.MustNewStyle(name, chroma.StyleEntries{
		chroma.Text:                p.Text,
		chroma.Keyword:             "bold " + p.SynKeyword,
		chroma.KeywordConstant:     p.SynNumber,
		chroma.Operator:            p.SynKeyword,
		chroma.OperatorWord:        "bold " + p.SynKeyword,
		chroma.Name:                p.Text,
		chroma.NameBuiltin:         p.SynName,
		chroma.NameFunction:        p.SynName,
		chroma.NameTag:             p.SynName, // JSON keys
		chroma.String:              p.SynString,
		chroma.LiteralStringDouble: p.SynString,
		chroma.Number:              p.SynNumber,
		chroma.Punctuation:         p.SynPunct,
		chroma.Comment:             "italic " + p.SynComment,
	})
}

// Token is the lipgloss style of a chroma token type under this theme's
// chroma style, for drawing highlighted code cell by cell.
func (s *Styles) Token(tt chroma.TokenType) lipgloss.Style {
	if st, ok := s.tokens[tt]; ok {
		return st
	}
	e := s.Chroma.Get(tt)
	st := lipgloss.NewStyle()
	if e.Colour.IsSet() {
		st = st.Foreground(lipgloss.Color(e.Colour.String()))
	}
	if e.Bold == chroma.Yes {
		st = st.Bold(true)
	}
	if e.Italic == chroma.Yes {
		st = st.Italic(true)
	}
	if s.tokens == nil {
		s.tokens = map[chroma.TokenType]lipgloss.Style{}
	}
	s.tokens[tt] = st
	return st
}
