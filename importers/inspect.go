package importers

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/tracelab-dev/tracelab/model"
)

// Inspect AI eval logs in JSON: one file is one eval log {version, status,
// eval, plan, results, stats, samples[]}; each sample becomes a trace. The
// log is read with a streaming decoder, one sample at a time, so a log with
// thousands of samples is never held whole.
//
// Reference: https://inspect.aisi.org.uk/eval-logs.html and the EvalLog,
// EvalSample and ChatMessage types of inspect_ai (log/_log.py,
// model/_chat_message.py). The binary .eval log (a zip archive holding
// header.json, or _journal/start.json while running, and one
// samples/<id>_epoch_<n>.json per sample) is read too, one sample at a
// time; the archive itself is held in memory, as zip needs random access.
func init() {
	register(Format{
		Name:     "inspect",
		Priority: 30,
		Doc:      "Inspect AI eval log (JSON): one trace per sample",
		Detect:   detectInspect,
		Parse:    parseInspect,
		Explain:  explainInspect,
	})
}

func detectInspect(head []byte) bool {
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return bytes.Contains(head, []byte("header.json")) || bytes.Contains(head, []byte("_journal/start.json")) ||
			bytes.Contains(head, []byte("samples/"))
	}
	s := sniff(head)
	return s.has("eval.task") && (s.has("version") || s.has("status") || s.has("samples"))
}

// explainInspect says what an Inspect event list lacks: the events of a
// sample (Inspect's test skeletons write them bare) without the eval log's
// "eval" header and "samples" that hold the conversation.
func explainInspect(head []byte) string {
	top := headObject(head)
	if top == nil || top["eval"] != nil || top["samples"] != nil {
		return ""
	}
	var events []struct {
		Event  string          `json:"event"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(top["events"], &events) != nil || len(events) == 0 || events[0].Event == "" {
		return ""
	}
	var kinds []string
	models, emptyModels, tools, noResult := 0, 0, 0, 0
	for _, e := range events {
		if !slices.Contains(kinds, e.Event) {
			kinds = append(kinds, e.Event)
		}
		switch e.Event {
		case "model":
			models++
			if genEmpty(e.Input) && genEmpty(e.Output) {
				emptyModels++
			}
		case "tool":
			tools++
			if genEmpty(e.Result) {
				noResult++
			}
		}
	}
	for i, k := range kinds {
		kinds[i] = strconv.Quote(k)
	}
	why := fmt.Sprintf("an Inspect event list (%d events: %s) without the eval log around it (no \"eval\" header, no \"samples\")",
		len(events), strings.Join(kinds, ", "))
	if emptyModels == models && noResult == tools {
		return why + fmt.Sprintf("; its %d model event(s) have no input and no output and its %d tool event(s) no result, so it holds no conversation", models, tools)
	}
	return why + "; import the .eval or .json log the events come from"
}

type inspectEval struct {
	Model   string `json:"model"`
	EvalID  string `json:"eval_id"`
	RunID   string `json:"run_id"`
	TaskID  string `json:"task_id"`
	Created string `json:"created"`
}

type inspectStats struct {
	StartedAt string `json:"started_at"`
}

type inspectUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
}

type inspectToolCall struct {
	ID        string          `json:"id"`
	Function  string          `json:"function"`
	Arguments json.RawMessage `json:"arguments"`
}

type inspectMessage struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"` // a string or a list of content parts
	ToolCalls  []inspectToolCall `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
	Function   string            `json:"function"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type inspectSample struct {
	ID       json.RawMessage  `json:"id"`
	Epoch    int              `json:"epoch"`
	Input    json.RawMessage  `json:"input"`
	Messages []inspectMessage `json:"messages"`
	Scores   map[string]struct {
		Value json.RawMessage `json:"value"`
	} `json:"scores"`
	Target     json.RawMessage         `json:"target"`
	Output     *inspectOutput          `json:"output"`
	ModelUsage map[string]inspectUsage `json:"model_usage"`
	Events     []inspectEvent          `json:"events"`
	// Logs written as .json before Inspect 0.3.5x keep the events under
	// transcript.
	Transcript struct {
		Events []inspectEvent `json:"events"`
	} `json:"transcript"`
	Attachments map[string]string `json:"attachments"`
	Error       json.RawMessage   `json:"error"`
}

type inspectOutput struct {
	Model string        `json:"model"`
	Usage *inspectUsage `json:"usage"`
}

type inspectEvent struct {
	Event     string            `json:"event"`
	Timestamp string            `json:"timestamp"`
	Tools     []json.RawMessage `json:"tools"`
	Model     string            `json:"model"`
	Output    json.RawMessage   `json:"output"` // an object; an attachment reference in some logs
}

// output is the event's model output, nil when it is not an object.
func (e *inspectEvent) output() *inspectOutput {
	var o inspectOutput
	if len(e.Output) == 0 || e.Output[0] != '{' || json.Unmarshal(e.Output, &o) != nil {
		return nil
	}
	return &o
}

// MetaTarget is the Metadata key under which an importer keeps the
// source's expected answer (Inspect's sample target): a suggestion for the
// case's gold answer, which only a person confirms.
const MetaTarget = "target"

func parseInspect(ctx context.Context, r io.Reader, file string, emit Emit) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	if magic, _ := br.Peek(4); string(magic) == "PK\x03\x04" {
		return parseInspectZip(ctx, br, file, emit)
	}
	lc := &lineCounter{r: br}
	dec := json.NewDecoder(lc)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err != nil {
			return docError(file, lc, err)
		}
		return &LineError{File: file, Line: 1, Msg: "expected an Inspect eval log object {version, eval, samples}"}
	}
	var (
		ev      inspectEval
		stats   inspectStats
		seenEv  bool
		pending []jsonValue // samples read before eval, rare
		status  string
		samples int
	)
	emitSample := func(v jsonValue) error {
		samples++
		t, lerr := inspectTrace(file, v, &ev, &stats)
		if lerr != nil {
			return emit(Record{Line: v.line, Err: lerr})
		}
		return emit(Record{Line: v.line, Trace: t})
	}
	decodeAt := func(key string, v any) error {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return docError(file, lc, err)
		}
		line := lc.lineAt(dec.InputOffset() - int64(len(raw)))
		if lerr := decodeLine(file, line, raw, v); lerr != nil {
			lerr.Path = joinPath(key, lerr.Path)
			return lerr
		}
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return docError(file, lc, err)
		}
		key, _ := tok.(string)
		switch key {
		case "eval":
			if err := decodeAt("eval", &ev); err != nil {
				return err
			}
			seenEv = true
			for _, v := range pending {
				if err := emitSample(v); err != nil {
					return err
				}
			}
			pending = nil
		case "stats":
			if err := decodeAt("stats", &stats); err != nil {
				return err
			}
		case "status":
			if err := decodeAt("status", &status); err != nil {
				return err
			}
		case "samples":
			tok, err := dec.Token()
			if err != nil {
				return docError(file, lc, err)
			}
			if tok == nil { // "samples": null
				continue
			}
			if tok != json.Delim('[') {
				return &LineError{File: file, Line: lc.lineAt(dec.InputOffset()), Path: "samples", Msg: "expected an array of samples"}
			}
			for i := 0; dec.More(); i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return docError(file, lc, err)
				}
				v := jsonValue{line: lc.lineAt(dec.InputOffset() - int64(len(raw))), path: fmt.Sprintf("samples[%d]", i), raw: raw}
				if !seenEv {
					pending = append(pending, v)
					continue
				}
				if err := emitSample(v); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return docError(file, lc, err)
			}
		default: // version, status, plan, results, reductions, …
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return docError(file, lc, err)
			}
		}
	}
	for _, v := range pending {
		if err := emitSample(v); err != nil {
			return err
		}
	}
	if samples == 0 {
		return noSamples(file, status)
	}
	return nil
}

// noSamples refuses a log that holds no conversation: a cancelled or
// failed run, or one written with samples left out.
func noSamples(file, status string) error {
	msg := "an Inspect eval log with no samples: nothing to import"
	if status != "" {
		msg = fmt.Sprintf("an Inspect eval log with no samples (status %q): nothing to import", status)
	}
	return &LineError{File: file, Msg: msg}
}

func inspectTrace(file string, v jsonValue, ev *inspectEval, stats *inspectStats) (*model.Trace, *LineError) {
	fail := func(lerr *LineError) (*model.Trace, *LineError) {
		lerr.File, lerr.Line, lerr.Path = file, v.line, joinPath(v.path, lerr.Path)
		return nil, lerr
	}
	if len(v.raw) == 0 || v.raw[0] != '{' {
		return fail(&LineError{Msg: "expected a sample object {id, epoch, input, messages}"})
	}
	var s inspectSample
	if lerr := decodeLine(file, v.line, v.raw, &s); lerr != nil {
		return fail(lerr)
	}
	t := &model.Trace{Outcome: model.OutcomeUnknown, RunID: ev.RunID,
		Source: model.Source{File: file, Format: "inspect", Line: v.line}}
	if lerr := inspectMessages(t, &s); lerr != nil {
		return fail(lerr)
	}
	if t.Question == "" {
		if q, _ := partsText(s.Input, ""); q != "" {
			t.Question = s.attachment(q)
		}
	}
	if len(t.Steps) == 0 {
		return fail(&LineError{Path: "messages", Msg: "no user, assistant or tool message to import"})
	}
	events := append(s.Events, s.Transcript.Events...)
	inspectEventTools(t, events)
	for _, ts := range []string{stats.StartedAt, ev.Created} {
		if t.StartedAt == "" && validTime(ts) {
			t.StartedAt = ts
		}
	}
	inspectUsageAndModel(t, &s, events)
	t.Model = firstNonEmpty(t.Model, ev.Model)
	if target := inspectTarget(s.Target); target != "" {
		t.Metadata = map[string]any{MetaTarget: target}
	}
	t.Outcome = inspectOutcome(&s)
	id := firstNonEmpty(ev.EvalID, ev.RunID, ev.TaskID)
	sid := strings.Trim(string(trimJSON(s.ID)), `"`)
	if id != "" && sid != "" {
		t.TraceID = id + "/" + sid + "/" + strconv.Itoa(s.Epoch)
	} else {
		t.TraceID = hashID("inspect", v.raw)
	}
	return t, nil
}

// attachment is the full text an "attachment://<hash>" reference stands
// for; any other text as it is.
func (s *inspectSample) attachment(text string) string {
	if h, ok := strings.CutPrefix(text, "attachment://"); ok {
		if full, ok := s.Attachments[h]; ok {
			return full
		}
	}
	return text
}

// inspectMessages turns the sample's messages into steps; the error's
// path is inside the sample.
func inspectMessages(t *model.Trace, s *inspectSample) *LineError {
	b := newConvBuilder(t)
	for i, m := range s.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		texts, reasoning, lerr := inspectContent(m.Content, s.attachment)
		if lerr != nil {
			lerr.Path = joinPath(at, lerr.Path)
			return lerr
		}
		switch m.Role {
		case "system":
		case "user":
			b.user(texts)
		case "assistant":
			for _, r := range reasoning {
				b.think(r)
			}
			b.say(texts)
			for j, c := range m.ToolCalls {
				if c.Function == "" {
					return &LineError{Path: fmt.Sprintf("%s.tool_calls[%d].function", at, j), Msg: "required, the name of the called tool"}
				}
				b.call(c.ID, c.Function, convArgs(inspectArgs(c.Arguments, s.attachment)))
			}
		case "tool":
			res := texts
			if res == "" && m.Error != nil {
				res = m.Error.Message
			}
			b.result(m.ToolCallID, m.Function, convResult(res), m.Error != nil)
		default:
			return &LineError{Path: at + ".role", Msg: fmt.Sprintf("%q is not one of system, user, assistant, tool", m.Role)}
		}
	}
	b.finish()
	return nil
}

// inspectEventTools takes the trace's start from the first event with a
// valid timestamp and the tool contracts from the events that list tools.
func inspectEventTools(t *model.Trace, events []inspectEvent) {
	for _, e := range events {
		if t.StartedAt == "" && validTime(e.Timestamp) {
			t.StartedAt = e.Timestamp
		}
		for _, raw := range e.Tools {
			var tool struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			}
			if json.Unmarshal(raw, &tool) == nil && tool.Name != "" {
				addContract(t, model.ToolContract{Name: tool.Name, Description: tool.Description, InputSchema: tool.Parameters}, raw)
			}
		}
	}
}

// addInspectUsage adds one usage record. OpenAI counts cached input
// inside input_tokens, Anthropic beside it; total_tokens covers both ways.
func addInspectUsage(t *model.Trace, u inspectUsage) {
	t.Usage.InputTokens += max(u.InputTokens, u.TotalTokens-u.OutputTokens)
	t.Usage.OutputTokens += u.OutputTokens
}

// inspectUsageAndModel reads the tokens and the model: the sample's
// per-model totals, else (older logs) each model event's usage, else the
// output's.
func inspectUsageAndModel(t *model.Trace, s *inspectSample, events []inspectEvent) {
	if len(s.ModelUsage) == 1 { // the common case needs no sorted copy of the keys
		for name, u := range s.ModelUsage {
			addInspectUsage(t, u)
			t.Model = name
		}
	} else {
		for _, name := range slices.Sorted(maps.Keys(s.ModelUsage)) {
			addInspectUsage(t, s.ModelUsage[name])
			t.Model = firstNonEmpty(t.Model, name)
		}
	}
	// Older logs carry no totals: each model event has its call's usage.
	noTotals := len(s.ModelUsage) == 0
	for _, e := range events {
		if e.Event != "model" {
			continue
		}
		out := e.output()
		if out == nil {
			continue
		}
		t.Model = firstNonEmpty(t.Model, out.Model, e.Model)
		if noTotals && out.Usage != nil {
			addInspectUsage(t, *out.Usage)
		}
	}
	if t.Usage.InputTokens == 0 && t.Usage.OutputTokens == 0 && s.Output != nil && s.Output.Usage != nil {
		addInspectUsage(t, *s.Output.Usage)
	}
	if s.Output != nil {
		t.Model = firstNonEmpty(t.Model, s.Output.Model)
	}
}

// inspectTarget reads a sample's target: a string, or a list of accepted
// answers joined one per line.
func inspectTarget(raw json.RawMessage) string {
	if raw = trimJSON(raw); len(raw) == 0 || string(raw) == "null" {
		return "" // most samples have none: no decode (and no error) to pay for
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return strings.TrimSpace(one)
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for i := range many {
			many[i] = strings.TrimSpace(many[i])
		}
		return strings.TrimSpace(strings.Join(many, "\n"))
	}
	return ""
}

// inspectContent reads message content: a string, or parts {type:text,
// text} and {type:reasoning, reasoning, redacted}; other parts (images,
// audio) carry no text.
func inspectContent(raw json.RawMessage, att func(string) string) (string, []string, *LineError) {
	raw = trimJSON(raw)
	if len(raw) == 0 || raw[0] != '[' {
		text, lerr := partsText(raw, "content")
		return att(text), nil, lerr
	}
	var parts []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		Reasoning string `json:"reasoning"`
		Summary   string `json:"summary"`
		Redacted  bool   `json:"redacted"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		lerr := jsonError("", 0, raw, err)
		lerr.Path = joinPath("content", lerr.Path)
		return "", nil, lerr
	}
	var texts, reasoning []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			if p.Text != "" {
				texts = append(texts, att(p.Text))
			}
		case "reasoning":
			switch {
			case p.Redacted && p.Summary != "":
				reasoning = append(reasoning, att(p.Summary))
			case p.Redacted:
				reasoning = append(reasoning, "[redacted thinking]")
			case p.Reasoning != "":
				reasoning = append(reasoning, att(p.Reasoning))
			}
		}
	}
	return strings.Join(texts, "\n"), reasoning, nil
}

// inspectArgs resolves attachment:// references inside call arguments.
func inspectArgs(raw json.RawMessage, att func(string) string) json.RawMessage {
	if !strings.Contains(string(raw), "attachment://") {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case string:
			return att(x)
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return x
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return raw
	}
	return out
}

// inspectOutcome reads the scorers' verdicts: every score correct ("C",
// true, 1) is pass, every score incorrect ("I", false, 0) or a sample error
// is failure; anything else (partial credit, mixed verdicts) is unknown.
func inspectOutcome(s *inspectSample) model.Outcome {
	if e := trimJSON(s.Error); len(e) > 0 && string(e) != "null" {
		return model.OutcomeFailure
	}
	out := model.OutcomeUnknown
	for _, sc := range s.Scores {
		var o model.Outcome
		switch strings.Trim(string(trimJSON(sc.Value)), `"`) {
		case "C", "true", "1", "1.0":
			o = model.OutcomePass
		case "I", "false", "0", "0.0":
			o = model.OutcomeFailure
		default:
			return model.OutcomeUnknown
		}
		if out != model.OutcomeUnknown && out != o {
			return model.OutcomeUnknown
		}
		out = o
	}
	return out
}

// Caps on what an .eval archive may inflate to, so a small zip cannot
// make the import exhaust memory (an archive bomb): per member (a member
// is one record, so the record cap, --max-record, applies when it is
// lower), and for the whole file.
// Variables so tests can lower them.
var (
	maxMemberBytes  int64 = 256 << 20
	maxArchiveBytes int64 = 1 << 30
)

// zipMethodZstd is the zip method number of zstd, which Inspect writes
// by default since 0.3.x.
const zipMethodZstd = 93

// parseInspectZip reads a binary .eval log: the header (eval spec and
// stats) and then each sample entry in archive order, each member decoded
// as it inflates.
func parseInspectZip(ctx context.Context, r io.Reader, file string, emit Emit) error {
	// The archive is read whole (zip's directory is at its end), so its
	// own size is capped before it is held, as what it inflates to is.
	data, err := io.ReadAll(io.LimitReader(r, maxArchiveBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if int64(len(data)) > maxArchiveBytes {
		return &LineError{File: file, Msg: fmt.Sprintf("the .eval archive is over %d MiB, the cap on a whole .eval file", maxArchiveBytes>>20)}
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return &LineError{File: file, Msg: "not a readable .eval (zip) archive: " + err.Error()}
	}
	zr.RegisterDecompressor(zipMethodZstd, func(r io.Reader) io.ReadCloser {
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return io.NopCloser(errReader{err})
		}
		return d.IOReadCloser()
	})
	var inflated int64 // bytes inflated so far, all members
	memberCap := min(maxMemberBytes, recordCap(ctx))
	read := func(f *zip.File) ([]byte, *LineError) {
		rc, err := f.Open()
		if err != nil {
			return nil, &LineError{File: file, Path: memberPath(f.Name), Msg: err.Error()}
		}
		defer rc.Close()
		cr := &capReader{r: rc, member: memberCap, file: maxArchiveBytes - inflated}
		var raw json.RawMessage
		err = json.NewDecoder(cr).Decode(&raw)
		inflated += cr.n
		switch {
		case cr.over != "":
			return nil, &LineError{File: file, Path: memberPath(f.Name), Msg: cr.over}
		case err != nil:
			return nil, &LineError{File: file, Path: memberPath(f.Name), Msg: "invalid JSON: " + err.Error()}
		}
		return raw, nil
	}
	var head struct {
		Status string       `json:"status"`
		Eval   inspectEval  `json:"eval"`
		Stats  inspectStats `json:"stats"`
	}
	samples := 0
	found := false
	for _, name := range []string{"header.json", "_journal/start.json"} {
		for _, f := range zr.File {
			if f.Name != name || found {
				continue
			}
			b, lerr := read(f) // its error names the member already
			if lerr != nil {
				return lerr
			}
			if lerr = decodeLine(file, 0, b, &head); lerr != nil {
				lerr.Path = strings.TrimSuffix(memberPath(name)+": "+lerr.Path, ": ")
				return lerr
			}
			found = true
		}
	}
	if !found {
		return &LineError{File: file, Msg: "an .eval archive without header.json or _journal/start.json"}
	}
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "samples/") || !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		samples++
		if err := ctx.Err(); err != nil {
			return err
		}
		b, lerr := read(f)
		if lerr != nil {
			if err := emit(Record{Err: lerr}); err != nil {
				return err
			}
			continue
		}
		t, lerr := inspectTrace(file, jsonValue{path: memberPath(f.Name), raw: b}, &head.Eval, &head.Stats)
		if lerr != nil {
			lerr.Path = strings.Replace(lerr.Path, memberPath(f.Name)+".", memberPath(f.Name)+": ", 1)
			if err := emit(Record{Err: lerr}); err != nil {
				return err
			}
			continue
		}
		if err := emit(Record{Trace: t}); err != nil {
			return err
		}
	}
	if samples == 0 {
		return noSamples(file, head.Status)
	}
	return nil
}

// memberPath names a zip member in an error, quoted like a value: a
// member name is the archive writer's to choose, escape sequences and all.
func memberPath(name string) string { return strconv.Quote(name) }

// capReader stops a member's inflation at the member cap or at what is
// left of the file's.
type capReader struct {
	r            io.Reader
	member, file int64 // bytes allowed
	n            int64 // bytes read
	over         string
}

func (c *capReader) Read(p []byte) (int, error) {
	limit := min(c.member, c.file)
	if c.n >= limit {
		if c.member <= c.file {
			c.over = fmt.Sprintf("inflates past %d MiB, the cap on one .eval member (--max-record raises it up to 256 MiB)", c.member>>20)
		} else {
			c.over = fmt.Sprintf("inflates the archive past %d MiB, the cap on a whole .eval file", maxArchiveBytes>>20)
		}
		return 0, errors.New(c.over)
	}
	if int64(len(p)) > limit-c.n {
		p = p[:limit-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
