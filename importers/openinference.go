package importers

import (
	"bytes"
	"encoding/json"
)

// isOpenInference reports whether a head holds OpenInference spans: the
// openinference.span.kind attribute or flattened llm.* attributes, at the
// top (attribute map) or under attributes (Phoenix span JSON, OTLP).
func isOpenInference(head []byte, m map[string]json.RawMessage) bool {
	if bytes.Contains(head, []byte(`"openinference.span.kind"`)) {
		return true
	}
	if hasKeyPrefix(m, "llm.") {
		return true
	}
	if a, ok := m["attributes"]; ok && len(a) > 0 && a[0] == '{' {
		var am map[string]json.RawMessage
		if json.Unmarshal(a, &am) == nil && (am["llm"] != nil || hasKeyPrefix(am, "llm.")) {
			return true
		}
	}
	return false
}
