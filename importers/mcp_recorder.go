package importers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// mcp-recorder (devhelmhq/mcp-recorder) records an MCP session as one JSON
// document: {version, metadata: {server_url, protocol_version,
// server_info: {name, version}}, interactions: [{type: jsonrpc_request |
// notification, request: a JSON-RPC message, response: a JSON-RPC message
// or null}]}. Each interaction's messages go through the MCP log reader,
// so tools/call pairing, tools/list contracts and error results behave as
// in every other MCP log; the server is server_info (or the initialize
// result's serverInfo).
func init() {
	register(Format{
		Name:     "mcp_recorder",
		Priority: 45,
		Doc:      "mcp-recorder session cassettes (metadata.server_info, interactions[] of JSON-RPC request/response); emitted by mcp-recorder (pytest plugin and CLI)",
		Detect: func(head []byte) bool {
			m := headObject(head)
			return m != nil && m["interactions"] != nil && m["metadata"] != nil && strings.Contains(string(head[:min(len(head), 64<<10)]), `"jsonrpc"`)
		},
		Parse: parseMCPRecorder,
	})
}

type mcpRecording struct {
	Metadata struct {
		RecordedAt string `json:"recorded_at"`
		ServerURL  string `json:"server_url"`
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"server_info"`
	} `json:"metadata"`
	Interactions []struct {
		Type     string          `json:"type"`
		Request  json.RawMessage `json:"request"`
		Response json.RawMessage `json:"response"`
	} `json:"interactions"`
}

func parseMCPRecorder(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "mcp-recorder session")
	if err != nil {
		return err
	}
	var rec mcpRecording
	if lerr := decodeLine(file, 1, data, &rec); lerr != nil {
		return emit(Record{Line: 1, Err: lerr})
	}
	sum := sha256.Sum256(data)
	p := &mcpParser{file: file, sessions: map[string]*mcpSession{}, sum: sha256.New()}
	p.sum.Write(sum[:])
	p.emit = func(r Record) error {
		if t := r.Trace; t != nil {
			t.Source.Format = "mcp_recorder"
			t.TraceID = "mcp_recorder-" + strings.TrimPrefix(t.TraceID, "mcp-")
			t.Server = genFirstString(t.Server, rec.Metadata.ServerInfo.Name)
			t.StartedAt = genFirstString(t.StartedAt, normTime(rec.Metadata.RecordedAt))
			if rec.Metadata.ServerURL != "" {
				t.Metadata = map[string]any{"server_url": rec.Metadata.ServerURL}
			}
		}
		return emit(r)
	}
	for i, in := range rec.Interactions {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, part := range []struct {
			name string
			raw  json.RawMessage
		}{{"request", in.Request}, {"response", in.Response}} {
			if len(part.raw) == 0 || string(part.raw) == "null" {
				continue
			}
			path := fmt.Sprintf("interactions[%d].%s.", i, part.name)
			if err := p.entry(i+1, 1, part.raw, path, "", nil); err != nil {
				return err
			}
		}
	}
	if len(p.sessions) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: "interactions", Msg: "no JSON-RPC interaction recorded: no tool call to import"}})
	}
	return p.finish("")
}

// normTime renders an RFC 3339 time in UTC, "" when it is not one.
func normTime(s string) string { return genTime(genParseTime(s)) }
