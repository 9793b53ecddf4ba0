package cli

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// liveRequest is one OTLP JSON request: a chat span with a question and
// an answer, enough for a trace.
const liveRequest = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"live-test"}}]},
"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"chat",
"startTimeUnixNano":"1751533921000000000","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},
{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"How many orders shipped?\"}]}]"}},
{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"42\"}]}]"}}]}]}]}]}`

// TestServeProcess runs tracelab serve as a process: it stores a request
// before answering it, answers /healthz, and on SIGTERM drains and exits 0.
func TestServeProcess(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	cmd := tracelabCmd(t, dir, "serve", "--db", db, "--otlp-http", "127.0.0.1:0", "--log-every", "100ms")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	var base string
	re := regexp.MustCompile(`OTLP/HTTP on (http://\S+)/v1/traces`)
	for lines.Scan() {
		if m := re.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		t.Fatal("serve never said where it listens")
	}
	var rest bytes.Buffer
	copied := make(chan struct{})
	go func() {
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
		close(copied)
	}()
	resp, err := http.Post(base+"/v1/traces", "application/json", strings.NewReader(liveRequest))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	// Acknowledged means stored: another process reads the trace now.
	p := tracelab(t, dir, "ls", "--db", db)
	if !strings.Contains(p.out, "5b8efff798038103d269b633813fc60c") {
		t.Fatalf("trace not listed after the 200:\n%s%s", p.out, p.err)
	}
	hr, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	hb, _ := io.ReadAll(hr.Body)
	hr.Body.Close()
	if hr.StatusCode != 200 || !strings.Contains(string(hb), `"stored":1`) {
		t.Fatalf("healthz: %d %s", hr.StatusCode, hb)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { <-copied; done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited with %v:\n%s", err, rest.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if !strings.Contains(rest.String(), "1 span(s) received, 1 stored") {
		t.Errorf("no count line:\n%s", rest.String())
	}
}

// TestServeNeedsToken refuses to listen off loopback without a token.
func TestServeNeedsToken(t *testing.T) {
	dir := t.TempDir()
	p := tracelab(t, dir, "serve", "--db", filepath.Join(dir, "x.db"), "--otlp-http", "0.0.0.0:0")
	if p.code != 2 || !strings.Contains(p.err, "TRACELAB_TOKEN") {
		t.Fatalf("exit %d, stderr %q", p.code, p.err)
	}
}
