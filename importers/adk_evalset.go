package importers

// Google ADK eval sets (*.evalset.json, and the *.test.json files `adk
// eval` and AgentEvaluator read): {eval_set_id, eval_cases: [{eval_id,
// conversation: [invocation]}]} where an invocation is {invocation_id,
// user_content: {parts}, final_response: {parts}, intermediate_data:
// {tool_uses: [{id, name, args}], tool_responses, intermediate_responses}};
// camelCase keys (evalSetId, evalCases, userContent…) as the web UI saves
// them; and the older test files, a list of {query, expected_tool_use:
// [{tool_name, tool_input}], reference}. One trace per eval case: the
// expected trajectory, its final response the answer. A tool use whose
// response was not recorded is a call with no result.
//
// Reference: google/adk-python src/google/adk/evaluation/eval_set.py,
// eval_case.py, and https://google.github.io/adk-docs/evaluate/.

import (
	"context"
	"fmt"
	"io"

	"github.com/tracelab-dev/tracelab/model"
)

func init() {
	register(Format{
		Name:     "adk_evalset",
		Priority: 30,
		Doc:      "Google ADK eval sets (eval_cases[].conversation of user_content, tool_uses and final_response; older *.test.json query/expected_tool_use lists)",
		Detect:   detectADKEvalSet,
		Parse:    parseADKEvalSet,
	})
}

func detectADKEvalSet(head []byte) bool {
	s := sniff(head)
	return s.has("eval_cases.conversation") || s.has("evalCases.conversation") ||
		s.has("query") && s.has("expected_tool_use") && s.has("reference")
}

func parseADKEvalSet(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "ADK eval set")
	if err != nil {
		return err
	}
	v, err := genDecode(data)
	if err != nil {
		return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
	}
	if old, ok := v.([]any); ok { // the older test file: one case, its turns in order
		return emit(adkCaseRecord(file, "", genID("adk_evalset", data), adkOldTurns(old)))
	}
	m := asObj(v)
	cases := firstNonNil(m["eval_cases"], m["evalCases"])
	list, _ := cases.([]any)
	if list == nil {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "expected an ADK eval set {eval_set_id, eval_cases: [{eval_id, conversation}]}"}})
	}
	set := gStr(m, "eval_set_id", "evalSetId")
	for i, c := range list {
		cm := asObj(c)
		path := fmt.Sprintf("eval_cases[%d]", i)
		conv := gArr(cm, "conversation")
		if conv == nil {
			if err := emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: path, Msg: "expected an eval case {eval_id, conversation: [invocation]}"}}); err != nil {
				return err
			}
			continue
		}
		id := gStr(cm, "eval_id", "evalId")
		if id == "" {
			id = fmt.Sprintf("%s#%d", set, i)
		}
		if set != "" {
			id = set + "/" + id
		}
		if err := emit(adkCaseRecord(file, path, id, conv)); err != nil {
			return err
		}
	}
	return nil
}

// adkOldTurns turns the older {query, expected_tool_use, reference} list
// into invocations.
func adkOldTurns(items []any) []any {
	var out []any
	for _, it := range items {
		m := asObj(it)
		var uses []any
		for _, u := range gArr(m, "expected_tool_use") {
			um := asObj(u)
			uses = append(uses, map[string]any{"name": um["tool_name"], "args": um["tool_input"]})
		}
		out = append(out, map[string]any{
			"user_content":      map[string]any{"parts": []any{map[string]any{"text": m["query"]}}},
			"final_response":    map[string]any{"parts": []any{map[string]any{"text": m["reference"]}}},
			"intermediate_data": map[string]any{"tool_uses": uses},
		})
	}
	return out
}

// adkCaseRecord reads one eval case's conversation.
func adkCaseRecord(file, path, id string, conv []any) Record {
	run := newRunAcc(1)
	for _, inv := range conv {
		im := asObj(inv)
		if u := firstObj(im, "user_content", "userContent"); u != nil {
			msgs, _ := genMessages(map[string]any{"role": "user", "parts": u["parts"]}, "user")
			for _, m := range msgs {
				run.c.message(m)
			}
		}
		mid := firstObj(im, "intermediate_data", "intermediateData")
		for _, r := range gArr(mid, "intermediate_responses") {
			// [author, [parts]] pairs: what sub-agents said on the way.
			if pair, ok := r.([]any); ok && len(pair) == 2 {
				parts, _ := pair[1].([]any)
				msgs, _ := genMessages(map[string]any{"role": "model", "parts": parts}, "assistant")
				for _, m := range msgs {
					run.c.message(m)
				}
			}
		}
		uses := firstNonNil(mid["tool_uses"], mid["toolUses"])
		list, _ := uses.([]any)
		for _, u := range list {
			um := asObj(u)
			run.c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "call", ID: gStr(um, "id"), Name: gStr(um, "name"), Args: genArgs(um["args"])}}})
		}
		resps := firstNonNil(mid["tool_responses"], mid["toolResponses"])
		rl, _ := resps.([]any)
		for _, r := range rl {
			rm := asObj(r)
			res, _ := genResult(rm["response"])
			run.c.message(genMsg{Role: "tool", Parts: []genPart{{Kind: "result", ID: gStr(rm, "id"), Name: gStr(rm, "name"), Result: res}}})
		}
		if f := firstObj(im, "final_response", "finalResponse"); f != nil {
			msgs, _ := genMessages(map[string]any{"role": "model", "parts": f["parts"]}, "assistant")
			for _, m := range msgs {
				run.c.message(m)
			}
		}
	}
	t := &model.Trace{TraceID: id}
	run.trace(t)
	if len(t.Steps) == 0 {
		return Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: path, Msg: "eval case holds no conversation: no user content, tool use or final response"}}
	}
	t.Source = model.Source{File: file, Format: "adk_evalset", Line: 1}
	return Record{Line: 1, Trace: t}
}
