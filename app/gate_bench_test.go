package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"tracelab/model"
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
func BenchmarkCheck10kContracts(b *testing.B) {
	const n = 10000
	dir := b.TempDir()
	suitePath, tracesPath, policyPath := writeCheckCorpus(b, dir, n)
	addCorpusContracts(b, suitePath)
	in := CheckInput{Suite: suitePath, Traces: []string{tracesPath}, Files: Files{Policy: policyPath}, TempDir: dir}
	ctx := context.Background()
	b.ResetTimer()
	start, cpu0 := time.Now(), benchCPUSeconds()
	var rep CheckReport
	for i := 0; i < b.N; i++ {
		var err error
		if rep, err = RunCheck(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(n/el, "cases/s")
	b.ReportMetric(el, "s/check")
	b.ReportMetric((benchCPUSeconds()-cpu0)/float64(b.N), "cpu-s/check")
	b.ReportMetric(float64(rep.Summary.ContractsChanged), "contracts-changed")
}
