// Command tracelab is a terminal workbench for labeling AI-agent traces and
// exporting them as a regression suite. This file only wires: it embeds the
// demo data and hands it to the command line.
package main

import (
	"embed"
	"os"

	"tracelab/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// The bundled sample traces and gold cases, so `tracelab demo` works from
// an installed binary as well as from a checkout.
//
//go:embed testdata/traces/*.jsonl testdata/drift/task-specific-r3.jsonl testdata/cases.jsonl testdata/policy.json
var demoData embed.FS

func main() {
	os.Exit(cli.Main(cli.Program{Version: version, Demo: demoData}))
}
