package scoring

// Lane is how much a contract change can hurt an agent that followed the
// old contract. A severity file may also set a check to LaneIgnore.
type Lane string

const (
	LaneBreaking Lane = "breaking"
	LaneRisky    Lane = "risky"
	LaneAdditive Lane = "additive"
	LaneIgnore   Lane = "ignore"
)

// rank orders lanes from the most to the least severe.
func (l Lane) rank() int {
	switch l {
	case LaneBreaking:
		return 0
	case LaneRisky:
		return 1
	case LaneAdditive:
		return 2
	}
	return 3
}

// Rank orders lanes from the most severe (0, breaking) to the least.
func (l Lane) Rank() int { return l.rank() }

// ParseLane reads a lane name as written in flags and severity files.
func ParseLane(s string) (Lane, bool) {
	switch l := Lane(s); l {
	case LaneBreaking, LaneRisky, LaneAdditive, LaneIgnore:
		return l, true
	}
	return "", false
}

// Side says which part of a contract a finding is about. Inputs are written
// by the agent and outputs read by it, so the same edit lands in different
// lanes on the two sides.
type Side string

const (
	SideInput       Side = "input"
	SideOutput      Side = "output"
	SideAnnotations Side = "annotations"
	SideDescription Side = "description"
	SideTool        Side = "tool"
)

// DriftCheck is one kind of contract change with a stable id and default lane.
type DriftCheck struct {
	ID       string
	Side     Side
	Lane     Lane
	Security bool
	Doc      string // one line; docs/drift-checks.md says more
}

// DriftChecks lists every check the drift engine can report, in
// documentation order. Ids never change once released.
func DriftChecks() []DriftCheck {
	return []DriftCheck{
		{"tool-removed", SideTool, LaneBreaking, false, "a tool of OLD is missing from NEW and no NEW tool has its semantic hash"},
		{"tool-renamed", SideTool, LaneBreaking, false, "a tool disappeared while a new one appeared with the same semantic hash"},
		{"tool-removed-deprecated", SideTool, LaneRisky, false, "a tool that OLD marked deprecated is missing from NEW: callers were warned"},
		{"tool-added", SideTool, LaneAdditive, false, "a tool of NEW is not in OLD"},
		{"tool-deprecated", SideTool, LaneRisky, false, "the tool was marked deprecated (annotations, _meta or a top-level deprecated: true), or no longer is (risky-low)"},
		{"tool-task-support-required", SideTool, LaneBreaking, false, "execution.taskSupport became \"required\""},
		{"tool-field-changed", SideTool, LaneRisky, false, "another top-level tool field changed (icons, execution, ...)"},
		{"schema-comparison-cut-short", SideTool, LaneRisky, false, "a schema changed whose comparison ran past its budget (union trials, or the walk by $ref): what it found is not reported, review it by hand"},

		{"tool-description-changed", SideDescription, LaneRisky, true, "the tool description changed: the model reads it to choose and use the tool"},
		{"tool-title-changed", SideDescription, LaneRisky, true, "the tool title or annotations.title changed: approval dialogs show it (risky-low)"},
		{"input-description-changed", SideDescription, LaneRisky, true, "a description or title inside inputSchema changed"},
		{"output-description-changed", SideDescription, LaneRisky, false, "a description or title inside outputSchema changed"},
		{"input-example-changed", SideDescription, LaneRisky, false, "examples inside inputSchema changed"},
		{"output-example-changed", SideDescription, LaneRisky, false, "examples inside outputSchema changed"},

		{"annotations-read-only-dropped", SideAnnotations, LaneBreaking, true, "readOnlyHint went from true to false (absent means false): the tool may now write"},
		{"annotations-became-destructive", SideAnnotations, LaneBreaking, true, "destructiveHint of a writing tool went from false to true (absent means true)"},
		{"annotations-open-world-enabled", SideAnnotations, LaneRisky, true, "openWorldHint went from false to true (absent means true)"},
		{"annotations-idempotent-dropped", SideAnnotations, LaneRisky, false, "idempotentHint of a writing tool went from true to false: retries are no longer safe"},
		{"annotations-claim-safer", SideAnnotations, LaneRisky, true, "a hint now claims the tool is safer; annotations are untrusted and may suppress approval"},
		{"annotations-field-changed", SideAnnotations, LaneRisky, false, "another annotation key changed"},

		{"input-property-added-required", SideInput, LaneBreaking, false, "a new input property is required: old calls lack it"},
		{"input-property-added-required-with-default", SideInput, LaneBreaking, false, "a new required input property that has a default: the server may fill it, validation still rejects old calls"},
		{"input-property-added-optional", SideInput, LaneAdditive, false, "a new optional input property on an object that was closed (additionalProperties: false)"},
		{"input-property-added-to-open-object", SideInput, LaneRisky, false, "a new optional input property on an open object: old calls may already send that name with another meaning or type"},
		{"input-property-became-required", SideInput, LaneBreaking, false, "an optional input property became required"},
		{"input-property-became-optional", SideInput, LaneAdditive, false, "a required input property became optional"},
		{"input-property-removed", SideInput, LaneRisky, false, "an input property was removed from an open object (or was deprecated): old calls still validate, but what they send is now ignored"},
		{"input-property-removed-closed", SideInput, LaneBreaking, false, "an input property was removed from a closed object (additionalProperties: false): old calls sending it now fail"},
		{"input-property-renamed", SideInput, LaneBreaking, false, "an input property was removed and one with the same schema added"},
		{"input-type-changed", SideInput, LaneBreaking, false, "an input type changed or was narrowed: old values may no longer validate"},
		{"input-type-widened", SideInput, LaneAdditive, false, "an input type accepts more (integer to number, a type added to the list)"},
		{"input-enum-narrowed", SideInput, LaneBreaking, false, "input enum values were removed, or an enum or const was added"},
		{"input-enum-widened", SideInput, LaneAdditive, false, "input enum values were added, or the enum was removed"},
		{"input-format-tightened", SideInput, LaneBreaking, false, "an input format was added or changed"},
		{"input-pattern-tightened", SideInput, LaneBreaking, false, "an input pattern was added"},
		{"input-pattern-changed", SideInput, LaneRisky, false, "an input pattern changed to another pattern"},
		{"input-bound-tightened", SideInput, LaneBreaking, false, "an input bound was set or tightened (minimum up, maxLength down, multipleOf, uniqueItems, ...)"},
		{"input-constraint-relaxed", SideInput, LaneAdditive, false, "an input bound, format or pattern was relaxed or removed"},
		{"input-additional-properties-closed", SideInput, LaneBreaking, false, "an input object no longer accepts unknown properties"},
		{"input-additional-properties-opened", SideInput, LaneAdditive, false, "an input object now accepts unknown properties"},
		{"input-default-changed", SideInput, LaneRisky, false, "an input default was added, changed or removed: omitted arguments behave differently"},
		{"input-composition-narrowed", SideInput, LaneBreaking, false, "a oneOf/anyOf branch was removed or an allOf conjunct added"},
		{"input-composition-widened", SideInput, LaneAdditive, false, "a oneOf/anyOf branch was added or an allOf conjunct removed"},
		{"input-composition-changed", SideInput, LaneRisky, false, "oneOf/anyOf/allOf branches changed in a way that is neither wider nor narrower"},
		{"input-schema-dialect-changed", SideInput, LaneRisky, false, "the inputSchema $schema dialect changed"},
		{"input-assertion-added", SideInput, LaneBreaking, false, "an input assertion keyword was added (not, dependentSchemas, dependentRequired, if/then/else, propertyNames, contains)"},
		{"input-assertion-removed", SideInput, LaneAdditive, false, "an input assertion keyword was removed: it no longer rejects values"},
		{"input-deprecated", SideInput, LaneRisky, false, "an input schema was marked deprecated: true, or no longer is (risky-low)"},
		{"input-keyword-changed", SideInput, LaneRisky, false, "another input schema keyword changed (not, if/then, patternProperties, an unresolved $ref, ...)"},

		{"output-schema-added", SideOutput, LaneAdditive, false, "the tool now declares an outputSchema"},
		{"output-schema-removed", SideOutput, LaneRisky, false, "the tool no longer declares an outputSchema: structured results are no longer promised"},
		{"output-property-added", SideOutput, LaneAdditive, false, "a new output property"},
		{"output-property-removed", SideOutput, LaneRisky, false, "an optional (or deprecated) output property was removed: the agent may read it, but could not rely on it (risky-low)"},
		{"output-required-property-removed", SideOutput, LaneBreaking, false, "a required output property was removed: the agent may read it"},
		{"output-property-renamed", SideOutput, LaneBreaking, false, "an output property was removed and one with the same schema added"},
		{"output-property-became-optional", SideOutput, LaneBreaking, false, "a required output property became optional: the agent may find it missing"},
		{"output-property-became-required", SideOutput, LaneAdditive, false, "an optional output property became required"},
		{"output-type-changed", SideOutput, LaneBreaking, false, "an output type changed or was widened: the agent may read a value of a new type"},
		{"output-type-narrowed", SideOutput, LaneAdditive, false, "an output type was narrowed (number to integer, a type removed from the list)"},
		{"output-enum-widened", SideOutput, LaneRisky, false, "output enum values were added, or the enum was removed: the agent may meet unknown values"},
		{"output-enum-narrowed", SideOutput, LaneAdditive, false, "output enum values were removed, or an enum or const was added"},
		{"output-constraint-tightened", SideOutput, LaneAdditive, false, "an output bound, format or pattern was set or tightened"},
		{"output-constraint-relaxed", SideOutput, LaneRisky, false, "an output bound or format was relaxed or removed"},
		{"output-pattern-changed", SideOutput, LaneRisky, false, "an output pattern changed to another pattern"},
		{"output-additional-properties-opened", SideOutput, LaneRisky, false, "an output object may now carry unknown properties"},
		{"output-additional-properties-closed", SideOutput, LaneAdditive, false, "an output object no longer carries unknown properties"},
		{"output-composition-widened", SideOutput, LaneBreaking, false, "a oneOf/anyOf branch was added or an allOf conjunct removed: new shapes may come back"},
		{"output-composition-narrowed", SideOutput, LaneAdditive, false, "a oneOf/anyOf branch was removed or an allOf conjunct added"},
		{"output-composition-changed", SideOutput, LaneRisky, false, "oneOf/anyOf/allOf branches changed in a way that is neither wider nor narrower"},
		{"output-schema-dialect-changed", SideOutput, LaneRisky, false, "the outputSchema $schema dialect changed"},
		{"output-assertion-added", SideOutput, LaneAdditive, false, "an output assertion keyword was added: results are narrower"},
		{"output-assertion-removed", SideOutput, LaneRisky, false, "an output assertion keyword was removed: results may be wider"},
		{"output-deprecated", SideOutput, LaneRisky, false, "an output schema was marked deprecated: true, or no longer is (risky-low)"},
		{"output-keyword-changed", SideOutput, LaneRisky, false, "another output schema keyword changed"},
	}
}

// lowChecks are the risky checks of the lower tier, "risky-low" in
// drift-rules.md: worth a look, rarely worth blocking. They stay in the
// risky lane (so --fail-on risky still fails on them) and are shown and
// sorted as risky-low.
var lowChecks = map[string]bool{
	"tool-title-changed": true, "output-property-removed": true,
	"tool-deprecated": true, "input-deprecated": true, "output-deprecated": true,
}

// checkIndex maps ids to their check.
func checkIndex() map[string]DriftCheck {
	m := map[string]DriftCheck{}
	for _, c := range DriftChecks() {
		m[c.ID] = c
	}
	return m
}
