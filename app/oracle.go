package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"tracelab/scoring"
)

// CommandOracle is a policy oracle that runs the user's own permission
// check: for each call it starts Command (through sh -c), writes one JSON
// object {as_user, scope, tool, args, result} to its stdin and reads
// {"violations":[...]} from its stdout. A command that fails, answers
// something else, or runs past Timeout is an error, never a pass.
type CommandOracle struct {
	Command string
	Timeout time.Duration // default 10s

	mu    sync.Mutex
	first error // the first failure, reported once by the caller
}

// Check implements scoring.PolicyOracle.
func (o *CommandOracle) Check(c scoring.PolicyCall) ([]scoring.Violation, error) {
	v, err := o.check(c)
	if err != nil {
		o.mu.Lock()
		if o.first == nil {
			o.first = err
		}
		o.mu.Unlock()
	}
	return v, err
}

// Err is the first failure of the oracle, if any.
func (o *CommandOracle) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.first
}

func (o *CommandOracle) check(c scoring.PolicyCall) ([]scoring.Violation, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	in, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", o.Command)
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("policy oracle %q did not answer within %s (call to %s as %s)", o.Command, timeout, c.Tool, c.AsUser)
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("policy oracle %q failed: %s", o.Command, msg)
	}
	var resp struct {
		Violations *[]scoring.Violation `json:"violations"`
	}
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil || resp.Violations == nil {
		return nil, fmt.Errorf("policy oracle %q: expected {\"violations\":[...]} on stdout, got %.200q", o.Command, out.String())
	}
	return *resp.Violations, nil
}
