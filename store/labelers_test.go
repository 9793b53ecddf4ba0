package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Many labelers, each on a store of its own (as separate processes would
// be), edit at once: everyone one shared case, and each a case of their
// own, with undo mixed in. On PostgreSQL edits of different cases no
// longer wait for one writer lock but for the case's row, so this checks
// what that lock must keep: no edit is lost (every token appended to the
// shared gold list is there, every labeler's own fields end as their
// last kept action left them) and each case's history chains (each
// event's old value is the new value of the event before it on that
// field, and the last one is what is stored). PostgreSQL runs it twice,
// the second time with sessions defaulting to REPEATABLE READ, as a DBA
// may set (issue 27: locks before reads, retries, no bare SQLSTATE).
func TestManyLabelersLoseNoEdit(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		variants := []string{""}
		if b.name == "postgres" {
			variants = append(variants, "&default_transaction_isolation=repeatable%20read")
		}
		for _, v := range variants {
			name := "default"
			if v != "" {
				name = "repeatable read"
			}
			t.Run(name, func(t *testing.T) { manyLabelers(t, b, v) })
		}
	})
}

func manyLabelers(t *testing.T, b backend, dsnSuffix string) {
	const labelers, rounds = 12, 12
	ctx := context.Background()
	st, _ := openQueue(t, b, labelers+1)
	loc := st.Path() + dsnSuffix
	// final[who] is what each labeler's own fields must end as.
	type mine struct{ note, sharedNote string }
	final := make([]mine, labelers)
	var wg sync.WaitGroup
	for w := range labelers {
		who := fmt.Sprintf("w%02d", w)
		own := fmt.Sprintf("q%03d", w+1)
		s := b.openAt(t, loc, Options{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			// What undo brings back: the values of the actions not undone.
			var ownStack, sharedStack []string
			set := func(trace string, edits ...FieldChange) error {
				_, err := s.EditGroup(ctx, trace, who, false, func(*CaseRecord) ([]FieldChange, error) { return edits, nil })
				return err
			}
			for r := range rounds {
				v := fmt.Sprintf("%s r%02d", who, r)
				steps := []func() error{
					// Own case: the label (who's rater row) and the gold, one action.
					func() error {
						ownStack = append(ownStack, v)
						return set(own, FieldChange{"label.note", jsonValue(v)}, FieldChange{"gold.definition", jsonValue(v)})
					},
					// Shared case: append to the gold list as stored (read-modify-write).
					func() error {
						_, err := s.EditGroup(ctx, "q000", who, false, func(rec *CaseRecord) ([]FieldChange, error) {
							list := append(slices.Clone(rec.Case.Gold.RequiredFields), strings.ReplaceAll(v, " ", "."))
							return []FieldChange{{"gold.required_fields", jsonValue(list)}}, nil
						})
						return err
					},
					// Shared case: who's own label note.
					func() error {
						sharedStack = append(sharedStack, v)
						return set("q000", FieldChange{"label.note", jsonValue(v)})
					},
				}
				if r%3 == 2 {
					steps = append(steps, func() error {
						ownStack = ownStack[:len(ownStack)-1]
						_, err := s.UndoGroup(ctx, own, who)
						return err
					}, func() error {
						// who's newest action on the shared case is their note.
						sharedStack = sharedStack[:len(sharedStack)-1]
						_, err := s.UndoGroup(ctx, "q000", who)
						return err
					})
				}
				for _, step := range steps {
					if err := step(); err != nil {
						t.Errorf("%s round %d: %v", who, r, err)
						return
					}
				}
			}
			final[w] = mine{note: ownStack[len(ownStack)-1], sharedNote: sharedStack[len(sharedStack)-1]}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	shared, err := st.CaseForTrace(ctx, "q000")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(shared.Case.Gold.RequiredFields); got != labelers*rounds {
		t.Errorf("shared gold list has %d tokens, want %d: appends were lost", got, labelers*rounds)
	}
	raters, err := st.RatersOfCase(ctx, shared.Case.CaseID)
	if err != nil {
		t.Fatal(err)
	}
	for w := range labelers {
		who := fmt.Sprintf("w%02d", w)
		own := fmt.Sprintf("q%03d", w+1)
		c, err := st.CaseForTrace(ctx, own)
		if err != nil {
			t.Fatal(err)
		}
		if c.Case.Label.Note != final[w].note || c.Case.Gold.Definition != final[w].note {
			t.Errorf("%s's case: note %q, definition %q, want %q", who, c.Case.Label.Note, c.Case.Gold.Definition, final[w].note)
		}
		checkHistory(t, st, c)
		r := raters.Rater(who)
		if r == nil || r.Label.Note != final[w].sharedNote {
			t.Errorf("%s's label of the shared case: %+v, want note %q", who, r, final[w].sharedNote)
		}
	}
	checkHistory(t, st, shared)
}

// checkHistory checks that a case's events chain on each field (label
// fields per labeler: each rates on their own row) and end at the stored
// value of the gold, and that every event belongs to an action.
func checkHistory(t *testing.T, st *Store, c *CaseRecord) {
	t.Helper()
	evs, err := st.Events(context.Background(), c.Case.CaseID)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]string{}
	for _, e := range evs {
		if e.Group == 0 {
			t.Errorf("%s event %d (%s by %s) belongs to no action", c.Case.CaseID, e.ID, e.Field, e.Who)
		}
		key := e.Field
		if strings.HasPrefix(key, "label.") {
			key = e.Who + " " + key
		}
		if prev, ok := last[key]; ok && prev != string(e.Old) {
			t.Errorf("%s event %d on %s: old %s, but the event before set %s", c.Case.CaseID, e.ID, key, e.Old, prev)
		}
		last[key] = string(e.New)
	}
	for _, f := range []string{"gold.definition", "gold.required_fields"} {
		stored, _ := c.Case.Field(f)
		if v, ok := last[f]; ok && v != string(stored) {
			t.Errorf("%s: the history ends %s = %s, stored %s", c.Case.CaseID, f, v, stored)
		}
	}
}

func jsonValue(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
