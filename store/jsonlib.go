package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/tracelab-dev/tracelab/model"
)

// TEMPORARY (issue 25 measurement): TRACELAB_JSONLIB=sha,body replaces the
// trace hash and the step bodies' encoder and decoder with
// go-json-experiment/json.
var (
	libSHA  = strings.Contains(os.Getenv("TRACELAB_JSONLIB"), "sha")
	libBody = strings.Contains(os.Getenv("TRACELAB_JSONLIB"), "body")
)

// v1Options: encoding/json's semantics, and its Number (metadata the
// importers read keeps numbers as json.Number) written as the number it
// holds, as encoding/json writes it.
var v1Options = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(),
	jsonv2.WithMarshalers(jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, n json.Number) error {
		if n == "" {
			n = "0"
		}
		return enc.WriteValue(jsontext.Value(n))
	})))

func traceSHALib(t *model.Trace) string {
	h := sha256.New()
	if err := jsonv2.MarshalWrite(h, t, v1Options); err != nil {
		panic(err)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

var bodyOptions = jsontext.AllowInvalidUTF8(true)

func stepsBodyLib(steps []model.Step) string {
	var b []byte
	b = append(b, '[')
	for i := range steps {
		st := &steps[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, s := range []string{string(st.Kind), st.ID, st.CallID, st.Text, st.Tool} {
			if j > 0 {
				b = append(b, ',')
			}
			b, _ = jsontext.AppendQuote(b, s)
		}
		for _, raw := range [][]byte{st.Args, st.Result} {
			b = append(b, ',')
			if len(raw) == 0 {
				b = append(b, "null"...)
			} else {
				b, _ = jsontext.AppendQuote(b, raw)
			}
		}
		b, _ = jsontext.AppendQuote(append(b, ','), st.AsOf)
		b = appendBool(append(b, ','), st.IsError)
		for _, s := range []string{st.Credential, st.NextCursor} {
			b, _ = jsontext.AppendQuote(append(b, ','), s)
		}
		b = appendBool(append(b, ','), st.HasMore)
		b = append(b, ']')
	}
	b = append(b, ']')
	return string(b)
}

func decodeStepsBodyLib(body string, steps []model.Step) ([]model.Step, error) {
	dec := jsontext.NewDecoder(strings.NewReader(body), bodyOptions)
	if _, err := dec.ReadToken(); err != nil {
		return steps, err
	}
	for dec.PeekKind() == '[' {
		dec.ReadToken()
		var st model.Step
		strs := []*string{(*string)(&st.Kind), &st.ID, &st.CallID, &st.Text, &st.Tool}
		for _, p := range strs {
			tok, err := dec.ReadToken()
			if err != nil {
				return steps, err
			}
			*p = tok.String()
		}
		for _, p := range []*[]byte{(*[]byte)(&st.Args), (*[]byte)(&st.Result)} {
			tok, err := dec.ReadToken()
			if err != nil {
				return steps, err
			}
			if tok.Kind() == '"' {
				*p = []byte(tok.String())
			}
		}
		read := func(p *string) error {
			tok, err := dec.ReadToken()
			*p = tok.String()
			return err
		}
		flag := func(p *bool) error {
			tok, err := dec.ReadToken()
			n, _ := tok.Int()
			*p = tok.Kind() == '0' && n == 1 || tok.Kind() == 't'
			return err
		}
		if err := read(&st.AsOf); err != nil {
			return steps, err
		}
		if err := flag(&st.IsError); err != nil {
			return steps, err
		}
		if err := read(&st.Credential); err != nil {
			return steps, err
		}
		if err := read(&st.NextCursor); err != nil {
			return steps, err
		}
		if err := flag(&st.HasMore); err != nil {
			return steps, err
		}
		if _, err := dec.ReadToken(); err != nil {
			return steps, err
		}
		steps = append(steps, st)
	}
	_, err := dec.ReadToken()
	return steps, err
}
