package scoring

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// AnswerCheck is the verdict of comparing a final answer with gold.answer.
// Correct is nil when the check could not decide (no gold answer, or no
// number in a text that had to carry one): a human has to look.
type AnswerCheck struct {
	Correct *bool
	Reason  string
}

// numberRe finds numbers as people write them: 1,284  $45,210.50  -3.5
// 1.2M  12%  4 million. Group 1 is a currency sign, 2 the number, 3 a
// scale word or suffix, 4 a percent sign. The character before the match
// (a minus, U+2212 or an opening parenthesis) and the one after it (a
// closing parenthesis) carry the sign of a negative amount: see
// negativeAmount.
var numberRe = regexp.MustCompile(`(?i)(?:^|[^\w.,])([$€£])?\s?(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s?(k|m|bn|b|thousand|million|billion)?\b(\s?%)?`)

// datey marks numbers that are parts of dates or times (2026-07-01,
// 2026-Q2, 09:12), which are never the answer's quantity.
var datey = regexp.MustCompile(`\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{4}-[qQ][1-4]\b|\b[qQ][1-4][ -]\d{4}\b|\b\d{1,2}:\d{2}\b|\bFY\s?\d{2,4}\b`)

// ParseNumbers returns every quantity in a text, scaled (1.2M = 1200000);
// a percentage is returned as written (12% = 12) with pct set.
func ParseNumbers(text string) (vals []float64, pct []bool) {
	masked := []byte(text)
	for _, loc := range datey.FindAllStringIndex(text, -1) {
		for i := loc[0]; i < loc[1]; i++ {
			masked[i] = ' '
		}
	}
	text = string(masked)
	for _, m := range numberRe.FindAllStringSubmatchIndex(text, -1) {
		num := text[m[4]:m[5]]
		v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
		if err != nil {
			continue
		}
		scale := ""
		if m[6] >= 0 {
			scale = text[m[6]:m[7]]
		}
		switch strings.ToLower(scale) {
		case "k", "thousand":
			v *= 1e3
		case "m", "million":
			v *= 1e6
		case "b", "bn", "billion":
			v *= 1e9
		}
		isPct := m[8] >= 0 && strings.HasSuffix(text[m[8]:m[9]], "%")
		if v > 0 && negativeAmount(text, m, isPct) {
			v = -v
		}
		vals = append(vals, v)
		pct = append(pct, isPct)
	}
	return vals, pct
}

// negativeAmount reads the sign a ledger writes around an amount:
// -$48,210.75, $-48,210.75 (the regexp's own minus), -48,210.75 USD,
// −48,210.75 (U+2212), and accounting parentheses (48,210.75). A minus
// must touch what follows it: "10 - 5" is a difference, not -5.
// Parentheses negate only an amount, with a currency sign, a thousands
// comma or decimals: "(3)" numbering an item, "(2019)" or "(12%)" in prose
// are not negative.
func negativeAmount(text string, m []int, isPct bool) bool {
	start := m[2] // the currency sign, else the number
	if start < 0 {
		start = m[4]
	}
	prefix := text[m[0]:start]
	switch prefix {
	case "-", "\u2212":
		// "2-3 days": a hyphen between two words is a range.
		return m[0] == 0 || !isWordByte(text[m[0]-1])
	case "(":
		end := m[1]
		if end >= len(text) || text[end] != ')' || isPct {
			return false
		}
		return m[2] >= 0 || strings.ContainsAny(text[m[4]:m[5]], ",.")
	}
	return false
}

// zeroWords state a count of zero in words ("has no open signals").
var zeroWords = regexp.MustCompile(`(?i)\b(no|none|zero|nothing|not any)\b`)

// normText lower-cases, folds curly quotes, collapses white space and drops
// surrounding punctuation and quotes.
func normText(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(strings.ToLower(s))
	s = strings.Join(strings.Fields(s), " ")
	return strings.Trim(s, ` .,;:!?"'`)
}

// containsPhrase reports whether needle occurs in hay on word boundaries;
// both are already normalized.
func containsPhrase(hay, needle string) bool {
	if needle == "" {
		return false
	}
	for off := 0; ; {
		i := strings.Index(hay[off:], needle)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(needle)
		if (i == 0 || !isWordByte(hay[i-1])) && (j == len(hay) || !isWordByte(hay[j])) {
			return true
		}
		off = i + 1
	}
}

func boolPtr(b bool) *bool { return &b }

// CheckAnswer compares a final answer text with a gold answer (number,
// string or array, as JSON) within an absolute tolerance (nil means exact,
// up to float rounding). Numbers are read from the text, strings are
// compared normalized, arrays as sets.
func CheckAnswer(gold json.RawMessage, tolerance *float64, answer string) AnswerCheck {
	var g any
	if len(gold) == 0 || json.Unmarshal(gold, &g) != nil || g == nil {
		return AnswerCheck{Reason: "no gold answer to compare with"}
	}
	tol := 1e-9
	if tolerance != nil {
		tol = math.Max(*tolerance, 1e-9)
	}
	if strings.TrimSpace(answer) == "" {
		return AnswerCheck{Correct: boolPtr(false), Reason: "the trace has no final answer"}
	}
	switch x := g.(type) {
	case float64:
		return checkNumber(x, tol, answer)
	case string:
		if v, err := strconv.ParseFloat(strings.ReplaceAll(x, ",", ""), 64); err == nil {
			return checkNumber(v, tol, answer)
		}
		if normText(answer) == normText(x) || containsPhrase(normText(answer), normText(x)) {
			return AnswerCheck{Correct: boolPtr(true), Reason: "answer states the gold text"}
		}
		return AnswerCheck{Correct: boolPtr(false), Reason: "answer does not state the gold text " + strconv.Quote(x)}
	case []any:
		return checkSet(x, tol, answer)
	case bool:
		a := normText(answer)
		yes := containsPhrase(a, "yes") || containsPhrase(a, "true")
		no := containsPhrase(a, "no") || containsPhrase(a, "false")
		if yes == no {
			return AnswerCheck{Reason: "cannot tell yes from no in the answer"}
		}
		return AnswerCheck{Correct: boolPtr(yes == x), Reason: "yes/no answer compared"}
	}
	return AnswerCheck{Reason: "gold answer is neither number, string nor array"}
}

func checkNumber(g, tol float64, answer string) AnswerCheck {
	vals, pct := ParseNumbers(answer)
	if len(vals) == 0 && zeroWords.MatchString(answer) {
		vals, pct = []float64{0}, []bool{false} // "has no open signals" states zero
	}
	if len(vals) == 0 {
		return AnswerCheck{Reason: "no number in the answer text"}
	}
	for i, v := range vals {
		if math.Abs(v-g) <= tol || pct[i] && math.Abs(v/100-g) <= tol {
			return AnswerCheck{Correct: boolPtr(true), Reason: "answer number " + strconv.FormatFloat(v, 'f', -1, 64) + " within tolerance"}
		}
	}
	return AnswerCheck{Correct: boolPtr(false), Reason: "no number in the answer is within tolerance of " + strconv.FormatFloat(g, 'f', -1, 64)}
}

// checkSet compares a gold array with the answer as sets: a JSON array
// answer element by element, else every gold element must be named in the
// text and the text must list no more items than the gold has.
func checkSet(gold []any, tol float64, answer string) AnswerCheck {
	var arr []any
	if json.Unmarshal([]byte(strings.TrimSpace(answer)), &arr) == nil {
		if len(arr) != len(gold) {
			return AnswerCheck{Correct: boolPtr(false), Reason: "answer list has a different number of items"}
		}
		for _, g := range gold {
			found := false
			for _, a := range arr {
				if sameElem(g, a, tol) {
					found = true
					break
				}
			}
			if !found {
				return AnswerCheck{Correct: boolPtr(false), Reason: "gold item " + scalarString(g) + " missing from the answer"}
			}
		}
		return AnswerCheck{Correct: boolPtr(true), Reason: "answer list equals the gold set"}
	}
	text := normText(answer)
	vals, _ := ParseNumbers(answer)
	var missing []string
	for _, g := range gold {
		found := false
		switch x := g.(type) {
		case float64:
			for _, v := range vals {
				if math.Abs(v-x) <= tol {
					found = true
				}
			}
		default:
			found = containsPhrase(text, normText(scalarString(g)))
		}
		if !found {
			missing = append(missing, scalarString(g))
		}
	}
	if len(missing) == len(gold) && len(gold) > 0 && zeroWords.MatchString(answer) {
		return AnswerCheck{Correct: boolPtr(false), Reason: "the answer says there are none; the gold lists " + strconv.Itoa(len(gold))}
	}
	if len(missing) == len(gold) && len(gold) > 0 {
		// Not one item named: the answer may describe them another way
		// (names instead of ids). A person has to judge.
		return AnswerCheck{Reason: "the answer names none of the gold items"}
	}
	if len(missing) > 0 {
		return AnswerCheck{Correct: boolPtr(false), Reason: "gold item " + missing[0] + " missing from the answer"}
	}
	if extra := extraItems(gold, answer); extra != "" {
		return AnswerCheck{Correct: boolPtr(false), Reason: "answer lists " + extra + ", not in the gold set"}
	}
	return AnswerCheck{Correct: boolPtr(true), Reason: "answer names every gold item"}
}

// extraItems finds an item the answer lists beyond the gold set. When the
// gold items are identifiers of one scheme (ZD-88412), any other token of
// that scheme in the text is extra; otherwise a plain list answer
// ("A, B and C") with more items than the gold is.
func extraItems(gold []any, answer string) string {
	shapes := map[string]bool{}
	goldSet := map[string]bool{}
	for _, g := range gold {
		s, ok := g.(string)
		if !ok || !idToken.MatchString(s) {
			shapes = nil
			break
		}
		sh, pre := idShape(s)
		shapes[sh+"|"+pre] = true
		goldSet[strings.ToUpper(s)] = true
	}
	if len(shapes) > 0 {
		for _, tok := range idToken.FindAllString(answer, -1) {
			sh, pre := idShape(tok)
			if shapes[sh+"|"+pre] && !goldSet[strings.ToUpper(tok)] {
				return tok
			}
		}
		return ""
	}
	if strings.ContainsAny(answer, "()") {
		return "" // prose with details per item: commas do not separate items
	}
	if items := listItems(answer); len(items) > len(gold) {
		return items[len(items)-1]
	}
	return ""
}

func sameElem(g, a any, tol float64) bool {
	gf, gok := g.(float64)
	af, aok := a.(float64)
	if gok && aok {
		return math.Abs(gf-af) <= tol
	}
	return normText(scalarString(g)) == normText(scalarString(a))
}

// listItems splits an answer written as a list (after an optional "label:"),
// on commas, semicolons, new lines and a final "and".
func listItems(answer string) []string {
	if i := strings.LastIndex(answer, ":"); i >= 0 && i < len(answer)-1 {
		answer = answer[i+1:]
	}
	answer = strings.NewReplacer(", and ", ",", " and ", ",", ";", ",", "\n", ",").Replace(answer)
	var out []string
	for _, p := range strings.Split(answer, ",") {
		if p = normText(strings.TrimLeft(strings.TrimSpace(p), "-*•0123456789.) ")); p != "" {
			out = append(out, p)
		}
	}
	return out
}
