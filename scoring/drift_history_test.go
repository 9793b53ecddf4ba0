package scoring

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// historyDir holds real OLD/NEW tools/list pairs of public MCP servers
// (../shared/samples/mcp_tool_history from the module root).
var historyDir = filepath.Join("..", "..", "shared", "samples", "mcp_tool_history")

// readHistoryListing reads one {"tools":[...]} snapshot of a pair.
func readHistoryListing(t testing.TB, file string) []model.ToolContract {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// A bare {"tools": [...]} result or the JSON-RPC response carrying one.
	var doc struct {
		Tools  []json.RawMessage `json:"tools"`
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if doc.Tools == nil {
		doc.Tools = doc.Result.Tools
	}
	var out []model.ToolContract
	for _, raw := range doc.Tools {
		out = append(out, testTool(t, string(raw)))
	}
	return out
}

func historyPair(t testing.TB, name string) DriftResult {
	t.Helper()
	dir := filepath.Join(historyDir, name)
	res, err := DiffContracts(readHistoryListing(t, filepath.Join(dir, "old.json")), readHistoryListing(t, filepath.Join(dir, "new.json")))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// historyExpect is the verdict drift-rules.md gives a real pair: the worst
// lane (empty: no findings) and the main finding, a check id that must be
// reported in that lane.
type historyExpect struct {
	worst Lane
	main  string
	why   string
}

var historyExpects = map[string]historyExpect{
	"fs01-output-content-array-to-string":  {LaneBreaking, "output-type-changed", "content went from an array of blocks to a string: one type change per tool, its items folded in"},
	"fs02-annotations-added":               {LaneRisky, "annotations-claim-safer", "hints added that claim read-only / non-destructive: unverifiable, risky + security"},
	"fs03-move-file-destructive":           {LaneBreaking, "annotations-became-destructive", "destructiveHint false → true on a writer"},
	"fs04-read-media-output-union":         {LaneBreaking, "output-composition-widened", "the old content shape stays as branch 0; branch 1 (resource blocks) is new on the output, which old readers reject"},
	"fs05-openworld-false-added":           {LaneRisky, "annotations-claim-safer", "openWorldHint false claims a closed world: unverifiable"},
	"gh01-dismiss-state-required":          {LaneBreaking, "input-property-became-required", "optional → required on an input"},
	"gh02-assign-copilot-param-rename":     {LaneBreaking, "input-property-renamed", "issueNumber → issue_number: old calls lack the required new name"},
	"gh03-search-code-q-to-query":          {LaneBreaking, "input-property-renamed", "q → query"},
	"gh04-update-project-item-fields":      {LaneBreaking, "input-property-added-required", "updated_field is a new required input"},
	"gh05-reply-reaction":                  {LaneBreaking, "input-bound-tightened", "minimum: 1 newly set on commentId (a bound set where none was is breaking on inputs)"},
	"gh06-get-file-contents-path-optional": {LaneRisky, "input-default-changed", "path became optional (additive) with a new default (risky: omitted arguments behave differently)"},
	"gh07-get-commit-detail-enum":          {LaneRisky, "input-property-removed", "include_diff removed from an open object: old calls still validate"},
	"gh08-confidence-enum-case":            {LaneBreaking, "input-enum-narrowed", "lowercase enum values removed"},
	"gh09-explicit-destructive-true":       {"", "", "destructiveHint absent → true is the spec default: no change"},
	"gh10-title-trailing-period":           {LaneRisky, "tool-title-changed", "annotations.title edits: risky-low"},
	"gh11-search-code-query-desc":          {LaneRisky, "input-description-changed", "a model-facing description rewritten"},
	"gh12-push-files-closed":               {LaneBreaking, "input-additional-properties-closed", "additionalProperties: false added on an input"},
	"gh13-issue-write-strict-typed":        {LaneBreaking, "input-additional-properties-closed", "items closed and value typed"},
	"gh14-issue-write-delete-enum-removed": {LaneRisky, "input-description-changed", "the enum on delete removed (additive) and its description rewritten (risky)"},
	"gh15-add-issue-comment-flatten":       {LaneAdditive, "input-composition-widened", "an anyOf of required sets and a dependentSchemas disappear: a relaxation"},
	"gh16-add-issue-comment-validate":      {LaneBreaking, "input-composition-narrowed", "an anyOf of required sets appears on the input: fewer calls accepted"},
	"gh17-create-repo-default-private":     {LaneRisky, "input-default-changed", "a default added: omitted arguments now mean private"},
	"gh18-tool-rename-review-comments":     {LaneBreaking, "tool-renamed", "same contract under a new name"},
	"gh19-tool-rename-label-write":         {LaneBreaking, "tool-renamed", "same contract under a new name"},
	"gh20-gosdk-explicit-defaults":         {"", "", "hints written out with their default values: no change"},
	"gh21-create-issue-granular":           {LaneRisky, "input-property-removed", "four properties removed from an open object, plus prose and a safer-claiming hint"},
	"gh22-update-issue-type-nullable":      {LaneBreaking, "input-bound-tightened", "became nullable (additive), but minLength: 1 is newly set: \"\" is now rejected"},
	"gh23-assignees-oneof":                 {LaneRisky, "tool-description-changed", "items split into a wider oneOf (additive); descriptions rewritten (risky)"},
	"gh24-show-ui-removed":                 {LaneRisky, "input-property-removed", "show_ui removed from two open objects"},
	"gh25-delete-repository-added":         {LaneAdditive, "tool-added", "a new tool"},
	"full-v1.8.0-v1.10.1":                  {LaneBreaking, "input-bound-tightened", "v1.8.0 → v1.10.1: minLength newly set on inputs (update_issue_type as in gh22); the rest is new tools, new optional inputs and prose"},
}

func worstLane(fs []DriftFinding) Lane {
	var worst Lane
	for _, f := range fs {
		if worst == "" || f.Lane.rank() < worst.rank() {
			worst = f.Lane
		}
	}
	return worst
}

func TestHistoryPairs(t *testing.T) {
	entries, err := os.ReadDir(historyDir)
	if err != nil {
		t.Skipf("SKIP: no real tool history at %s (%v)", historyDir, err)
	}
	seen := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		seen++
		t.Run(name, func(t *testing.T) {
			want, ok := historyExpects[name]
			if !ok {
				t.Fatalf("no expectation for pair %s: judge it by drift-rules.md and add it", name)
			}
			res := historyPair(t, name)
			if got := worstLane(res.Findings); got != want.worst {
				t.Errorf("worst lane %q, want %q (%s):\n%s", got, want.worst, want.why, dumpDriftFindings(res.Findings))
			}
			if want.main == "" {
				return
			}
			found := false
			for _, f := range res.Findings {
				if f.ID == want.main && f.Lane == want.worst {
					found = true
				}
			}
			if !found {
				t.Errorf("main finding %s (%s) missing (%s):\n%s", want.main, want.worst, want.why, dumpDriftFindings(res.Findings))
			}
		})
	}
	if seen < len(historyExpects) {
		t.Errorf("%d pairs in %s, %d expectations: a pair went missing", seen, historyDir, len(historyExpects))
	}
}

// The pairs the issue names, each with the property that used to fail.
func TestHistoryPairDetails(t *testing.T) {
	if _, err := os.Stat(historyDir); err != nil {
		t.Skipf("SKIP: no real tool history at %s", historyDir)
	}
	t.Run("fs01 one finding per tool", func(t *testing.T) {
		res := historyPair(t, "fs01-output-content-array-to-string")
		per := map[string]int{}
		for _, f := range res.Findings {
			per[f.Tool]++
		}
		if len(per) < 10 {
			t.Errorf("only %d tools changed, want the 13 whose content became a string", len(per))
		}
		for tool, n := range per {
			if n != 1 {
				t.Errorf("%s: %d findings, want 1 (the children fold into the type change)", tool, n)
			}
		}
	})
	t.Run("fs04 no field removed from branch 0", func(t *testing.T) {
		for _, f := range historyPair(t, "fs04-read-media-output-union").Findings {
			if f.ID == "output-property-removed" || f.ID == "output-required-property-removed" {
				t.Errorf("%s at %s: the field is still in anyOf[0]", f.ID, f.Path)
			}
		}
	})
	for _, name := range []string{"gh07-get-commit-detail-enum", "gh15-add-issue-comment-flatten", "gh21-create-issue-granular", "gh24-show-ui-removed"} {
		t.Run(name+" not breaking", func(t *testing.T) {
			for _, f := range historyPair(t, name).Findings {
				if f.Lane == LaneBreaking {
					t.Errorf("breaking %s at %s", f.ID, f.Path)
				}
			}
		})
	}
}

// Every finding path of every real pair names a location of the listing
// as written: NEW, or OLD for what NEW lacks.
func TestHistoryPathsExist(t *testing.T) {
	entries, err := os.ReadDir(historyDir)
	if err != nil {
		t.Skipf("SKIP: no real tool history at %s", historyDir)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(historyDir, e.Name())
		oldTools, newTools := readHistoryListing(t, filepath.Join(dir, "old.json")), readHistoryListing(t, filepath.Join(dir, "new.json"))
		res, err := DiffContracts(oldTools, newTools)
		if err != nil {
			t.Fatal(err)
		}
		docs := func(tools []model.ToolContract) map[string]map[string]any {
			m := map[string]map[string]any{}
			for _, tc := range tools {
				nt, err := normalizeTool(tc)
				if err != nil {
					t.Fatal(err)
				}
				m[tc.Name] = nt.doc
			}
			return m
		}
		oldDocs, newDocs := docs(oldTools), docs(newTools)
		var missing []string
		for _, f := range res.Findings {
			if f.Path == "" {
				continue
			}
			if !pathExists(newDocs[f.Tool], f.Path) && !pathExists(oldDocs[f.Tool], f.Path) {
				missing = append(missing, f.Tool+" "+f.Path)
			}
		}
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("%s: path not in OLD or NEW as written: %s", e.Name(), m)
		}
	}
}

// pathExists follows a finding path literally, no $ref or branch search.
func pathExists(doc map[string]any, path string) bool {
	segs, ok := parseFindingPath(path)
	if !ok || doc == nil {
		return false
	}
	var cur any = doc
	for _, s := range segs {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s.key]
			if s.isIndex || !ok {
				return false
			}
			cur = v
		case []any:
			if !s.isIndex || s.index >= len(x) {
				return false
			}
			cur = x[s.index]
		default:
			return false
		}
	}
	return true
}
