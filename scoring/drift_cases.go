package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tracelab-dev/tracelab/model"
)

// CaseCall is one tool call a case's trace recorded.
type CaseCall struct {
	Tool   string
	Args   json.RawMessage // the arguments object; empty when not recorded
	Result json.RawMessage // the result (a CallToolResult or the structured value); empty when none
}

// CaseTools is what one case's trace says about tools: the calls it made
// and the names of the tools it was given.
type CaseTools struct {
	CaseID string
	Calls  []CaseCall
	Listed []string
}

// Tier ranks the evidence that a drift affects a case; lower is stronger.
type Tier int

const (
	TierInputFails  Tier = 1 // recorded args fail the NEW input schema
	TierOutputFails Tier = 2 // recorded result fails the NEW output schema or has a removed field
	TierCalled      Tier = 3 // the case called the tool
	TierListed      Tier = 4 // the tool was only listed in the case's trace
)

func (t Tier) String() string {
	switch t {
	case TierInputFails:
		return "input fails"
	case TierOutputFails:
		return "output fails"
	case TierCalled:
		return "called"
	case TierListed:
		return "listed"
	}
	return "unknown"
}

// AffectedCase is one case touched by the drift of one tool.
type AffectedCase struct {
	CaseID   string `json:"case_id"`
	Tool     string `json:"tool"` // the NEW name of a renamed tool
	Tier     Tier   `json:"tier"`
	Evidence string `json:"evidence"`
}

// AffectedCases lists, for every tool with a breaking or risky finding,
// the cases whose traces used it, each with its strongest evidence:
// recorded arguments that fail the NEW input schema, a recorded result that
// fails the NEW output schema or holds a field NEW removed, a plain call, or
// a mere listing. Sorted by tier, case id, tool.
func AffectedCases(findings []DriftFinding, newTools []model.ToolContract, cases []CaseTools) []AffectedCase {
	return AffectedCasesBetween(findings, nil, newTools, cases)
}

// AffectedCasesBetween is AffectedCases with the OLD contracts as well: a
// recorded call that already failed the OLD schema is not evidence of the
// drift, so it does not raise the case to tier 1 or 2.
func AffectedCasesBetween(findings []DriftFinding, oldTools, newTools []model.ToolContract, cases []CaseTools) []AffectedCase {
	type toolDrift struct {
		name          string // the NEW name
		removed       bool
		removedFields [][]string
		contract      *model.ToolContract
	}
	byOld := map[string]*toolDrift{} // keyed by the name the cases used
	newByName := map[string]*model.ToolContract{}
	for i := range newTools {
		newByName[newTools[i].Name] = &newTools[i]
	}
	oldByName := map[string]*model.ToolContract{}
	for i := range oldTools {
		oldByName[oldTools[i].Name] = &oldTools[i]
	}
	for _, f := range findings {
		if f.Lane != LaneBreaking && f.Lane != LaneRisky {
			continue
		}
		name := f.Tool
		if f.ID == "tool-renamed" {
			var from string
			if json.Unmarshal(f.Old, &from) == nil && from != "" {
				name = from
			}
		}
		td := byOld[name]
		if td == nil {
			td = &toolDrift{name: f.Tool, contract: newByName[f.Tool]}
			byOld[name] = td
		}
		if f.ID == "tool-removed" {
			td.removed = true
		}
		if f.ID == "output-property-removed" || f.ID == "output-required-property-removed" || f.ID == "output-property-renamed" {
			if ip, ok := instancePathOf(f.SchemaPath(), f.ID == "output-property-renamed", f.Old); ok {
				td.removedFields = append(td.removedFields, ip)
			}
		}
	}
	validators := map[string]*driftValidator{}
	var out []AffectedCase
	for _, c := range cases {
		names := map[string]bool{}
		for _, call := range c.Calls {
			names[call.Tool] = true
		}
		for _, l := range c.Listed {
			names[l] = true
		}
		used := make([]string, 0, len(names))
		for n := range names {
			if byOld[n] != nil {
				used = append(used, n)
			}
		}
		sort.Strings(used)
		for _, usedName := range used {
			td := byOld[usedName]
			ac := AffectedCase{CaseID: c.CaseID, Tool: td.name, Tier: TierListed,
				Evidence: fmt.Sprintf("%s was listed in the trace", usedName)}
			calls := 0
			for _, call := range c.Calls {
				if call.Tool == usedName {
					calls++
				}
			}
			if calls > 0 {
				ac.Tier = TierCalled
				ac.Evidence = fmt.Sprintf("called %s %d time(s)", usedName, calls)
				switch {
				case td.removed:
					ac.Evidence += "; the tool is removed"
				case usedName != td.name:
					ac.Evidence += fmt.Sprintf("; renamed to %s", td.name)
				}
			}
			if td.contract != nil && calls > 0 {
				v := validators[usedName]
				if v == nil {
					v = newDriftValidator(*td.contract, oldByName[usedName])
					validators[usedName] = v
				}
				tier, ev, note := v.check(usedName, c.Calls, td.removedFields)
				switch {
				case tier != 0:
					ac.Tier, ac.Evidence = tier, ev
				case note != "":
					ac.Evidence += "; " + note
				case v.err != "":
					ac.Evidence += "; " + v.err
				}
			}
			out = append(out, ac)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Tier != b.Tier {
			return a.Tier < b.Tier
		}
		if a.CaseID != b.CaseID {
			return a.CaseID < b.CaseID
		}
		return a.Tool < b.Tool
	})
	return out
}

// driftValidator holds the compiled NEW schemas of one tool, and its OLD
// ones when known.
type driftValidator struct {
	input, output       *jsonschema.Schema
	oldInput, oldOutput *jsonschema.Schema
	outputProps         map[string]any
	err                 string // why a schema could not be compiled
}

// refusingLoader refuses every URL: schemas come from untrusted listings, so a
// $ref is never followed outside the document (no files, no network).
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, errors.New("external $ref not followed: " + url)
}

func compileDriftSchema(raw json.RawMessage, name string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	url := "urn:tracelab:" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

func newDriftValidator(tc model.ToolContract, old *model.ToolContract) *driftValidator {
	v := &driftValidator{}
	if old != nil {
		// An OLD schema that does not compile just gives no baseline.
		if len(old.InputSchema) > 0 {
			v.oldInput, _ = compileDriftSchema(old.InputSchema, "old-input")
		}
		if len(old.OutputSchema) > 0 {
			v.oldOutput, _ = compileDriftSchema(old.OutputSchema, "old-output")
		}
	}
	var errs []string
	if len(tc.InputSchema) > 0 {
		s, err := compileDriftSchema(tc.InputSchema, "input")
		if err != nil {
			errs = append(errs, "new input schema does not compile: "+collapseSpace(err.Error()))
		}
		v.input = s
	}
	if len(tc.OutputSchema) > 0 {
		s, err := compileDriftSchema(tc.OutputSchema, "output")
		if err != nil {
			errs = append(errs, "new output schema does not compile: "+collapseSpace(err.Error()))
		}
		v.output = s
		if o, _ := decodeSchemaJSON(tc.OutputSchema); o != nil {
			v.outputProps = asObject(asObject(o)["properties"])
		}
	}
	v.err = strings.Join(errs, "; ")
	return v
}

// check returns the strongest validation evidence over the calls of tool,
// or a note when the only failures were already failures under OLD.
func (v *driftValidator) check(tool string, calls []CaseCall, removed [][]string) (Tier, string, string) {
	var outEvidence, note string
	for i, call := range calls {
		if call.Tool != tool {
			continue
		}
		if v.input != nil {
			args := call.Args
			if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
				args = json.RawMessage(`{}`)
			}
			if msg := validateInstance(v.input, args); msg != "" {
				if v.oldInput == nil || validateInstance(v.oldInput, args) == "" {
					return TierInputFails, fmt.Sprintf("call %d: recorded args fail the new input schema: %s", i+1, msg), ""
				}
				note = fmt.Sprintf("call %d: recorded args already failed the old input schema", i+1)
			}
		}
		if outEvidence != "" || len(bytes.TrimSpace(call.Result)) == 0 {
			continue
		}
		value, isErr := v.structured(call.Result)
		if isErr || value == nil {
			continue
		}
		if v.output != nil {
			if msg := validateInstance(v.output, value); msg != "" {
				if v.oldOutput == nil || validateInstance(v.oldOutput, value) == "" {
					outEvidence = fmt.Sprintf("call %d: recorded result fails the new output schema: %s", i+1, msg)
					continue
				}
				note = fmt.Sprintf("call %d: recorded result already failed the old output schema", i+1)
			}
		}
		decoded, err := decodeSchemaJSON(value)
		if err != nil {
			continue
		}
		for _, p := range removed {
			if resultHasPath(decoded, p) {
				outEvidence = fmt.Sprintf("call %d: recorded result has %s, removed from the new output schema", i+1, joinInstancePath(p))
				break
			}
		}
	}
	if outEvidence != "" {
		return TierOutputFails, outEvidence, ""
	}
	return 0, "", note
}

// structured picks the value an output schema describes from a recorded
// result: the structuredContent of an MCP CallToolResult, else the result.
func (v *driftValidator) structured(result json.RawMessage) (json.RawMessage, bool) {
	var env map[string]json.RawMessage
	if json.Unmarshal(result, &env) == nil {
		if _, own := v.outputProps["structuredContent"]; !own {
			if ie, ok := env["isError"]; ok && string(bytes.TrimSpace(ie)) == "true" {
				return nil, true
			}
			if sc, ok := env["structuredContent"]; ok {
				return sc, false
			}
			if _, ok := env["content"]; ok {
				return nil, false // unstructured only: nothing to check
			}
		}
	}
	return result, false
}

func validateInstance(s *jsonschema.Schema, raw json.RawMessage) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "not valid JSON: " + err.Error()
	}
	err = s.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return collapseSpace(err.Error())
	}
	var parts []string
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		at := u.InstanceLocation
		if at == "" {
			at = "/"
		}
		parts = append(parts, fmt.Sprintf("at %s: %s", at, u.Error.String()))
	}
	if len(parts) == 0 {
		return collapseSpace(err.Error())
	}
	return strings.Join(parts, "; ")
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// resultHasPath reports whether v holds a value at p ("[]" = any array element).
func resultHasPath(v any, p []string) bool {
	if len(p) == 0 {
		return true
	}
	if p[0] == "[]" {
		arr, _ := v.([]any)
		for _, e := range arr {
			if resultHasPath(e, p[1:]) {
				return true
			}
		}
		return false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	e, ok := m[p[0]]
	return ok && resultHasPath(e, p[1:])
}

// joinInstancePath writes an instance path as obs[].temp.
func joinInstancePath(p []string) string {
	var b strings.Builder
	for i, s := range p {
		if s != "[]" && i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// findingPathSeg is one step of a finding's JSON path: an object key or an index.
type findingPathSeg struct {
	key     string
	index   int
	isIndex bool
}

// parseFindingPath reads a path written by jsonPathKey and jsonPathIndex, like
// outputSchema.properties["a.b"].items.oneOf[1].
func parseFindingPath(p string) ([]findingPathSeg, bool) {
	var out []findingPathSeg
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			if i+1 < len(p) && p[i+1] == '"' {
				q, err := strconv.QuotedPrefix(p[i+1:])
				if err != nil {
					return nil, false
				}
				name, _ := strconv.Unquote(q)
				i += 1 + len(q)
				if i >= len(p) || p[i] != ']' {
					return nil, false
				}
				i++
				out = append(out, findingPathSeg{key: name})
				continue
			}
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil, false
			}
			n, err := strconv.Atoi(p[i+1 : i+j])
			if err != nil {
				return nil, false
			}
			out = append(out, findingPathSeg{index: n, isIndex: true})
			i += j + 1
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			out = append(out, findingPathSeg{key: p[i:j]})
			i = j
		}
	}
	return out, true
}

// instancePathOf maps the schema path of an output property to where the
// property sits in a result ("[]" = any array element). For a rename the
// path names the new property; the result holds the old one, given in old.
func instancePathOf(schemaPath string, rename bool, old json.RawMessage) ([]string, bool) {
	segs, ok := parseFindingPath(schemaPath)
	if !ok || len(segs) < 3 || segs[0].key != "outputSchema" {
		return nil, false
	}
	var out []string
	for i := 1; i < len(segs); i++ {
		s := segs[i]
		switch {
		case s.key == "properties" && i+1 < len(segs) && !segs[i+1].isIndex:
			out = append(out, segs[i+1].key)
			i++
		case s.key == "items" && !s.isIndex:
			out = append(out, "[]")
		case (s.key == "oneOf" || s.key == "anyOf" || s.key == "allOf") && i+1 < len(segs) && segs[i+1].isIndex:
			i++ // a branch describes the same value
		default:
			return nil, false // additionalProperties, patternProperties, ...: keys unknown
		}
	}
	if rename {
		var from string
		if json.Unmarshal(old, &from) != nil || len(out) == 0 {
			return nil, false
		}
		out[len(out)-1] = from
	}
	return out, len(out) > 0
}
