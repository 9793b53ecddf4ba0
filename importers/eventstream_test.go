package importers

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// esEncode frames one message as AWS's event-stream encoder does, with
// string headers: the inverse of decodeEventStream, for tests and seeds.
func esEncode(headers [][2]string, payload string) []byte {
	var h []byte
	for _, kv := range headers {
		h = append(h, byte(len(kv[0])))
		h = append(h, kv[0]...)
		h = append(h, 7)
		h = binary.BigEndian.AppendUint16(h, uint16(len(kv[1])))
		h = append(h, kv[1]...)
	}
	total := 12 + len(h) + len(payload) + 4
	msg := binary.BigEndian.AppendUint32(nil, uint32(total))
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(h)))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
	msg = append(append(msg, h...), payload...)
	return binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}

func esEvt(typ, payload string) []byte {
	return esEncode([][2]string{{":event-type", typ}, {":content-type", "application/json"}, {":message-type", "event"}}, payload)
}

func TestDecodeEventStream(t *testing.T) {
	two := append(esEvt("messageStart", `{"role":"assistant"}`), esEvt("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"hi"}}`)...)
	exc := esEncode([][2]string{{":exception-type", "throttlingException"}, {":message-type", "exception"}}, `{"message":"slow down"}`)
	badCRC := append([]byte(nil), two...)
	badCRC[len(badCRC)-1] ^= 1
	badPrelude := append([]byte(nil), two...)
	badPrelude[9] ^= 1
	noHeaders := esEncode(nil, "{}")
	tests := []struct {
		name    string
		in      []byte
		types   []string
		wantErr string
	}{
		{"two events", two, []string{"messageStart", "contentBlockDelta"}, ""},
		{"exception", exc, []string{"throttlingException"}, ""},
		{"message CRC", badCRC, []string{"messageStart"}, "message 1 at byte 118: message CRC does not match"},
		{"prelude CRC", badPrelude, nil, "message 0 at byte 0: prelude CRC does not match"},
		{"cut short", two[:len(two)-5], []string{"messageStart"}, "says 148 bytes, 143 are left"},
		{"trailing bytes", append(append([]byte(nil), two...), 0, 0, 0), []string{"messageStart", "contentBlockDelta"}, "3 bytes left, a prelude is 12"},
		{"no headers", noHeaders, []string{""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := decodeEventStream(tt.in)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			var types []string
			for _, e := range evs {
				types = append(types, e.Type)
			}
			if strings.Join(types, ",") != strings.Join(tt.types, ",") {
				t.Errorf("types = %v, want %v", types, tt.types)
			}
		})
	}
	if !isEventStream(two) || isEventStream([]byte(`{"output":{}}`)) || isEventStream(badPrelude) {
		t.Error("isEventStream: wrong answer on a stream, JSON or a bad prelude")
	}
	evs, err := decodeEventStream(append(esEvt("metadata", `{"usage":{"inputTokens":3}}`), exc...))
	if err != nil {
		t.Fatal(err)
	}
	got := string(eventStreamJSON(evs))
	if want := `[{"metadata":{"usage":{"inputTokens":3}}},{"exception":true,"throttlingException":{"message":"slow down"}}]`; got != want {
		t.Errorf("eventStreamJSON = %s, want %s", got, want)
	}
}

// TestEventStreamHeaders: every header value type is skipped by its size,
// and a value past the headers' end is an error, not a read out of range.
func TestEventStreamHeaders(t *testing.T) {
	h := []byte{1, 'a', 0, 1, 'b', 1, 1, 'c', 2, 9, 1, 'd', 3, 0, 1, 1, 'e', 4, 0, 0, 0, 1, 1, 'f', 5, 0, 0, 0, 0, 0, 0, 0, 1,
		1, 'g', 8, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'h', 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		1, 'i', 6, 0, 2, 'x', 'y', 1, 'j', 7, 0, 2, 'o', 'k'}
	m, err := esHeaders(h)
	if err != nil || m["j"] != "ok" || len(m) != 1 {
		t.Fatalf("esHeaders = %v, %v", m, err)
	}
	for _, bad := range [][]byte{{5, 'a'}, {1, 'a', 4, 0}, {1, 'a', 7, 0, 9, 'x'}, {1, 'a', 12}, {1, 'a', 7, 0}} {
		if _, err := esHeaders(bad); err == nil {
			t.Errorf("esHeaders(%v): no error", bad)
		}
	}
}

// FuzzEventStream: any bytes decode to events or a precise error, never a
// panic, and every event's payload lies inside the input.
func FuzzEventStream(f *testing.F) {
	f.Add(esEvt("messageStart", `{"role":"assistant"}`))
	f.Add(append(esEvt("contentBlockDelta", `{"delta":{"text":"x"}}`), esEvt("metadata", `{}`)...))
	f.Add(esEncode([][2]string{{":exception-type", "validationException"}, {":message-type", "exception"}}, `{"message":"bad"}`))
	f.Add([]byte{0, 0, 0, 16, 0, 0, 0, 0, 0x05, 0xc2, 0x48, 0xeb, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := decodeEventStream(b)
		size := 0
		for _, e := range evs {
			size += len(e.Payload) + 16
		}
		if size > len(b) {
			t.Fatalf("payloads of %d bytes from %d bytes of input", size, len(b))
		}
		if err == nil && len(b) > 0 && len(evs) == 0 {
			t.Fatal("no events and no error")
		}
		_ = eventStreamJSON(evs)
	})
}
