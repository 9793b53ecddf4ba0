package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type sqlIn struct {
	SQL string `json:"sql" jsonschema:"the read-only SQL to run"`
}

type lookupIn struct {
	CustomerID string `json:"customer_id" jsonschema:"the CRM id, such as C-1042"`
	Limit      int    `json:"limit,omitempty"`
}

// goMCPServer is a Go SDK MCP server on streamable HTTP with three tools,
// two per page, that wants a bearer token; extra adds a fourth tool.
func goMCPServer(t *testing.T, extra bool) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "warehouse", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
	noop := func(context.Context, *mcp.CallToolRequest, sqlIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "run_sql", Description: "Run a read-only SQL query on the warehouse."}, noop)
	mcp.AddTool(s, &mcp.Tool{Name: "describe_table", Description: "Columns of a table."}, noop)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup_customer", Description: "A customer by CRM id."},
		func(context.Context, *mcp.CallToolRequest, lookupIn) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	if extra {
		mcp.AddTool(s, &mcp.Tool{Name: "drop_table", Description: "Drops a table."}, noop)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func listedTools(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("listing %s: %v", path, err)
	}
	var names []string
	for _, tl := range l.Tools {
		if len(tl.InputSchema) == 0 {
			t.Errorf("tool %s has no inputSchema", tl.Name)
		}
		names = append(names, tl.Name)
	}
	return names
}

// TestContractsPullGoServer pulls every page of a Go SDK server's
// tools/list over streamable HTTP, approves it, and verifies a later
// listing with a new tool against the registry.
func TestContractsPullGoServer(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	url := goMCPServer(t, false)
	out := filepath.Join(dir, "tools.json")
	p := tracelab(t, dir, "contracts", "pull", "--url", url, "--header", "Authorization: Bearer t0ken", "--out", out,
		"--db", db, "--server", "warehouse", "--approve")
	if p.code != 0 {
		t.Fatalf("pull: exit %d\n%s", p.code, p.err)
	}
	if got := strings.Join(listedTools(t, out), ","); got != "describe_table,lookup_customer,run_sql" {
		t.Fatalf("tools %s: want all three pages' tools", got)
	}
	// drift reads the listing.
	if p := tracelab(t, dir, "drift", out, out); p.code != 0 {
		t.Fatalf("drift of the pulled listing: exit %d\n%s%s", p.code, p.out, p.err)
	}
	p = tracelab(t, dir, "contracts", "pull", "--url", url, "--header", "Authorization: Bearer t0ken", "--out", "-",
		"--db", db, "--server", "warehouse", "--verify")
	if p.code != 0 || !strings.Contains(p.err, "every tool's contract is approved") {
		t.Fatalf("verify of the approved listing: exit %d\n%s", p.code, p.err)
	}
	url2 := goMCPServer(t, true)
	p = tracelab(t, dir, "contracts", "pull", "--url", url2, "--header", "Authorization: Bearer t0ken", "--out", "-",
		"--db", db, "--server", "warehouse", "--verify")
	if p.code != 1 || !strings.Contains(p.err, "drop_table: new") {
		t.Fatalf("verify with a new tool: exit %d\n%s", p.code, p.err)
	}
	// Without the header the server refuses, and pull says so.
	p = tracelab(t, dir, "contracts", "pull", "--url", url, "--out", "-", "--timeout", "20s")
	if p.code != 2 {
		t.Fatalf("pull without the token: exit %d\n%s", p.code, p.err)
	}
}

// everythingServer finds the reference server @modelcontextprotocol/
// server-everything: $TRACELAB_MCP_EVERYTHING, the copy .ci/run installs,
// else an npm install into a temporary folder.
func everythingServer(t *testing.T) string {
	if p := os.Getenv("TRACELAB_MCP_EVERYTHING"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	ci := filepath.Join(home, ".cache", "tracelab-npm", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(ci); err == nil {
		return ci
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: cannot get @modelcontextprotocol/server-everything (.ci/run installs it)")
	}
	prefix := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, "@modelcontextprotocol/server-everything")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm cannot reach the registry to install @modelcontextprotocol/server-everything: %v\n%s", err, out)
	}
	return filepath.Join(prefix, "node_modules", ".bin", "mcp-server-everything")
}

// TestContractsPullEverything pulls the MCP reference server's tools over
// stdio.
func TestContractsPullEverything(t *testing.T) {
	bin := everythingServer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "everything.json")
	p := tracelab(t, dir, "contracts", "pull", "--stdio", bin, "--out", out)
	if p.code != 0 {
		t.Fatalf("pull: exit %d\n%s", p.code, p.err)
	}
	names := listedTools(t, out)
	if len(names) < 5 || !strings.Contains(","+strings.Join(names, ",")+",", ",echo,") {
		t.Fatalf("reference server's tools: %v", names)
	}
}
