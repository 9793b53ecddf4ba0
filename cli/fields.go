package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// newFieldsCmd is `tracelab fields`: the table.column fields each SQL
// statement uses, resolved the way scoring resolves them.
func newFieldsCmd() *cobra.Command {
	var schemaFile, format string
	cmd := &cobra.Command{
		Use:   "fields [SQL... | -]",
		Short: "Print the table.column fields each SQL statement uses, with their roles",
		Long: `Parse each SQL statement with the PostgreSQL parser (after rewriting cheap
dialect differences such as backtick identifiers and LIMIT a, b) and resolve
every column reference to table.column through aliases, joins, CTEs and
subqueries. Unqualified columns resolve by --schema, else by the only table in
scope; otherwise they print as ?.column and are listed as ambiguous.

Each argument is one statement; "-" reads one statement per line from stdin.
A statement that does not parse is reported with the parser's message and the
command exits non-zero after printing everything.

The schema file is JSON {"table": ["column", ...]} or CREATE TABLE statements.`,
		Example: `  tracelab fields "SELECT c.name FROM customers c JOIN orders o USING (customer_id) WHERE o.status = 'paid'"
  tracelab fields --schema schema.sql --format jsonl - < queries.sql`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFields(cmd.InOrStdin(), cmd.OutOrStdout(), schemaFile, format, args)
		},
	}
	cmd.Flags().StringVar(&schemaFile, "schema", "", "schema file: JSON {\"table\":[\"col\",...]} or CREATE TABLE statements")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or jsonl")
	return cmd
}

// fieldsLine is one statement in --format jsonl.
type fieldsLine struct {
	SQL       string         `json:"sql"`
	Fields    []app.FieldUse `json:"fields"`
	Ambiguous []string       `json:"ambiguous"`
	Error     string         `json:"error"`
}

func runFields(stdin io.Reader, out io.Writer, schemaFile, format string, args []string) error {
	if format != "text" && format != "jsonl" {
		return fmt.Errorf("--format %q: want text or jsonl", format)
	}
	var schema app.Schema
	if schemaFile != "" {
		var err error
		if schema, err = loadSchemaFile(schemaFile); err != nil {
			return err
		}
	}
	stmts, err := fieldsInput(stdin, args)
	if err != nil {
		return err
	}
	an := app.NewSQLAnalyzer(schema)
	w := bufio.NewWriter(out)
	enc := model.NewJSONEncoder(w)
	failed := 0
	for i, sql := range stmts {
		a := an.Analyze(sql)
		if a.Err != "" {
			failed++
		}
		if format == "jsonl" {
			line := fieldsLine{SQL: sql, Fields: a.Fields, Ambiguous: a.Ambiguous, Error: a.Err}
			if line.Fields == nil {
				line.Fields = []app.FieldUse{}
			}
			if line.Ambiguous == nil {
				line.Ambiguous = []string{}
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeFieldsText(w, sql, a)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return withCode(2, fmt.Errorf("%d of %d statements did not parse", failed, len(stmts)))
	}
	return nil
}

func writeFieldsText(w io.Writer, sql string, a *app.SQLAnalysis) {
	fmt.Fprintf(w, "-- %s\n", strings.Join(strings.Fields(sql), " "))
	if a.Err != "" {
		fmt.Fprintf(w, "unparsed: %s\n", a.Err)
		return
	}
	width := 0
	for _, f := range a.Fields {
		width = max(width, len(f.Field))
	}
	for _, f := range a.Fields {
		roles := make([]string, len(f.Roles))
		for i, r := range f.Roles {
			roles[i] = string(r)
		}
		fmt.Fprintf(w, "%-*s  %s\n", width, f.Field, strings.Join(roles, ","))
	}
	if len(a.Fields) == 0 {
		fmt.Fprintln(w, "(no fields)")
	}
	if len(a.Ambiguous) > 0 {
		fmt.Fprintf(w, "ambiguous: %s\n", strings.Join(a.Ambiguous, ", "))
	}
}

// fieldsInput is the statements to analyze: the arguments, with "-"
// standing for stdin, one statement per non-blank line.
func fieldsInput(stdin io.Reader, args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if a != "-" {
			out = append(out, a)
			continue
		}
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				out = append(out, line)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
	}
	return out, nil
}

// loadSchemaFile reads --schema; errors name the file and, when known, the line.
func loadSchemaFile(path string) (app.Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := app.ParseSchema(data)
	if err != nil {
		var se *app.SchemaError
		if errors.As(err, &se) && se.Line > 0 {
			return nil, fmt.Errorf("%s:%d: %s", path, se.Line, se.Msg)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
