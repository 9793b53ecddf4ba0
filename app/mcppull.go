package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tracelab-dev/tracelab/model"
)

// PullSource is a running MCP server: a command speaking MCP on its stdin
// and stdout, or a streamable HTTP endpoint (with extra headers, such as
// Authorization).
type PullSource struct {
	Command []string
	URL     string
	Headers map[string]string
}

// maxPullPages bounds the pages of tools/list a server may hand out: a
// server whose cursor never ends must not keep the pull going forever.
const maxPullPages = 1000

// PullTools speaks MCP to a running server with the official Go SDK:
// initialize, then tools/list through every page. It returns the listing
// as a tools/list result ({"tools":[…]}, what drift reads) and its
// contracts.
func PullTools(ctx context.Context, src PullSource) ([]byte, []model.ToolContract, error) {
	var t mcp.Transport
	switch {
	case len(src.Command) > 0:
		t = &mcp.CommandTransport{Command: exec.CommandContext(ctx, src.Command[0], src.Command[1:]...)}
	case src.URL != "":
		t = &mcp.StreamableClientTransport{Endpoint: src.URL, HTTPClient: &http.Client{Transport: headerTransport(src.Headers)},
			DisableStandaloneSSE: true}
	default:
		return nil, nil, errors.New("no MCP server: give a command or a URL")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tracelab", Version: "contracts-pull"}, nil)
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to the MCP server: %w", err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	cursor := ""
	for page := 0; ; page++ {
		if page == maxPullPages {
			return nil, nil, fmt.Errorf("tools/list: more than %d pages (the server's cursor does not end)", maxPullPages)
		}
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if tools == nil {
		tools = []*mcp.Tool{}
	}
	listing, err := json.MarshalIndent(map[string]any{"tools": tools}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	contracts, err := ReadToolListing(listing)
	if err != nil {
		return nil, nil, fmt.Errorf("the server's tools/list: %w", err)
	}
	return append(listing, '\n'), contracts, nil
}

// headerTransport adds fixed headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Unapproved lists the tools of a listing whose contract the approved
// registry does not hold for server (approvals for every server count),
// as "tool: why".
func (d DriftService) Unapproved(ctx context.Context, server string, tools []model.ToolContract) ([]string, error) {
	as, err := d.e.st.Approvals(ctx)
	if err != nil {
		return nil, err
	}
	ok := map[string]bool{}  // tool + fingerprint approved
	any := map[string]bool{} // tool has some approved contract
	for _, a := range as {
		if a.Server == "" || a.Server == server {
			ok[a.Tool+"\x00"+a.Fingerprint] = true
			any[a.Tool] = true
		}
	}
	var out []string
	for _, tc := range tools {
		switch {
		case ok[tc.Name+"\x00"+tc.Fingerprint()]:
		case any[tc.Name]:
			out = append(out, tc.Name+": drifted (another contract of it is approved)")
		default:
			out = append(out, tc.Name+": new (no contract of it is approved)")
		}
	}
	return out, nil
}
