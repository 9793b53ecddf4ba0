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
	"syscall"
	"time"

	"github.com/tracelab-dev/tracelab/scoring"
)

// DefaultOracleMaxOutput is how much an oracle may write per call when
// Files.OracleMaxOutput does not say: far above any list of violations, far
// below what would hurt the machine.
const DefaultOracleMaxOutput = 16 << 20

// CommandOracle is a policy oracle that runs the user's own permission
// check: for each call it starts Command (through sh -c), writes one JSON
// object {as_user, scope, tool, args, result} to its stdin and reads
// {"violations":[...]} from its stdout. A command that fails, answers
// something else, writes more than MaxOutput, or runs past Timeout is an
// error, never a pass. After the first failure the oracle is not started
// again: every later call gets that failure at once, so a hanging oracle
// costs one timeout, not one per call.
type CommandOracle struct {
	Command   string
	Timeout   time.Duration // default 10s
	MaxOutput int64         // bytes of stdout (and of stderr) per call; default DefaultOracleMaxOutput

	mu     sync.Mutex
	first  *OracleError  // the first failure, reported once by the caller
	failed chan struct{} // closed at the first failure: stops calls in flight
	calls  int
}

// OracleError is a policy oracle that could not answer: a failed
// dependency, exit status 2.
type OracleError struct {
	Command string
	Call    string // which call: "call 3 (run_sql as ana)"
	Msg     string
}

func (e *OracleError) Error() string {
	return fmt.Sprintf("policy oracle %q %s at %s", e.Command, e.Msg, e.Call)
}

// checkCases implements scoring.PolicyOracle.
func (o *CommandOracle) Check(c scoring.PolicyCall) ([]scoring.Violation, error) {
	o.mu.Lock()
	if o.failed == nil {
		o.failed = make(chan struct{})
	}
	if o.first != nil {
		err := o.first
		o.mu.Unlock()
		return nil, err
	}
	o.calls++
	n, failed := o.calls, o.failed
	o.mu.Unlock()
	v, err := o.check(c, n, failed)
	if err == nil { // still the typed *OracleError here, so nil means it answered
		return v, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.first != nil {
		// A call stopped because another failed first: that one is the
		// failure to report.
		return nil, o.first
	}
	o.first = err
	close(o.failed)
	return nil, err
}

// Err is the first failure of the oracle, if any.
func (o *CommandOracle) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.first == nil {
		return nil
	}
	return o.first
}

// cappedBuffer keeps at most max bytes; past them it stops the writer.
// The buffer is a field, not embedded: an embedded bytes.Buffer would lend
// the type its ReadFrom, and io.Copy (which exec uses to drain the pipe)
// would call that and read without any cap.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int64
	over bool
	stop func() // called once when the cap is passed
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.over {
		return 0, errOverflow
	}
	if room := b.max - int64(b.buf.Len()); int64(len(p)) > room {
		b.buf.Write(p[:max(room, 0)])
		b.over = true
		b.stop()
		return 0, errOverflow
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) String() string { return b.buf.String() }
func (b *cappedBuffer) Bytes() []byte  { return b.buf.Bytes() }

var errOverflow = errors.New("output over the cap")

func (o *CommandOracle) check(c scoring.PolicyCall, n int, failed <-chan struct{}) ([]scoring.Violation, *OracleError) {
	fail := func(format string, a ...any) *OracleError {
		return &OracleError{Command: o.Command, Call: fmt.Sprintf("call %d (%s as %s)", n, c.Tool, c.AsUser), Msg: fmt.Sprintf(format, a...)}
	}
	in, jerr := json.Marshal(c)
	if jerr != nil {
		return nil, fail("could not be given the call: %v", jerr)
	}
	out, msg := commandRun{Command: o.Command, Stdin: in, Timeout: o.Timeout, MaxOutput: o.MaxOutput,
		CapFlag: "--oracle-max-output", Stop: failed}.run()
	if msg != "" {
		return nil, fail("%s", msg)
	}
	var resp struct {
		Violations *[]scoring.Violation `json:"violations"`
	}
	if err := json.Unmarshal(out, &resp); err != nil || resp.Violations == nil {
		return nil, fail("expected {\"violations\":[...]} on stdout, got %.200q", out)
	}
	return *resp.Violations, nil
}

// commandRun is one run of a user's command (a policy oracle, a judge):
// through sh -c, in its own process group, with Stdin and a newline on its
// standard input, its stdout capped at MaxOutput and its stderr at 64 KiB,
// stopped at Timeout or when Stop closes. One runner, so every external
// command tracelab starts is held to the same limits.
type commandRun struct {
	Command   string
	Stdin     []byte
	Timeout   time.Duration // default 10s
	MaxOutput int64         // default DefaultOracleMaxOutput
	CapFlag   string        // the flag that sets MaxOutput, for the message
	Stop      <-chan struct{}
}

// run returns the command's stdout, or why there is none: a message to
// follow the command's name ("did not answer within 10s").
func (r commandRun) run() ([]byte, string) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	limit := r.MaxOutput
	if limit <= 0 {
		limit = DefaultOracleMaxOutput
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go func() {
		select {
		case <-r.Stop: // a nil Stop never fires
			cancel()
		case <-ctx.Done():
		}
	}()
	cmd := exec.Command("sh", "-c", r.Command)
	// The command runs in its own process group so that stopping it stops
	// everything it started: killing only the shell leaves its children
	// (a sleep, a curl) running after tracelab exits.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdin = bytes.NewReader(append(r.Stdin, '\n'))
	var killed sync.Once
	kill := func() {
		killed.Do(func() {
			if cmd.Process != nil {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		})
	}
	out := &cappedBuffer{max: limit, stop: kill}
	errb := &cappedBuffer{max: 64 << 10, stop: func() {}}
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Sprintf("could not be started: %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-ctx.Done():
		kill()
		err = <-waited
	}
	// A group member may outlive the shell (sh -c 'sleep 60 &'); it must
	// not outlive the call.
	kill()
	switch {
	case out.over:
		return nil, fmt.Sprintf("wrote more than %d bytes (the cap is %s)", limit, r.CapFlag)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Sprintf("did not answer within %s", timeout)
	case ctx.Err() != nil:
		return nil, "was stopped after an earlier call failed"
	case err != nil:
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, "failed: " + msg
	}
	return out.Bytes(), ""
}
