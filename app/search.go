package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/store"
)

// The full-text search over traces' questions and steps, and the saved
// views (a filter and a search under a name): store/search.go and
// store/views.go hold them on both backends.
type (
	SearchHit   = store.SearchHit
	SearchQuery = store.SearchQuery
	SavedView   = store.SavedView
)

// QuestionStep is the step index of a search hit in a trace's question.
const QuestionStep = store.QuestionStep

// Search returns the steps (and questions) that hold every term of
// q.Text, in trace and step order, each with a snippet around its match.
func (t TraceService) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	return t.e.st.Search(ctx, q)
}

// SearchSteps lists the steps of one trace that hold every term of text.
func (t TraceService) SearchSteps(ctx context.Context, traceID, text string) ([]int, error) {
	return t.e.st.SearchSteps(ctx, traceID, text)
}

// SearchTraceCount counts the traces f keeps whose question or steps hold
// every term of text.
func (t TraceService) SearchTraceCount(ctx context.Context, text string, f Filter) (int, error) {
	return t.e.st.SearchTraceCount(ctx, text, f)
}

// SearchTerms splits a search into its words and "quoted phrases".
func SearchTerms(text string) []string { return store.SearchTerms(text) }

// SaveView saves a filter (with its search) under a name.
func (t TraceService) SaveView(ctx context.Context, name string, f Filter, by string) error {
	return t.e.st.SaveView(ctx, name, f, by)
}

// Views lists the saved views by name.
func (t TraceService) Views(ctx context.Context) ([]SavedView, error) { return t.e.st.Views(ctx) }

// View is the saved view of that name (ErrNotFound when there is none).
func (t TraceService) View(ctx context.Context, name string) (SavedView, error) {
	return t.e.st.View(ctx, name)
}
