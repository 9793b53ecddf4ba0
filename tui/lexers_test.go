package tui

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// The lexers built from lexers/ tokenize as chroma's registry's SQL and
// JSON lexers do (the test, not the binary, imports the registry).
func TestLexersAsChromas(t *testing.T) {
	for lang, inputs := range map[string][]string{
		"sql":  {"SELECT count(*) FROM customers c WHERE c.region = 'EU' -- x\nAND c.id > 0", "WITH a AS (SELECT 1) SELECT * FROM a"},
		"json": {`{"a": [1, 2.5, true, null, "s\"q"], "b": {}}`, "[\n  1\n]"},
	} {
		for _, in := range inputs {
			got, want := tokens(t, lexerOf[lang](), in), tokens(t, lexers.Get(lang), in)
			if len(got) != len(want) {
				t.Fatalf("%s %q: %d tokens, chroma's lexer gives %d", lang, in, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%s %q: token %d is %v, chroma's lexer gives %v", lang, in, i, got[i], want[i])
				}
			}
		}
	}
}

func tokens(t *testing.T, l chroma.Lexer, in string) []chroma.Token {
	t.Helper()
	it, err := chroma.Coalesce(l).Tokenise(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	return it.Tokens()
}
