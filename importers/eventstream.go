package importers

// AWS event-stream: the binary framing Bedrock's ConverseStream and
// InvokeModelWithResponseStream answer in (Content-Type
// application/vnd.amazon.eventstream). A message is a prelude (total
// length, headers length, both big-endian uint32, then the CRC-32 of those
// eight bytes), the headers, the payload, and the CRC-32 of all that went
// before. A header is a one-byte name length, the name, a one-byte value
// type and the value; :message-type says event or exception and
// :event-type (or :exception-type) names it.
//
// Reference: https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html
// and the SDKs' eventstream decoders (aws-sdk-go-v2 aws/protocol/eventstream).

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
)

// eventStreamMaxMessage caps one message: AWS's own limit is 16 MiB of
// payload and 128 KiB of headers.
const eventStreamMaxMessage = 16<<20 + 128<<10 + 16

// esEvent is one decoded message.
type esEvent struct {
	MessageType string // event, exception, error
	Type        string // the :event-type or :exception-type
	Payload     []byte
}

// isEventStream reports whether b starts with a well-formed prelude (its
// CRC matches), so a recorded body is taken as an event stream by its
// bytes even when the Content-Type header was not recorded.
func isEventStream(b []byte) bool {
	if len(b) < 16 {
		return false
	}
	total := binary.BigEndian.Uint32(b[0:4])
	hlen := binary.BigEndian.Uint32(b[4:8])
	return total >= 16 && hlen <= total-16 && crc32.ChecksumIEEE(b[:8]) == binary.BigEndian.Uint32(b[8:12])
}

// decodeEventStream splits b into its messages, checking every length and
// CRC; the error names the message and byte offset where it went wrong.
func decodeEventStream(b []byte) ([]esEvent, error) {
	var out []esEvent
	for off := 0; off < len(b); {
		n := len(out)
		rest := b[off:]
		if len(rest) < 12 {
			return out, fmt.Errorf("event-stream message %d at byte %d: %d bytes left, a prelude is 12", n, off, len(rest))
		}
		total := int64(binary.BigEndian.Uint32(rest[0:4]))
		hlen := int64(binary.BigEndian.Uint32(rest[4:8]))
		if crc32.ChecksumIEEE(rest[:8]) != binary.BigEndian.Uint32(rest[8:12]) {
			return out, fmt.Errorf("event-stream message %d at byte %d: prelude CRC does not match", n, off)
		}
		switch {
		case total < 16 || total > eventStreamMaxMessage:
			return out, fmt.Errorf("event-stream message %d at byte %d: total length %d is outside 16..%d", n, off, total, eventStreamMaxMessage)
		case hlen > total-16:
			return out, fmt.Errorf("event-stream message %d at byte %d: headers length %d does not fit in total length %d", n, off, hlen, total)
		case total > int64(len(rest)):
			return out, fmt.Errorf("event-stream message %d at byte %d: says %d bytes, %d are left", n, off, total, len(rest))
		}
		msg := rest[:total]
		if crc32.ChecksumIEEE(msg[:total-4]) != binary.BigEndian.Uint32(msg[total-4:]) {
			return out, fmt.Errorf("event-stream message %d at byte %d: message CRC does not match", n, off)
		}
		hdrs, err := esHeaders(msg[12 : 12+hlen])
		if err != nil {
			return out, fmt.Errorf("event-stream message %d at byte %d: %v", n, off, err)
		}
		ev := esEvent{MessageType: hdrs[":message-type"], Type: hdrs[":event-type"], Payload: msg[12+hlen : total-4]}
		if ev.Type == "" {
			ev.Type = hdrs[":exception-type"]
		}
		out = append(out, ev)
		off += int(total)
	}
	return out, nil
}

// esHeaders reads the headers block, keeping the string-valued ones (the
// only ones Bedrock's events are named by) and checking every value's
// length against what is left.
func esHeaders(b []byte) (map[string]string, error) {
	h := map[string]string{}
	for len(b) > 0 {
		nlen := int(b[0])
		if len(b) < 1+nlen+1 {
			return nil, fmt.Errorf("header name of %d bytes runs past the headers", nlen)
		}
		name := string(b[1 : 1+nlen])
		typ := b[1+nlen]
		b = b[2+nlen:]
		size := 0
		switch typ {
		case 0, 1: // bool true, false: no value bytes
		case 2:
			size = 1
		case 3:
			size = 2
		case 4:
			size = 4
		case 5, 8: // int64, timestamp
			size = 8
		case 9: // uuid
			size = 16
		case 6, 7: // bytes, string: a two-byte length first
			if len(b) < 2 {
				return nil, fmt.Errorf("header %q: value length runs past the headers", name)
			}
			vlen := int(binary.BigEndian.Uint16(b))
			if len(b) < 2+vlen {
				return nil, fmt.Errorf("header %q: value of %d bytes runs past the headers", name, vlen)
			}
			if typ == 7 {
				h[name] = string(b[2 : 2+vlen])
			}
			b = b[2+vlen:]
			continue
		default:
			return nil, fmt.Errorf("header %q has value type %d, which is not one of 0..9", name, typ)
		}
		if len(b) < size {
			return nil, fmt.Errorf("header %q: value runs past the headers", name)
		}
		b = b[size:]
	}
	return h, nil
}

// eventStreamJSON turns a decoded stream into the JSON the AWS SDKs give a
// caller: an array of {"<event-type>": payload} objects, an exception as
// {"<exception-type>": payload, "exception": true}. A payload that is not
// JSON is kept as a string.
func eventStreamJSON(events []esEvent) json.RawMessage {
	items := make([]map[string]any, 0, len(events))
	for _, ev := range events {
		var p any = string(ev.Payload)
		if json.Valid(ev.Payload) {
			p = json.RawMessage(ev.Payload)
		}
		item := map[string]any{ev.Type: p}
		if ev.MessageType != "" && ev.MessageType != "event" {
			item["exception"] = true
		}
		items = append(items, item)
	}
	b, _ := json.Marshal(items)
	return b
}
