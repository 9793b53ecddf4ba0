package scoring

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The real text-to-SQL corpora live outside the repository (see
// ../shared/samples/README.md); these tests skip when they are absent.
const samplesDir = "../../shared/samples"

type corpusQuery struct {
	sql string
	db  string
}

type corpus struct {
	name    string
	queries []corpusQuery
	schemas map[string]Schema // by db id
}

func needSamples(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repository, see shared/samples/README.md): %v", samplesDir, err)
	}
}

// spiderTables reads a Spider-style tables.json (Spider and BIRD share it):
// column_names_original[i] = [table index, column name].
func spiderTables(t testing.TB, path string) map[string]Schema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dbs []struct {
		DBID    string   `json:"db_id"`
		Tables  []string `json:"table_names_original"`
		Columns [][2]any `json:"column_names_original"`
	}
	if err := json.Unmarshal(data, &dbs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]Schema{}
	for _, db := range dbs {
		s := Schema{}
		for _, c := range db.Columns {
			ti := int(c[0].(float64))
			if ti < 0 {
				continue
			}
			tbl := strings.ToLower(db.Tables[ti])
			s[tbl] = append(s[tbl], strings.ToLower(c[1].(string)))
		}
		out[db.DBID] = s
	}
	return out
}

// tabLines reads "SQL<TAB>db_id" lines.
func tabLines(t testing.TB, path string) []corpusQuery {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, '\t')
		if strings.TrimSpace(line) == "" || i < 0 {
			continue
		}
		out = append(out, corpusQuery{sql: line[:i], db: strings.TrimSpace(line[i+1:])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func loadCorpora(t testing.TB) []corpus {
	needSamples(t)
	spider := corpus{name: "spider_dev",
		queries: tabLines(t, filepath.Join(samplesDir, "text2sql_spider/gold_example.txt")),
		schemas: spiderTables(t, filepath.Join(samplesDir, "text2sql_spider/tables.json"))}
	bird := corpus{name: "bird_minidev",
		queries: tabLines(t, filepath.Join(samplesDir, "text2sql_bird_minidev/mini_dev_sqlite_gold.sql")),
		schemas: spiderTables(t, filepath.Join(samplesDir, "text2sql_bird_minidev/dev_tables.json"))}

	// Spider 2.0-Lite: one gold file per instance, the db named in the
	// jsonl excerpt, its DDL in ddl/<DB>/DDL.csv ("table_name,DDL").
	base := filepath.Join(samplesDir, "text2sql_spider2lite_sqlite")
	lite := corpus{name: "spider2_lite_sqlite", schemas: map[string]Schema{}}
	f, err := os.Open(filepath.Join(base, "spider2-lite.local_gold_excerpt.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var inst struct {
			ID string `json:"instance_id"`
			DB string `json:"db"`
		}
		if err := json.Unmarshal(sc.Bytes(), &inst); err != nil {
			t.Fatal(err)
		}
		sql, err := os.ReadFile(filepath.Join(base, "gold_sql", inst.ID+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		dir := strings.ToUpper(strings.ReplaceAll(inst.DB, "-", "_"))
		if _, err := os.Stat(filepath.Join(base, "ddl", dir)); err != nil {
			dir = inst.DB
		}
		if _, ok := lite.schemas[inst.DB]; !ok {
			lite.schemas[inst.DB] = ddlCSV(t, filepath.Join(base, "ddl", dir, "DDL.csv"))
		}
		lite.queries = append(lite.queries, corpusQuery{sql: string(sql), db: inst.DB})
	}
	return []corpus{spider, bird, lite}
}

func ddlCSV(t testing.TB, path string) Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var ddl strings.Builder
	for _, r := range recs[1:] {
		ddl.WriteString(r[1])
		ddl.WriteString(";\n")
	}
	s, err := ParseSchemaDDL(ddl.String())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

type corpusRates struct {
	statements, parsed   int
	fields, real         int
	tables, realTables   int
	fullyResolved        int
	unparsed, unresolved []string
}

func (r corpusRates) parseRate() float64   { return float64(r.parsed) / float64(r.statements) }
func (r corpusRates) resolveRate() float64 { return float64(r.real) / float64(r.fields) }

func measureCorpus(c corpus) corpusRates {
	var r corpusRates
	for _, q := range c.queries {
		r.statements++
		schema := c.schemas[q.db]
		a := AnalyzeSQL(q.sql, schema)
		if a.Err != "" {
			r.unparsed = append(r.unparsed, a.Err+"\n    "+q.sql)
			continue
		}
		r.parsed++
		for _, tbl := range a.Tables {
			r.tables++
			if _, ok := schema[tbl]; ok {
				r.realTables++
			} else {
				r.unresolved = append(r.unresolved, "table "+tbl+" ["+q.db+"]\n    "+q.sql)
			}
		}
		all := true
		for _, f := range a.Fields {
			r.fields++
			tbl, col, _ := strings.Cut(f.Field, ".")
			if contains(schema[tbl], col) {
				r.real++
				continue
			}
			all = false
			r.unresolved = append(r.unresolved, f.Field+" ["+q.db+"]\n    "+q.sql)
		}
		if all {
			r.fullyResolved++
		}
	}
	return r
}

// TestCorpusRates runs the extractor over the three real text-to-SQL
// corpora and checks the parse and resolution rates stay above floors
// just under what the extractor reaches today.
func TestCorpusRates(t *testing.T) {
	// Today every statement parses and every field and table is real in
	// all three corpora; the floors sit just under that.
	floors := map[string][2]float64{ // parse rate, resolution rate
		"spider_dev":          {0.999, 0.999},
		"bird_minidev":        {0.998, 0.999},
		"spider2_lite_sqlite": {0.99, 0.99},
	}
	for _, c := range loadCorpora(t) {
		r := measureCorpus(c)
		t.Logf("%-20s statements %4d  parsed %4d (%.4f)  fields %5d  resolved to real table.column %5d (%.4f)  fully resolved statements %4d  tables %4d real %4d",
			c.name, r.statements, r.parsed, r.parseRate(), r.fields, r.real, r.resolveRate(), r.fullyResolved, r.tables, r.realTables)
		for i, u := range r.unparsed {
			if i < 20 {
				t.Logf("  unparsed: %s", u)
			}
		}
		for i, u := range r.unresolved {
			if i < 40 {
				t.Logf("  unresolved: %s", u)
			}
		}
		// Without a schema only aliases and "the only table in scope"
		// resolve unqualified columns; logged to show what a schema buys.
		amb, total, wrong := 0, 0, 0
		for _, q := range c.queries {
			a := AnalyzeSQL(q.sql, nil)
			for _, f := range a.Fields {
				total++
				tbl, col, _ := strings.Cut(f.Field, ".")
				switch {
				case tbl == "?":
					amb++
				case !contains(c.schemas[q.db][tbl], col):
					wrong++
				}
			}
		}
		t.Logf("%-20s without schema: fields %5d  ambiguous %4d (%.4f)  resolved but not real %4d", c.name, total, amb,
			float64(amb)/float64(total), wrong)
		fl := floors[c.name]
		if r.parseRate() < fl[0] {
			t.Errorf("%s: parse rate %.4f below floor %.4f", c.name, r.parseRate(), fl[0])
		}
		if r.realTables != r.tables {
			t.Errorf("%s: %d of %d tables are not in the schema", c.name, r.tables-r.realTables, r.tables)
		}
		if r.resolveRate() < fl[1] {
			t.Errorf("%s: resolution rate %.4f below floor %.4f", c.name, r.resolveRate(), fl[1])
		}
	}
}

// TestAgentTrajectorySQL reads the real Spider-Agent rollout (Snowflake SQL
// with DB.SCHEMA.TABLE names and quoted lower-case columns): every
// execute_*sql call's SQL is found in its arguments and fully resolved.
func TestAgentTrajectorySQL(t *testing.T) {
	needSamples(t)
	data, err := os.ReadFile(filepath.Join(samplesDir, "agent_sql_trajectories/sf_bq024.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rollouts []struct {
		Conversation []struct {
			ToolCalls []struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"tool_calls"`
		} `json:"conversation"`
	}
	if err := json.Unmarshal(data, &rollouts); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, r := range rollouts {
		for _, m := range r.Conversation {
			for _, tc := range m.ToolCalls {
				sqls := FindSQL(tc.Arguments)
				if !strings.Contains(tc.Name, "sql") {
					continue
				}
				if len(sqls) != 1 || sqls[0].Path != "sql" {
					t.Fatalf("%s: FindSQL = %v", tc.Name, sqls)
				}
				a := AnalyzeSQL(sqls[0].SQL, nil)
				if a.Err != "" || len(a.Ambiguous) > 0 || len(a.Tables) != 5 || len(a.Joins) != 4 {
					t.Errorf("%s: err %q ambiguous %v tables %v joins %v", tc.Name, a.Err, a.Ambiguous, a.Tables, a.Joins)
				}
				t.Logf("%s: %d fields, tables %v", tc.Name, len(a.Fields), a.Tables)
				found++
			}
		}
	}
	if found != 1 {
		t.Errorf("found %d SQL calls, the sample has 1", found)
	}
}
