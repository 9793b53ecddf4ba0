package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Langfuse trace exports: the public API's trace with nested
// observations[], or {trace, observations} side by side, one per file or
// one per line; input, output and metadata may be JSON-encoded strings.
func init() {
	register(Format{
		Name:     "langfuse",
		Priority: 50,
		Doc:      "Langfuse trace exports: a trace with observations[] (GENERATION, TOOL, SPAN...), or {trace, observations}",
		Detect: func(head []byte) bool {
			m := headObject(head)
			if m == nil {
				return false
			}
			if t, ok := m["trace"]; ok && t == nil && len(m) == 1 {
				// {"trace": {...}} longer than the head: observations
				// come after it.
				return bytes.Contains(head, []byte(`"userId"`)) || bytes.Contains(head, []byte(`"projectId"`))
			}
			if _, ok := m["observations"]; !ok {
				return false
			}
			_, trace := m["trace"]
			_, id := m["id"]
			_, project := m["projectId"]
			return trace || id || project
		},
		Parse: parseLangfuse,
	})
}

func parseLangfuse(ctx context.Context, r io.Reader, file string, emit Emit) error {
	return genRecords(ctx, r, perRecord(file, emit, ParseLangfuseTrace, setTrace))
}

// ParseLangfuseTrace reads one exported trace.
func ParseLangfuseTrace(file string, line int, raw []byte) (*model.Trace, *LineError) {
	bad := func(path, format string, args ...any) (*model.Trace, *LineError) {
		return nil, &LineError{File: file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	if len(raw) == 0 || raw[0] != '{' {
		return bad("", "expected a JSON object: a Langfuse trace with observations, or {trace, observations}")
	}
	v, err := genDecode(raw)
	if err != nil {
		return nil, jsonError(file, line, raw, err)
	}
	doc, _ := v.(map[string]any)
	tr := doc
	tracePath := ""
	if t, ok := doc["trace"]; ok {
		if tr, ok = t.(map[string]any); !ok {
			return bad("trace", "expected an object")
		}
		tracePath = "trace."
	}
	obsPath := "observations"
	obsV, ok := doc["observations"]
	if !ok {
		obsV, obsPath = tr["observations"], tracePath+"observations"
	}
	list, ok := obsV.([]any)
	if !ok {
		return bad(obsPath, "expected an array of observations")
	}
	var obs []map[string]any
	for i, o := range list {
		switch om := o.(type) {
		case map[string]any:
			if gStr(om, "type") == "" {
				return bad(fmt.Sprintf("%s[%d].type", obsPath, i), "required: GENERATION, SPAN, EVENT, TOOL, AGENT, ...")
			}
			obs = append(obs, om)
		case string:
			// Some exports list observation ids only: nothing to read.
		default:
			return bad(fmt.Sprintf("%s[%d]", obsPath, i), "expected an observation object")
		}
	}
	for _, k := range []string{"id", "userId", "sessionId", "timestamp"} {
		if x, ok := tr[k]; ok && x != nil {
			if _, isStr := x.(string); !isStr {
				return bad(tracePath+k, "expected a string")
			}
		}
	}
	t := &model.Trace{TraceID: gStr(tr, "id"), AsUser: gStr(tr, "userId")}
	if t.TraceID == "" {
		t.TraceID = genID("langfuse", raw)
	}
	if ts := gStr(tr, "timestamp"); ts != "" {
		if validTime(ts) {
			t.StartedAt = ts
		} else {
			t.StartedAt = genTime(genParseTime(ts))
		}
	}
	if s := gStr(tr, "sessionId"); s != "" {
		t.Metadata = map[string]any{"session_id": s}
	}
	if md := lfObject(tr["metadata"]); md != nil {
		if id := gStr(md, "case_id"); id != "" {
			if t.Metadata == nil {
				t.Metadata = map[string]any{}
			}
			t.Metadata["case_id"] = id
		}
	}
	lfObservations(t, tr, obs)
	if len(t.Steps) == 0 {
		return bad(obsPath, "no conversation in the trace's %d observation(s): no generation messages and no tool observations", len(obs))
	}
	if t.Question == "" {
		return bad("", "no user message in the generations nor in the trace input, so no question")
	}
	t.Source = model.Source{File: file, Format: "langfuse", Line: line}
	return t, nil
}

// lfObject reads an object that may be JSON-encoded as a string.
func lfObject(v any) map[string]any {
	if s, ok := v.(string); ok {
		v, _ = genMaybeJSON(s)
	}
	m, _ := v.(map[string]any)
	return m
}

func lfObservations(t *model.Trace, tr map[string]any, obs []map[string]any) {
	start := func(i int) int64 { return genParseTime(gStr(obs[i], "startTime")) }
	order := genSpanOrder(len(obs),
		func(i int) string { return gStr(obs[i], "id") },
		func(i int) string { return gStr(obs[i], "parentObservationId") },
		start)
	w := &lfWalk{t: t, obs: obs, c: newGenConvo(), byID: map[string]int{}}
	for i, o := range obs {
		w.byID[gStr(o, "id")] = i
	}
	w.parentOfGen = lfParentsOfGenerations(obs, w.byID)
	for _, i := range order {
		w.observation(i)
	}
	if w.hasCost {
		t.Usage.USD = genUSD(w.usd)
	}
	lfTraceEnds(t, tr, w.c, w.lastGenOut)
	w.c.finish(t)
}

// lfWalk is the state of reading one trace's observations in order.
type lfWalk struct {
	t    *model.Trace
	obs  []map[string]any
	c    *genConvo
	byID map[string]int
	// parentOfGen marks observations with a generation below them.
	parentOfGen map[int]bool
	usd         float64
	hasCost     bool
	// lastGenOut says whether the last model call recorded its output;
	// when it did not (beeai logs the call's start only), the trace's own
	// output is the final answer.
	lastGenOut bool
}

// lfParentsOfGenerations marks every observation that has a generation
// below it. Usage and cost count on generations with no generation below
// them: frameworks roll their children's usage up into the parent.
func lfParentsOfGenerations(obs []map[string]any, byID map[string]int) map[int]bool {
	parentOfGen := map[int]bool{}
	for _, o := range obs {
		if gStr(o, "type") != "GENERATION" {
			continue
		}
		p, seen := gStr(o, "parentObservationId"), 0
		for p != "" && seen < len(obs) {
			j, ok := byID[p]
			if !ok {
				break
			}
			parentOfGen[j] = true
			p = gStr(obs[j], "parentObservationId")
			seen++
		}
	}
	return parentOfGen
}

// observation reads one observation: who and where from its metadata,
// then a model call or a tool run by its type.
func (w *lfWalk) observation(i int) {
	o := w.obs[i]
	md := lfObject(o["metadata"])
	attrs := gObj(md, "attributes")
	if w.t.Server == "" {
		if s := gStr(gObj(md, "resourceAttributes"), "service.name"); s != "" && !strings.HasPrefix(s, "unknown_service") {
			w.t.Server = s
		}
	}
	if w.t.AsUser == "" {
		w.t.AsUser = gStr(attrs, "user.id", "enduser.id")
	}
	isErr := gStr(o, "level") == "ERROR"
	switch gStr(o, "type") {
	case "GENERATION":
		w.generation(i, o)
	case "TOOL":
		lfToolRun(w.c, o, attrs, genFirstString(gStr(attrs, "gen_ai.tool.name", "ai.toolCall.name", "tool.name"), gStr(o, "name")), isErr)
	case "SPAN":
		w.span(o, attrs, isErr)
	}
}

// generation reads a model call: its messages and tools, its model, and
// its usage and cost unless a generation below it carries them.
func (w *lfWalk) generation(i int, o map[string]any) {
	in, tools := genMessages(o["input"], "user")
	out, _ := genMessages(o["output"], "assistant")
	for _, d := range tools {
		w.c.contract(d)
	}
	for _, d := range lfToolDefinitions(o["toolDefinitions"]) {
		w.c.contract(d)
	}
	w.c.turn(in, out)
	if len(in) > 0 || len(out) > 0 {
		w.lastGenOut = len(out) > 0
	}
	if m := gStr(o, "model", "providedModelName"); m != "" && w.t.Model == "" {
		w.t.Model = m
	}
	if w.parentOfGen[i] {
		return
	}
	u := lfUsage(o)
	w.t.Usage.InputTokens += u.InputTokens
	w.t.Usage.OutputTokens += u.OutputTokens
	if cost, ok := lfCost(o); ok {
		w.usd += cost
		w.hasCost = true
	}
}

// span reads a plain span. Frameworks record tool runs as plain spans:
// koog and beeai name them tool.<name>, others give the tool's own name
// (agno's duckduckgo_search, LangGraph's get_weather) to a span that runs
// a call the model made.
func (w *lfWalk) span(o, attrs map[string]any, isErr bool) {
	if lfAgentState(attrs) {
		// beeai records the agent's state as it fills in (thought, then
		// tool.name, then tool.parameters, then the output): only the
		// update that carries the output is the run.
		if lfAgentRun(o, attrs) {
			lfToolRun(w.c, o, attrs, gStr(attrs, "tool.name"), isErr)
		}
		return
	}
	if p, ok := w.byID[gStr(o, "parentObservationId")]; ok && lfAgentState(gObj(lfObject(w.obs[p]["metadata"]), "attributes")) {
		return // the tool's own events under an agent update repeat the call the update records
	}
	if name, ok, spanErr := lfSpanTool(w.c, o, attrs); ok {
		lfToolRun(w.c, o, attrs, name, isErr || spanErr)
	}
}

// lfTraceEnds lets the trace's own input and output stand in when no
// generation carried the user's words or the final answer.
func lfTraceEnds(t *model.Trace, tr map[string]any, c *genConvo, lastGenOut bool) {
	hasUser, hasAnswer := false, false
	for _, s := range c.steps {
		hasUser = hasUser || s.Kind == model.KindUser
		hasAnswer = hasAnswer || s.Kind == model.KindAnswer
	}
	question := lfQuestion(tr)
	if !hasUser && question != "" {
		c.prependUser(question)
	}
	if question != "" && (c.texts["user\x00"+question] || inUserText(c.steps, question)) {
		// beeai wraps the user's words in its prompt ("Message: …"):
		// the trace input is the question as the user wrote it.
		t.Question = question
	}
	if (!hasAnswer || !lastGenOut) && len(c.steps) > 0 {
		out, _ := genMessages(tr["output"], "assistant")
		var last *genMsg
		for i := range out {
			if out[i].Role == "assistant" {
				last = &out[i]
			}
		}
		if last != nil {
			c.message(genMsg{Role: "assistant", Parts: onlyText(last.Parts)})
		}
	}
}

// lfQuestion is the text of the first user message of the trace input:
// it names the user's question when a framework sends instructions as
// user messages too (LangGraph).
func lfQuestion(tr map[string]any) string {
	in, _ := genMessages(tr["input"], "user")
	for _, m := range in {
		if m.Role != "user" {
			continue
		}
		var texts []string
		for _, p := range m.Parts {
			if p.Kind == "text" {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	return ""
}

// lfAgentState reports whether a span is an agent's state (OpenInference
// span kind AGENT) naming the tool it is about to run.
func lfAgentState(attrs map[string]any) bool {
	return gStr(attrs, "openinference.span.kind") == "AGENT" && gStr(attrs, "tool.name") != ""
}

// lfAgentRun reports whether an agent-state span is the complete record of
// one tool run: arguments and output set, and not a partial update that a
// full update repeats.
func lfAgentRun(o, attrs map[string]any) bool {
	params := strings.TrimSpace(gStr(attrs, "tool.parameters"))
	return params != "" && params != "null" && o["output"] != nil &&
		!strings.Contains(gStr(o, "name"), "partial_update")
}

// lfToolRun records a tool observation: its input is the call's
// arguments, its output the result (a LangChain ToolMessage gives its
// content and the call id it answers). Spans that carry the arguments as
// an OpenInference attribute (tool.parameters) give them from there.
func lfToolRun(c *genConvo, o, attrs map[string]any, name string, isErr bool) {
	id := gStr(attrs, "gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id")
	var args, result json.RawMessage
	if in := o["input"]; in != nil {
		args = genArgs(in)
	} else if p := gStr(attrs, "tool.parameters"); p != "" && p != "null" {
		args = genArgs(p)
	}
	if out, ok := o["output"]; ok {
		if s, isStr := out.(string); isStr {
			if v, ok := genMaybeJSON(s); ok {
				out = v
			}
		}
		if kw := gObj(lfMap(out), "kwargs"); kw != nil && gStr(kw, "tool_call_id") != "" {
			id, out = firstNonEmpty(id, gStr(kw, "tool_call_id")), kw["content"]
			isErr = isErr || gStr(kw, "status") == "error"
		}
		var e2 bool
		result, e2 = genResult(out)
		isErr = isErr || e2
	}
	c.execution(id, name, args, result, isErr)
	if d := gStr(attrs, "gen_ai.tool.description"); d != "" {
		c.contract(map[string]any{"name": name, "description": d})
	}
}

// inUserText reports whether text appears inside a user step.
func inUserText(steps []model.Step, text string) bool {
	for _, s := range steps {
		if s.Kind == model.KindUser && strings.Contains(s.Text, text) {
			return true
		}
	}
	return false
}

func lfMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

// beeaiEvent matches beeai's per-event span names: tool.<name>.<event>-<n>.
var beeaiEvent = regexp.MustCompile(`^(.+)\.(start|finish|success|error|retry)-\d+$`)

// lfSpanTool reports whether a SPAN observation is a tool run, with the
// tool's name and whether it failed.
func lfSpanTool(c *genConvo, o, attrs map[string]any) (name string, ok, isErr bool) {
	span := gStr(o, "name")
	if n := gStr(attrs, "gen_ai.tool.name", "tool.name"); n != "" {
		return n, true, false
	}
	if rest, found := strings.CutPrefix(span, "tool."); found && rest != "" {
		if m := beeaiEvent.FindStringSubmatch(rest); m != nil {
			// Only the event that carries the outcome is the run.
			switch m[2] {
			case "success":
				return m[1], o["output"] != nil, false
			case "error":
				return m[1], true, true
			}
			return "", false, false
		}
		return rest, true, false
	}
	if span != "" && o["input"] != nil {
		if _, pending := c.pending(span, nil); pending {
			return span, true, false
		}
	}
	return "", false, false
}

func onlyText(ps []genPart) []genPart {
	var out []genPart
	for _, p := range ps {
		if p.Kind == "text" {
			out = append(out, p)
		}
	}
	return out
}

// lfToolDefinitions reads an observation's toolDefinitions: an array of
// definitions or a map of name to definition.
func lfToolDefinitions(v any) []map[string]any {
	var out []map[string]any
	switch x := v.(type) {
	case []any:
		for _, d := range x {
			if dm, ok := d.(map[string]any); ok {
				out = append(out, dm)
			}
		}
	case map[string]any:
		for name, d := range x {
			dm, ok := d.(map[string]any)
			if !ok {
				if s, ok := d.(string); ok {
					dm = map[string]any{"description": s}
				} else {
					continue
				}
			}
			if gStr(dm, "name") == "" {
				cp := map[string]any{"name": name}
				for k, v := range dm {
					cp[k] = v
				}
				dm = cp
			}
			out = append(out, dm)
		}
	}
	return out
}

func lfUsage(o map[string]any) model.Usage {
	for _, k := range []string{"usageDetails", "usage"} {
		if u := gObj(o, k); u != nil {
			in := gInt(firstNonNil(u["input"], u["promptTokens"], u["prompt_tokens"], u["input_tokens"]))
			out := gInt(firstNonNil(u["output"], u["completionTokens"], u["completion_tokens"], u["output_tokens"]))
			if in != 0 || out != 0 {
				return model.Usage{InputTokens: in, OutputTokens: out}
			}
		}
	}
	return model.Usage{InputTokens: gInt(o["inputUsage"]), OutputTokens: gInt(o["outputUsage"])}
}

func lfCost(o map[string]any) (float64, bool) {
	for _, v := range []any{o["totalCost"], o["calculatedTotalCost"], gObj(o, "costDetails")["total"]} {
		if v != nil {
			return gFloat(v), true
		}
	}
	return 0, false
}
