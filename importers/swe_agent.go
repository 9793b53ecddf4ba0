package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// SWE-agent and mini-SWE-agent trajectories. SWE-agent writes
// <instance_id>.traj: {trajectory: [{response, thought, action,
// observation, state, query}], history: [{role, content, agent,
// message_type, is_demo…}], info: {exit_status, submission, model_stats:
// {instance_cost, tokens_sent, tokens_received, api_calls}},
// replay_config}. mini-SWE-agent writes .traj.json: {info, messages:
// [OpenAI messages with extra], trajectory_format: "mini-swe-agent-1…"},
// and its first versions a bare array of those messages. Both agents act
// by a bash block in the model's text (```bash or ```mswea_bash_command)
// and answer with the command's output as the next user message
// (<returncode>…</returncode><output>…</output>): that block is a tool
// call and that message its result, so the question stays the task.
//
// References: https://swe-agent.com/latest/usage/trajectories/ and
// mini-SWE-agent's docs/usage/output_files.md.
func init() {
	register(Format{
		Name:     "swe_agent",
		Priority: 30,
		Doc:      "SWE-agent .traj ({trajectory, history, info}) and mini-SWE-agent .traj.json ({info, messages, trajectory_format} or a bare message array); emitted by SWE-agent and mini-swe-agent",
		Detect:   detectSWEAgent,
		Parse:    parseSWEAgent,
	})
}

func detectSWEAgent(head []byte) bool {
	if ok, _ := bareChat(head); ok {
		return bytes.Contains(head, []byte("mswea_bash_command")) || bytes.Contains(head, []byte(`"<returncode>`))
	}
	m := headObject(head)
	if m == nil {
		return false
	}
	if m["trajectory"] != nil && (m["history"] != nil || m["info"] != nil) {
		return true
	}
	var tf string
	_ = json.Unmarshal(m["trajectory_format"], &tf)
	if strings.HasPrefix(tf, "mini-swe-agent") {
		return true
	}
	// trajectory_format comes last: a head of info and messages with the
	// mini-SWE-agent bash block says the same.
	return m["info"] != nil && bytes.Contains(head, []byte(`"messages"`)) && bytes.Contains(head, []byte("mswea_bash_command"))
}

func parseSWEAgent(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "trajectory")
	if err != nil {
		return err
	}
	v, err := genDecode(bytes.TrimSpace(stripBOM(data)))
	if err != nil {
		return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
	}
	t := &model.Trace{Outcome: model.OutcomeUnknown}
	run := newRunAcc(1)
	var info map[string]any
	switch x := v.(type) {
	case []any:
		miniMessages(run.c, x)
	case map[string]any:
		info = gObj(x, "info")
		switch {
		case gArr(x, "messages") != nil:
			miniMessages(run.c, gArr(x, "messages"))
		case gArr(x, "trajectory") != nil:
			sweTrajectory(run.c, gArr(x, "history"), gArr(x, "trajectory"))
			run.setModel(sweReplayModel(gStr(x, "replay_config")))
		default:
			return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "expected a trajectory: {trajectory, history, info} or {info, messages}"}})
		}
	default:
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "expected a trajectory object or an array of messages"}})
	}
	sweInfo(t, run, info)
	run.trace(t)
	if q := sweTask(t.Steps); q != "" {
		t.Question = q
	}
	if len(t.Steps) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "trajectory holds no message: no conversation to import"}})
	}
	t.TraceID = genID("swe_agent", data)
	t.Source = model.Source{File: file, Format: "swe_agent", Line: 1}
	return emit(Record{Line: 1, Trace: t})
}

// sweInfo reads the run's info: its exit status, its submission and what
// the model calls cost.
func sweInfo(t *model.Trace, run *runAcc, info map[string]any) {
	if info == nil {
		return
	}
	t.Metadata = map[string]any{}
	if s := gStr(info, "exit_status"); s != "" {
		t.Metadata["exit_status"] = s
	}
	if s := gStr(info, "submission"); s != "" {
		t.Metadata["submission"] = s
	}
	st := gObj(info, "model_stats")
	run.usage(gInt(st["tokens_sent"]), gInt(st["tokens_received"]), gFloat(st["instance_cost"]))
	if n := gInt(st["api_calls"]); n > 0 {
		t.Metadata["api_calls"] = n
	}
	cfg := gObj(gObj(info, "config"), "model")
	run.setModel(gStr(cfg, "model_name"))
}

// sweTask is the task the run was given: the first user turn (later user
// messages are the environment's replies).
func sweTask(steps []model.Step) string {
	for _, s := range steps {
		if s.Kind == model.KindUser {
			return s.Text
		}
	}
	return ""
}

// bashBlock finds the last fenced bash block of a model's text.
var bashBlock = regexp.MustCompile("(?s)```(?:mswea_bash_command|bash|sh)[ \t]*\n(.*?)\n?```")

// returnCode reads the observation template of both agents.
var returnCode = regexp.MustCompile(`(?s)^\s*<returncode>(-?\d+)</returncode>\s*(?:<output>\n?(.*?)</output>)?`)

// miniMessages adds mini-SWE-agent's messages: the system prompt is left
// out, a bash block is a call, the next user message its result. Messages
// with tool_calls (its tool-calling models) are read as chat messages.
func miniMessages(c *genConvo, msgs []any) {
	pending := false
	for _, e := range msgs {
		m := asObj(e)
		if m == nil {
			continue
		}
		text, _ := m["content"].(string)
		switch gStr(m, "role") {
		case "system":
			continue
		case "assistant":
			if m["tool_calls"] == nil && text != "" {
				pending = sweAction(c, text, "")
				continue
			}
		case "user":
			if pending {
				sweObservation(c, text)
				pending = false
				continue
			}
		}
		gm, _ := genMessages([]any{m}, "")
		for _, g := range gm {
			c.message(g)
		}
	}
}

// sweAction adds a model response: its text, then the bash block (or the
// action given apart) as a call. It reports whether a call was made.
func sweAction(c *genConvo, text, action string) bool {
	thought := text
	if action == "" {
		loc := bashBlock.FindAllStringSubmatchIndex(text, -1)
		if len(loc) == 0 {
			c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: text}}})
			return false
		}
		last := loc[len(loc)-1]
		action = text[last[2]:last[3]]
		thought = strings.TrimSpace(text[:last[0]] + text[last[1]:])
	}
	args, _ := json.Marshal(map[string]string{"command": strings.TrimSpace(action)})
	parts := []genPart{}
	if thought != "" {
		parts = append(parts, genPart{Kind: "text", Text: thought})
	}
	parts = append(parts, genPart{Kind: "call", Name: "bash", Args: args})
	c.message(genMsg{Role: "assistant", Parts: parts})
	return true
}

// sweObservation adds a command's output as the result of the call
// before it; a non-zero return code marks it an error.
func sweObservation(c *genConvo, text string) {
	res := convResult(text)
	isErr := false
	if m := returnCode.FindStringSubmatch(text); m != nil {
		code, _ := strconv.Atoi(m[1])
		isErr = code != 0
		res, _ = json.Marshal(map[string]any{"returncode": code, "output": m[2]})
	}
	c.result("", "bash", res, isErr)
}

// sweTrajectory adds SWE-agent's run: the task from the history (its
// first user message that is no demonstration), then each step's thought,
// action and observation.
func sweTrajectory(c *genConvo, history, steps []any) {
	for _, e := range history {
		m := asObj(e)
		if m == nil || gStr(m, "role") != "user" {
			continue
		}
		if demo, _ := m["is_demo"].(bool); demo {
			continue
		}
		gm, _ := genMessages([]any{map[string]any{"role": "user", "content": m["content"]}}, "")
		for _, g := range gm {
			c.message(g)
		}
		break
	}
	for _, e := range steps {
		s := asObj(e)
		if s == nil {
			continue
		}
		action := strings.TrimSpace(gStr(s, "action"))
		thought := gStr(s, "thought")
		if action == "" {
			if thought = firstNonEmpty(thought, gStr(s, "response")); thought != "" {
				c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: thought}}})
			}
			continue
		}
		sweAction(c, thought, action)
		sweObservation(c, gStr(s, "observation"))
	}
}

// sweReplayModel is the model name in SWE-agent's replay_config (a JSON
// string of the run's configuration).
func sweReplayModel(cfg string) string {
	var rc struct {
		Agent struct {
			Model struct {
				Name string `json:"name"`
			} `json:"model"`
		} `json:"agent"`
	}
	if json.Unmarshal([]byte(cfg), &rc) != nil {
		return ""
	}
	return rc.Agent.Model.Name
}
