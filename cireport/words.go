package cireport

import "strings"

// WordDiff shows how prose changed, word by word, in the plain form of
// git diff --word-diff: [-removed-] and {+added+}, with unchanged words
// kept around each change and long unchanged runs cut to "…". A security
// reviewer must see what a description now says, not that it went from
// 188 to 188 characters.
func WordDiff(old, new string) string {
	a, b := strings.Fields(old), strings.Fields(new)
	// Longest common subsequence over words; descriptions are short
	// enough for the quadratic table, and anything longer is capped.
	const maxWords = 2000
	if len(a) > maxWords || len(b) > maxWords {
		return "[-" + Printable(old) + "-] {+" + Printable(new) + "+}"
	}
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // '=', '-', '+'
		word string
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{'=', a[i]})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i]}) // removed words first, as git shows them
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	// Keep up to context unchanged words on each side of a change.
	const context = 4
	near := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind == '=' {
			continue
		}
		for d := max(0, k-context); d <= min(len(ops)-1, k+context); d++ {
			near[d] = true
		}
	}
	var out []string
	for k := 0; k < len(ops); {
		o := ops[k]
		switch {
		case o.kind == '=' && !near[k]:
			for k < len(ops) && ops[k].kind == '=' && !near[k] {
				k++
			}
			out = append(out, "…")
		case o.kind == '=':
			out = append(out, Printable(o.word))
			k++
		default:
			// A run of the same kind reads as one bracket.
			var run []string
			for k < len(ops) && ops[k].kind == o.kind {
				run = append(run, Printable(ops[k].word))
				k++
			}
			if o.kind == '-' {
				out = append(out, "[-"+strings.Join(run, " ")+"-]")
			} else {
				out = append(out, "{+"+strings.Join(run, " ")+"+}")
			}
		}
	}
	return strings.Join(out, " ")
}
