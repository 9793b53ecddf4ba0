package importers

// Conversation building shared by every importer: chat turns become
// ordered steps with one set of rules (call/result pairing, assistant text
// versus answer versus clarification), plus the argument and content
// normalisation the builders use.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// convBuilder feeds a conversation given piece by piece (the user's
// words, assistant text, thinking, calls and results, in order) to the one
// conversation builder, genConvo, one assistant message at a time, so the
// chat formats and the span formats share every rule.
type convBuilder struct {
	t   *model.Trace
	c   *genConvo
	msg []genPart // the assistant message being written
}

func newConvBuilder(t *model.Trace) *convBuilder {
	c := newGenConvo()
	c.chat = true
	return &convBuilder{t: t, c: c}
}

// flush ends the assistant message being written.
func (b *convBuilder) flush() {
	if len(b.msg) > 0 {
		b.c.message(genMsg{Role: "assistant", Parts: b.msg})
		// message keeps nothing of the parts: reuse their array.
		clear(b.msg)
		b.msg = b.msg[:0]
	}
}

// user adds the user's words.
func (b *convBuilder) user(text string) {
	b.flush()
	if text != "" {
		b.c.user(text)
	}
}

// say adds assistant text.
func (b *convBuilder) say(text string) {
	if text != "" {
		b.msg = append(b.msg, genPart{Kind: "text", Text: text})
	}
}

// think adds a thinking block.
func (b *convBuilder) think(text string) {
	if text != "" {
		b.msg = append(b.msg, genPart{Kind: "reasoning", Text: text})
	}
}

// call adds a tool call; one with no id gets a synthetic one a result
// given in order pairs with.
func (b *convBuilder) call(id, tool string, args json.RawMessage) {
	b.msg = append(b.msg, genPart{Kind: "call", ID: id, Name: tool, Args: args})
}

// result adds a tool result; with no call id it answers the oldest
// unanswered call.
func (b *convBuilder) result(callID, tool string, result json.RawMessage, isError bool) {
	b.flush()
	b.c.result(callID, tool, result, isError)
}

// finish ends the conversation and fills the trace's steps, tools and
// question.
func (b *convBuilder) finish() {
	b.flush()
	b.c.finish(b.t)
}

// settleTurns applies the rules of question and final answer to a
// conversation's steps: the final answer is the answer step after the
// last user turn, and answers of earlier turns become assistant messages,
// so the trace's final answer is never an earlier turn's (and when the
// last response only calls tools there is none). The question returned is
// the user turn the final answer answers, going back past the user's
// replies to clarifying questions; "" when there is no user step. An
// answer given through an output tool (pydantic-ai's final_result: the
// last call of the run, its arguments the structured answer) is the final
// answer.
func settleTurns(stepsp *[]model.Step) string {
	outputToolAnswer(stepsp)
	steps := *stepsp
	lastUser, lastAnswer := -1, -1
	for i, s := range steps {
		switch s.Kind {
		case model.KindUser:
			if !injectedTurn(s.Text) { // a framework's turn after the answer does not end it
				lastUser = i
			}
		case model.KindAnswer:
			lastAnswer = i
		}
	}
	// One final answer: the last one, after the last user turn. Earlier
	// answers (an earlier turn's, or text the model said before a later
	// reply) are assistant messages.
	for i := range steps {
		if steps[i].Kind == model.KindAnswer && (i < lastUser || i != lastAnswer) {
			steps[i].Kind = model.KindAssistant
		}
	}
	if u := questionTurn(steps); u >= 0 {
		return ownRequest(steps[u].Text)
	}
	return ""
}

// questionTurn is the index of the user turn the final answer answers: the
// last user turn, or, when that replies to a clarifying question, the turn
// the clarification was about; -1 when there is no user step.
func questionTurn(steps []model.Step) int {
	u, last := -1, -1
	for i, s := range steps {
		if s.Kind == model.KindUser {
			last = i
			if !injectedTurn(s.Text) {
				u = i // a turn the person wrote, not a framework (see question.go)
			}
		}
	}
	if u < 0 {
		u = last
	}
	if u < 0 {
		return -1
	}
	for {
		prev := u - 1
		for prev >= 0 && steps[prev].Kind != model.KindUser && steps[prev].Kind != model.KindClarification {
			prev--
		}
		if prev < 0 || steps[prev].Kind != model.KindClarification {
			break
		}
		// A reply to a clarifying question: the question came before it.
		for prev >= 0 && steps[prev].Kind != model.KindUser {
			prev--
		}
		if prev < 0 {
			break
		}
		u = prev
	}
	return u
}

// outputTool names the tools through which agent frameworks return their
// structured final answer.
var outputTool = map[string]bool{"final_result": true}

// outputToolAnswer adds the answer an output tool call carries when the
// run ends with it (and at most its acknowledgement) and no answer text.
func outputToolAnswer(stepsp *[]model.Step) {
	steps := *stepsp
	i := len(steps) - 1
	if i >= 0 && steps[i].Kind == model.KindToolResult {
		i--
	}
	if i < 0 || steps[i].Kind != model.KindToolCall || !outputTool[steps[i].Tool] {
		return
	}
	if j := len(steps) - 1; j > i && steps[j].CallID != steps[i].ID {
		return
	}
	*stepsp = append(steps, model.Step{Kind: model.KindAnswer, Text: string(steps[i].Args)})
}

var emptyArgs = json.RawMessage(`{}`)

// convArgs makes call arguments a JSON object: an object is kept, a JSON
// string holding an object is decoded, anything else becomes
// {"input": value}.
func convArgs(raw json.RawMessage) json.RawMessage {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return emptyArgs
	}
	switch raw[0] {
	case '{':
		return compactJSON(raw)
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return emptyArgs
		}
		inner := strings.TrimSpace(s)
		switch {
		case inner == "":
			return emptyArgs
		case inner[0] == '{' && json.Valid([]byte(inner)):
			return compactJSON([]byte(inner))
		case json.Valid([]byte(inner)):
			return wrapInput(compactJSON([]byte(inner)))
		}
		q, _ := json.Marshal(s)
		return wrapInput(q)
	}
	return wrapInput(compactJSON(raw))
}

func wrapInput(v []byte) json.RawMessage {
	return json.RawMessage(`{"input":` + string(v) + `}`)
}

// convResult keeps tool output text that is JSON as JSON, else makes it a
// JSON string.
func convResult(text string) json.RawMessage {
	if t := strings.TrimSpace(text); t != "" && json.Valid([]byte(t)) {
		return compactJSON([]byte(t))
	}
	q, _ := json.Marshal(text)
	return q
}

func compactJSON(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		q, _ := json.Marshal(string(raw))
		return q
	}
	return buf.Bytes()
}

func trimJSON(raw []byte) []byte { return bytes.TrimSpace(raw) }

// partsText reads message content given as a string, null, or an array of
// parts ({type:text|input_text|output_text, text} or plain strings); parts
// of other types (images, audio, files) carry no text and are skipped.
func partsText(raw json.RawMessage, path string) (string, *LineError) {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", &LineError{Path: path, Msg: "invalid JSON string"}
		}
		return s, nil
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", &LineError{Path: path, Msg: "expected an array of content parts"}
		}
		var texts []string
		for i, p := range parts {
			p = trimJSON(p)
			if len(p) > 0 && p[0] == '"' {
				var s string
				json.Unmarshal(p, &s)
				texts = append(texts, s)
				continue
			}
			var part struct {
				Type    string `json:"type"`
				Text    any    `json:"text"`
				Refusal string `json:"refusal"`
			}
			if len(p) == 0 || p[0] != '{' || json.Unmarshal(p, &part) != nil {
				return "", &LineError{Path: fmt.Sprintf("%s[%d]", path, i), Msg: "expected a content part object {type, text} or a string"}
			}
			switch part.Type {
			case "text", "input_text", "output_text", "":
				s, ok := part.Text.(string)
				if !ok && part.Text != nil {
					return "", &LineError{Path: fmt.Sprintf("%s[%d].text", path, i), Msg: "expected a string"}
				}
				if s != "" {
					texts = append(texts, s)
				}
			case "refusal":
				texts = append(texts, part.Refusal)
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", &LineError{Path: path, Msg: "expected a string or an array of content parts"}
}

// addContract records a tool the model saw, once per name, MCP-shaped,
// keeping the source's own tool object as Raw.
func addContract(t *model.Trace, tc model.ToolContract, raw []byte) {
	for _, have := range t.Tools {
		if have.Name == tc.Name {
			return
		}
	}
	tc.InputSchema = schemaOrNil(tc.InputSchema)
	tc.OutputSchema = schemaOrNil(tc.OutputSchema)
	tc.Annotations = schemaOrNil(tc.Annotations)
	tc.Raw = compactJSON(raw)
	t.Tools = append(t.Tools, tc)
}

func schemaOrNil(raw json.RawMessage) json.RawMessage {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return compactJSON(raw)
}

// genConvo builds the steps of one trace.
type genConvo struct {
	steps   []model.Step
	calls   idIndex  // call id -> step index
	results idIndex  // call id -> index of its tool_result step
	hist    []uint64 // message hashes of the conversation so far
	tools   []model.ToolContract
	toolIdx map[string]int
	answers []int // assistant text steps awaiting answer/clarification
	nextID  int
	texts   map[string]bool // role + text of the messages already stepped
	// chat is set for conversations given message by message (never as
	// re-sent histories): a result keeps the call id of a call not (yet)
	// in the trace, for records that continue an earlier one, and texts
	// need not be remembered for history matching.
	chat bool
}

// newGenConvo starts a conversation. Its maps are made on first write
// (see put): most chat records never need some of them, and a map per
// record per index showed up as a tenth of the chat importers' CPU time.
func newGenConvo() *genConvo { return &genConvo{} }

// put sets m[k] = v, making the map on first use.
func put[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}

// turn adds one model call: the messages it was sent (the history the
// previous call already showed is skipped) and the messages it produced.
func (c *genConvo) turn(in, out []genMsg) {
	hs := make([]uint64, 0, len(in)+len(out))
	for _, m := range in {
		hs = append(hs, genHash(m))
	}
	n := 0
	for n < len(hs) && n < len(c.hist) && hs[n] == c.hist[n] {
		n++
	}
	for _, m := range in[n:] {
		if !c.history(m) {
			c.message(m)
		}
	}
	for _, m := range out {
		hs = append(hs, genHash(m))
		c.message(m)
	}
	c.hist = hs
}

// history reports whether every part of a re-sent message is already a
// step (same text from the same role, a known call, an answered result):
// the history differed from the previous call's only in shape or order.
func (c *genConvo) history(m genMsg) bool {
	known, total := 0, 0
	for _, p := range m.Parts {
		switch p.Kind {
		case "text", "reasoning":
			total++
			if c.texts[m.Role+"\x00"+p.Text] || (m.Role == "user" && c.texts["bare\x00"+bareTurn(p.Text)]) {
				known++
			}
		case "call":
			total++
			if p.ID != "" && c.hasCall(p.ID) {
				known++
			}
		case "result":
			total++
			if p.ID != "" && c.isPaired(p.ID) {
				known++
			}
		}
	}
	return total > 0 && known == total
}

func genHash(m genMsg) uint64 {
	h := fnv.New64a()
	h.Write([]byte(m.Role))
	for _, p := range m.Parts {
		h.Write([]byte{0, byte(len(p.Kind))})
		h.Write([]byte(p.Kind))
		h.Write([]byte{0})
		h.Write([]byte(p.Text))
		h.Write([]byte{0})
		h.Write([]byte(p.ID))
		h.Write([]byte{0})
		h.Write([]byte(p.Name))
		h.Write([]byte{0})
		h.Write(p.Args)
		h.Write([]byte{0})
		h.Write(p.Result)
	}
	return h.Sum64()
}

// message adds the steps of one message.
func (c *genConvo) message(m genMsg) {
	switch m.Role {
	case "system":
		for _, p := range m.Parts {
			if p.Kind == "tooldef" {
				c.contract(p.Def)
			}
		}
	case "user", "tool":
		var texts []string
		for _, p := range m.Parts {
			switch p.Kind {
			case "text":
				if m.Role == "user" {
					texts = append(texts, p.Text)
				}
			case "result":
				c.result(p.ID, p.Name, p.Result, p.IsErr)
			case "tooldef":
				c.contract(p.Def)
			}
		}
		if len(texts) > 0 {
			c.user(strings.Join(texts, "\n"))
		}
	case "assistant":
		lastCall := -1
		for i, p := range m.Parts {
			if p.Kind == "call" {
				lastCall = i
			}
		}
		var texts []string
		for i, p := range m.Parts {
			switch p.Kind {
			case "reasoning":
				c.add(model.Step{Kind: model.KindReasoning, Text: p.Text})
			case "text":
				if p.Text == "None" || c.repeatsLast(p.Text) {
					// Python's None logged as text, or the same reply
					// logged by two observations of one call.
					continue
				}
				if i < lastCall {
					// Said before calling a tool: an assistant message,
					// not the answer, and not thinking either.
					c.add(model.Step{Kind: model.KindAssistant, Text: p.Text})
				} else {
					texts = append(texts, p.Text)
				}
			case "call":
				c.call(p.ID, p.Name, p.Args)
			case "result":
				c.result(p.ID, p.Name, p.Result, p.IsErr)
			}
		}
		if len(texts) > 0 {
			c.answers = append(c.answers, len(c.steps))
			c.add(model.Step{Kind: model.KindAnswer, Text: strings.Join(texts, "\n")})
		}
	}
}

func (c *genConvo) add(s model.Step) {
	if !c.chat {
		switch s.Kind {
		case model.KindUser:
			put(&c.texts, "user\x00"+s.Text, true)
			// Coding agents (goose) re-send a turn in later calls'
			// history with their <info-msg> block moved or gone: the same
			// turn, not a new one (see history).
			put(&c.texts, "bare\x00"+bareTurn(s.Text), true)
		case model.KindReasoning, model.KindAssistant, model.KindAnswer, model.KindClarification:
			put(&c.texts, "assistant\x00"+s.Text, true)
		}
	}
	c.steps = append(c.steps, s)
}

// repeatsLast reports whether text is the assistant text the trace ends
// with.
func (c *genConvo) repeatsLast(text string) bool {
	if n := len(c.steps); n > 0 {
		s := c.steps[n-1]
		return s.Text == text && (s.Kind == model.KindAnswer || s.Kind == model.KindAssistant)
	}
	return false
}

// prependUser puts a user step first, shifting the recorded indexes.
func (c *genConvo) prependUser(text string) {
	c.steps = append([]model.Step{{Kind: model.KindUser, Text: text}}, c.steps...)
	put(&c.texts, "user\x00"+text, true)
	c.calls.shift(1)
	c.results.shift(1)
	for i := range c.answers {
		c.answers[i]++
	}
}

func (c *genConvo) user(text string) {
	c.add(model.Step{Kind: model.KindUser, Text: text})
}

// call adds a tool_call unless one with that id is already there, and
// returns the id used (a synthetic one when the source gave none).
func (c *genConvo) call(id, name string, args json.RawMessage) string {
	if id != "" {
		if c.hasCall(id) {
			return id
		}
	} else {
		c.nextID++
		id = "call-" + strconv.Itoa(c.nextID)
		for c.hasCall(id) {
			c.nextID++
			id = "call-" + strconv.Itoa(c.nextID)
		}
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if name == "" {
		name = "unknown_tool" // the source named no tool; a call step needs one
	}
	c.calls.set(id, len(c.steps))
	c.add(model.Step{Kind: model.KindToolCall, ID: id, Tool: name, Args: args})
	return id
}

// pending finds the earliest unanswered call of a tool (by exact name or
// as the suffix of a span name like "execute_tool say_hello"), preferring
// one with the same arguments.
func (c *genConvo) pending(name string, args json.RawMessage) (string, bool) {
	first, firstIdx := "", -1
	same, sameIdx := "", -1
	for id, i := range c.calls.all {
		if c.isPaired(id) {
			continue
		}
		t := c.steps[i].Tool
		if name != "" && t != name && !strings.HasSuffix(name, " "+t) && !strings.HasSuffix(name, ":"+t) {
			continue
		}
		if len(args) > 0 && bytes.Equal(c.steps[i].Args, args) && (sameIdx < 0 || i < sameIdx) {
			same, sameIdx = id, i
		}
		if firstIdx < 0 || i < firstIdx {
			first, firstIdx = id, i
		}
	}
	if sameIdx >= 0 {
		return same, true
	}
	return first, firstIdx >= 0
}

// result adds a tool_result unless that call already has one.
func (c *genConvo) result(id, name string, result json.RawMessage, isErr bool) {
	if id == "" || !c.hasCall(id) {
		if pid, ok := c.pending(name, nil); ok {
			id = pid
		}
	}
	if id != "" && c.isPaired(id) {
		// Already answered; an empty result (a framework logging {})
		// gives way to the one the model was sent.
		if i, ok := c.results.get(id); ok && genEmpty(c.steps[i].Result) && !genEmpty(result) {
			c.steps[i].Result, c.steps[i].IsError = result, isErr
			genPaging(&c.steps[i])
		}
		return
	}
	if id != "" && !c.hasCall(id) {
		if c.chat {
			// Its call is in an earlier record the merger will fold in
			// (Responses API previous_response_id).
			s := model.Step{Kind: model.KindToolResult, CallID: id, Tool: name, Result: orNull(result), IsError: isErr}
			genPaging(&s)
			c.add(s)
			return
		}
		id = "" // a result whose call is not in the trace stays unpaired
	}
	if id == "" {
		for _, i := range c.results.all {
			if bytes.Equal(c.steps[i].Result, result) {
				return // history re-sent without its call id
			}
		}
	}
	if id == "" && name != "" {
		if pid, ok := c.answered(name); ok {
			c.result(pid, name, result, isErr) // history of an answered call
			return
		}
	}
	if id != "" {
		c.results.set(id, len(c.steps))
	}
	if id != "" {
		i, _ := c.calls.get(id)
		name = c.steps[i].Tool
	}
	s := model.Step{Kind: model.KindToolResult, CallID: id, Tool: name, Result: orNull(result), IsError: isErr}
	genPaging(&s)
	c.add(s)
}

func orNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage(`null`)
	}
	return r
}

// answered finds the latest call of the tool that already has a result.
func (c *genConvo) answered(name string) (string, bool) {
	best, bestIdx := "", -1
	for id, i := range c.calls.all {
		if c.isPaired(id) && c.steps[i].Tool == name && i > bestIdx {
			best, bestIdx = id, i
		}
	}
	return best, bestIdx >= 0
}

// genEmpty reports whether a result says nothing: {}, [], null or "".
func genEmpty(r json.RawMessage) bool {
	switch string(bytes.TrimSpace(r)) {
	case "", "{}", "[]", "null", `""`:
		return true
	}
	return false
}

func (c *genConvo) hasCall(id string) bool { _, ok := c.calls.get(id); return ok }

// isPaired reports whether the call id has its result.
func (c *genConvo) isPaired(id string) bool { _, ok := c.results.get(id); return ok }

// idIndex maps ids to step indexes: a slice scanned in order while small
// (most traces make a few calls, and a map per trace cost more than the
// scan), a map once it grows.
type idIndex struct {
	small []idPos
	m     map[string]int
}

type idPos struct {
	id  string
	pos int
}

const idIndexSmall = 16

func (x *idIndex) get(id string) (int, bool) {
	if x.m != nil {
		i, ok := x.m[id]
		return i, ok
	}
	for _, e := range x.small {
		if e.id == id {
			return e.pos, true
		}
	}
	return 0, false
}

func (x *idIndex) set(id string, pos int) {
	if x.m != nil {
		x.m[id] = pos
		return
	}
	for k := range x.small {
		if x.small[k].id == id {
			x.small[k].pos = pos
			return
		}
	}
	if len(x.small) < idIndexSmall {
		if x.small == nil {
			x.small = make([]idPos, 0, 4)
		}
		x.small = append(x.small, idPos{id, pos})
		return
	}
	x.m = make(map[string]int, 2*idIndexSmall)
	for _, e := range x.small {
		x.m[e.id] = e.pos
	}
	x.m[id], x.small = pos, nil
}

// all yields every id with its index (in no set order).
func (x *idIndex) all(yield func(string, int) bool) {
	if x.m != nil {
		for id, pos := range x.m {
			if !yield(id, pos) {
				return
			}
		}
		return
	}
	for _, e := range x.small {
		if !yield(e.id, e.pos) {
			return
		}
	}
}

// shift moves every index by d (a step put in front).
func (x *idIndex) shift(d int) {
	for id := range x.m {
		x.m[id] += d
	}
	for k := range x.small {
		x.small[k].pos += d
	}
}

// execution records a tool execution span or observation: it answers the
// matching call (by id, else by tool name and arguments), or adds both
// the call and its result when the model's call was not recorded.
func (c *genConvo) execution(id, name string, args json.RawMessage, result json.RawMessage, isErr bool) {
	if id == "" || !c.hasCall(id) {
		if pid, ok := c.pending(name, args); ok {
			id = pid
		} else if id == "" || !c.hasCall(id) {
			id = c.call(id, name, args)
		}
	}
	if result == nil && !isErr {
		return
	}
	c.result(id, name, result, isErr)
}

// genPaging copies the freshness (as_of) and pagination markers of a
// result onto its step.
func genPaging(s *model.Step) {
	if len(s.Result) == 0 || s.Result[0] != '{' || !pagingKeys(s.Result) {
		return
	}
	var p struct {
		AsOf        any  `json:"as_of"`
		AsOf2       any  `json:"asOf"`
		NextCursor  any  `json:"next_cursor"`
		NextCursor2 any  `json:"nextCursor"`
		HasMore     bool `json:"has_more"`
		HasMore2    bool `json:"hasMore"`
	}
	if json.Unmarshal(s.Result, &p) != nil {
		return
	}
	if v, ok := firstNonNil(p.NextCursor, p.NextCursor2).(string); ok {
		s.NextCursor = v
	}
	s.HasMore = p.HasMore || p.HasMore2
	if v, ok := firstNonNil(p.AsOf, p.AsOf2).(string); ok && validTime(v) {
		s.AsOf = v
	}
}

// pagingKeys reports whether result may hold a key genPaging reads: a
// byte scan, so the results that hold none (most) are not decoded again.
func pagingKeys(result []byte) bool {
	for _, k := range [...]string{`as_of"`, `asOf"`, `ursor"`, `as_more"`, `asMore"`} {
		if bytes.Contains(result, []byte(k)) {
			return true
		}
	}
	return false
}

// contract adds a tool definition once per name.
func (c *genConvo) contract(def map[string]any) {
	tc, ok := genContract(def)
	if !ok {
		return
	}
	c.addContract(tc)
}

func (c *genConvo) addContract(tc model.ToolContract) {
	if _, seen := c.toolIdx[tc.Name]; seen {
		return
	}
	put(&c.toolIdx, tc.Name, len(c.tools))
	c.tools = append(c.tools, tc)
}

// finish decides, for every assistant text that did not call a tool,
// whether it answered, asked the user something they then replied to
// (the text ends with a question), or narrated before calling tools, and
// fills the trace's question, tools and steps.
func (c *genConvo) finish(t *model.Trace) {
	for _, i := range c.answers {
		asks := strings.HasSuffix(strings.TrimRight(c.steps[i].Text, " \t\r\n\"')*_"), "?")
		for _, s := range c.steps[i+1:] {
			if s.Kind == model.KindUser {
				if asks {
					c.steps[i].Kind = model.KindClarification
				}
				break
			}
			if s.Kind == model.KindToolCall {
				// Text the model said before calling tools, with no
				// user turn between: an assistant message, not the answer.
				c.steps[i].Kind = model.KindAssistant
				break
			}
		}
	}
	if q := settleTurns(&c.steps); t.Question == "" {
		t.Question = q
	}
	t.Steps = c.steps
	if t.Steps == nil {
		t.Steps = []model.Step{}
	}
	for _, tc := range c.tools {
		if !slices.ContainsFunc(t.Tools, func(have model.ToolContract) bool { return have.Name == tc.Name }) {
			t.Tools = append(t.Tools, tc)
		}
	}
	if t.Outcome == "" {
		t.Outcome = model.OutcomeUnknown
	}
}
