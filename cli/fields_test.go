package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runFieldsCmd runs `tracelab fields` with args and stdin.
func runFieldsCmd(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := newFieldsCmd()
	var out, errOut bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage = true
	err := cmd.Execute()
	return out.String(), err
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFieldsText(t *testing.T) {
	schema := writeFile(t, "schema.json", `{"customers":["id","name","region"],"orders":["id","customer_id","amount"]}`)
	out, err := runFieldsCmd(t, "", "--schema", schema,
		"SELECT name, sum(amount) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE region = 'EU' GROUP BY name",
		"SELECT id FROM customers c JOIN orders o ON o.customer_id = c.id")
	if err != nil {
		t.Fatal(err)
	}
	want := `-- SELECT name, sum(amount) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE region = 'EU' GROUP BY name
customers.id        join
customers.name      select,group
customers.region    where
orders.amount       aggregate
orders.customer_id  join

-- SELECT id FROM customers c JOIN orders o ON o.customer_id = c.id
?.id                select
customers.id        join
orders.customer_id  join
ambiguous: ?.id
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestFieldsJSONLFromStdin(t *testing.T) {
	schema := writeFile(t, "schema.sql", "CREATE TABLE t (a int, b text);\n")
	stdin := "SELECT a FROM t WHERE b = 'x'\n\nSELECT `a` FROM t ORDER BY b\nSELECT FROM (\n"
	out, err := runFieldsCmd(t, stdin, "--schema", schema, "--format", "jsonl", "-")
	if err == nil || !strings.Contains(err.Error(), "1 of 3 statements did not parse") {
		t.Errorf("err = %v, want 1 of 3 unparsed", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %d:\n%s", len(lines), out)
	}
	want := []string{
		`{"sql":"SELECT a FROM t WHERE b = 'x'","fields":[{"field":"t.a","roles":["select"]},{"field":"t.b","roles":["where"]}],"ambiguous":[],"error":""}`,
		"{\"sql\":\"SELECT `a` FROM t ORDER BY b\",\"fields\":[{\"field\":\"t.a\",\"roles\":[\"select\"]},{\"field\":\"t.b\",\"roles\":[\"order\"]}],\"ambiguous\":[],\"error\":\"\"}",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
	var last fieldsLine
	if err := json.Unmarshal([]byte(lines[2]), &last); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(last.Error, "syntax error") || len(last.Fields) != 0 {
		t.Errorf("unparsed line: %+v", last)
	}
}

func TestFieldsErrors(t *testing.T) {
	badJSON := writeFile(t, "bad.json", "{\n  \"t\": [\"a\",\n  \"b\" \"c\"]\n}\n")
	badDDL := writeFile(t, "bad.sql", "-- schema\nCREATE TABLE t (\n  a int,\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad json schema names file and line", []string{"--schema", badJSON, "SELECT 1"}, badJSON + ":3: "},
		{"bad ddl schema names file and line", []string{"--schema", badDDL, "SELECT 1"}, badDDL + ":2: "},
		{"missing schema file", []string{"--schema", filepath.Join(t.TempDir(), "none.json"), "SELECT 1"}, "none.json"},
		{"bad format", []string{"--format", "xml", "SELECT 1"}, `--format "xml"`},
		{"no statement", []string{}, "requires at least 1 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runFieldsCmd(t, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestFieldsHelpHasExample(t *testing.T) {
	out, err := runFieldsCmd(t, "", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Examples:", "tracelab fields", "--schema", "--format"} {
		if !strings.Contains(out, w) {
			t.Errorf("--help lacks %q:\n%s", w, out)
		}
	}
}
