package app

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/template"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// The built-in judge's prompt: a versioned file in the repository whose
// sha256 is stored with each label it makes. It gives the model what a
// person sees on the trace screen: the question, the steps with the guess
// markers marked, the fields each call used, the gold and the scorer's
// evidence.

//go:embed prompts/judge-v1.tmpl
var builtinPrompt []byte

// BuiltinPromptName names the built-in prompt in messages and the manifest.
const BuiltinPromptName = "tracelab judge prompt v1"

// promptCap bounds what one trace puts into a prompt: a trace's results
// can be megabytes, and a model call is paid per token. Each step's args
// and result are cut to stepCap bytes first.
const (
	promptCap = 64 << 10
	stepCap   = 2 << 10
)

// JudgePrompt is a parsed prompt file with its hash.
type JudgePrompt struct {
	Name   string // the file, or BuiltinPromptName
	SHA256 string // of the file's bytes
	tmpl   *template.Template
}

// LoadJudgePrompt reads a prompt file ("" for the built-in one): a Go
// text/template defining "system" and "user" over PromptData.
func LoadJudgePrompt(path string) (*JudgePrompt, error) {
	data, name := builtinPrompt, BuiltinPromptName
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		name = path
	}
	t, err := template.New("prompt").Option("missingkey=error").Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	for _, def := range []string{"system", "user"} {
		if t.Lookup(def) == nil {
			return nil, fmt.Errorf(`%s: the prompt defines no {{define %q}} template`, name, def)
		}
	}
	sum := sha256.Sum256(data)
	return &JudgePrompt{Name: name, SHA256: hex.EncodeToString(sum[:]), tmpl: t}, nil
}

// PromptData is what a prompt template renders.
type PromptData struct {
	Question, Server, AsUser, UserRole, Answer string
	Steps                                      []PromptStep
	Gold                                       PromptGold
	Scorer                                     PromptScorer
}

// PromptStep is one step as the prompt shows it.
type PromptStep struct {
	Index                                    int
	Kind, Tool, Credential, AsOf, Text, Args string
	Result, Fields                           string
	IsError                                  bool
}

// PromptGold is the gold record, each part as one line.
type PromptGold struct {
	Answer, Tolerance, Required, Forbidden, Definition, Window, Freshness, PolicyScope string
}

// PromptScorer is the scorer's verdict and evidence.
type PromptScorer struct {
	Correct, Grounded, Class string
	Evidence                 []string
}

// render renders the system and user messages for one trace.
func (p *JudgePrompt) render(d PromptData) (system, user string, err error) {
	var b bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&b, "system", d); err != nil {
		return "", "", err
	}
	system = b.String()
	b.Reset()
	if err := p.tmpl.ExecuteTemplate(&b, "user", d); err != nil {
		return "", "", err
	}
	user = b.String()
	if len(user) > promptCap {
		user = cutUTF8(user, promptCap) + "\n[… the trace is cut here: it is longer than tracelab sends a judge]"
	}
	return system, user, nil
}

// promptData gathers what the prompt shows of one trace.
func promptData(t *model.Trace, sc *scoring.TraceScore, gold model.Gold) PromptData {
	d := PromptData{Question: t.Question, Server: t.Server, AsUser: t.AsUser, UserRole: t.UserRole, Answer: t.FinalAnswer()}
	markers := map[int][]scoring.Marker{}
	fields := map[int][]string{}
	if sc != nil {
		for _, m := range sc.Markers {
			markers[m.Step] = append(markers[m.Step], m)
		}
		for _, f := range sc.FieldsUsed {
			for _, s := range f.Steps {
				fields[s] = append(fields[s], f.Field+" ("+f.Status+")")
			}
		}
	}
	for i, s := range t.Steps {
		ps := PromptStep{Index: i, Kind: string(s.Kind), Tool: s.Tool, Credential: s.Credential, AsOf: s.AsOf, IsError: s.IsError,
			Text: markGuesses(s.Text, markers[i]), Args: cutUTF8(string(s.Args), stepCap), Result: cutUTF8(string(s.Result), stepCap)}
		if fs := fields[i]; len(fs) > 0 {
			sort.Strings(fs)
			ps.Fields = strings.Join(fs, ", ")
		}
		d.Steps = append(d.Steps, ps)
	}
	d.Gold = promptGold(gold)
	d.Scorer = promptScorer(sc)
	return d
}

func promptGold(g model.Gold) PromptGold {
	none := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	answer := strings.TrimSpace(string(g.Answer))
	if answer == "null" {
		answer = "" // a case's unset answer reads as the suggestion's absent one
	}
	pg := PromptGold{Answer: none(answer), Required: none(strings.Join(g.RequiredFields, ", ")),
		Forbidden: none(strings.Join(g.ForbiddenFields, ", ")), Definition: none(g.Definition), PolicyScope: none(g.PolicyScope),
		Window: "(none)", Freshness: "(none)"}
	if g.Tolerance != nil {
		pg.Tolerance = fmt.Sprint(*g.Tolerance)
	}
	if w := g.Window; w != nil {
		pg.Window = fmt.Sprintf("%s to %s (%s)", w.Start, w.End, none(w.Calendar))
	}
	if g.FreshnessBoundHours != nil {
		pg.Freshness = fmt.Sprintf("results at most %g hours old", *g.FreshnessBoundHours)
	}
	return pg
}

func promptScorer(sc *scoring.TraceScore) PromptScorer {
	tri := func(b *bool) string {
		if b == nil {
			return "undecided"
		}
		return fmt.Sprint(*b)
	}
	if sc == nil {
		return PromptScorer{Correct: "undecided", Grounded: "undecided", Class: "none"}
	}
	ps := PromptScorer{Correct: tri(sc.Correct), Grounded: tri(sc.Grounded), Class: "none"}
	if sc.SuggestedClass != nil {
		ps.Class = string(*sc.SuggestedClass)
	}
	for _, c := range sc.Classes {
		for _, ev := range c.Evidence {
			ps.Evidence = append(ps.Evidence, fmt.Sprintf("%s (confidence %.2f), step %d: %s", c.Class, c.Confidence, ev.Step, ev.Reason))
		}
	}
	for _, r := range sc.ReviewReasons {
		ps.Evidence = append(ps.Evidence, "needs review: "+r)
	}
	return ps
}

// markGuesses wraps each marker's span in ⟦guess: …⟧; spans that do not
// fit the text (a score older than the text) are left out.
func markGuesses(text string, ms []scoring.Marker) string {
	if len(ms) == 0 {
		return text
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Start < ms[j].Start })
	var b strings.Builder
	at := 0
	for _, m := range ms {
		if m.Start < at || m.End > len(text) || m.Start >= m.End {
			continue
		}
		b.WriteString(text[at:m.Start])
		b.WriteString("⟦guess: " + text[m.Start:m.End] + "⟧")
		at = m.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// cutUTF8 cuts s to at most n bytes at a rune boundary, saying so.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8RuneStart(s[i]) {
		i--
	}
	return s[:i] + fmt.Sprintf(" [… %d more bytes]", len(s)-i)
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// parseScore decodes a stored score (nil when there is none).
func parseScore(raw json.RawMessage) (*scoring.TraceScore, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var sc scoring.TraceScore
	if err := json.Unmarshal(raw, &sc); err != nil {
		return nil, err
	}
	return &sc, nil
}
