// Package app is the engine: it runs tracelab's regression-suite work over a store: it
// loads traces and cases, scores them with package scoring, stores the
// machine's suggestions, and builds report.json. It is the one place where
// the pure scorer meets the database, shared by the CLI and the workbench.
package app

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// Files names the optional configuration files of a scoring run.
type Files struct {
	Policy       string        // --policy: JSON policy oracle file
	PolicyOracle string        // --policy-oracle: external command (exclusive with Policy)
	OracleWait   time.Duration // how long the external oracle may take per call
	// OracleMaxOutput caps what the external oracle may write per call
	// (0: DefaultOracleMaxOutput).
	OracleMaxOutput int64
	Lexicon         string // --lexicon: extra guess-marker phrases, one per line
	Lineage         string // --lineage: tool.argument -> [table.column]
	Glossary        string // --glossary: extra glossary entries (JSON)
	// Prices (--prices) is a price table laid over the embedded one, for
	// the estimated cost of traces that carry tokens but no cost.
	Prices string
}

// loadConfig reads the files and the store's glossary into a scoring
// configuration. Errors name the file.
func loadConfig(ctx context.Context, st *store.Store, f Files) (scoring.Config, error) {
	var cfg scoring.Config
	if f.Policy != "" && f.PolicyOracle != "" {
		return cfg, fmt.Errorf("--policy and --policy-oracle are exclusive: give one policy oracle")
	}
	if f.Prices != "" {
		if err := importers.LoadPrices(f.Prices); err != nil {
			return cfg, fmt.Errorf("--prices: %w", err)
		}
	}
	if f.Policy != "" {
		data, err := os.ReadFile(f.Policy)
		if err != nil {
			return cfg, err
		}
		p, err := scoring.ParsePolicy(data)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", f.Policy, err)
		}
		cfg.Policy = p
	}
	if f.PolicyOracle != "" {
		cfg.Policy = &CommandOracle{Command: f.PolicyOracle, Timeout: f.OracleWait, MaxOutput: f.OracleMaxOutput}
	}
	if f.Lexicon != "" {
		data, err := os.ReadFile(f.Lexicon)
		if err != nil {
			return cfg, err
		}
		extra, err := scoring.ParseLexicon(string(data))
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", f.Lexicon, err)
		}
		cfg.Lexicon = append(append([]string(nil), scoring.DefaultLexicon...), extra...)
	}
	if f.Lineage != "" {
		data, err := os.ReadFile(f.Lineage)
		if err != nil {
			return cfg, err
		}
		l, err := scoring.ParseLineage(data)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", f.Lineage, err)
		}
		cfg.Lineage = l
	}
	if st != nil {
		entries, err := st.Glossary(ctx)
		if err != nil {
			return cfg, err
		}
		for _, e := range entries {
			cfg.Glossary = append(cfg.Glossary, scoring.GlossaryEntry{Term: e.Term, Definition: e.Definition,
				Predicate: e.Predicate, RequiredFields: e.RequiredFields, ForbiddenFields: e.ForbiddenFields,
				TimestampColumn: e.TimestampColumn, Calendar: e.Calendar})
		}
	}
	if f.Glossary != "" {
		data, err := os.ReadFile(f.Glossary)
		if err != nil {
			return cfg, err
		}
		g, err := scoring.ParseGlossary(data)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", f.Glossary, err)
		}
		cfg.Glossary = append(cfg.Glossary, g...)
	}
	return cfg, nil
}
