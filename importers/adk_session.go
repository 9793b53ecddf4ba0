package importers

// Google ADK sessions: a saved session {id, appName|app_name,
// userId|user_id, state, events: [event]} where an event is {id,
// invocationId|invocation_id, author, content: {role: user|model, parts:
// [{text} | {functionCall|function_call: {id, name, args}} |
// {functionResponse|function_response: {id, name, response}}]}, timestamp
// (unix seconds), usageMetadata|usage_metadata}. ADK writes camelCase
// (Pydantic aliases) in `adk web` and the REST API, snake_case in its
// older test fixtures. One session is one trace; the author of the
// events is the agent (a multi-agent run keeps its transfers as tool
// calls).
//
// Reference: https://google.github.io/adk-docs/sessions/session/ and
// google/adk-python src/google/adk/events/event.py.

import (
	"context"
	"io"
	"strconv"

	"github.com/tracelab-dev/tracelab/model"
)

func init() {
	register(Format{
		Name:     "adk_session",
		Priority: 30,
		Doc:      "Google ADK sessions (events[] with author and content parts: text, function calls and responses), as saved by adk web, the REST API or its test fixtures",
		Detect:   detectADKSession,
		Parse:    parseADKSession,
	})
}

func detectADKSession(head []byte) bool {
	s := sniff(head)
	return s.has("events.author") && s.has("events.content.parts") &&
		(s.has("events.invocation_id") || s.has("events.invocationId"))
}

func parseADKSession(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "ADK session")
	if err != nil {
		return err
	}
	v, err := genDecode(data)
	if err != nil {
		return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
	}
	sessions, isList := v.([]any)
	if !isList {
		sessions = []any{v}
	}
	for i, s := range sessions {
		m := asObj(s)
		if m == nil || gArr(m, "events") == nil {
			if err := emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: listPath(isList, i), Msg: "expected an ADK session {id, events: [{author, content}]}"}}); err != nil {
				return err
			}
			continue
		}
		if err := emit(adkSessionRecord(file, m, listPath(isList, i))); err != nil {
			return err
		}
	}
	return nil
}

// listPath is "[i]" for an element of a top-level array, else "".
func listPath(isList bool, i int) string {
	if !isList {
		return ""
	}
	return "[" + strconv.Itoa(i) + "]"
}

// adkSessionRecord reads one session.
func adkSessionRecord(file string, m map[string]any, path string) Record {
	run := newRunAcc(1)
	failed := false
	for _, e := range gArr(m, "events") {
		ev := asObj(e)
		ts := runTime(ev["timestamp"])
		run.span(ts, ts)
		content := gObj(ev, "content")
		role := "assistant"
		if gStr(ev, "author") == "user" {
			role = "user"
		}
		msgs, _ := genMessages(map[string]any{"role": firstString(gStr(content, "role"), role), "parts": content["parts"]}, role)
		for _, msg := range msgs {
			if gStr(ev, "author") == "user" && msg.Role == "assistant" {
				msg.Role = "user"
			}
			run.c.message(msg)
		}
		u := firstObj(ev, "usageMetadata", "usage_metadata")
		run.usage(gInt(firstNonNil(u["promptTokenCount"], u["prompt_token_count"])), gInt(firstNonNil(u["candidatesTokenCount"], u["candidates_token_count"])), 0)
		if gStr(ev, "errorCode", "error_code") != "" {
			failed = true
		}
		run.setModel(gStr(ev, "modelVersion", "model_version"))
	}
	t := &model.Trace{TraceID: gStr(m, "id")}
	run.trace(t)
	if len(t.Steps) == 0 {
		return Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: path, Msg: "ADK session holds no conversation: no event has text or a function call"}}
	}
	if t.TraceID == "" {
		t.TraceID = genID("adk_session", genJSON(m))
	}
	if failed {
		t.Outcome = model.OutcomeFailure
	}
	meta := map[string]any{}
	if a := gStr(m, "appName", "app_name"); a != "" {
		meta["app_name"] = a
	}
	if u := gStr(m, "userId", "user_id"); u != "" {
		meta["user_id"] = u
	}
	if len(meta) > 0 {
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		for k, v := range meta {
			t.Metadata[k] = v
		}
	}
	t.Source = model.Source{File: file, Format: "adk_session", Line: 1}
	return Record{Line: 1, Trace: t}
}
