package scoring

import (
	"bufio"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tracelab-dev/tracelab/model"
)

// DefaultLexicon is the built-in list of hedging phrases that mark a guess.
var DefaultLexicon = []string{
	"sounds like", "probably", "I will assume", "I'll assume", "I assume",
	"presumably", "I guess", "seems to be", "likely", "my best guess",
}

var hasWord = regexp.MustCompile(`\w`)

// Marker is one hedging span in a step's text. Start and End are byte
// offsets into that step's Text, so the TUI can highlight text[Start:End].
type Marker struct {
	Step  int    `json:"step"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

// Lexicon finds guess markers. Build one with NewLexicon and reuse it: it is
// safe for concurrent use.
type Lexicon struct {
	phrases []string
	re      *regexp.Regexp // nil when there are no phrases
	// keys holds the longest word of each phrase, lower case: a text that
	// contains none of them (ASCII-folded) cannot match, and skips the
	// regular expression, which is the slow part.
	keys []string
	// ascii holds the phrases lower-cased when every one of them is ASCII:
	// then Find uses a byte matcher with the same semantics as re, which is
	// several times faster. nil means re does the matching.
	ascii [][]byte
	first [256]bool // first bytes of the ascii phrases
}

// NewLexicon compiles phrases into a matcher. Matching is case-insensitive
// and word-bounded; runs of spaces match any white space, and a straight
// apostrophe also matches the curly ones (I’ll). Longer phrases win over
// shorter ones that start at the same place.
func NewLexicon(phrases []string) (*Lexicon, error) {
	seen := map[string]bool{}
	var clean []string
	for _, p := range phrases {
		p = strings.Join(strings.Fields(strings.ToValidUTF8(p, "")), " ")
		if p == "" || seen[strings.ToLower(p)] {
			continue
		}
		if !hasWord.MatchString(p) {
			return nil, fmt.Errorf("marker phrase %q has no letters or digits", p)
		}
		seen[strings.ToLower(p)] = true
		clean = append(clean, p)
	}
	sort.SliceStable(clean, func(i, j int) bool { return len(clean[i]) > len(clean[j]) })
	lx := &Lexicon{phrases: clean}
	for _, p := range clean {
		key := ""
		for _, w := range strings.FieldsFunc(p, func(r rune) bool { return !(r < 128 && isWordByte(byte(r))) }) {
			if len(w) > len(key) {
				key = strings.ToLower(w)
			}
		}
		if key == "" {
			lx.keys = nil // a phrase with no ASCII word: always run the regexp
			break
		}
		lx.keys = append(lx.keys, key)
	}
	if len(clean) == 0 {
		return lx, nil
	}
	alts := make([]string, len(clean))
	for i, p := range clean {
		alts[i] = phrasePattern(p)
	}
	re, err := regexp.Compile(`(?i)(?:` + strings.Join(alts, "|") + `)`)
	if err != nil {
		return nil, err
	}
	lx.re = re
	for _, p := range clean {
		if !isASCIIPhrase(p) {
			lx.ascii = nil
			break
		}
		lp := []byte(strings.ToLower(p))
		lx.ascii = append(lx.ascii, lp)
		lx.first[lp[0]] = true
	}
	return lx, nil
}

// phrasePattern turns one phrase into a word-bounded pattern.
func phrasePattern(p string) string {
	var b strings.Builder
	if isWordByte(p[0]) {
		b.WriteString(`\b`)
	}
	for i, w := range strings.Split(p, " ") {
		if i > 0 {
			b.WriteString(`\s+`)
		}
		for j, part := range strings.Split(w, "'") {
			if j > 0 {
				b.WriteString(`['‘’]`)
			}
			b.WriteString(regexp.QuoteMeta(part))
		}
	}
	if isWordByte(p[len(p)-1]) {
		b.WriteString(`\b`)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Phrases lists the compiled phrases, longest first.
func (lx *Lexicon) Phrases() []string { return append([]string(nil), lx.phrases...) }

// MaxStepMarkers and MaxTraceMarkers bound the markers a score keeps: a
// reasoning step that is "probably " repeated to 63 MiB held 7 million
// markers and killed the process; past a handful the labeler learns
// nothing more from one step. The rest are counted (TraceScore.MarkersMore).
const (
	MaxStepMarkers  = 100
	MaxTraceMarkers = 1000
)

// Find returns the markers in one text, in order, for step index step.
func (lx *Lexicon) Find(step int, text string) []Marker {
	out, _ := lx.findN(step, text, -1)
	return out
}

// findN is Find keeping at most limit markers (all when limit < 0); more
// counts the ones found past it, without keeping them.
func (lx *Lexicon) findN(step int, text string, limit int) (out []Marker, more int) {
	if lx == nil || lx.re == nil || text == "" {
		return nil, 0
	}
	// ſ and the Kelvin sign fold to s and k, so the key words may be spelled
	// with them: such a text skips the prefilter.
	if lx.keys != nil && !strings.Contains(text, "ſ") && !strings.Contains(text, "\u212a") {
		lower := asciiLower(text)
		hit := false
		for _, k := range lx.keys {
			if strings.Contains(lower, k) {
				hit = true
				break
			}
		}
		if !hit {
			return nil, 0
		}
	}
	keep := func(m Marker) {
		if limit >= 0 && len(out) >= limit {
			more++
			return
		}
		out = append(out, m)
	}
	if lx.ascii != nil {
		lower := asciiLower(text)
		for i := 0; i < len(lower); {
			end := -1
			if lx.first[lower[i]] && (i == 0 || !isWordByte(lower[i-1]) || !isWordByte(lower[i])) {
				for _, p := range lx.ascii {
					if e := matchAt(lower, i, p); e > 0 {
						end = e
						break
					}
				}
			}
			if end < 0 {
				i++
				continue
			}
			keep(Marker{Step: step, Start: i, End: end, Text: text[i:end]})
			i = end
		}
		return out, more
	}
	if limit < 0 {
		for _, loc := range lx.re.FindAllStringIndex(text, -1) {
			keep(Marker{Step: step, Start: loc[0], End: loc[1], Text: text[loc[0]:loc[1]]})
		}
		return out, more
	}
	// One match at a time, so counting the rest keeps no index slices.
	for at := 0; at <= len(text); {
		loc := lx.re.FindStringIndex(text[at:])
		if loc == nil {
			break
		}
		s, e := at+loc[0], at+loc[1]
		keep(Marker{Step: step, Start: s, End: e, Text: text[s:e]})
		if e == s {
			e++
		}
		at = e
	}
	return out, more
}

// isASCIIPhrase: only printable ASCII, so the byte matcher applies.
func isASCIIPhrase(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] >= 0x7f {
			return false
		}
	}
	return true
}

// matchAt matches the lower-cased phrase p at lower[i:] the way
// phrasePattern's expression does: a space matches a run of white space, an
// apostrophe matches ' ‘ ’, and a word character at either end of p needs a
// word boundary. It returns the end offset, or -1.
func matchAt(lower string, i int, p []byte) int {
	j := i
	for k := 0; k < len(p); k++ {
		switch c := p[k]; {
		case c == ' ':
			n := j
			for n < len(lower) && isSpaceByte(lower[n]) {
				n++
			}
			if n == j {
				return -1
			}
			j = n
		case c == '\'':
			switch {
			case j < len(lower) && lower[j] == '\'':
				j++
			case strings.HasPrefix(lower[j:], "‘"), strings.HasPrefix(lower[j:], "’"):
				j += len("’")
			default:
				return -1
			}
		default:
			switch {
			case j < len(lower) && lower[j] == c:
				j++
			// Unicode case folding, as (?i) does: ſ is s, the Kelvin sign is k.
			case c == 's' && strings.HasPrefix(lower[j:], "ſ"):
				j += len("ſ")
			case c == 'k' && strings.HasPrefix(lower[j:], "\u212a"):
				j += len("\u212a")
			default:
				return -1
			}
		}
	}
	if isWordByte(p[0]) && i > 0 && isWordByte(lower[i-1]) {
		return -1
	}
	if isWordByte(p[len(p)-1]) && j < len(lower) && isWordByte(lower[j]) {
		return -1
	}
	return j
}

// isSpaceByte is RE2's \s: tab, new line, form feed, carriage return, space.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// asciiLower folds A-Z only, so byte offsets stay those of the text.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// TraceMarkers finds the markers in every reasoning, clarification and
// answer step of a trace (the model's own words), in step order: at most
// MaxStepMarkers of a step and MaxTraceMarkers in all; more counts the
// others.
func (lx *Lexicon) TraceMarkers(t *model.Trace) (out []Marker, more int) {
	for i, s := range t.Steps {
		switch s.Kind {
		case model.KindReasoning, model.KindAssistant, model.KindClarification, model.KindAnswer:
			limit := min(MaxStepMarkers, MaxTraceMarkers-len(out))
			ms, n := lx.findN(i, s.Text, limit)
			out = append(out, ms...)
			more += n
		}
	}
	return out, more
}

// ParseLexicon reads a lexicon file: one phrase per line; blank lines and
// lines starting with # are ignored, and so is a # comment after a phrase
// when preceded by white space. A phrase with no letters or digits is an
// error naming its line.
func ParseLexicon(text string) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		} else if i := strings.Index(line, "\t#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("line %d: not valid UTF-8", n)
		}
		if !hasWord.MatchString(line) {
			return nil, fmt.Errorf("line %d: %q has no letters or digits", n, line)
		}
		out = append(out, strings.Join(strings.Fields(line), " "))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", n+1, err)
	}
	return out, nil
}
