package model

import (
	"bytes"
	"io"
	"sort"
)

// MarshalLine encodes v as one compact JSON line without HTML escaping
// (NewJSONEncoder): the canonical form of every tracelab export,
// byte-identical on rerun.
func MarshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := NewJSONEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteCasesJSONL writes cases as cases.jsonl: one case per line, keys in
// the seed's order, sorted by case_id.
func WriteCasesJSONL(w io.Writer, cases []Case) error {
	sorted := append([]Case(nil), cases...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CaseID < sorted[j].CaseID })
	for i := range sorted {
		line, err := MarshalLine(&sorted[i])
		if err != nil {
			return err
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// WriteReportJSON writes report.json: a JSON array, one object per server,
// sorted by server, indented for review in diffs.
func WriteReportJSON(w io.Writer, reports []Report) error {
	sorted := append([]Report(nil), reports...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Server < sorted[j].Server })
	if sorted == nil {
		sorted = []Report{}
	}
	enc := NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sorted)
}
