package scoring

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Lineage maps "tool.argument" to the governed table.column fields the
// argument stands for. The key "tool.$tool" lists the fields a tool reads
// whenever it is called (the definition it encodes).
type Lineage map[string][]string

// ParseLineage reads a --lineage file: a JSON object keyed "tool.argument"
// (or "tool.$tool") whose values are lists of table.column fields.
func ParseLineage(data []byte) (Lineage, error) {
	var raw map[string][]string
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("lineage: expected an object of \"tool.argument\": [\"table.column\", ...]: %v", err)
	}
	out := Lineage{}
	for k, fields := range raw {
		tool, arg, ok := strings.Cut(k, ".")
		if !ok || tool == "" || arg == "" {
			return nil, fmt.Errorf("lineage: key %q: expected \"tool.argument\" or \"tool.$tool\"", k)
		}
		for _, f := range fields {
			if !strings.Contains(f, ".") {
				return nil, fmt.Errorf("lineage: %s: %q is not a table.column field", k, f)
			}
			out[k] = append(out[k], NormField(f))
		}
	}
	return out, nil
}

// Merge returns l with every key of o added; o wins on a shared key.
func (l Lineage) Merge(o Lineage) Lineage {
	if len(o) == 0 {
		return l
	}
	out := make(Lineage, len(l)+len(o))
	for k, v := range l {
		out[k] = v
	}
	for k, v := range o {
		out[k] = v
	}
	return out
}

// NormField puts a field in comparable form: lower case, white space
// trimmed, and a leading schema dropped (schema.table.column -> table.column).
func NormField(f string) string {
	f = strings.ToLower(strings.TrimSpace(f))
	if strings.Count(f, ".") >= 2 {
		parts := strings.Split(f, ".")
		f = parts[len(parts)-2] + "." + parts[len(parts)-1]
	}
	return f
}

// column is the part of a field after its last dot.
func column(f string) string {
	if i := strings.LastIndexByte(f, '.'); i >= 0 {
		return f[i+1:]
	}
	return f
}

// contract is what scoring reads from one tool definition.
type contract struct {
	description string
	props       map[string]argSchema
	patterns    map[string]*regexp.Regexp // compiled inputSchema patterns by argument
	info        map[string]argInfo        // what each listed argument documents, read once
	lineage     Lineage
}

// argSchema is the part of an argument's JSON Schema that documents an
// identifier scheme.
type argSchema struct {
	Pattern     string `json:"pattern"`
	Format      string `json:"format"`
	Enum        []any  `json:"enum"`
	Description string `json:"description"`
	Examples    []any  `json:"examples"`
}

// argInfo is what scoring derives from one argument's schema; contracts
// are cached by the Scorer, so the regular expressions run once per tool,
// not once per call.
type argInfo struct {
	idLike      bool     // idLikeParam
	cents       bool     // named or described in minor units
	examples    []string // ids its description and examples show
	namesScheme bool     // the description names an id scheme (cust_id_v2)
}

func readArgInfo(name string, a argSchema) argInfo {
	in := argInfo{idLike: idLikeParam(name, a.Description), cents: centsName(name) || centsDesc.MatchString(a.Description),
		examples: idToken.FindAllString(a.Description, -1), namesScheme: schemeName.MatchString(strings.ToLower(a.Description))}
	for _, e := range a.Examples {
		if s, ok := e.(string); ok {
			in.examples = append(in.examples, s)
		}
	}
	return in
}

// arg is the argInfo of name; an argument the contract does not list is
// judged by its name alone.
func (c *contract) arg(name string) argInfo {
	if c != nil {
		if in, ok := c.info[name]; ok {
			return in
		}
	}
	return argInfo{idLike: idLikeParam(name, ""), cents: centsName(name)}
}

// parseContract reads the description, argument schemas and _meta.lineage
// of one tool. Each property and each lineage entry is read on its own, and
// a malformed one is skipped: a contract is evidence, not input that must
// validate.
func parseContract(tc model.ToolContract) *contract {
	c := &contract{description: tc.Description, props: map[string]argSchema{},
		patterns: map[string]*regexp.Regexp{}, info: map[string]argInfo{}, lineage: Lineage{}}
	var in struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(tc.InputSchema) > 0 && json.Unmarshal(tc.InputSchema, &in) == nil {
		for k, raw := range in.Properties {
			var v argSchema
			if json.Unmarshal(raw, &v) != nil {
				var partial struct {
					Pattern     string `json:"pattern"`
					Description string `json:"description"`
				}
				_ = json.Unmarshal(raw, &partial)
				v = argSchema{Pattern: partial.Pattern, Description: partial.Description}
			}
			c.props[k] = v
			c.info[k] = readArgInfo(k, v)
			if v.Pattern != "" {
				// JSON Schema patterns are ECMA 262; the common subset is
				// RE2. One that does not compile is not checked.
				if re, err := regexp.Compile(v.Pattern); err == nil {
					c.patterns[k] = re
				}
			}
		}
	}
	if len(tc.Raw) > 0 {
		var raw struct {
			Meta struct {
				Lineage map[string]json.RawMessage `json:"lineage"`
			} `json:"_meta"`
		}
		if json.Unmarshal(tc.Raw, &raw) == nil {
			for arg, rawFields := range raw.Meta.Lineage {
				var fields []string
				if json.Unmarshal(rawFields, &fields) != nil {
					continue
				}
				for _, f := range fields {
					c.lineage[tc.Name+"."+arg] = append(c.lineage[tc.Name+"."+arg], NormField(f))
				}
			}
		}
	}
	return c
}

// discoveryTools read metadata, not governed data: their calls use no
// fields and their results need no as_of.
func isDiscoveryTool(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "list_tables", "list_schemas", "list_columns", "list_databases", "get_schema", "get_table_schema", "search_tables":
		return true
	}
	return strings.HasPrefix(n, "describe_")
}

// schemaFromResult adds the tables a describe_table-style result reveals:
// {"table":..,"columns":[{"name":..}|"name"]} or {"tables":[{"name":..,"columns":[..]}]}.
func schemaFromResult(v any, into Schema) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	add := func(table any, cols any) {
		name, ok := table.(string)
		list, ok2 := cols.([]any)
		if !ok || !ok2 || name == "" {
			return
		}
		name = strings.ToLower(name)
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		for _, c := range list {
			switch x := c.(type) {
			case string:
				into[name] = append(into[name], strings.ToLower(x))
			case map[string]any:
				if n, ok := x["name"].(string); ok {
					into[name] = append(into[name], strings.ToLower(n))
				}
			}
		}
	}
	if t, ok := obj["table"]; ok {
		add(t, obj["columns"])
	}
	if ts, ok := obj["tables"].([]any); ok {
		for _, t := range ts {
			if m, ok := t.(map[string]any); ok {
				add(m["name"], m["columns"])
			}
		}
	}
}

// call is one tool call of a trace with its result, as scoring sees it.
type call struct {
	step      int // index of the tool_call step
	result    int // index of its tool_result step, -1 when none
	tool      string
	args      map[string]any
	argsVal   any      // the arguments decoded, whatever JSON value they are
	argsWhole bool     // argsVal decoded without error (see argSQL)
	argOrder  []string // argument names, sorted
	sql       []*SQLAnalysis
	sqlSteps  []string // argument path of each sql entry
	fields    map[string][]Role
	discovery bool
	resVal    any // decoded result, nil when absent or not JSON
	contract  *contract
}

// traceCalls pairs calls with results and decodes both once.
func traceCalls(t *model.Trace) []*call {
	byID := map[string]*call{}
	var calls []*call
	var last *call
	dec := decoders.Get().(*valueDecoder)
	defer decoders.Put(dec)
	for i := range t.Steps {
		s := &t.Steps[i]
		switch s.Kind {
		case model.KindToolCall:
			c := &call{step: i, result: -1, tool: s.Tool, fields: map[string][]Role{}}
			if len(s.Args) > 0 {
				var err error
				c.argsVal, err = dec.decode(s.Args)
				c.argsWhole = err == nil
				c.args, _ = c.argsVal.(map[string]any)
			}
			for k := range c.args {
				c.argOrder = append(c.argOrder, k)
			}
			sort.Strings(c.argOrder)
			c.discovery = isDiscoveryTool(s.Tool)
			calls = append(calls, c)
			if s.ID != "" {
				byID[s.ID] = c
			}
			last = c
		case model.KindToolResult:
			c := byID[s.CallID]
			if c == nil && s.CallID == "" {
				c = last
			}
			if c == nil || c.result >= 0 {
				continue
			}
			c.result = i
			if len(s.Result) > 0 {
				c.resVal, _ = dec.decodeInPlace(s.Result)
			}
		}
	}
	return calls
}

// addField records one use of a field by a call.
func (c *call) addField(f string, roles ...Role) {
	f = NormField(f)
	have := c.fields[f]
	for _, r := range roles {
		dup := false
		for _, h := range have {
			if h == r {
				dup = true
				break
			}
		}
		if !dup {
			have = append(have, r)
		}
	}
	c.fields[f] = have
}

// argSQL is FindSQL(rawArgs), the call's arguments, read from the value
// traceCalls decoded when they decoded whole: they are then valid JSON,
// which FindSQL would decode to the same strings. Otherwise (not JSON, a
// number out of range, text after the value) FindSQL decides.
func (c *call) argSQL(rawArgs json.RawMessage) []ArgSQL {
	if c.argsWhole {
		return findSQLIn(c.argsVal)
	}
	return FindSQL(rawArgs)
}

// extractFields fills c.fields and c.sql: SQL arguments through AnalyzeSQL,
// other arguments as tool.argument translated by the lineage.
func (c *call) extractFields(rawArgs json.RawMessage, schema Schema, lin Lineage) {
	if c.discovery {
		return
	}
	// SQL anywhere in the arguments (FindSQL: named sql/query/statement
	// arguments that start like a statement, and any string that parses
	// as one); a search box's "query":"Globex" is an ordinary argument.
	for _, found := range c.argSQL(rawArgs) {
		c.sql = append(c.sql, AnalyzeSQL(found.SQL, schema))
		c.sqlSteps = append(c.sqlSteps, found.Path)
	}
	if len(c.sql) > 0 {
		for _, a := range c.sql {
			for _, fu := range a.Fields {
				c.addField(fu.Field, fu.Roles...)
			}
		}
		return
	}
	for _, name := range c.argOrder {
		key := c.tool + "." + name
		if fs, ok := lin[key]; ok {
			for _, f := range fs {
				c.addField(f)
			}
			continue
		}
		if isControlArg(name, c.contract) {
			continue // neutral: which page, how many rows, not which data
		}
		c.addField(key)
	}
	for _, f := range lin[c.tool+".$tool"] {
		c.addField(f)
	}
}

// controlArgs are pagination and paging-size arguments, compared with case
// and separators dropped (page_token, pageToken, next-cursor).
var controlArgs = map[string]bool{
	"cursor": true, "nextcursor": true, "page": true, "pagetoken": true, "nextpagetoken": true,
	"limit": true, "offset": true, "pagesize": true, "perpage": true, "maxresults": true, "startingafter": true,
}

// isControlArg: a pagination or control argument, by name or because the
// contract's description of it says so ("Pagination cursor", "page size").
// It names no data, so it never counts as a field used: it neither lowers
// precision nor stands for a required field.
func isControlArg(name string, c *contract) bool {
	n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name))
	if controlArgs[n] {
		return true
	}
	if c == nil {
		return false
	}
	d := strings.ToLower(c.props[name].Description)
	for _, w := range []string{"pagination", "paging", "page token", "page size", "cursor"} {
		if strings.Contains(d, w) {
			return true
		}
	}
	return false
}
