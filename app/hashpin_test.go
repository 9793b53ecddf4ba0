package app

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/store"
)

// What a database keeps and compares on the next import or score must not
// move when the JSON code behind it changes (issue 25): a trace's content
// hash decides whether a trace seen again changed, a score's content and
// result hashes whether a rescore says anything new, and a changed hash
// rescores every database. This pins them, with the step bodies and the
// score details they are read back from, for the bundled traces and cases
// as the engine imports and scores them. Written before the hand-written
// JSON was replaced; rewritten only with -update, on purpose.
func TestStoredHashesArePinned(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lexicon := filepath.Join(dir, "lexicon.txt")
	if err := os.WriteFile(lexicon, []byte("suddenly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	files, _ := filepath.Glob("../testdata/traces/*.jsonl")
	// The edges: HTML characters, U+2028, C1 and bidi controls, bytes that
	// are not UTF-8 in a string and in a raw result, numbers in e notation.
	files = append(files, "testdata/hashpin_edges.jsonl", "../testdata/cases.jsonl")
	for _, f := range files {
		if _, err := importFile(ctx, st, nil, f, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e, err := newEngine(ctx, st, Files{Lexicon: lexicon})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Scores.ScoreStale(ctx, nil); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := dumpHashes(t, db)
	golden := filepath.Join("testdata", "stored_hashes.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("stored hashes moved: every database would rescore.\n got:\n%s\nwant:\n%s", got, want)
	}
}

// dumpHashes lists, per trace, its content hash, the hash of its step
// body, and its score's content hash, result hash and detail's hash.
func dumpHashes(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT t.trace_id, t.content_sha, COALESCE(b.body, ''),
		COALESCE(s.content_sha, ''), COALESCE(s.result_sha, ''), COALESCE(s.detail, '')
		FROM traces t LEFT JOIN step_bodies b ON b.trace_pk = t.id LEFT JOIN scores s ON s.trace_pk = t.id
		ORDER BY t.trace_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out strings.Builder
	n := 0
	for rows.Next() {
		var id, content, body, scoreContent, result, detail string
		if err := rows.Scan(&id, &content, &body, &scoreContent, &result, &detail); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s content=%s body=%s score_content=%s result=%s detail=%s\n",
			id, content, sha256Hex([]byte(body)), scoreContent, result, sha256Hex([]byte(detail)))
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no traces imported")
	}
	return out.String()
}
