// Command tracelab is a terminal workbench for labeling AI-agent traces and
// exporting them as a regression suite. This file only wires: it embeds the
// demo data and hands it to the command line.
package main

import (
	"embed"
	"os"
	"runtime/debug"
	"strings"

	"github.com/tracelab-dev/tracelab/cli"
	"github.com/tracelab-dev/tracelab/intake"
)

// version may be set at build time with -ldflags "-X main.version=…";
// otherwise buildVersion reads it from the module and VCS build info.
var version = ""

// The bundled sample traces and gold cases, so `tracelab demo` works from
// an installed binary as well as from a checkout.
//
//go:embed testdata/traces/*.jsonl testdata/drift/task-specific-r3.jsonl testdata/cases.jsonl testdata/policy.json
var demoData embed.FS

func main() {
	os.Exit(cli.Main(cli.Program{Version: buildVersion(), Demo: demoData, Serve: intake.Serve}))
}

// buildVersion is the module version `go install …@vX` recorded (or
// "(devel)" in a checkout) followed by the VCS revision and whether the
// tree was modified, so a bug report names the exact build.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// Go 1.24 and later already put the revision into a checkout's
	// pseudo-version; name it only where the version does not.
	if rev != "" && !strings.Contains(v, rev) {
		v += " " + rev + modified
	}
	return v
}
