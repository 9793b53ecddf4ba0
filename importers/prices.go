package importers

// Estimated cost: most formats carry tokens but no cost, and cost per
// correct answer is one of the scores, so a trace with tokens, a model and
// no recorded cost gets its USD from a price table by model, marked
// Usage.Estimated. The table is prices.json (its date and sources are in
// the file); LoadPrices puts a file of the same shape over it.

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/tracelab-dev/tracelab/model"
)

//go:embed prices.json
var embeddedPrices []byte

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// PriceTable is the shape of prices.json and of a --prices file.
type PriceTable struct {
	AsOf    string           `json:"as_of"`
	Sources []string         `json:"sources"`
	Models  map[string]Price `json:"models"`
}

var prices struct {
	sync.RWMutex
	models map[string]Price
}

func init() {
	t, err := parsePrices(embeddedPrices)
	if err != nil {
		panic("importers: embedded prices.json: " + err.Error()) // a build defect, caught by every test
	}
	prices.models = t.Models
}

func parsePrices(data []byte) (PriceTable, error) {
	var t PriceTable
	if err := json.Unmarshal(data, &t); err != nil {
		return t, err
	}
	for name, p := range t.Models {
		if name == "" || p.Input < 0 || p.Output < 0 || math.IsNaN(p.Input) || math.IsNaN(p.Output) {
			return t, fmt.Errorf("models[%q]: expected a name and non-negative {input, output} USD per million tokens", name)
		}
	}
	return t, nil
}

// LoadPrices reads a price file (the shape of prices.json) and puts its
// models over the embedded table for every later import: an entry there
// replaces the embedded one of the same name, others are added.
func LoadPrices(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	t, err := parsePrices(data)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	prices.Lock()
	defer prices.Unlock()
	merged := make(map[string]Price, len(prices.models)+len(t.Models))
	for k, v := range prices.models {
		merged[k] = v
	}
	for k, v := range t.Models {
		merged[strings.ToLower(k)] = v
	}
	prices.models = merged
	return nil
}

// PriceOf finds the price of a model as a source names it: provider
// prefixes (openai/, models/) are dropped and the longest table entry the
// name starts with, ending at a boundary, wins, so dated names
// (claude-3-5-sonnet-20241022, gpt-4o-2024-08-06) find their family.
func PriceOf(name string) (Price, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	prices.RLock()
	defer prices.RUnlock()
	best, bestLen := Price{}, -1
	for k, p := range prices.models {
		if len(k) > bestLen && strings.HasPrefix(name, k) && boundary(name, len(k)) {
			best, bestLen = p, len(k)
		}
	}
	return best, bestLen >= 0
}

// boundary reports whether a model family name may end at s[i]: at the
// end, or before a separator (gpt-4 does not cover gpt-4o or gpt-4.1).
func boundary(s string, i int) bool {
	if i == len(s) {
		return true
	}
	switch s[i] {
	case '-', '@', ':', '_', ' ':
		return true
	}
	return false
}

// estimateCost fills USD from the price table when the source gave tokens
// and a model but no cost.
func estimateCost(t *model.Trace) {
	u := &t.Usage
	if u.USD != 0 || (u.InputTokens == 0 && u.OutputTokens == 0) || t.Model == "" {
		return
	}
	p, ok := PriceOf(t.Model)
	if !ok {
		return
	}
	u.USD = genUSD((float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output) / 1e6)
	u.Estimated = true
}
