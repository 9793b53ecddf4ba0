package store

import "testing"

func TestQuestionKey(t *testing.T) {
	for in, want := range map[string]string{
		"How many active customers?":    "how many active customers",
		"  How   many, REALLY?? ":       "how many really",
		"Q3-2026 revenue (EMEA)":        "q3 2026 revenue emea",
		"":                              "",
		"?!":                            "",
		"Café revenue in Zürich":        "café revenue in zürich",
		"tab\tand\nnewline_under_score": "tab and newline under score",
	} {
		if got := QuestionKey(in); got != want {
			t.Errorf("QuestionKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzQuestionKey: the one-pass key of ASCII text is the general one.
func FuzzQuestionKey(f *testing.F) {
	for _, s := range []string{"How many active customers?", " a  b ", "A_B-C", "x\x7f\x00y", "İstanbul"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if got, want := QuestionKey(q), questionKeyUnicode(q); got != want {
			t.Fatalf("QuestionKey(%q) = %q, the general way gives %q", q, got, want)
		}
	})
}
