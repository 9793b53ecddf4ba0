package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// ListingError is a precise complaint about a tool listing: the JSON path
// of the offending value (tools[2].inputSchema) and what was expected there.
type ListingError struct {
	Path string // empty for the whole document
	Msg  string
}

func (e *ListingError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// ParseToolListing reads a list of tool definitions in any of the shapes a
// model is given tools in, and normalizes each to a model.ToolContract with
// its exact bytes kept in Raw:
//
//   - an MCP tools/list result, bare ({"tools":[...]}) or as the JSON-RPC
//     response ({"jsonrpc":"2.0","id":1,"result":{"tools":[...]}});
//   - a JSON array of tools, each in MCP shape (name, inputSchema, ...),
//     OpenAI Chat Completions shape ({"type":"function","function":{name,
//     description,parameters}}), OpenAI Responses shape ({"type":"function",
//     "name","parameters"}) or Anthropic shape ({name, description,
//     input_schema}).
//
// Any other object with a "tools" array, such as a Chat Completions,
// Responses or Messages request body, is read the same way. Tool names
// must be unique within a listing.
func ParseToolListing(data []byte) ([]model.ToolContract, error) {
	data = bytes.TrimSpace(stripBOM(data))
	if len(data) == 0 {
		return nil, &ListingError{Msg: "empty document: expected a tools/list result or a JSON array of tools"}
	}
	if err := listingSyntaxCheck(data); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	var at string // path prefix of the tools array
	switch data[0] {
	case '[':
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, &ListingError{Msg: "expected a JSON array of tools"}
		}
	case '{':
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, &ListingError{Msg: "expected a JSON object"}
		}
		tools, ok := top["tools"]
		at = "tools"
		if res, isRPC := top["result"]; !ok && isRPC {
			if e, hasErr := top["error"]; hasErr && !listingIsNull(e) {
				return nil, &ListingError{Path: "error", Msg: "a JSON-RPC error response, not a tools/list result"}
			}
			var inner map[string]json.RawMessage
			if err := json.Unmarshal(res, &inner); err != nil || inner == nil {
				return nil, &ListingError{Path: "result", Msg: "expected an object holding tools (a tools/list result)"}
			}
			if tools, ok = inner["tools"]; !ok {
				return nil, &ListingError{Path: "result.tools", Msg: "required: the result is not a tools/list result"}
			}
			at = "result.tools"
		} else if !ok {
			if _, rpcErr := top["error"]; rpcErr {
				return nil, &ListingError{Path: "error", Msg: "a JSON-RPC error response, not a tools/list result"}
			}
			return nil, &ListingError{Path: "tools", Msg: `required: expected a tools/list result ({"tools":[...]}), a JSON-RPC response with result.tools, or a JSON array of tools`}
		}
		if err := json.Unmarshal(tools, &items); err != nil || items == nil {
			return nil, &ListingError{Path: at, Msg: "expected an array of tools"}
		}
	default:
		return nil, &ListingError{Msg: "expected a tools/list result object or a JSON array of tools"}
	}
	out := make([]model.ToolContract, 0, len(items))
	first := map[string]string{}
	for i, raw := range items {
		path := fmt.Sprintf("%s[%d]", at, i)
		tc, err := parseListedTool(path, raw)
		if err != nil {
			return nil, err
		}
		if prev, dup := first[tc.Name]; dup {
			return nil, &ListingError{Path: path + ".name", Msg: fmt.Sprintf("duplicate tool name %q (first at %s)", tc.Name, prev)}
		}
		first[tc.Name] = path
		out = append(out, tc)
	}
	return out, nil
}

// listingSyntaxCheck reports invalid JSON with its line and column.
func listingSyntaxCheck(data []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := dec.Decode(&v)
	if err == nil {
		if _, terr := dec.Token(); terr == nil {
			off := dec.InputOffset()
			line, col := listingLineCol(data, off)
			return &ListingError{Msg: fmt.Sprintf("line %d, column %d: trailing data after the JSON document", line, col)}
		}
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := listingLineCol(data, se.Offset)
		return &ListingError{Msg: fmt.Sprintf("line %d, column %d: invalid JSON: %s", line, col, se.Error())}
	}
	return &ListingError{Msg: "invalid JSON: unexpected end of input (truncated file?)"}
}

// listingLineCol turns "after reading off bytes" (how encoding/json reports a
// position) into the 1-based line and column of the byte at fault.
func listingLineCol(data []byte, off int64) (int, int) {
	if off > 0 {
		off--
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

func listingIsNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// listedTool is the union of the fields of every supported tool shape.
type listedTool struct {
	Type        json.RawMessage `json:"type"`
	Function    json.RawMessage `json:"function"`
	Name        json.RawMessage `json:"name"`
	Title       json.RawMessage `json:"title"`
	Description json.RawMessage `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	InputSchema json.RawMessage `json:"inputSchema"`
	InputSnake  json.RawMessage `json:"input_schema"`
	Output      json.RawMessage `json:"outputSchema"`
	Annotations json.RawMessage `json:"annotations"`
}

func parseListedTool(path string, raw json.RawMessage) (model.ToolContract, error) {
	var tc model.ToolContract
	bad := func(sub, format string, args ...any) (model.ToolContract, error) {
		p := path
		if sub != "" {
			p += "." + sub
		}
		return tc, &ListingError{Path: p, Msg: fmt.Sprintf(format, args...)}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return bad("", "expected a tool object")
	}
	var lt listedTool
	if err := json.Unmarshal(raw, &lt); err != nil {
		return bad("", "expected a tool object: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return bad("", "invalid JSON: %v", err)
	}
	tc.Raw = compact.Bytes()

	if lt.Type != nil {
		typ, ok := listingString(lt.Type)
		if !ok {
			return bad("type", "expected a string")
		}
		switch typ {
		case "function":
			if lt.Function != nil { // Chat Completions: the tool is nested
				if len(bytes.TrimSpace(lt.Function)) == 0 || bytes.TrimSpace(lt.Function)[0] != '{' {
					return bad("function", "expected an object with name, description and parameters")
				}
				var fn listedTool
				if err := json.Unmarshal(lt.Function, &fn); err != nil {
					return bad("function", "expected an object with name, description and parameters")
				}
				return fillContract(tc, path+".function", fn.Name, nil, fn.Description, fn.Parameters, "parameters", nil, nil)
			}
			return fillContract(tc, path, lt.Name, nil, lt.Description, lt.Parameters, "parameters", nil, nil)
		case "custom": // Anthropic's explicit type for client tools
			return fillContract(tc, path, lt.Name, nil, lt.Description, lt.InputSnake, "input_schema", nil, nil)
		default:
			return bad("type", "%q is not a function tool (only \"function\" and \"custom\" tools carry a contract)", typ)
		}
	}
	if lt.InputSnake != nil {
		return fillContract(tc, path, lt.Name, nil, lt.Description, lt.InputSnake, "input_schema", nil, nil)
	}
	if lt.Parameters != nil && lt.InputSchema == nil {
		return fillContract(tc, path, lt.Name, nil, lt.Description, lt.Parameters, "parameters", nil, nil)
	}
	return fillContract(tc, path, lt.Name, lt.Title, lt.Description, lt.InputSchema, "inputSchema", lt.Output, lt.Annotations)
}

func fillContract(tc model.ToolContract, path string, name, title, desc, input json.RawMessage, inputKey string, output, annotations json.RawMessage) (model.ToolContract, error) {
	bad := func(sub, format string, args ...any) (model.ToolContract, error) {
		return tc, &ListingError{Path: path + "." + sub, Msg: fmt.Sprintf(format, args...)}
	}
	var ok bool
	if name == nil {
		return bad("name", "required, a non-empty string")
	}
	if tc.Name, ok = listingString(name); !ok || tc.Name == "" {
		return bad("name", "expected a non-empty string")
	}
	if title != nil && !listingIsNull(title) {
		if tc.Title, ok = listingString(title); !ok {
			return bad("title", "expected a string")
		}
	}
	if desc != nil && !listingIsNull(desc) {
		if tc.Description, ok = listingString(desc); !ok {
			return bad("description", "expected a string")
		}
	}
	if input != nil && !listingIsNull(input) {
		if !listingIsObject(input) {
			return bad(inputKey, "expected a JSON Schema object")
		}
		tc.InputSchema = listingCompact(input)
	}
	if output != nil && !listingIsNull(output) {
		t := bytes.TrimSpace(output)
		if !listingIsObject(t) && string(t) != "true" && string(t) != "false" {
			return bad("outputSchema", "expected a JSON Schema (an object or a boolean)")
		}
		tc.OutputSchema = listingCompact(output)
	}
	if annotations != nil && !listingIsNull(annotations) {
		if !listingIsObject(annotations) {
			return bad("annotations", "expected an object of hints")
		}
		var hints map[string]json.RawMessage
		_ = json.Unmarshal(annotations, &hints) // an object: cannot fail
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if v, has := hints[k]; has && !listingIsNull(v) {
				if s := string(bytes.TrimSpace(v)); s != "true" && s != "false" {
					return bad("annotations."+k, "expected true or false")
				}
			}
		}
		if t, has := hints["title"]; has && !listingIsNull(t) {
			if _, isStr := listingString(t); !isStr {
				return bad("annotations.title", "expected a string")
			}
		}
		tc.Annotations = listingCompact(annotations)
	}
	return tc, nil
}

func listingString(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func listingIsObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func listingCompact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// ListingNextCursor returns the nextCursor of a tools/list result (bare or
// in a JSON-RPC response): when set, the listing is one page and tools on
// other pages are missing from it. Empty when absent or not a listing.
func ListingNextCursor(data []byte) string {
	var top struct {
		NextCursor string `json:"nextCursor"`
		Result     *struct {
			NextCursor string `json:"nextCursor"`
		} `json:"result"`
	}
	if json.Unmarshal(bytes.TrimSpace(stripBOM(data)), &top) != nil {
		return ""
	}
	if top.Result != nil && top.Result.NextCursor != "" {
		return top.Result.NextCursor
	}
	return top.NextCursor
}
