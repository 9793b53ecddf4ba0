package cli

import (
	"bytes"
	"strings"
	"testing"
)

// viaTable is rows as a table (tabwriter) writes them.
func viaTable(t *testing.T, rows string) string {
	t.Helper()
	var b bytes.Buffer
	tw := newTable(&b, 0)
	tw.Write([]byte(rows))
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteAlignedAsTable(t *testing.T) {
	for _, rows := range []string{
		"TRACE\tSERVER\tCLASS\nt1\ts\tentity\nt-longer\té\t-\n",
		"a\tb\n\t\n\tccc\n",
		"only\none\n",
		"x\t\ty\n1\t2\t3\n",
		"日本語\tx\nab\ty\n",
	} {
		var b bytes.Buffer
		ok, err := writeAligned(&b, []byte(rows))
		if err != nil || !ok {
			t.Fatalf("%q: %v %v", rows, ok, err)
		}
		if want := viaTable(t, rows); b.String() != want {
			t.Errorf("%q:\n got %q\nwant %q", rows, b.String(), want)
		}
	}
	for _, rows := range []string{"a\tb\nc\n", "a\tb\nc\td"} {
		if ok, _ := writeAligned(&bytes.Buffer{}, []byte(rows)); ok {
			t.Errorf("%q: aligned rows that are not a uniform table", rows)
		}
	}
}

// FuzzWriteAligned: any uniform table of clean cells comes out as a table
// writes it.
func FuzzWriteAligned(f *testing.F) {
	f.Add("a\tbb\tc", "dd\t\tee", 3)
	f.Fuzz(func(t *testing.T, first, second string, n int) {
		clean := func(s string) string {
			s = strings.ToValidUTF8(s, "?")
			return strings.Map(func(r rune) rune {
				if r < 0x20 && r != '\t' || r == 0x7f {
					return -1
				}
				return r
			}, s)
		}
		a, b := clean(first), clean(second)
		cells := strings.Count(a, "\t")
		for strings.Count(b, "\t") < cells {
			b += "\t"
		}
		for strings.Count(b, "\t") > cells {
			b = b[:strings.LastIndex(b, "\t")]
		}
		var rows strings.Builder
		for i := range max(0, n%5) + 1 {
			if i%2 == 0 {
				rows.WriteString(a + "\n")
			} else {
				rows.WriteString(b + "\n")
			}
		}
		var got bytes.Buffer
		ok, err := writeAligned(&got, []byte(rows.String()))
		if err != nil || !ok {
			t.Fatalf("%q: %v %v", rows.String(), ok, err)
		}
		if want := viaTable(t, rows.String()); got.String() != want {
			t.Fatalf("%q:\n got %q\nwant %q", rows.String(), got.String(), want)
		}
	})
}
