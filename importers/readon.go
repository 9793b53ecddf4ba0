package importers

// Reading on past the detector's head: a pretty-printed JSON document
// longer than HeadSize (a Langfuse export re-indented, a results file of
// a benchmark) may keep the keys that tell its format after the first
// MiB, and cut there it is no valid JSON. Detection then reads the whole
// document, up to the record cap, and looks again, as it already does
// for a first JSONL line longer than the head.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// documentCut reports whether head is a full head whose first JSON value
// (an object or an array) does not end in it.
func documentCut(head []byte) bool {
	t := bytes.TrimLeft(stripBOM(head), " \t\r\n")
	if len(head) != HeadSize || len(t) == 0 || t[0] != '{' && t[0] != '[' {
		return false
	}
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(t)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// readDocument reads the rest of br, at most maxRecord bytes; complete is
// false when it stopped at the cap. A document is a file's one record, so
// the record cap is its cap.
func readDocument(br *bufio.Reader, maxRecord int64) (doc []byte, complete bool, err error) {
	doc, err = io.ReadAll(io.LimitReader(br, maxRecord+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(doc)) > maxRecord {
		return doc, false, nil
	}
	return doc, true, nil
}
