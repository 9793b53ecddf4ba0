package scoring

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/tracelab-dev/tracelab/model"
)

// DriftFinding is one classified difference between two tool contracts.
type DriftFinding struct {
	ID       string `json:"id"`   // a check id from DriftChecks
	Tool     string `json:"tool"` // the NEW name for a rename, else the tool's name
	Side     Side   `json:"side"`
	Path     string `json:"path"` // JSON path inside the tool, like inputSchema.properties.recursive
	Lane     Lane   `json:"lane"`
	Security bool   `json:"security"`
	// Low marks a risky finding of the lower tier (risky-low: a title, a
	// deprecation, an optional output property removed).
	Low     bool            `json:"low,omitempty"`
	Message string          `json:"message"`
	Old     json.RawMessage `json:"old"` // canonical JSON of the old value; null when absent
	New     json.RawMessage `json:"new"`
	// Fingerprint is a short hash over id, tool, path and the old and new
	// values (not the message), so acknowledgements survive re-snapshots.
	Fingerprint string `json:"fingerprint"`
	// schemaPath is Path in the resolved schema ($refs inlined, union
	// branches merged), the shape recorded results are read in; empty
	// when it equals Path.
	schemaPath string
}

// SchemaPath is the finding's path in the resolved schema, which may
// differ from Path (a location of the listing as written).
func (f DriftFinding) SchemaPath() string {
	if f.schemaPath != "" {
		return f.schemaPath
	}
	return f.Path
}

// ToolDigest carries a tool's two hashes: Wire over the exact contract the
// model saw, Semantic over its normalized body without name and prose.
type ToolDigest struct {
	Name     string `json:"name"`
	Wire     string `json:"wire"`
	Semantic string `json:"semantic"`
}

// DriftResult is everything DiffContracts found.
type DriftResult struct {
	Findings []DriftFinding
	Old, New []ToolDigest // sorted by name
}

// findingFingerprint hashes what identifies a change, not how it reads.
func findingFingerprint(id, tool, path string, old, new json.RawMessage) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(id), []byte(tool), []byte(path), nullIfEmpty(old), nullIfEmpty(new)} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func nullIfEmpty(b json.RawMessage) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

// normalizedTool is a contract decoded once: resolved schemas with prose
// kept (for diffing), effective annotations, and the semantic hash.
type normalizedTool struct {
	tc        model.ToolContract
	input     any // resolved inputSchema; nil when absent
	output    any
	hasOutput bool
	// inCut and outCut: inlining the schema's $refs ran out of budget.
	inCut, outCut bool
	// inRaw and outRaw are the schemas as written, canonical.
	inRaw, outRaw json.RawMessage
	annotations   map[string]any
	hints         toolHints
	extra         map[string]any // other top-level fields of an MCP-shaped Raw
	semanticHash  string
	// metaDeprecated is _meta.deprecated of an MCP-shaped Raw.
	metaDeprecated bool
	// doc is the tool as written (schemas with their $refs), the document
	// finding paths point into.
	doc map[string]any
}

// toolHints are the four MCP tool annotations with the spec's defaults applied.
type toolHints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

func effectiveHints(ann map[string]any) toolHints {
	h := toolHints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	get := func(k string, def bool) bool {
		if b, ok := ann[k].(bool); ok {
			return b
		}
		return def
	}
	h.ReadOnly = get("readOnlyHint", h.ReadOnly)
	h.Destructive = get("destructiveHint", h.Destructive)
	h.Idempotent = get("idempotentHint", h.Idempotent)
	h.OpenWorld = get("openWorldHint", h.OpenWorld)
	return h
}

// mcpToolKeys are the Tool fields the engine compares one by one.
var mcpToolKeys = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"}

func normalizeTool(tc model.ToolContract) (*normalizedTool, error) {
	nt := &normalizedTool{tc: tc}
	in, err := decodeSchemaJSON(tc.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema: %v", tc.Name, err)
	}
	out, err := decodeSchemaJSON(tc.OutputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: outputSchema: %v", tc.Name, err)
	}
	ann, err := decodeSchemaJSON(tc.Annotations)
	if err != nil {
		return nil, fmt.Errorf("tool %q: annotations: %v", tc.Name, err)
	}
	if in != nil {
		nt.input, nt.inCut = resolveRefsCut(in)
		nt.inRaw = canonOf(in)
	}
	if out != nil {
		nt.output, nt.outCut = resolveRefsCut(out)
		nt.hasOutput, nt.outRaw = true, canonOf(out)
	}
	nt.annotations, _ = ann.(map[string]any)
	nt.hints = effectiveHints(nt.annotations)
	nt.extra, nt.metaDeprecated = rawExtras(tc.Raw)
	nt.doc = map[string]any{"name": tc.Name, "inputSchema": in, "annotations": ann}
	if tc.Description != "" {
		nt.doc["description"] = tc.Description
	}
	if tc.Title != "" {
		nt.doc["title"] = tc.Title
	}
	if out != nil {
		nt.doc["outputSchema"] = out
	}
	for k, v := range nt.extra {
		nt.doc[k] = v
	}
	// Compared with the spec's defaults applied (the wire document above
	// keeps the bytes as sent): an SDK that starts spelling out
	// execution.taskSupport "forbidden" changed nothing.
	applyExecutionDefault(nt.extra)

	// The semantic body: what validates and what the tool may do, without
	// its name (so renames match) and without prose.
	body := map[string]any{
		"inputSchema": semanticOrRefs(nt.input, in, nt.inCut),
		"annotations": map[string]any{
			"readOnlyHint": nt.hints.ReadOnly, "destructiveHint": nt.hints.Destructive,
			"idempotentHint": nt.hints.Idempotent, "openWorldHint": nt.hints.OpenWorld,
		},
	}
	for k, v := range nt.annotations {
		if _, hint := body["annotations"].(map[string]any)[k]; !hint && k != "title" {
			body["annotations"].(map[string]any)[k] = v
		}
	}
	if nt.hasOutput {
		body["outputSchema"] = semanticOrRefs(nt.output, out, nt.outCut)
	}
	if ex, ok := nt.extra["execution"]; ok {
		body["execution"] = ex
	}
	sum := sha256.Sum256(canonOf(body))
	nt.semanticHash = hex.EncodeToString(sum[:])
	return nt, nil
}

// semanticOrRefs is the semantic form of a schema for the tool's hash: the
// inlined one, or where inlining was cut short, the document as written
// with each $ref carrying the hash of its target (an inlining cut short
// hides whatever changed past the cut).
func semanticOrRefs(resolved, written any, cut bool) any {
	if !cut {
		return semanticSchema(resolved)
	}
	return semanticSchema(annotateRefs(written, &refBudget{left: maxRefSteps}))
}

// applyExecutionDefault drops what the MCP spec (2025-11-25, Tool.execution)
// says by default: taskSupport absent means "forbidden", so an execution
// object that says only that is no execution object at all.
func applyExecutionDefault(extra map[string]any) {
	ex, ok := extra["execution"].(map[string]any)
	if !ok {
		return
	}
	c := make(map[string]any, len(ex))
	for k, v := range ex {
		if k == "taskSupport" && v == "forbidden" {
			continue
		}
		c[k] = v
	}
	if len(c) == 0 {
		delete(extra, "execution")
		return
	}
	extra["execution"] = c
}

// rawExtras returns the top-level fields of an MCP-shaped tool object that
// the engine does not compare one by one (icons, execution, ...). Tools in
// OpenAI or Anthropic shape have none: their wrappers are not contract.
// It also reports whether _meta says deprecated: true.
func rawExtras(raw json.RawMessage) (map[string]any, bool) {
	v, err := decodeSchemaJSON(raw)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, false
	}
	for _, k := range []string{"type", "function", "parameters", "input_schema"} {
		if _, foreign := m[k]; foreign {
			return nil, false
		}
	}
	out := map[string]any{}
	for k, e := range m {
		if !containsStr(mcpToolKeys, k) {
			out[k] = e
		}
	}
	return out, asObject(m["_meta"])["deprecated"] == true
}

func containsStr(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// SemanticFingerprint is the hex sha256 of a tool's normalized contract:
// annotation defaults filled in, required and enum as sets, local $refs
// resolved, descriptions, titles and examples removed, name left out.
func SemanticFingerprint(tc model.ToolContract) (string, error) {
	nt, err := normalizeTool(tc)
	if err != nil {
		return "", err
	}
	return nt.semanticHash, nil
}

// DiffContracts compares the tools of OLD and NEW by name and classifies
// every difference. A tool missing from NEW whose semantic hash equals that
// of exactly one tool new in NEW is reported as renamed.
func DiffContracts(oldTools, newTools []model.ToolContract) (DriftResult, error) {
	var res DriftResult
	norm := func(tools []model.ToolContract) (map[string]*normalizedTool, []ToolDigest, error) {
		m := map[string]*normalizedTool{}
		var digests []ToolDigest
		for _, tc := range tools {
			nt, err := normalizeTool(tc)
			if err != nil {
				return nil, nil, err
			}
			if _, dup := m[tc.Name]; dup {
				return nil, nil, fmt.Errorf("tool %q is listed twice", tc.Name)
			}
			m[tc.Name] = nt
			digests = append(digests, ToolDigest{Name: tc.Name, Wire: tc.Fingerprint(), Semantic: nt.semanticHash})
		}
		sort.Slice(digests, func(i, j int) bool { return digests[i].Name < digests[j].Name })
		return m, digests, nil
	}
	oldM, oldD, err := norm(oldTools)
	if err != nil {
		return res, fmt.Errorf("OLD: %w", err)
	}
	newM, newD, err := norm(newTools)
	if err != nil {
		return res, fmt.Errorf("NEW: %w", err)
	}
	res.Old, res.New = oldD, newD

	var gone, arrived []string
	for _, d := range oldD {
		if _, ok := newM[d.Name]; !ok {
			gone = append(gone, d.Name)
		}
	}
	for _, d := range newD {
		if _, ok := oldM[d.Name]; !ok {
			arrived = append(arrived, d.Name)
		}
	}
	var out []DriftFinding
	renamedTo := map[string]string{}
	arrivedBy := map[string][]string{}
	for _, n := range arrived {
		arrivedBy[newM[n].semanticHash] = append(arrivedBy[newM[n].semanticHash], n)
	}
	goneBy := map[string][]string{}
	for _, n := range gone {
		goneBy[oldM[n].semanticHash] = append(goneBy[oldM[n].semanticHash], n)
	}
	for _, n := range gone {
		h := oldM[n].semanticHash
		if len(goneBy[h]) == 1 && len(arrivedBy[h]) == 1 {
			renamedTo[n] = arrivedBy[h][0]
		}
	}
	renamedFrom := map[string]string{}
	for o, n := range renamedTo {
		renamedFrom[n] = o
	}

	for _, n := range gone {
		d := &schemaDiffer{tool: n}
		if to, ok := renamedTo[n]; ok {
			d.tool, d.oldDoc, d.newDoc = to, oldM[n].doc, newM[to].doc
			d.add("tool-renamed", "", n, to, "tool renamed from %s to %s (same semantic contract)", n, to)
			d.compareTool(oldM[n], newM[to])
		} else if oldM[n].deprecated() {
			d.add("tool-removed-deprecated", "", n, nil, "tool removed: %s (OLD marked it deprecated)", n)
		} else {
			d.add("tool-removed", "", n, nil, "tool removed: %s", n)
		}
		out = append(out, d.out...)
	}
	for _, n := range arrived {
		if _, ok := renamedFrom[n]; ok {
			continue
		}
		d := &schemaDiffer{tool: n}
		d.add("tool-added", "", nil, n, "tool added: %s", n)
		out = append(out, d.out...)
	}
	for _, od := range oldD {
		nt, ok := newM[od.Name]
		if !ok {
			continue
		}
		d := &schemaDiffer{tool: od.Name, oldDoc: oldM[od.Name].doc, newDoc: nt.doc}
		d.compareTool(oldM[od.Name], nt)
		out = append(out, d.out...)
	}
	SortDriftFindings(out)
	res.Findings = dedupeFindings(out)
	return res, nil
}

// dedupeFindings drops repeats of a sorted list: a change inside a $defs
// entry that several properties use is one change at one written path.
func dedupeFindings(fs []DriftFinding) []DriftFinding {
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		key := f.Tool + "\x00" + f.Fingerprint
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, f)
	}
	return out
}

// SortDriftFindings orders findings by tool, lane (breaking first), path and id.
func SortDriftFindings(fs []DriftFinding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		if a.Lane.rank() != b.Lane.rank() {
			return a.Lane.rank() < b.Lane.rank()
		}
		if a.Low != b.Low {
			return b.Low
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Fingerprint < b.Fingerprint
	})
}

// schemaDiffer collects the findings for one tool.
type schemaDiffer struct {
	tool string
	out  []DriftFinding
	// effects[i] says how out[i] changes the set of accepted values, read
	// as an input; acceptRelation uses it to compare union branches.
	effects []effect
	// oldDoc and newDoc are the tool as written (refs unresolved), so
	// finding paths can be pointed at locations that exist there.
	oldDoc, newDoc map[string]any
	// unionBudget is shared by the scratch differs of union comparisons.
	unionBudget *refBudget
	// refs is set while a schema is compared by reference (drift_refs.go).
	refs *refWalk
}

var checksByID = checkIndex()

// add records a finding; old and new are decoded JSON values (nil: absent).
func (d *schemaDiffer) add(id, path string, old, new any, format string, args ...any) {
	c, ok := checksByID[id]
	if !ok {
		panic("drift: unknown check id " + id) // a programming error, caught by the tests
	}
	if d.refs != nil {
		// The walk already reports the location as written.
		old, new = withoutRefHashes(old), withoutRefHashes(new)
	}
	o, n := canonOf(old), canonOf(new)
	schemaPath := path
	if d.refs == nil && (d.oldDoc != nil || d.newDoc != nil) {
		prefer, other := d.newDoc, d.oldDoc
		if new == nil { // a removal: the location exists in OLD
			prefer, other = other, prefer
		}
		path = writtenPath(path, prefer, other)
	}
	if schemaPath == path {
		schemaPath = ""
	}
	d.out = append(d.out, DriftFinding{
		ID: id, Tool: d.tool, Side: c.Side, Path: path, schemaPath: schemaPath, Lane: c.Lane, Security: c.Security,
		Low:     lowChecks[id] && c.Lane == LaneRisky,
		Message: fmt.Sprintf(format, args...), Old: o, New: n,
		Fingerprint: findingFingerprint(id, d.tool, path, o, n),
	})
	d.effects = append(d.effects, checkEffects[id])
}

// setEffect overrides the effect of the finding just added.
func (d *schemaDiffer) setEffect(e effect) { d.effects[len(d.effects)-1] = e }

// deprecated reports whether the tool is marked deprecated: MCP has no
// field for it, so servers put deprecated: true in annotations, in _meta
// or at the top level.
func (nt *normalizedTool) deprecated() bool {
	return nt.annotations["deprecated"] == true || nt.extra["deprecated"] == true || nt.metaDeprecated
}

// schemaOrCut compares one schema of a tool: schemas written the same
// (canonically) never differ, whatever their size. A schema whose $refs
// inline past the budget on either side is compared by reference
// (drift_refs.go) rather than cut, which found phantom changes where the
// two sides were cut at different places. Where a comparison's own budget
// runs out (union trials, or the by-reference walk), what it found so far
// may be wrong: it is replaced by one review finding, never a phantom
// breaking change.
func (d *schemaDiffer) schemaOrCut(side Side, path string, o, n any, oDoc, nDoc any, oRaw, nRaw json.RawMessage, cut bool) {
	if bytes.Equal(oRaw, nRaw) {
		return
	}
	mark, budget := len(d.out), &refBudget{left: maxRefSteps}
	d.unionBudget = nil
	if cut {
		d.refs = &refWalk{oldRoot: annotateRefs(oDoc, budget), newRoot: annotateRefs(nDoc, budget), rootPath: path, seen: map[string]bool{}, budget: budget}
		o, n = d.refs.oldRoot, d.refs.newRoot
	}
	d.schema(side, path, o, n)
	d.refs = nil
	if budget.cut || (d.unionBudget != nil && d.unionBudget.cut) {
		d.out, d.effects = d.out[:mark], d.effects[:mark]
		d.add("schema-comparison-cut-short", path, nil, nil,
			"%s changed, but comparing it ran past its budget (%d union trials, %d steps by reference): the comparison was cut short; review the change by hand",
			path, maxUnionComparisons, maxRefSteps)
	}
}

func (d *schemaDiffer) compareTool(o, n *normalizedTool) {
	if od, nd := o.deprecated(), n.deprecated(); od != nd {
		if nd {
			d.add("tool-deprecated", "", false, true, "tool marked deprecated: callers should move off it")
		} else {
			d.add("tool-deprecated", "", true, false, "tool no longer marked deprecated")
		}
	}
	if o.tc.Description != n.tc.Description {
		d.add("tool-description-changed", "description", strOrNil(o.tc.Description), strOrNil(n.tc.Description),
			"tool description changed%s", proseDelta(o.tc.Description, n.tc.Description))
	}
	if o.tc.Title != n.tc.Title {
		d.add("tool-title-changed", "title", strOrNil(o.tc.Title), strOrNil(n.tc.Title),
			"tool title changed from %q to %q", o.tc.Title, n.tc.Title)
	}
	d.annotations(o, n)
	d.extras(o.extra, n.extra)
	d.schemaOrCut(SideInput, "inputSchema", o.input, n.input, o.doc["inputSchema"], n.doc["inputSchema"], o.inRaw, n.inRaw, o.inCut || n.inCut)
	switch {
	case o.hasOutput && n.hasOutput:
		d.schemaOrCut(SideOutput, "outputSchema", o.output, n.output, o.doc["outputSchema"], n.doc["outputSchema"], o.outRaw, n.outRaw, o.outCut || n.outCut)
	case !o.hasOutput && n.hasOutput:
		d.add("output-schema-added", "outputSchema", nil, semanticSchema(n.output), "output schema added: results are now structured")
	case o.hasOutput && !n.hasOutput:
		d.add("output-schema-removed", "outputSchema", semanticSchema(o.output), nil, "output schema removed: structured results are no longer promised")
	}
}

func strOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// proseDelta says briefly how a prose field changed.
func proseDelta(o, n string) string {
	switch {
	case o == "":
		return " (was empty)"
	case n == "":
		return " (now empty)"
	}
	return fmt.Sprintf(" (%d to %d characters)", len(o), len(n))
}

func (d *schemaDiffer) annotations(o, n *normalizedTool) {
	oh, nh := o.hints, n.hints
	path := func(k string) string { return "annotations." + k }
	if oh.ReadOnly && !nh.ReadOnly {
		extra := ""
		if nh.Destructive {
			extra = ", destructively by default (destructiveHint absent or true)"
		}
		d.add("annotations-read-only-dropped", path("readOnlyHint"), true, false,
			"readOnlyHint true → false: the tool may now write%s", extra)
	}
	if !oh.ReadOnly && nh.ReadOnly {
		d.add("annotations-claim-safer", path("readOnlyHint"), false, true,
			"readOnlyHint false → true: the tool now claims to be read-only (unverified)")
	}
	if !oh.ReadOnly && !nh.ReadOnly {
		switch {
		case !oh.Destructive && nh.Destructive:
			d.add("annotations-became-destructive", path("destructiveHint"), false, true,
				"destructiveHint false → true: the tool may now destroy data")
		case oh.Destructive && !nh.Destructive:
			d.add("annotations-claim-safer", path("destructiveHint"), true, false,
				"destructiveHint true → false: the tool now claims to be non-destructive (unverified)")
		}
		switch {
		case oh.Idempotent && !nh.Idempotent:
			d.add("annotations-idempotent-dropped", path("idempotentHint"), true, false,
				"idempotentHint true → false: repeating a call may now have more effect")
		case !oh.Idempotent && nh.Idempotent:
			d.add("annotations-claim-safer", path("idempotentHint"), false, true,
				"idempotentHint false → true: the tool now claims retries are safe (unverified)")
		}
	}
	switch {
	case !oh.OpenWorld && nh.OpenWorld:
		d.add("annotations-open-world-enabled", path("openWorldHint"), false, true,
			"openWorldHint false → true: the tool may now reach outside systems")
	case oh.OpenWorld && !nh.OpenWorld:
		d.add("annotations-claim-safer", path("openWorldHint"), true, false,
			"openWorldHint true → false: the tool now claims a closed world (unverified)")
	}
	ot, _ := o.annotations["title"].(string)
	ntitle, _ := n.annotations["title"].(string)
	if ot != ntitle {
		d.add("tool-title-changed", path("title"), strOrNil(ot), strOrNil(ntitle),
			"annotations.title changed from %q to %q", ot, ntitle)
	}
	for _, k := range unionKeys(o.annotations, n.annotations) {
		switch k {
		case "title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "deprecated":
			continue // compared above, or by compareTool
		}
		if ov, nv := o.annotations[k], n.annotations[k]; !bytes.Equal(canonOf(ov), canonOf(nv)) {
			d.add("annotations-field-changed", path(k), ov, nv, "annotation %s changed", k)
		}
	}
}

func (d *schemaDiffer) extras(o, n map[string]any) {
	for _, k := range unionKeys(o, n) {
		ov, nv := o[k], n[k]
		if k == "deprecated" || bytes.Equal(canonOf(ov), canonOf(nv)) {
			continue // deprecation has its own check
		}
		if k == "execution" {
			ots, _ := asObject(ov)["taskSupport"].(string)
			nts, _ := asObject(nv)["taskSupport"].(string)
			if nts == "required" && ots != "required" {
				if ots == "" {
					ots = "forbidden"
				}
				d.add("tool-task-support-required", "execution.taskSupport", ots, nts,
					"execution.taskSupport %s → required: callers must now run the tool as a task", ots)
				continue
			}
		}
		d.add("tool-field-changed", jsonPathKey("", k), ov, nv, "tool field %s changed", k)
	}
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func unionKeys(a, b map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// jsonPathKey appends an object key to a JSON path, quoting odd names.
func jsonPathKey(path, key string) string {
	if identRE.MatchString(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func jsonPathIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// id is the check id of suffix on side, like input-type-changed.
func sideID(side Side, suffix string) string { return string(side) + "-" + suffix }
