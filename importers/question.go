package importers

// The question of a trace is what the person asked. Agent frameworks add
// user turns of their own (CrewAI's "Analyze the tool result…" after each
// tool, Codex's IDE context block, Claude Code's system reminders) and
// wrap the person's words in templates (CrewAI's "Current Task: …"
// prompt, Codex's "## My request for Codex:"). Those turns stay in the
// trace as steps; the question is taken from the person's own turn, and
// from inside the template around it.

import (
	"regexp"
	"strings"
)

// injectedPrefixes start user turns a framework writes on its own.
var injectedPrefixes = []string{
	// CrewAI, after every tool result (crewai/translations/en.json "post_tool_reasoning" and the like).
	"Analyze the tool result. If requirements are met",
	// Claude Code, when the person stops a tool run.
	"[Request interrupted by user",
}

// injectedTurn reports whether a user turn is a framework's, not the
// person's: made only of <tag> blocks (machineText), a known injected
// instruction, or Codex's IDE context with no request in it.
func injectedTurn(s string) bool {
	t := strings.TrimSpace(s)
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if strings.HasPrefix(t, codexIDEContext) && !strings.Contains(t, codexRequest) {
		return true
	}
	return machineText(t)
}

const (
	codexIDEContext = "# Context from my IDE setup:"
	codexRequest    = "## My request for Codex:"
)

// crewTask finds the task in CrewAI's task prompt ("Current Task: …" up
// to "This is the expected criteria for your final answer").
var crewTask = regexp.MustCompile(`(?s)^\s*Current Task:\s*(.*?)\s*(?:\n\s*This is the expected criteria for your final answer|\z)`)

// ownRequest is the person's words inside a turn a framework wrapped: the
// request under Codex's IDE context, the task of CrewAI's prompt, the text
// after leading <tag> blocks. s itself when it has no wrapper.
func ownRequest(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, codexIDEContext) {
		if _, req, ok := strings.Cut(t, codexRequest); ok && strings.TrimSpace(req) != "" {
			return strings.TrimSpace(req)
		}
	}
	if m := crewTask.FindStringSubmatch(t); m != nil && strings.TrimSpace(m[1]) != "" {
		return strings.TrimSpace(m[1])
	}
	return stripMachineBlocks(s)
}
