package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// CaseFields lists the editable fields of a case by the names the event log
// and the workbench use.
var CaseFields = []string{
	"label.correct", "label.grounded", "label.failure_class", "label.note",
	"gold.answer", "gold.tolerance", "gold.required_fields", "gold.forbidden_fields",
	"gold.definition", "gold.window", "gold.freshness_bound_hours", "gold.policy_scope",
}

// field returns a pointer to the named field, for JSON (un)marshalling.
func (c *Case) field(name string) (any, error) {
	switch name {
	case "label.correct":
		return &c.Label.Correct, nil
	case "label.grounded":
		return &c.Label.Grounded, nil
	case "label.failure_class":
		return &c.Label.FailureClass, nil
	case "label.note":
		return &c.Label.Note, nil
	case "label.machine_note": // written by the engine, not listed in CaseFields
		return &c.Label.MachineNote, nil
	case "gold.answer":
		return &c.Gold.Answer, nil
	case "gold.tolerance":
		return &c.Gold.Tolerance, nil
	case "gold.required_fields":
		return &c.Gold.RequiredFields, nil
	case "gold.forbidden_fields":
		return &c.Gold.ForbiddenFields, nil
	case "gold.definition":
		return &c.Gold.Definition, nil
	case "gold.window":
		return &c.Gold.Window, nil
	case "gold.freshness_bound_hours":
		return &c.Gold.FreshnessBoundHours, nil
	case "gold.policy_scope":
		return &c.Gold.PolicyScope, nil
	}
	return nil, fmt.Errorf("unknown case field %q", name)
}

// Field returns the JSON value of a named field ("null" when unset).
func (c *Case) Field(name string) (json.RawMessage, error) {
	p, err := c.field(name)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if string(b) == "" {
		b = []byte("null")
	}
	return b, err
}

// SetField sets a named field from its JSON value, validating it.
func (c *Case) SetField(name string, value json.RawMessage) error {
	p, err := c.field(name)
	if err != nil {
		return err
	}
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	next := *c
	np, _ := next.field(name)
	// next shares c's pointers and slices, and json.Unmarshal writes
	// through a non-nil pointer and into a slice's backing array: cleared
	// first, the value is decoded into new memory, so neither c (when the
	// value is refused) nor a case c was copied from (an edit tried on a
	// copy) changes.
	reflect.ValueOf(np).Elem().SetZero()
	if err := json.Unmarshal(value, np); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	switch name {
	case "label.failure_class":
		if fc := next.Label.FailureClass; fc != nil && !ValidClass(string(*fc)) {
			return fmt.Errorf("label.failure_class: %q is not a failure class", *fc)
		}
	case "gold.answer":
		if string(value) == "null" {
			next.Gold.Answer = nil
		}
	case "gold.required_fields", "gold.forbidden_fields":
		fs := *(np.(*[]string))
		sort.Strings(fs)
	}
	_ = p
	*c = next
	return nil
}
