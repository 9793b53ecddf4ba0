package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// addCorpusContracts gives every case of writeCheckCorpus's suite the
// contracts block export writes (tool -> wire fingerprint of what its
// trace saw), as a real suite has, so the contract gate runs; the
// contracts are unchanged in the new run, the common case.
func addCorpusContracts(tb testing.TB, suitePath string) {
	tb.Helper()
	var tools []model.ToolContract
	if err := json.Unmarshal([]byte(benchCheckTools), &tools); err != nil {
		tb.Fatal(err)
	}
	fps := func(ts []model.ToolContract) map[string]string {
		m := map[string]string{}
		for _, tc := range ts {
			m[tc.Name] = tc.Fingerprint()
		}
		return m
	}
	warehouse, governed := fps(tools[:2]), fps(tools[2:])
	data, err := os.ReadFile(suitePath)
	if err != nil {
		tb.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c model.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatal(err)
		}
		i, _ := strconv.Atoi(strings.TrimPrefix(c.CaseID, "bench-"))
		c.Contracts = warehouse
		if i%4 == 3 {
			c.Contracts = governed
		}
		line, _ := model.MarshalLine(&c)
		out.Write(line)
	}
	if err := os.WriteFile(suitePath, out.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkCheck10kContracts is BenchmarkCheck10k with contracts blocks
// on every case: what the contract gate adds to a check.
func BenchmarkCheck10kContracts(b *testing.B) { benchmarkCheck(b, addCorpusContracts) }
