package importers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestPriceOf(t *testing.T) {
	tests := []struct {
		name  string
		want  Price
		found bool
	}{
		{"gpt-4o", Price{2.5, 10}, true},
		{"gpt-4o-2024-08-06", Price{2.5, 10}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.6}, true},
		{"openai/gpt-4.1-mini", Price{0.4, 1.6}, true},
		{"gpt-4-0613", Price{30, 60}, true},
		{"claude-3-5-sonnet-20241022", Price{3, 15}, true},
		{"anthropic/claude-sonnet-4-5", Price{3, 15}, true},
		{"models/gemini-2.0-flash-exp", Price{0.1, 0.4}, true},
		{"gemini-2.0-flash-lite-001", Price{0.075, 0.3}, true},
		{"gpt-4omni", Price{}, false}, // no boundary after gpt-4o
		{"llama3.1", Price{}, false},
		{"", Price{}, false},
	}
	for _, tt := range tests {
		got, ok := PriceOf(tt.name)
		if ok != tt.found || got != tt.want {
			t.Errorf("PriceOf(%q) = %v %v, want %v %v", tt.name, got, ok, tt.want, tt.found)
		}
	}
}

func TestEstimateCost(t *testing.T) {
	tests := []struct {
		name      string
		tr        model.Trace
		usd       float64
		estimated bool
	}{
		{"tokens and a known model", model.Trace{Model: "gpt-4o", Usage: model.Usage{InputTokens: 1000, OutputTokens: 100}}, 0.0035, true},
		{"recorded cost kept", model.Trace{Model: "gpt-4o", Usage: model.Usage{InputTokens: 1000, OutputTokens: 100, USD: 0.01}}, 0.01, false},
		{"unknown model", model.Trace{Model: "llama3.1", Usage: model.Usage{InputTokens: 1000}}, 0, false},
		{"no tokens", model.Trace{Model: "gpt-4o"}, 0, false},
	}
	for _, tt := range tests {
		estimateCost(&tt.tr)
		if tt.tr.Usage.USD != tt.usd || tt.tr.Usage.Estimated != tt.estimated {
			t.Errorf("%s: usage %+v, want usd %v estimated %v", tt.name, tt.tr.Usage, tt.usd, tt.estimated)
		}
	}
}

func TestLoadPrices(t *testing.T) {
	prices.RLock()
	saved := prices.models
	prices.RUnlock()
	defer func() { prices.Lock(); prices.models = saved; prices.Unlock() }()

	path := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(path, []byte(`{"as_of":"2026-12-01","models":{"llama3.1":{"input":0.1,"output":0.2},"gpt-4o":{"input":1,"output":2}}}`), 0o644)
	if err := LoadPrices(path); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Price{"ollama/llama3.1": {0.1, 0.2}, "gpt-4o-2024-08-06": {1, 2}, "claude-3-haiku-20240307": {0.25, 1.25}} {
		if got, ok := PriceOf(name); !ok || got != want {
			t.Errorf("after LoadPrices, PriceOf(%q) = %v %v, want %v", name, got, ok, want)
		}
	}
	os.WriteFile(path, []byte(`{"models":{"x":{"input":-1,"output":0}}}`), 0o644)
	if err := LoadPrices(path); err == nil {
		t.Error("a negative price was accepted")
	}
	if err := LoadPrices(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing file was accepted")
	}
}
