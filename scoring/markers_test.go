package scoring

import (
	"reflect"
	"strings"
	"testing"
)

func TestMarkers(t *testing.T) {
	lx, err := NewLexicon(DefaultLexicon)
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		start, end int
		text       string
	}
	tests := []struct {
		name string
		text string
		want []span
	}{
		{"seed reasoning", "is_active sounds like the right flag. region_code probably starts with EU for EMEA. I will filter on both.",
			[]span{{10, 21, "sounds like"}, {50, 58, "probably"}}},
		{"case-insensitive", "PROBABLY fine", []span{{0, 8, "PROBABLY"}}},
		{"word-bounded: unlikely is not likely", "that is unlikely", nil},
		{"word-bounded: probablyx", "probablyx", nil},
		{"straight apostrophe", "I'll assume fiscal", []span{{0, 11, "I'll assume"}}},
		{"curly apostrophe keeps byte offsets", "Ok. I’ll assume fiscal", []span{{4, 17, "I’ll assume"}}},
		{"longest phrase wins", "my best guess is Q2", []span{{0, 13, "my best guess"}}},
		{"I will assume not split into I assume", "I will assume EMEA", []span{{0, 13, "I will assume"}}},
		{"I assume", "I assume so", []span{{0, 8, "I assume"}}},
		{"line break inside a phrase", "it seems\nto be fine", []span{{3, 14, "seems\nto be"}}},
		{"several", "presumably yes; I guess so; likely", []span{{0, 10, "presumably"}, {16, 23, "I guess"}, {28, 34, "likely"}}},
		{"multibyte before", "é probably", []span{{3, 11, "probably"}}},
		{"none", "subscription_status in (ACTIVE, PAUSED_BILLING)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []span
			for _, m := range lx.Find(7, tt.text) {
				if m.Step != 7 {
					t.Errorf("step = %d", m.Step)
				}
				if tt.text[m.Start:m.End] != m.Text {
					t.Errorf("offsets %d:%d do not cut %q", m.Start, m.End, m.Text)
				}
				got = append(got, span{m.Start, m.End, m.Text})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseLexicon(t *testing.T) {
	got, err := ParseLexicon("# hedges\n\nmy hunch   is\nI'd wager # a comment\n  #indented comment\nif memory serves\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"my hunch is", "I'd wager", "if memory serves"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	lx, err := NewLexicon(append(DefaultLexicon, got...))
	if err != nil {
		t.Fatal(err)
	}
	if ms := lx.Find(0, "I’d wager it is EMEA"); len(ms) != 1 || ms[0].Text != "I’d wager" {
		t.Errorf("extended lexicon: %v", ms)
	}
	if _, err := ParseLexicon("ok\n---\n"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("want an error naming line 2, got %v", err)
	}
}

func FuzzMarkers(f *testing.F) {
	for _, s := range []string{"I’ll assume", "probably", "sounds  like", "\xff\xfe likely", "", "I‘ll ASSUME", "seems\tto\n be", "x_probably", "my best guessing", "I\u2019d I guess"} {
		f.Add(s)
	}
	lx, _ := NewLexicon(DefaultLexicon)
	// The same lexicon matched by the regular expression only: the byte
	// matcher must agree with it exactly.
	slow, _ := NewLexicon(DefaultLexicon)
	slow.ascii, slow.keys = nil, nil
	f.Fuzz(func(t *testing.T, text string) {
		last := -1
		got := lx.Find(0, text)
		for _, m := range got {
			if m.Start < last || m.End <= m.Start || m.End > len(text) || text[m.Start:m.End] != m.Text {
				t.Fatalf("bad marker %+v in %q", m, text)
			}
			last = m.End
		}
		if want := slow.Find(0, text); !reflect.DeepEqual(got, want) {
			t.Fatalf("byte matcher %v, regexp %v on %q", got, want, text)
		}
	})
}

func FuzzParseLexicon(f *testing.F) {
	f.Add("# c\nprobably\n\n")
	f.Add("a # b\n\t#x\n")
	f.Fuzz(func(t *testing.T, text string) {
		phrases, err := ParseLexicon(text)
		if err != nil {
			return
		}
		if _, err := NewLexicon(phrases); err != nil {
			t.Fatalf("parsed phrases do not compile: %v", err)
		}
	})
}
