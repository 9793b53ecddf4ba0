package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

func newContractsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "contracts",
		Short: "Tool contracts of running MCP servers",
		Long: `Contracts reads the tool contracts a running MCP server offers, for drift and the
registry of approved contracts. Its one subcommand, pull, speaks MCP to the server
(stdio or streamable HTTP) and writes the tools/list listing that tracelab drift reads.`,
		Example: `  tracelab contracts pull --stdio 'npx -y @modelcontextprotocol/server-everything' --out tools.json
  tracelab contracts pull --url http://127.0.0.1:8080/mcp --header 'Authorization: Bearer T' --out - --verify`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newContractsPullCmd())
	return cmd
}

func newContractsPullCmd() *cobra.Command {
	var stdio, url, out, server, by string
	var headers []string
	var approve, verify bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "pull (--stdio 'CMD ARGS' | --url URL [--header 'K: V']) --out FILE",
		Short: "Read tools/list from a running MCP server into a listing drift reads",
		Long: `Pull speaks MCP to a running server with the official Go SDK: it starts the
command given by --stdio (split on spaces) and talks over its stdin and stdout, or
connects to the streamable HTTP endpoint --url (with --header for authorization),
initializes, and reads tools/list through every page. It writes the listing as a
tools/list result to --out (- for stdout): the file tracelab drift OLD NEW reads.

--approve records every contract of the listing in the database's registry of
approved contracts (as tracelab drift approve); --verify checks it against the
registry instead and exits 1 when a tool's contract is not approved.`,
		Example: `  tracelab contracts pull --stdio 'npx -y @modelcontextprotocol/server-everything' --out tools.json
  tracelab contracts pull --url http://127.0.0.1:8080/mcp --header 'Authorization: Bearer T' --out tools.json
  tracelab drift tools-approved.json tools.json
  tracelab contracts pull --url http://127.0.0.1:8080/mcp --server warehouse --verify --out -`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (stdio == "") == (url == "") {
				return withCode(2, errors.New("give exactly one of --stdio 'CMD ARGS' or --url URL"))
			}
			if out == "" {
				return withCode(2, errors.New("--out FILE is required (- for stdout)"))
			}
			if approve && verify {
				return withCode(2, errors.New("--approve and --verify exclude each other"))
			}
			src := app.PullSource{Command: strings.Fields(stdio), URL: url, Headers: map[string]string{}}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return withCode(2, fmt.Errorf("--header %q: expected 'Name: value'", h))
				}
				src.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel func()
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			listing, tools, err := app.PullTools(ctx, src)
			if err != nil {
				return withCode(2, err)
			}
			if out == "-" {
				cmd.OutOrStdout().Write(listing)
			} else if err := os.WriteFile(out, listing, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "pulled %d tool(s)\n", len(tools))
			if !approve && !verify {
				return nil
			}
			eng, err := openEngine(cmd, app.Files{})
			if err != nil {
				return err
			}
			defer eng.Close()
			source := "mcp:" + url
			if stdio != "" {
				source = "mcp:" + stdio
			}
			if approve {
				n, err := eng.Drift.ApproveListing(ctx, server, source, by, tools)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "approved %d contract(s) (%d new)\n", len(tools), n)
				return nil
			}
			bad, err := eng.Drift.Unapproved(ctx, server, tools)
			if err != nil {
				return err
			}
			for _, b := range bad {
				fmt.Fprintln(cmd.ErrOrStderr(), "not approved: "+b)
			}
			if len(bad) > 0 {
				return withCode(1, fmt.Errorf("%d of %d tool(s) not approved", len(bad), len(tools)))
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "every tool's contract is approved\n")
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&stdio, "stdio", "", "command that speaks MCP on stdin/stdout, with its arguments")
	fl.StringVar(&url, "url", "", "streamable HTTP endpoint of the MCP server")
	fl.StringArrayVar(&headers, "header", nil, "extra HTTP header 'Name: value' (repeatable)")
	fl.StringVar(&out, "out", "", "where the listing goes (- for stdout)")
	fl.BoolVar(&approve, "approve", false, "record the listing's contracts as approved")
	fl.BoolVar(&verify, "verify", false, "check the listing against the approved registry: exit 1 when a contract is not approved")
	fl.StringVar(&server, "server", "", "the server the approval or the check holds for (default every server)")
	fl.StringVar(&by, "by", app.DefaultLabeler(), "who approves, written to the registry")
	fl.DurationVar(&timeout, "timeout", time.Minute, "how long the pull may take")
	return cmd
}
