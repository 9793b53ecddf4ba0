package importers

// tau2-bench results: {timestamp, info, tasks: [task], simulations: [sim]}
// where a task is {id, description, user_scenario: {instructions:
// {domain, reason_for_call, known_info, task_instructions} | text}} and a
// simulation {id, task_id, trial, start_time, end_time,
// termination_reason, reward_info: {reward}, agent_cost, messages:
// [{role: assistant|user|tool, content, tool_calls: [{id, name,
// arguments}], id, error, usage, cost, timestamp}]}. One trace per
// simulation: its question is its task's reason for the call (what the
// simulated user was sent to ask, the same for every trial of the task),
// the conversation its messages, the outcome its reward (1 is a pass).
// The user simulator's own token usage is not the agent's and is left
// out, and so are its control tokens (###STOP###).
//
// Reference: sierra-research/tau2-bench src/tau2/data_model/simulation.py
// (Results, SimulationRun) and message.py.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

func init() {
	register(Format{
		Name:     "tau2_bench",
		Priority: 30,
		Doc:      "tau2-bench results ({info, tasks, simulations[]}): one trace per simulation, its task's reason for the call as the question, its reward as the outcome",
		Detect:   detectTau2,
		Parse:    parseTau2,
	})
}

func detectTau2(head []byte) bool {
	s := sniff(head)
	return s.has("simulations") && (s.has("tasks.user_scenario") || s.has("simulations.task_id") || s.has("info.user_info"))
}

func parseTau2(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "tau2-bench results")
	if err != nil {
		return err
	}
	v, err := genDecode(data)
	if err != nil {
		return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
	}
	m := asObj(v)
	tasks := map[string]map[string]any{}
	for _, t := range gArr(m, "tasks") {
		tm := asObj(t)
		tasks[gStr(tm, "id")] = tm
	}
	sims := gArr(m, "simulations")
	if len(sims) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: "simulations", Msg: "holds no conversation: no simulation was run"}})
	}
	for i, s := range sims {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := emit(tau2Record(file, i, asObj(s), tasks)); err != nil {
			return err
		}
	}
	return nil
}

// tau2Record reads one simulation.
func tau2Record(file string, i int, sim map[string]any, tasks map[string]map[string]any) Record {
	path := fmt.Sprintf("simulations[%d]", i)
	if sim == nil {
		return Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: path, Msg: "expected a simulation {id, task_id, messages}"}}
	}
	run := newRunAcc(1)
	run.span(runTime(sim["start_time"]), runTime(sim["end_time"]))
	for _, msg := range gArr(sim, "messages") {
		mm := asObj(msg)
		role := gStr(mm, "role")
		switch role {
		case "tool":
			res, _ := genResult(mm["content"])
			isErr, _ := mm["error"].(bool)
			run.c.message(genMsg{Role: "tool", Parts: []genPart{{Kind: "result", ID: gStr(mm, "id"), Result: res, IsErr: isErr}}})
			continue
		case "user":
			if tau2Control(gStr(mm, "content")) {
				continue // the simulator's ###STOP###, not something the user said
			}
		case "assistant":
			u := gObj(mm, "usage")
			run.usage(gInt(u["prompt_tokens"]), gInt(u["completion_tokens"]), gFloat(mm["cost"]))
			if raw := gObj(mm, "raw_data"); raw != nil {
				run.setModel(gStr(raw, "model"))
			}
		}
		msgs, _ := genMessages(mm, "")
		for _, g := range msgs {
			run.c.message(g)
		}
	}
	t := &model.Trace{TraceID: gStr(sim, "id")}
	task := tasks[gStr(sim, "task_id")]
	t.Question = tau2Question(task)
	run.trace(t)
	if len(t.Steps) == 0 {
		return Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: path, Msg: "simulation holds no conversation: no message"}}
	}
	if t.TraceID == "" {
		t.TraceID = genID("tau2_bench", genJSON(sim))
	}
	if ri := gObj(sim, "reward_info"); ri != nil && ri["reward"] != nil {
		if gFloat(ri["reward"]) >= 1 {
			t.Outcome = model.OutcomePass
		} else {
			t.Outcome = model.OutcomeFailure
		}
	}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	for k, v := range map[string]any{"task_id": sim["task_id"], "trial": sim["trial"], "termination_reason": sim["termination_reason"],
		"reward": gObj(sim, "reward_info")["reward"], "domain": gObj(gObj(task, "user_scenario"), "instructions")["domain"]} {
		if v != nil {
			t.Metadata[k] = v
		}
	}
	t.Source = model.Source{File: file, Format: "tau2_bench", Line: 1}
	return Record{Line: 1, Trace: t}
}

// tau2Question is what the task sends the simulated user to ask: its
// reason for the call, else its instructions when they are plain text.
func tau2Question(task map[string]any) string {
	us := gObj(task, "user_scenario")
	if in := gObj(us, "instructions"); in != nil {
		return strings.TrimSpace(gStr(in, "reason_for_call"))
	}
	return strings.TrimSpace(gStr(us, "instructions"))
}

// tau2Control reports whether a user message is one of the simulator's
// control tokens (###STOP###, ###TRANSFER###, ###OUT-OF-SCOPE###).
func tau2Control(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) > 6 && strings.HasPrefix(s, "###") && strings.HasSuffix(s, "###") && !strings.ContainsAny(s[3:len(s)-3], " \n#")
}
