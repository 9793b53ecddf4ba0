package importers

// One recorded model API call ({request, response}, as a cassette
// interaction or a logged record) turned into a trace, for the APIs whose
// importers only map their own message shapes to genMsg (Bedrock Converse,
// Cohere v2 chat, Ollama /api/chat): the conversation rules stay conv.go's.

import (
	"context"
	"encoding/json"
	"io"

	"github.com/tracelab-dev/tracelab/model"
)

// apiCall is what an API's reader took from one call.
type apiCall struct {
	in, out       []genMsg
	tools         []map[string]any
	model         string
	inTok, outTok int64
	failed        bool // the response is an error (an exception event, an error body)
}

// trace builds the trace of one call; the error says what the call
// lacked when it holds no message at all.
func (a apiCall) trace(format, file string, v jsonValue) (*model.Trace, *LineError) {
	if len(a.in) == 0 && len(a.out) == 0 {
		return nil, &LineError{File: file, Line: v.line, Path: v.path, Msg: "holds no conversation: the " + format + " call has no request message and no response message"}
	}
	run := newRunAcc(v.line)
	for _, d := range a.tools {
		run.c.contract(d)
	}
	run.c.turn(a.in, a.out)
	run.setModel(a.model)
	run.usage(a.inTok, a.outTok, 0)
	t := &model.Trace{}
	run.trace(t)
	if a.failed {
		t.Outcome = model.OutcomeFailure
	}
	t.TraceID = genID(format, v.raw)
	t.Source = model.Source{File: file, Format: format, Line: v.line}
	return t, nil
}

// registerCassetteAPIFormat registers a format read only from VCR
// cassettes whose recorded URLs end in suffix (Cohere, Ollama): detected
// by the cassette's owner, each call read by call.
func registerCassetteAPIFormat(name, doc, suffix, what string, call func(req, resp any) apiCall) {
	register(Format{
		Name:     name,
		Priority: 40,
		Doc:      doc,
		Detect: func(head []byte) bool {
			owner, ok := cassetteFormat(head)
			return ok && owner == name
		},
		Parse: func(ctx context.Context, r io.Reader, file string, emit Emit) error {
			br, ok := asCassette(r)
			if !ok {
				return &LineError{File: file, Line: 1, Msg: "expected a VCR cassette (interactions:) of " + what}
			}
			return parseCassette(ctx, br, file, emit)
		},
	})
	registerCassetteAPI(cassetteAPI{format: name, suffixes: []string{suffix}, trace: apiCallTrace(name, call)})
}

// apiCallTrace adapts a reader of one call to the cassette reader.
func apiCallTrace(format string, read func(req, resp any) apiCall) func(string, jsonValue) (*model.Trace, *LineError, string) {
	return func(file string, v jsonValue) (*model.Trace, *LineError, string) {
		d, err := genDecode(v.raw)
		if err != nil {
			return nil, jsonError(file, v.line, v.raw, err), ""
		}
		m := asObj(d)
		t, lerr := read(apiBody(m["request"]), apiBody(m["response"])).trace(format, file, v)
		return t, lerr, ""
	}
}

// apiBody is a recorded body decoded when it is one JSON value (NDJSON
// and SSE text stay text).
func apiBody(v any) any {
	if s, ok := v.(string); ok && json.Valid([]byte(s)) {
		if d, ok := genMaybeJSON(s); ok {
			return d
		}
	}
	return v
}
