package agreement

import (
	"strings"

	"github.com/tracelab-dev/tracelab/cireport"
)

// ConfusionText is a confusion matrix as aligned text (rows: the first
// rater, columns: the second), wrapped as the agree report wraps its own.
func ConfusionText(cats []string, m [][]int) string {
	var b strings.Builder
	textConfusion(&b, cats, m)
	return b.String()
}

// ConfusionMarkdown is a pair's confusion matrix as a markdown table.
func ConfusionMarkdown(p Pair, cats []string) cireport.Table {
	return markdownConfusion(p, cats)
}
