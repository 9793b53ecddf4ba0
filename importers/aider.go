package importers

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// aider appends every chat to .aider.chat.history.md, a Markdown log: a
// session starts with "# aider chat started at YYYY-MM-DD HH:MM:SS", what
// the person typed is on lines prefixed "#### ", aider's own output
// (the command line, the model in use, "Applied edit to …", commits,
// "Tokens: 12,566 sent, 84 received. Cost: $0.0019 message, …") on lines
// prefixed "> ", and everything else is the model's reply. aider's edits
// are written in the reply (SEARCH/REPLACE blocks), not as tool calls, so
// a session is a conversation of user turns and replies. One trace per
// session that holds a user turn; a session with none (aider started and
// quit) is read past.
//
// Reference: aider's aider/io.py (chat history: "#### " user input, "> "
// tool output, the "# aider chat started at" header) and
// aider/coders/base_coder.py (the Tokens and Cost report).
func init() {
	register(Format{
		Name:     "aider",
		Priority: 90,
		Doc:      "aider chat history (.aider.chat.history.md: \"# aider chat started at\" sessions, \"#### \" user lines, \"> \" aider output); emitted by aider",
		Detect:   detectAider,
		Parse:    parseAider,
	})
}

const aiderHeader = "# aider chat started at "

func detectAider(head []byte) bool {
	if len(head) == 0 || head[0] == '{' || head[0] == '[' {
		return false
	}
	return bytes.HasPrefix(head, []byte(aiderHeader)) || bytes.Contains(head, []byte("\n"+aiderHeader))
}

// aiderSession is one session being read.
type aiderSession struct {
	run     *runAcc
	started string // the header's local time, as written
	block   []string
	kind    byte // 'u' user lines, 'a' reply lines, 0 none
	users   int
}

func parseAider(ctx context.Context, r io.Reader, file string, emit Emit) error {
	s := &aiderSession{run: newRunAcc(1)}
	flush := func() error {
		s.end()
		if s.users == 0 {
			if s.started != "" {
				return emit(Record{Line: s.run.line, Skip: &Skip{Path: "line " + strconv.Itoa(s.run.line), Reason: "aider session with no user message"}})
			}
			return nil
		}
		return emitAider(file, s, emit)
	}
	err := lines(ctx, r, func(n int, raw []byte) error {
		line := strings.TrimRight(string(raw), " \t\r")
		switch {
		case strings.HasPrefix(line, aiderHeader):
			if err := flush(); err != nil {
				return err
			}
			s = &aiderSession{run: newRunAcc(n), started: strings.TrimPrefix(line, aiderHeader)}
		case line == "####" || strings.HasPrefix(line, "#### "):
			s.to('u')
			s.block = append(s.block, strings.TrimPrefix(strings.TrimPrefix(line, "####"), " "))
		case line == ">" || strings.HasPrefix(line, "> "):
			s.to(0)
			s.info(strings.TrimPrefix(strings.TrimPrefix(line, ">"), " "))
		default:
			s.to('a')
			s.block = append(s.block, line)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// lines hands lines that are not blank; a blank line inside a reply is
// kept by the reader of the reply (see to).
func (s *aiderSession) to(kind byte) {
	if s.kind != kind {
		s.end()
		s.kind = kind
	}
}

// end closes the block of lines being read.
func (s *aiderSession) end() {
	text := strings.TrimSpace(strings.Join(s.block, "\n"))
	s.block = s.block[:0]
	if text == "" {
		return
	}
	switch s.kind {
	case 'u':
		s.run.c.user(text)
		s.users++
	case 'a':
		s.run.c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: text}}})
	}
}

var (
	aiderTokens = regexp.MustCompile(`^Tokens: ([\d.,]+k?) sent,.*?([\d.,]+k?) received\.(?: Cost: \$([\d.]+) (?:message|request))?`)
	aiderModel  = regexp.MustCompile(`^(?:Main model|Models?): (\S+)`)
)

// info reads aider's own output line: the model in use and what each
// message cost.
func (s *aiderSession) info(line string) {
	if m := aiderTokens.FindStringSubmatch(line); m != nil {
		usd, _ := strconv.ParseFloat(m[3], 64)
		s.run.usage(aiderCount(m[1]), aiderCount(m[2]), usd)
		return
	}
	if m := aiderModel.FindStringSubmatch(line); m != nil {
		s.run.setModel(m[1])
	}
}

// aiderCount reads a token count as aider prints it: 12,566 or 2.3k.
func aiderCount(s string) int64 {
	s = strings.ReplaceAll(s, ",", "")
	mult := 1.0
	if strings.HasSuffix(s, "k") {
		s, mult = strings.TrimSuffix(s, "k"), 1000
	}
	f, _ := strconv.ParseFloat(s, 64)
	return int64(f * mult)
}

func emitAider(file string, s *aiderSession, emit Emit) error {
	t := &model.Trace{Outcome: model.OutcomeUnknown}
	s.run.trace(t)
	q := aiderQuestion(t.Steps)
	if q == "" && !hasReply(t.Steps) {
		return emit(Record{Line: s.run.line, Skip: &Skip{Path: "line " + strconv.Itoa(s.run.line), Reason: "aider session with only commands and no reply"}})
	}
	if q != "" {
		t.Question = q
	}
	t.TraceID = genID("aider", []byte(file+"\x00"+strconv.Itoa(s.run.line)+"\x00"+s.started))
	if s.started != "" {
		// Local time with no zone: kept as written, not as started_at.
		t.Metadata = map[string]any{"started_local": s.started}
	}
	t.Source = model.Source{File: file, Format: "aider", Line: s.run.line}
	return emit(Record{Line: s.run.line, Trace: t})
}

// aiderQuestion is the last request the person typed: aider's own
// commands (/add, /diff, /run, /exit…) ask the model nothing and are
// passed over; /ask, /code and /architect carry a request after the
// command. "" when every user turn is a command.
func aiderQuestion(steps []model.Step) string {
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		if s.Kind != model.KindUser {
			continue
		}
		if !strings.HasPrefix(s.Text, "/") {
			return s.Text
		}
		for _, cmd := range []string{"/ask ", "/code ", "/architect "} {
			if rest, ok := strings.CutPrefix(s.Text, cmd); ok && strings.TrimSpace(rest) != "" {
				return strings.TrimSpace(rest)
			}
		}
	}
	return ""
}

// hasReply reports whether the model said anything.
func hasReply(steps []model.Step) bool {
	for _, s := range steps {
		if s.Kind == model.KindAnswer || s.Kind == model.KindAssistant {
			return true
		}
	}
	return false
}
