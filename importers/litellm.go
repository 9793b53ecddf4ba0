package importers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// LiteLLM logs one StandardLoggingPayload per model call (the proxy's spend
// logs, custom callbacks, the trajectory files coding-agent harnesses write
// through the proxy): call_type, messages (the request: chat messages or
// Responses input items), response (a chat.completion or a Responses
// object), prompt_tokens / completion_tokens, response_cost, startTime /
// endTime in unix seconds, status success | failure. Each call re-sends
// the history, so the calls of one agent run are folded into one trace.
// Failed calls carry no conversation: they are skipped and counted in the
// trace's metadata (litellm_failed_calls), never fatal.
func init() {
	register(Format{
		Name:     "litellm",
		Priority: 20,
		Doc: "LiteLLM StandardLoggingPayload per call (proxy spend / trajectory logs, callbacks), one trace per agent run; " +
			"emitted by the LiteLLM proxy and SDK for any agent calling through it (Claude Code, Codex CLI, goose, gemini-cli…)",
		Detect: detectLiteLLM,
		Parse:  parseLiteLLM,
	})
}

func detectLiteLLM(head []byte) bool {
	m := headObject(head)
	if m == nil {
		return false
	}
	if m["standard_logging_object"] != nil {
		return true
	}
	_, ct := m["call_type"]
	_, cost := m["response_cost"]
	_, st := m["startTime"]
	return ct && (cost || st) && (m["messages"] != nil || m["response"] != nil)
}

// litellmRun is one agent run: the calls that share a session id, else
// the same system prompt.
type litellmRun struct {
	*runAcc
	key    string
	id     string
	calls  int
	failed int // failed calls skipped while this run went on
	asUser string
	// traceIDs are the trace_ids its calls carried.
	traceIDs []string
}

func parseLiteLLM(ctx context.Context, r io.Reader, file string, emit Emit) error {
	p := &litellmParser{file: file, emit: emit, open: newOpenRuns[*litellmRun](), byTrace: map[string]*litellmRun{}}
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		p.open.next()
		var cerr error
		err := eachObject(file, n, raw, emit, "a LiteLLM logging payload object (call_type, messages, response)", func(path string, m map[string]any) string {
			if cerr == nil {
				cerr = p.call(n, path, m)
			}
			return ""
		})
		if err == nil {
			err = cerr
		}
		if err == nil {
			err = p.flush(false)
		}
		return err
	})
	if err == nil {
		err = p.flush(true)
	}
	if err != nil {
		return err
	}
	if p.emitted == 0 && p.failed > 0 {
		return emit(Record{Line: p.firstFailed, Err: &LineError{File: file, Line: p.firstFailed,
			Msg: fmt.Sprintf("all %d LiteLLM calls failed (status failure): no conversation to import", p.failed)}})
	}
	if p.emitted == 0 && p.empty > 0 {
		return emit(Record{Line: p.firstEmpty, Err: &LineError{File: file, Line: p.firstEmpty,
			Msg: "LiteLLM calls with no messages and no response: no conversation to import"}})
	}
	return nil
}

type litellmParser struct {
	file                string
	emit                Emit
	open                *openRuns[*litellmRun] // by run key
	byTrace             map[string]*litellmRun // trace_id -> open run
	last                *litellmRun            // the run of the latest successful call
	failed, firstFailed int
	pendingFailed       int // failures before the first run
	emitted, empty      int
	firstEmpty          int
}

// call takes one logged call. A failed call is counted on the run it
// interrupted (the latest one; the next one when none started yet).
func (p *litellmParser) call(n int, path string, m map[string]any) error {
	if slo := gObj(m, "standard_logging_object"); slo != nil {
		m = slo
	}
	if litellmFailed(m) {
		if p.failed++; p.firstFailed == 0 {
			p.firstFailed = n
		}
		if p.last != nil {
			p.last.failed++
		} else {
			p.pendingFailed++
		}
		why := genFirstString(gStr(gObj(m, "error_information"), "error_class"), firstLine(gStr(m, "error_str")), "no response")
		return p.emit(Record{Line: n, Skip: &Skip{Path: joinPath(path, "status"), Reason: "failed LiteLLM call (" + why + "): no conversation"}})
	}
	key := litellmRunKey(m)
	run, _ := p.open.get(key)
	// A trace_id the client set (litellm_trace_id) names the run across
	// calls; LiteLLM makes a fresh one per call otherwise.
	if tid := gStr(m, "trace_id"); tid != "" && p.byTrace[tid] != nil {
		run = p.byTrace[tid]
		p.open.get(run.key)
	}
	if run == nil {
		run = &litellmRun{runAcc: newRunAcc(n), key: key, failed: p.pendingFailed}
		p.pendingFailed = 0
		p.open.add(key, run)
	}
	p.last = run
	if tid := gStr(m, "trace_id"); tid != "" {
		p.byTrace[tid] = run
		run.traceIDs = append(run.traceIDs, tid)
	}
	run.add(m)
	return nil
}

// flush emits the runs no call has continued for otelIdle records (all
// of them at the end), so a long log is read in bounded memory.
func (p *litellmParser) flush(all bool) error {
	for _, run := range p.open.idle(all) {
		for _, tid := range run.traceIDs {
			delete(p.byTrace, tid)
		}
		if p.last == run {
			p.last = nil
		}
		if err := p.emitRun(run); err != nil {
			return err
		}
	}
	return nil
}

func (p *litellmParser) emitRun(run *litellmRun) error {
	t := &model.Trace{TraceID: run.id, AsUser: run.asUser}
	run.trace(t)
	if len(t.Steps) == 0 {
		if p.empty++; p.firstEmpty == 0 {
			p.firstEmpty = run.line
		}
		return nil
	}
	if t.TraceID == "" {
		t.TraceID = genID("litellm", []byte(p.file+"\x00"+run.key))
	}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	t.Metadata["litellm_calls"] = run.calls
	if run.failed > 0 {
		t.Metadata["litellm_failed_calls"] = run.failed
	}
	t.Source = model.Source{File: p.file, Format: "litellm", Line: run.line}
	p.emitted++
	return p.emit(Record{Line: run.line, Trace: t})
}

// litellmFailed reports a call that failed (status failure, an error and
// no response): it has no conversation.
func litellmFailed(m map[string]any) bool {
	if strings.EqualFold(gStr(m, "status"), "failure") {
		return true
	}
	resp := m["response"]
	empty := resp == nil || (fmt.Sprint(resp) == "map[]")
	return empty && (gStr(m, "error_str") != "" || m["error_information"] != nil)
}

// litellmRunKey groups calls into runs: a session id the client sent
// (Claude Code's x-claude-code-session-id header, Codex's turn metadata,
// litellm_session_id / session_id metadata), else the system prompt the
// agent sends with every call, so a side call (a title generator) with
// its own prompt is a run of its own.
func litellmRunKey(m map[string]any) string {
	md := gObj(m, "metadata")
	hdr := gObj(md, "requester_custom_headers")
	if s := gStr(hdr, "x-claude-code-session-id"); s != "" {
		return "session:" + s
	}
	if tm, ok := genMaybeJSON(gStr(hdr, "x-codex-turn-metadata")); ok {
		if s := gStr(asObj(tm), "session_id"); s != "" {
			return "session:" + s
		}
	}
	if s := genFirstString(gStr(md, "litellm_session_id", "session_id"), gStr(m, "session_id", "litellm_session_id")); s != "" {
		return "session:" + s
	}
	if s := gStr(gObj(md, "requester_metadata"), "session_id"); s != "" {
		return "session:" + s
	}
	sys := gStr(gObj(m, "response"), "instructions")
	for _, it := range genList(m["messages"]) {
		im, _ := it.(map[string]any)
		if r := gStr(im, "role"); r == "system" || r == "developer" {
			b, _ := json.Marshal(im["content"])
			sys = string(b)
			break
		}
	}
	if sys == "" {
		return ""
	}
	return genID("system", []byte(sys))
}

// add folds one call into the run.
func (run *litellmRun) add(m map[string]any) {
	run.calls++
	if run.id == "" {
		if strings.HasPrefix(run.key, "session:") {
			run.id = strings.TrimPrefix(run.key, "session:")
		}
	}
	md := gObj(m, "metadata")
	run.asUser = genFirstString(run.asUser, gStr(m, "end_user"), gStr(md, "user_api_key_end_user_id"), gStr(md, "user_api_key_user_id"))
	resp := gObj(m, "response")
	in, tools := genMessages(m["messages"], "user")
	for _, def := range tools {
		run.c.contract(def)
	}
	for _, src := range []map[string]any{gObj(m, "model_parameters"), resp} {
		for _, t := range gArr(src, "tools") {
			if tm, ok := t.(map[string]any); ok {
				run.c.contract(tm)
			}
		}
	}
	var out []genMsg
	if resp != nil {
		out, _ = genMessages(resp, "assistant")
	} else if s, ok := m["response"].(string); ok {
		out, _ = genMessages(s, "assistant")
	}
	run.c.turn(in, out)
	pt, ct := gInt(m["prompt_tokens"]), gInt(m["completion_tokens"])
	if pt == 0 && ct == 0 {
		u := gObj(resp, "usage")
		pt = gInt(firstNonNil(u["prompt_tokens"], u["input_tokens"]))
		ct = gInt(firstNonNil(u["completion_tokens"], u["output_tokens"]))
	}
	run.usage(pt, ct, gFloat(m["response_cost"]))
	run.setModel(genFirstString(gStr(resp, "model"), gStr(m, "model")))
	run.span(runTime(m["startTime"]), runTime(m["endTime"]))
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}
