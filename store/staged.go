package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"tracelab/importers"
	"tracelab/model"
)

// ImportStaged imports r like Import, holding the database's write lock
// only briefly. A 50k-trace file took the lock for over a minute: every
// other writer (a second import, a labeler's edit) waited that long or
// failed. Here the file is first parsed, checked and written into a
// private staging database beside the real one, with Import's own code and
// no lock on the real database; then one short transaction copies the
// staged rows across in bulk (INSERT … SELECT, a few statements instead of
// one per row), deciding new, unchanged, replaced and conflicting traces
// against what is there by then. The file's all-or-nothing guarantee is
// that one transaction: a failure or a kill before its commit leaves the
// database without any of the file.
func (s *Store) ImportStaged(ctx context.Context, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	if s.readOnly {
		return s.Import(ctx, r, name, opts) // fails as a write to a read-only database, saying so
	}
	removeOrphanStaging(s.path)
	path := fmt.Sprintf("%s.%d-%s", stagingPrefix(s.path), os.Getpid(), strconv.FormatUint(rand.Uint64(), 36))
	defer os.Remove(path)
	staged, err := OpenScratch(ctx, path)
	if err != nil {
		return ImportResult{File: name}, err
	}
	staged.now = s.now
	// The staging keeps the good records even when some are bad: whether
	// the file is rejected is decided in the merge, once the conflicts
	// with stored traces are known too, so the report lists all of them.
	sopts := opts
	sopts.SkipBad = true
	res, err := staged.Import(ctx, r, name, sopts)
	staged.Close()
	if err != nil {
		return res, err
	}
	return s.mergeStaged(ctx, path, name, opts, res)
}

// stagingPrefix names the staging databases of the database at path:
// hidden, beside it, on the same file system.
func stagingPrefix(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".staging")
}

// removeOrphanStaging deletes staging databases left by imports that were
// killed: their name carries the importing process's id, and that process
// is gone. One whose process still runs (or whose id was reused) is left.
func removeOrphanStaging(path string) {
	prefix := stagingPrefix(path) + "."
	matches, _ := filepath.Glob(prefix + "*")
	for _, m := range matches {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(m, prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(m)
		}
	}
}

// mergeStaged copies a staging database's rows into s in one transaction.
func (s *Store) mergeStaged(ctx context.Context, path, name string, opts ImportOptions, staged ImportResult) (ImportResult, error) {
	res := ImportResult{File: name, Format: staged.Format, SHA256: staged.SHA256, Bad: staged.Bad}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	// ATTACH is not allowed inside a transaction, and it belongs to one
	// connection: the copy runs on this one.
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS staged`, path); err != nil {
		return res, err
	}
	defer conn.ExecContext(context.Background(), `DETACH DATABASE staged`)
	if _, err := conn.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS staged_skip (trace_id TEXT PRIMARY KEY)`); err != nil {
		return res, err
	}
	defer conn.ExecContext(context.Background(), `DROP TABLE IF EXISTS temp.staged_skip`)
	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the short lock starts here
	if err != nil {
		return res, err
	}
	defer tx.Rollback() // no-op after Commit
	m := &merger{ctx: ctx, tx: tx, res: &res, replace: opts.Replace}
	steps := []func() error{m.skipKnown, m.copyContracts, m.copyTraces, m.copySteps, m.copyTraceContracts}
	for _, step := range steps {
		if err := step(); err != nil {
			return res, err
		}
	}
	w, err := newWriter(ctx, tx, s.stamp())
	if err != nil {
		return res, err
	}
	defer w.close()
	if err := m.copyCases(w, name); err != nil {
		return res, err
	}
	if err := w.flush(); err != nil {
		return res, err
	}
	for i := range res.Bad {
		res.Bad[i].File = name
	}
	sort.SliceStable(res.Bad, func(i, j int) bool { return res.Bad[i].Line < res.Bad[j].Line })
	if len(res.Bad) > 0 && !opts.SkipBad {
		return res, fmt.Errorf("%w: %d bad record(s) in %s, nothing imported from it", ErrRejected, len(res.Bad), name)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cases SET trace_pk = (SELECT t.id FROM traces t WHERE t.trace_id = cases.source_trace)
		WHERE trace_pk IS NULL AND source_trace <> ''`); err != nil {
		return res, err
	}
	if err := recordImport(ctx, tx, res, s.stamp()); err != nil {
		return res, err
	}
	w.close()
	return res, tx.Commit()
}

// merger is one copy from the staging database, in the order of its steps.
type merger struct {
	ctx     context.Context
	tx      *sql.Tx
	res     *ImportResult
	replace bool
}

// skipKnown decides, for every staged trace whose id is already stored,
// whether it is unchanged (skipped), a conflict (a bad record, skipped) or
// replaces the stored one (deleted here, copied below), as Import does
// row by row.
func (m *merger) skipKnown() error {
	rows, err := m.tx.QueryContext(m.ctx, `SELECT st.trace_id, st.source_line, st.content_sha = t.content_sha, t.id,
		t.source_file, t.source_line FROM staged.traces st JOIN main.traces t ON t.trace_id = st.trace_id ORDER BY st.id`)
	if err != nil {
		return err
	}
	type known struct {
		id, file            string
		stagedLine, oldLine int
		same                bool
		pk                  int64
	}
	var ks []known
	for rows.Next() {
		var k known
		if err := rows.Scan(&k.id, &k.stagedLine, &k.same, &k.pk, &k.file, &k.oldLine); err != nil {
			rows.Close()
			return err
		}
		ks = append(ks, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range ks {
		skip := true
		switch {
		case k.same:
			m.res.Unchanged++
		case !m.replace:
			m.res.Bad = append(m.res.Bad, &importers.LineError{Line: k.stagedLine, Path: "trace_id", Msg: fmt.Sprintf(
				"trace %q was already imported from %s:%d with different content (use --replace to overwrite it)",
				k.id, k.file, k.oldLine)})
		default:
			// Cases keep their labels: ON DELETE SET NULL unlinks them and
			// the link update ties them to the new row.
			if _, err := m.tx.ExecContext(m.ctx, `DELETE FROM main.traces WHERE id = ?`, k.pk); err != nil {
				return err
			}
			m.res.Replaced++
			skip = false
		}
		if skip {
			if _, err := m.tx.ExecContext(m.ctx, `INSERT INTO temp.staged_skip (trace_id) VALUES (?)`, k.id); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *merger) copyContracts() error {
	cols, err := m.columns("contracts", nil)
	if err != nil {
		return err
	}
	_, err = m.tx.ExecContext(m.ctx, `INSERT INTO main.contracts (`+cols+`) SELECT `+cols+` FROM staged.contracts WHERE true
		ON CONFLICT DO NOTHING`)
	return err
}

// copyTraces copies the traces not skipped, in their staged order, and
// counts them and their steps.
func (m *merger) copyTraces() error {
	cols, err := m.columns("traces", map[string]bool{"id": true})
	if err != nil {
		return err
	}
	if _, err := m.tx.ExecContext(m.ctx, `INSERT INTO main.traces (`+cols+`) SELECT `+cols+` FROM staged.traces
		WHERE trace_id NOT IN (SELECT trace_id FROM temp.staged_skip) ORDER BY id`); err != nil {
		return err
	}
	rows, err := m.tx.QueryContext(m.ctx, `SELECT trace_id, step_count FROM staged.traces
		WHERE trace_id NOT IN (SELECT trace_id FROM temp.staged_skip) ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		m.res.Traces = append(m.res.Traces, id)
		m.res.Steps += n
	}
	m.res.New += len(m.res.Traces) - m.res.Replaced
	return rows.Err()
}

// copyChildren copies a table keyed by trace_pk, mapping each staged
// trace's key to the key its copy got.
func (m *merger) copyChildren(table string) error {
	cols, err := m.columns(table, map[string]bool{"trace_pk": true})
	if err != nil {
		return err
	}
	sel := "c." + strings.ReplaceAll(cols, ", ", ", c.")
	_, err = m.tx.ExecContext(m.ctx, `INSERT INTO main.`+table+` (trace_pk, `+cols+`)
		SELECT t.id, `+sel+` FROM staged.`+table+` c
		JOIN staged.traces st ON st.id = c.trace_pk
		JOIN main.traces t ON t.trace_id = st.trace_id
		WHERE st.trace_id NOT IN (SELECT trace_id FROM temp.staged_skip)`)
	return err
}

func (m *merger) copySteps() error          { return m.copyChildren("steps") }
func (m *merger) copyTraceContracts() error { return m.copyChildren("trace_contracts") }

// copyCases puts each staged case through the writer's putCase, as a
// direct import would: suites are small, and a case's rules (conflicts,
// replacing, its event) then stay in one place.
func (m *merger) copyCases(w *writer, file string) error {
	rows, err := m.tx.QueryContext(m.ctx, `SELECT e.new, c.source_line FROM staged.cases c
		JOIN staged.events e ON e.id = (SELECT max(id) FROM staged.events WHERE case_id = c.case_id AND field = 'case')
		ORDER BY c.source_line, c.case_id`)
	if err != nil {
		return err
	}
	type staged struct {
		body string
		line int
	}
	var cs []staged
	for rows.Next() {
		var c staged
		if err := rows.Scan(&c.body, &c.line); err != nil {
			rows.Close()
			return err
		}
		cs = append(cs, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, sc := range cs {
		var c model.Case
		if err := json.Unmarshal([]byte(sc.body), &c); err != nil {
			return fmt.Errorf("staged case: %w", err)
		}
		lerr, err := w.putCase(&c, file, sc.line, m.replace, m.res)
		if err != nil {
			return err
		}
		if lerr != nil {
			m.res.Bad = append(m.res.Bad, lerr)
		}
	}
	return nil
}

// columns lists a staged table's columns but the excluded ones, comma
// separated: read from the schema so a later migration's columns are
// copied without touching this file.
func (m *merger) columns(table string, exclude map[string]bool) (string, error) {
	rows, err := m.tx.QueryContext(m.ctx, `SELECT name FROM pragma_table_info(?, 'staged') ORDER BY cid`, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", err
		}
		if !exclude[c] {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("staging table %s has no columns", table)
	}
	return strings.Join(cols, ", "), rows.Err()
}

// recordImport writes the import log row of a file.
func recordImport(ctx context.Context, tx *sql.Tx, res ImportResult, at string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO imports
		(path, sha256, format, traces_new, cases_new, unchanged, replaced, rejected, steps, imported_at)
		VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
		res.File, res.SHA256, res.Format, res.New, res.Unchanged, res.Replaced, len(res.Bad), res.Steps, at)
	return err
}
