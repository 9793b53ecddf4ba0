package model

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// CaseLines writes cases.jsonl lines byte for byte as MarshalLine does,
// for a stream of cases that repeat the same few gold records and labels
// (the machine's suggestions for one question): encoding every case with
// encoding/json was a sixth of export --all's CPU at 100,000 cases
// (issue 33). The gold and label are encoded by encoding/json once per
// distinct stored text and copied after; the envelope around them is
// written here in Case's field order, its strings by encoding/json unless
// they are plain printable ASCII, which it writes as they are. A case with
// what export adds only sometimes (labeler, labels, adjudication) goes to
// MarshalLine whole. TestCaseLinesAreMarshalLine holds the two together.
type CaseLines struct {
	golds, labels map[string][]byte
}

// NewCaseLines returns an empty CaseLines.
func NewCaseLines() *CaseLines {
	return &CaseLines{golds: map[string][]byte{}, labels: map[string][]byte{}}
}

// Append appends c's line to dst. goldKey and labelKey are the texts c's
// gold and label were decoded from ("" when unknown, or when the value
// has changed since): equal keys must mean equal values.
func (cl *CaseLines) Append(dst []byte, c *Case, goldKey, labelKey string) ([]byte, error) {
	if c.Labeler != "" || c.Labels != nil || c.Adjudication != nil {
		line, err := MarshalLine(c)
		return append(dst, line...), err
	}
	start := len(dst)
	dst = append(dst, `{"case_id":`...)
	dst = appendJSONString(dst, c.CaseID)
	if c.SourceTrace != "" {
		dst = append(dst, `,"source_trace":`...)
		dst = appendJSONString(dst, c.SourceTrace)
	}
	if c.Server != "" {
		dst = append(dst, `,"server":`...)
		dst = appendJSONString(dst, c.Server)
	}
	dst = append(dst, `,"user_role":`...)
	dst = appendJSONString(dst, c.UserRole)
	dst = append(dst, `,"as_user":`...)
	dst = appendJSONString(dst, c.AsUser)
	dst = append(dst, `,"question":`...)
	dst = appendJSONString(dst, c.Question)
	dst = append(dst, `,"gold":`...)
	gold, err := encodeOnce(cl.golds, goldKey, &c.Gold)
	if err != nil {
		return dst, err
	}
	dst = append(dst, gold...)
	dst = append(dst, `,"label":`...)
	label, err := encodeOnce(cl.labels, labelKey, &c.Label)
	if err != nil {
		return dst, err
	}
	dst = append(dst, label...)
	dst, err = appendCost(dst, c.Cost)
	if err != nil {
		return dst, err
	}
	if len(c.Contracts) > 0 {
		dst = append(dst, `,"contracts":{`...)
		keys := make([]string, 0, len(c.Contracts))
		for k := range c.Contracts {
			keys = append(keys, k)
		}
		slices.Sort(keys) // encoding/json sorts a map's string keys so
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendJSONString(dst, c.Contracts[k])
		}
		dst = append(dst, '}')
	}
	dst = append(dst, "}\n"...)
	// What jsonEscaper does to every MarshalLine line.
	if esc := EscapeJSONControls(dst[start:]); len(esc) != len(dst)-start {
		dst = append(dst[:start], esc...)
	}
	return dst, nil
}

// appendCost appends ,"cost":{...}: the counts as encoding/json writes
// integers, and usd as it writes a float64 in the range it gives 'f'
// format (0, or 1e-6 up to 1e21); any other through encoding/json.
func appendCost(dst []byte, c Cost) ([]byte, error) {
	if abs := math.Abs(c.USD); abs != 0 && (abs < 1e-6 || abs >= 1e21) || math.IsNaN(c.USD) {
		b, err := encodeValue(&c)
		return append(append(dst, `,"cost":`...), b...), err
	}
	dst = append(dst, `,"cost":{"input_tokens":`...)
	dst = strconv.AppendInt(dst, c.InputTokens, 10)
	dst = append(dst, `,"output_tokens":`...)
	dst = strconv.AppendInt(dst, c.OutputTokens, 10)
	dst = append(dst, `,"tool_calls":`...)
	dst = strconv.AppendInt(dst, c.ToolCalls, 10)
	dst = append(dst, `,"turns":`...)
	dst = strconv.AppendInt(dst, c.Turns, 10)
	dst = append(dst, `,"usd":`...)
	dst = strconv.AppendFloat(dst, c.USD, 'f', -1, 64)
	return append(dst, '}'), nil
}

// encodeOnce is v encoded as MarshalLine encodes it, once per key in memo
// ("" is never kept).
func encodeOnce[T any](memo map[string][]byte, key string, v *T) ([]byte, error) {
	if b, ok := memo[key]; ok && key != "" {
		return b, nil
	}
	b, err := encodeValue(v)
	if err == nil && key != "" {
		memo[key] = b
	}
	return b, err
}

// encodeValue is v as encoding/json writes it without HTML escaping and
// without the newline (the escaping of controls is done on the whole line).
func encodeValue(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// appendJSONString appends s as a JSON string as encoding/json writes it
// without HTML escaping: plain printable ASCII as it is, anything else
// through encoding/json itself.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b, err := encodeValue(s)
			if err != nil { // a string always encodes
				return strconv.AppendQuote(dst, s)
			}
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
