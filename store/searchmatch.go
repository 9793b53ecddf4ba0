package store

import (
	"strings"
	"unicode"

	"github.com/tracelab-dev/tracelab/model"
)

// matcher decides which steps of a trace the index found are hits: the
// ones holding every term, each term's words in a row. Words are split
// as the index's tokenizer splits them (unicode61 with '_' a word
// character: runs of letters, digits and '_') and compared folded to
// lower case, so a step is a hit here exactly when the index would hold
// every term within it.
type matcher struct {
	terms [][]string // each term's words, lower case
	raw   []string   // the terms as typed, for snippets
}

func matcherOf(terms []string) *matcher {
	m := &matcher{raw: terms}
	for _, t := range terms {
		m.terms = append(m.terms, words(t))
	}
	return m
}

// words splits s into lower-case words.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isTokenRune(r) })
}

// holds says the words ws hold every term.
func (m *matcher) holds(ws []string) bool {
	for _, t := range m.terms {
		if !holdsRun(ws, t) {
			return false
		}
	}
	return true
}

// holdsRun says ws holds run as consecutive words.
func holdsRun(ws, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(ws); i++ {
		if ws[i] != run[0] {
			continue
		}
		j := 1
		for j < len(run) && ws[i+j] == run[j] {
			j++
		}
		if j == len(run) {
			return true
		}
	}
	return false
}

// hits appends the hits of one trace: its question, then each step
// holding every term, with a snippet of the text it was found in.
func (m *matcher) hits(dst []SearchHit, traceID, question, body string) ([]SearchHit, error) {
	if m.holds(words(question)) {
		dst = append(dst, SearchHit{TraceID: traceID, Step: QuestionStep, Kind: "question", Snippet: Snippet(question, m.raw)})
	}
	steps, err := decodeStepsBody(body, nil)
	if err != nil {
		return dst, err
	}
	for i := range steps {
		text := stepSearchText(&steps[i])
		if m.holds(words(text)) {
			dst = append(dst, SearchHit{TraceID: traceID, Step: i, Kind: string(steps[i].Kind), Snippet: Snippet(text, m.raw)})
		}
	}
	return dst, nil
}

// jsonSpaceEscapes are the JSON escapes migration 0018 makes spaces
// before indexing: "\nFROM" in a SQL string is then the word FROM.
var jsonSpaceEscapes = strings.NewReplacer(`\n`, " ", `\t`, " ", `\r`, " ")

// stepSearchText is what a step is searched in: its text, its tool, and
// its arguments and results as JSON text.
func stepSearchText(st *model.Step) string {
	parts := make([]string, 0, 4)
	for _, p := range []string{st.Text, st.Tool, jsonSpaceEscapes.Replace(string(st.Args)), jsonSpaceEscapes.Replace(string(st.Result))} {
		if strings.TrimFunc(p, unicode.IsSpace) != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}
