package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// CanonicalJSON re-encodes a JSON document with object keys sorted, arrays
// in order, no insignificant whitespace, no HTML escaping and numbers
// exactly as written, so equal documents give equal bytes (RFC 8785 style).
func CanonicalJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// CanonicalValue encodes an already decoded value (maps, slices,
// json.Number, strings, bools, nil) canonically.
func CanonicalValue(v any) ([]byte, error) {
	var b bytes.Buffer
	err := writeCanonical(&b, v)
	return b.Bytes(), err
}

func writeCanonical(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := writeCanonical(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case string:
		writeString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	case float64:
		fmt.Fprint(b, x)
	default:
		return fmt.Errorf("canonical JSON: unsupported value of type %T", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.WriteString(strings.TrimSuffix(sb.String(), "\n"))
}

// Fingerprint is the hex sha256 of the canonical form of raw.
func Fingerprint(raw []byte) (string, error) {
	c, err := CanonicalJSON(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// WireJSON is the contract exactly as the model saw it: Raw when the source
// kept it, else the contract's own fields.
func (tc ToolContract) WireJSON() []byte {
	if len(tc.Raw) > 0 {
		return tc.Raw
	}
	b, _ := json.Marshal(tc) // plain strings and raw JSON: cannot fail
	return b
}

// Fingerprint is the wire fingerprint of the contract: sha256 over its
// canonical JSON, descriptions and examples kept.
func (tc ToolContract) Fingerprint() string {
	fp, err := Fingerprint(tc.WireJSON())
	if err != nil {
		// Raw always comes from a successful parse; fall back to the fields.
		b, _ := json.Marshal(tc)
		fp, _ = Fingerprint(b)
	}
	return fp
}
