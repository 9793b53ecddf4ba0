package store

// Staged imports, SQLite's way of keeping a long import from starving
// other writers. SQLite has one write lock per database: an import that
// wrote its file in one transaction held it for the whole parse and write
// (20 s alone for a 50k-trace file, over 40 s beside two others), and
// other writers (a second import, a labeler's edit) waited that long or
// failed. Here a file's traces are first written, with the import's own
// writer, into a private staging database beside the real one, taking no
// lock on the real one (its stored traces are only read, to decide
// unchanged, replaced and conflicting records as they come). Commit then
// copies the staged rows across in one short transaction with a few
// INSERT … SELECT statements. That transaction is the file's
// all-or-nothing guarantee: a failure or a kill before its commit leaves
// the database without any of the file. Everything SQLite-specific about
// it (ATTACH, pragma_table_info, the file beside the database) is in this
// file; a store whose database has row locks (PostgreSQL) does not stage.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// staging is the staging database of one import while rows go to it.
type staging struct {
	db   *Store    // a scratch store: no journal, no fsync
	find *sql.Stmt // finds a trace in the real database, outside any transaction
	// unlinked says the real database holds cases waiting for their
	// trace; waiting then tells whether one waits for a given trace id.
	unlinked bool
	waiting  *sql.Stmt
}

func (st *staging) close() {
	closeAll(st.find, st.waiting)
	st.db.Close()
}

// sqlWaitingCase says a case of the database waits for trace id ?.
const sqlWaitingCase = `SELECT EXISTS (SELECT 1 FROM cases WHERE source_trace = ? AND trace_pk IS NULL)`

// openStaging creates the staging database at path with the tables of
// the database s and nothing else: their definitions are read from s, so
// a later migration's columns are staged without this file knowing, and
// the indexes, the triggers and the full-text index (notSearchIndex) are
// left out. The staged rows are only written, found by trace id (the
// tables' unique constraints stay) and copied in order: the queue
// columns the triggers keep and the indexes are the database's, built
// once as the copy lands there.
func openStaging(ctx context.Context, s *Store, path string) (*Store, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT sql FROM sqlite_master m WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND `+
		notSearchIndex+` ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	var tables []string
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// No journal and no fsync: nothing in it outlives the import. Pages
	// of 64 KiB: its rows are written once, in order, and read back once
	// in order by the copy, so the page size sets how many system calls
	// each takes (a 4 KiB page wrote 100k traces' 450 MB in as many calls
	// as pages, and read them back so).
	db, err := sql.Open("sqlite", sqliteDSN(path, Options{}, readWrite, "page_size(65536)", "journal_mode(OFF)", "synchronous(OFF)"))
	if err != nil {
		return nil, err
	}
	st := &Store{db: db, d: sqliteDialect, path: path, now: s.now}
	// One connection, the writer's, with a small cache: its rows are
	// appended and read back once in order, and a large cache would only
	// hold pages the import never reads again.
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `PRAGMA cache_size = -2048; `+strings.Join(tables, ";\n")); err != nil {
		db.Close()
		return nil, err
	}
	return st, nil
}

// stagesImports says imports of traces are staged: a writable SQLite file
// (not check's scratch database, which nobody else opens).
func (s *Store) stagesImports() bool { return s.stage }

// startStaged points the import's writer at a new staging database. ok
// is false when none can be made (e.g. the database's directory is not
// writable): the import then writes to the database directly.
func (im *Importer) startStaged() (ok bool, err error) {
	s := im.s
	removeOrphanStaging(s.path)
	path := fmt.Sprintf("%s.%d-%s", stagingPrefix(s.path), os.Getpid(), strconv.FormatUint(rand.Uint64(), 36))
	sdb, err := openStaging(im.ctx, s, path)
	if err != nil {
		os.Remove(path)
		return false, nil
	}
	im.staged = path
	stage := &staging{db: sdb}
	im.stage = stage
	for _, p := range []prepared{{&stage.find, sqlFindTrace}, {&stage.waiting, sqlWaitingCase}} {
		if *p.dst, err = s.db.PrepareContext(im.ctx, p.q); err != nil {
			return false, err
		}
	}
	if err := s.db.QueryRowContext(im.ctx, sqlAnyUnlinked).Scan(&stage.unlinked); err != nil {
		return false, err
	}
	tx, err := sdb.db.BeginTx(im.ctx, nil)
	if err != nil {
		return false, err
	}
	im.tx = tx
	w, err := im.newWriter(tx)
	if err != nil {
		return false, err
	}
	w.staged()
	w.replaces = map[string]string{}
	// A database without traces when the import starts has none to
	// compare with: the ids other processes write meanwhile are decided
	// at the copy (reconcile).
	var empty bool
	if err := s.db.QueryRowContext(im.ctx, `SELECT NOT EXISTS (SELECT 1 FROM traces)`).Scan(&empty); err != nil {
		return false, err
	}
	if !empty {
		w.inDB = stage.find
	}
	im.w = w
	return true, nil
}

// stagingPrefix names the staging databases of the database at path:
// hidden, beside it (so on the same file system), named for it.
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

// unstage finishes the staging database, takes the real database's write
// lock (BEGIN IMMEDIATE, waiting up to the lock wait) and copies the
// staged rows in; the import's writer then writes to that transaction.
// last says the file is all read (EndOfFile, Commit): only the scores of
// fresh traces are put after the copy.
func (im *Importer) unstage(last bool) error {
	ctx, w := im.ctx, im.w
	if err := w.flush(); err != nil {
		return err
	}
	w.close()
	if err := im.tx.Commit(); err != nil {
		return err
	}
	im.tx, im.w = nil, nil
	im.stage.close()
	im.stage = nil
	conn, err := im.s.db.Conn(ctx)
	if err != nil {
		return err
	}
	im.conn = conn
	// ATTACH is not allowed inside a transaction and belongs to one
	// connection: the copy and the rest of the import run on this one.
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS staged`, im.staged); err != nil {
		return err
	}
	// A last copy that can delete nothing (no staged trace replaces one,
	// so reconcile only skips) runs without foreign keys, as do the
	// scores put after it: their rows refer to each other, to the traces
	// copied and to the contracts copied first by construction, and
	// checking them was a fifth of the copy (the traces searched for the
	// children copied before them). A copy that may delete keeps them for
	// the cascades; so does one the file's cases follow. detachStaging
	// turns them on again (TestStagedCopyLeavesForeignKeysOn).
	if last && len(w.replaces) == 0 && !im.replace {
		if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return err
		}
	}
	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the short lock starts here
	if err != nil {
		return err
	}
	im.tx = tx
	offset, skipped, err := im.copyStaged(w.replaces, w.bigBodies)
	if err != nil {
		return err
	}
	if im.w, err = im.newWriter(tx); err != nil {
		return err
	}
	if last {
		// The fresh traces whose scores are still to come keep their
		// place: PutScores now writes to the database, by the rows'
		// ids there.
		for id, f := range w.fresh {
			if !skipped[id] {
				f.pk += offset
				im.w.fresh[id] = f
			}
		}
	}
	return nil
}

// detachStaging undoes what unstage did to a connection before it goes
// back to the pool. A connection whose foreign keys cannot be turned on
// again is closed instead: every other writer relies on their cascades.
func detachStaging(conn *sql.Conn) {
	ctx := context.Background()
	conn.ExecContext(ctx, `DROP TABLE IF EXISTS temp.staged_skip`)
	conn.ExecContext(ctx, `DETACH DATABASE staged`)
	var on bool
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = ON`); err != nil ||
		conn.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on) != nil || !on {
		dropConn(conn)
	}
}

// dropConn closes conn and its session instead of putting it back in the
// pool: database/sql closes a connection whose use said ErrBadConn. A
// session's state (a pragma, a lock) ends with it.
func dropConn(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
}

// copyStaged copies the staged rows into the database, in the import's
// transaction. The staged traces were checked against the database as
// they came, without its lock: another process may have written the
// same ids since, so each staged trace whose id is stored now is decided
// again here, as putTrace would have.
//
// The step bodies over bigBody (big, the staged ids) are left out of
// the one INSERT … SELECT and copied one by one (copyBigBodies).
func (im *Importer) copyStaged(replaces map[string]string, big []int64) (offset int64, skipped map[string]bool, err error) {
	ctx, tx := im.ctx, im.tx
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS staged_skip (pk INTEGER PRIMARY KEY)`); err != nil {
		return 0, nil, err
	}
	if skipped, err = im.reconcile(replaces); err != nil {
		return 0, nil, err
	}
	skips := len(skipped) > 0
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(max(id), 0) FROM main.traces`).Scan(&offset); err != nil {
		return 0, nil, err
	}
	// The staged traces keep their order and get the ids after the
	// database's last one: the child rows then need no join to map them.
	//
	// The machine's cases and the scores put while staging go in before
	// their traces, so that the queue triggers they fire find no trace
	// row to update (the foreign keys are checked at the commit instead);
	// each trace then lands with the queue columns those triggers would
	// have given it (landedColumns). A staged machine case is left out when
	// a case of the database waits for its trace (written by another
	// process meanwhile) or holds its id: the trace's score, computed
	// without that case, is then not current, and it is scored again
	// after the import.
	if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
		return 0, nil, err
	}
	notSkipped := "NOT IN (SELECT pk FROM temp.staged_skip)"
	if !skips {
		notSkipped = "IS NOT NULL" // every staged row lands
	}
	bodiesNotBig := ""
	if len(big) > 0 {
		// octet_length reads the length from the row's header, not the
		// body from its pages.
		bodiesNotBig = " AND octet_length(body) <= " + strconv.Itoa(bigBody)
	}
	notWaited, err := im.notWaitedFor()
	if err != nil {
		return 0, nil, err
	}
	copies := []struct{ table, pk, tail string }{
		{"contracts", "", "WHERE true ON CONFLICT DO NOTHING"},
		{"cases", "trace_pk", "WHERE trace_pk IS NOT NULL AND trace_pk " + notSkipped + notWaited + " ON CONFLICT DO NOTHING"},
		{"scores", "trace_pk", "WHERE trace_pk " + notSkipped},
		{"score_state", "trace_pk", "WHERE trace_pk " + notSkipped},
		{"traces", "id", "WHERE id " + notSkipped + " ORDER BY id"},
		{"steps", "trace_pk", "WHERE trace_pk " + notSkipped},
		{"step_bodies", "trace_pk", "WHERE trace_pk " + notSkipped + bodiesNotBig},
		{"step_body_parts", "trace_pk", "WHERE trace_pk " + notSkipped},
		{"trace_contracts", "trace_pk", "WHERE trace_pk " + notSkipped},
	}
	restore, err := im.setAside("trigger", quietTriggers)
	if err != nil {
		return 0, nil, err
	}
	rebuild, err := im.rebuildsIndexes(offset)
	if err != nil {
		return 0, nil, err
	}
	restoreIndexes := func() error { return nil }
	if rebuild {
		if restoreIndexes, err = im.setAside("index", rebuiltIndexes); err != nil {
			return 0, nil, err
		}
		restoreIndexes = im.withSortCache(restoreIndexes)
	}
	for _, c := range copies {
		cols, err := stagedColumns(ctx, tx, c.table, c.pk)
		if err != nil {
			return 0, nil, err
		}
		q := `INSERT INTO main.` + c.table + ` (` + cols + `) SELECT ` + cols + ` FROM staged.` + c.table + ` ` + c.tail
		var args []any
		switch c.table {
		case "contracts":
		case "traces":
			rule, err := queueClassRule(ctx, tx)
			if err != nil {
				return 0, nil, err
			}
			q = copyTracesSQL(cols, rule, c.tail, im.format != "")
			args = append(args, offset)
			if im.format != "" {
				args = append(args, im.format)
			}
		default:
			q = `INSERT INTO main.` + c.table + ` (` + c.pk + `, ` + cols + `) SELECT ` + c.pk + ` + ?1, ` + cols +
				` FROM staged.` + c.table + ` ` + c.tail
			args = append(args, offset)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			if c.table == "step_body_parts" && sqliteCode(err) == sqliteNoMem {
				return 0, nil, im.stagedOutOfMemory(err, toCopy)
			}
			return 0, nil, fmt.Errorf("copying the staged %s: %w", c.table, err)
		}
		if c.table == "traces" {
			landed, err := res.RowsAffected()
			if err != nil {
				return 0, nil, err
			}
			if err := im.landTraces(offset, landed <= offset); err != nil {
				return 0, nil, err
			}
			if err := restoreIndexes(); err != nil {
				return 0, nil, err
			}
		}
	}
	// The search index of the bodies just copied, in one statement, as
	// the trigger would have filled it row by row.
	restoreHash, err := im.bulkSearchHash("step_search")
	if err != nil {
		return 0, nil, err
	}
	if _, err := tx.ExecContext(ctx, sqlCopySearch+notSkipped+bodiesNotBig, offset); err != nil {
		if sqliteCode(err) == sqliteNoMem {
			return 0, nil, im.stagedOutOfMemory(err, toIndex)
		}
		return 0, nil, fmt.Errorf("indexing the staged step bodies: %w", err)
	}
	if err := restoreHash(); err != nil {
		return 0, nil, err
	}
	if err := restore(); err != nil {
		return 0, nil, err
	}
	if err := im.copyBigBodies(big, offset); err != nil {
		return 0, nil, err
	}
	// Cases waiting for one of these traces (a suite imported first, or
	// the cases of a replaced trace, unlinked by ON DELETE SET NULL).
	_, err = tx.ExecContext(ctx, `UPDATE main.cases SET trace_pk = (SELECT t.id FROM main.traces t WHERE t.trace_id = cases.source_trace)
		WHERE trace_pk IS NULL AND source_trace IN (SELECT trace_id FROM staged.traces)`)
	return offset, skipped, err
}

// notWaitedFor is the condition that leaves out of the copy of the
// staged cases those whose trace a case of the database waits for (its
// trace_pk NULL): "" when the database has no waiting case, as after most
// imports. An INSERT … SELECT that reads the table it writes copies every
// selected row into a temporary table first, to read them apart from
// what it writes: a third of the cases' copy at 100k traces. The question
// is sqlAnyUnlinked's without its test of an empty source_trace: the condition
// compares a staged case's source_trace as it is.
func (im *Importer) notWaitedFor() (string, error) {
	var waiting bool
	if err := im.tx.QueryRowContext(im.ctx, `SELECT EXISTS (SELECT 1 FROM main.cases WHERE trace_pk IS NULL)`).Scan(&waiting); err != nil || !waiting {
		return "", err
	}
	return ` AND NOT EXISTS (SELECT 1 FROM main.cases w WHERE w.source_trace = cases.source_trace AND w.trace_pk IS NULL)`, nil
}

// copyTracesSQL copies the staged traces (their columns cols, those the
// tail selects) into the database, each at its staged id plus ?1, as
// they land (landedColumns). The queue class is the rule's over the
// landed columns, so the inner select names them as the table does. Not
// the id: the tail's ORDER BY id is then the staged rowid's order, in
// which the rows are read (an alias of the landed id had them sorted:
// 46 MiB more at a million traces, TestCopyTracesReadsInOrder).
func copyTracesSQL(cols, rule, tail string, withFormat bool) string {
	return `INSERT INTO main.traces (id, ` + cols + `) SELECT landed_id, ` + strings.Replace(cols, "queue_class", rule+" AS queue_class", 1) +
		` FROM (SELECT traces.id + ?1 AS landed_id, ` + landedColumns(cols, withFormat) +
		` FROM staged.traces LEFT JOIN main.cases c ON c.trace_pk = traces.id + ?1
		LEFT JOIN staged.scores s ON s.trace_pk = traces.id ` + tail + `)`
}

// landedColumns is the select list of a staged trace's columns cols as
// they land, each named as its column: the queue columns as the triggers
// of migrations 0003 and 0009 would leave them once its case (c: the
// machine's, the only one it can have before the waiting cases are
// linked) and its score (s) are written, and, withFormat, the file's
// format (parameter 2) that Commit would otherwise write into every row
// again. queue_class is not among them: it is derived from the landed
// label and suggested class by the rule of the view trace_queue_class
// (queueClassRule), written in one place.
func landedColumns(cols string, withFormat bool) string {
	derived := map[string]string{
		"case_id":         `COALESCE(c.case_id, '')`,
		"case_status":     `COALESCE(c.status, 'none')`,
		"label_class":     `COALESCE(json_extract(c.label, '$.failure_class'), '')`,
		"suggested_class": `COALESCE(s.suggested_class, '')`,
		"score_ok":        `COALESCE(s.content_sha = traces.content_sha AND s.gold_sha = COALESCE(c.gold_sha, 'none'), 0)`,
	}
	if withFormat {
		derived["source_format"] = "?2"
	}
	var out []string
	for _, col := range strings.Split(cols, ", ") {
		if d, ok := derived[col]; ok {
			out = append(out, d+" AS "+col)
		} else {
			out = append(out, "traces."+col)
		}
	}
	return strings.Join(out, ", ")
}

// queueClassRule is the rule of the view trace_queue_class (migration
// 0026): the queue class of a trace as an expression of its label_class
// and suggested_class, read from the database's own definition so that
// the copy lands each trace with its class and the rule stays written
// once. Applying the view after the copy instead (an UPDATE of every
// landed trace) took 10 s of a million traces' 200 s import.
// TestQueueClassRuleIsRead fails when a migration gives the view
// another shape.
func queueClassRule(ctx context.Context, tx *sql.Tx) (string, error) {
	var def string
	if err := tx.QueryRowContext(ctx, `SELECT sql FROM main.sqlite_master WHERE type = 'view' AND name = 'trace_queue_class'`).Scan(&def); err != nil {
		return "", fmt.Errorf("reading the queue class rule: %w", err)
	}
	m := viewRule.FindStringSubmatch(def)
	if m == nil {
		return "", fmt.Errorf("the view trace_queue_class is not of the shape the copy reads its rule from: %q", def)
	}
	return "(" + m[1] + ")", nil
}

var viewRule = regexp.MustCompile(`(?s)^CREATE VIEW trace_queue_class \(id, queue_class\) AS\s+SELECT id, (.+?)\s+FROM traces\s*$`)

// reconcile decides each staged trace whose id the database holds now;
// skips says some staged traces are not to be copied (temp.staged_skip).
func (im *Importer) reconcile(replaces map[string]string) (skipped map[string]bool, _ error) {
	ctx, tx, res := im.ctx, im.tx, &im.Stats
	rows, err := tx.QueryContext(ctx, `SELECT st.id, st.trace_id, st.content_sha, st.step_count, st.source_line,
		t.id, t.content_sha, t.source_file, t.source_line
		FROM staged.traces st JOIN main.traces t ON t.trace_id = st.trace_id ORDER BY st.id`)
	if err != nil {
		return nil, err
	}
	type known struct {
		stagedPK, pk          int64
		id, sha, oldSHA, file string
		steps, line, oldLine  int
	}
	var ks []known
	for rows.Next() {
		var k known
		if err := rows.Scan(&k.stagedPK, &k.id, &k.sha, &k.steps, &k.line, &k.pk, &k.oldSHA, &k.file, &k.oldLine); err != nil {
			rows.Close()
			return nil, err
		}
		ks = append(ks, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	skipped = map[string]bool{}
	for _, k := range ks {
		seen[k.id] = true
		planned, replacing := replaces[k.id]
		switch {
		case replacing && planned == k.oldSHA:
			// The trace putTrace decided to replace, unchanged since.
		case k.oldSHA == k.sha:
			// Written meanwhile by another process, with this content.
			if replacing {
				res.Replaced--
				res.New++
			}
			res.New--
			res.Unchanged++
			res.Steps -= k.steps
			if _, ok := im.pending[k.id]; !ok { // it was scored: not any more
				res.Scored--
			}
			delete(im.pending, k.id) // nor written: the stored row is the other process's
			res.Written--
			skipped[k.id] = true
			if _, err := tx.ExecContext(ctx, `INSERT INTO temp.staged_skip (pk) VALUES (?)`, k.stagedPK); err != nil {
				return nil, err
			}
			continue
		case im.replace:
			if !replacing {
				res.Replaced++
				res.New--
			}
		default:
			return nil, fmt.Errorf("%s:%d: trace %q was imported by another process from %s:%d while this file was read, with different content (import it again to see the conflict, or use --replace)",
				im.file, k.line, k.id, k.file, k.oldLine)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM main.traces WHERE id = ?`, k.pk); err != nil {
			return nil, err
		}
	}
	for id := range replaces {
		if !seen[id] { // deleted meanwhile: the staged trace is new after all
			res.Replaced--
			res.New++
		}
	}
	return skipped, nil
}

// stagedColumns lists a staged table's columns but exclude, comma
// separated: read from the schema, so a later migration's columns are
// copied without touching this file.
func stagedColumns(ctx context.Context, tx *sql.Tx, table, exclude string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?, 'staged') ORDER BY cid`, table)
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
		if c != exclude {
			cols = append(cols, c)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("staging table %s has no columns", table)
	}
	return strings.Join(cols, ", "), nil
}

// copyBigBodies copies the staged step bodies big (staged ids; those
// reconcile skipped stay out, and so do those of a trace the file
// replaced later, deleted from the staging database) into the database,
// one statement each.
// INSERT … SELECT into step_bodies, whose insert trigger fills the
// search index, first copies every selected row into a temporary table
// (SQLite does so for any INSERT … SELECT into a table with a trigger)
// and reads them back from it: four copies of a body in SQLite's memory
// at once, rounded up to a power of two by modernc's allocator (a 100 MB
// body: four 128 MiB regions, with strace). One row's VALUES with the
// body as a subquery is inserted as it is read: two.
func (im *Importer) copyBigBodies(big []int64, offset int64) error {
	ctx, tx := im.ctx, im.tx
	for _, pk := range big {
		var lands bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM staged.step_bodies WHERE trace_pk = ?1)
			AND NOT EXISTS (SELECT 1 FROM temp.staged_skip WHERE pk = ?1)`, pk).Scan(&lands); err != nil {
			return err
		}
		if !lands {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO main.step_bodies (trace_pk, body, parts)
			VALUES (?1 + ?2, (SELECT body FROM staged.step_bodies WHERE trace_pk = ?1),
				(SELECT parts FROM staged.step_bodies WHERE trace_pk = ?1))`, pk, offset); err != nil {
			if sqliteCode(err) == sqliteNoMem {
				return im.bodyOutOfMemory(pk, err, toCopy)
			}
			return fmt.Errorf("copying the staged step body of a trace: %w", err)
		}
	}
	return nil
}

// quietTriggers are the insert triggers the copy drops for its own
// statements and creates again before its transaction ends. SQLite has
// no way to switch a trigger off, and an INSERT … SELECT into a table
// with an insert trigger first copies every selected row into a
// temporary table and reads them back (to fire the trigger per row):
// the staged scores, cases and step bodies, most of a copy's bytes,
// went through SQLite's temporary file once more. Those of cases and
// scores do nothing here by construction (they update the case's or
// score's trace row, and the copy puts those before their traces:
// landedColumns gives each trace what they would have); the copy fills
// the search index of the bodies in bulk (sqlCopySearch), and does what
// the traces' own do once for all the landed traces (landTraces). A
// migration that adds an insert trigger to one of these tables fails
// TestQuietTriggersAreAllTheInsertTriggers until it is decided here. The
// score's of 0041 (scores_confirmed_insert) finds no trace either: the
// trace's own insert trigger (here, landTraces) marks its score when it
// lands confirmed.
var quietTriggers = []string{"cases_queue_insert", "scores_queue_insert", "step_bodies_search_insert", "scores_confirmed_insert",
	"traces_queue_class_insert", "traces_count_insert", "traces_queue_count_insert", "traces_question_keys_insert",
	"traces_id_search_insert", "traces_confirmed_insert"}

// landTraces does, for the traces the copy just landed (ids over offset,
// their insert triggers quiet), what those triggers do row by row, in a
// statement each: the rows landed with their queue class (the copy
// computes it by the view's rule, queueClassRule), so the counts are
// taken once, of the final rows; everything later in the copy that
// changes a landed trace (a waiting case linked) then finds them and
// moves them as usual. Row by row, 100k traces' copy took 3.0-3.4 s,
// 1.5 s of it updating every landed trace's class once more and firing
// the update's count trigger.
//
// few says the landed traces are not more than those before them (see
// landedBy).
func (im *Importer) landTraces(offset int64, few bool) error {
	for _, q := range sqlLandTraces {
		if _, err := im.tx.ExecContext(im.ctx, landedBy(q, few), offset); err != nil {
			return fmt.Errorf("counting and indexing the landed traces: %w", err)
		}
	}
	return nil
}

// landedBy is the statement q of sqlLandTraces, made to read the landed
// traces by their ids when they are few (not more than those before
// them). SQLite otherwise counts the queue by the covering index
// traces_case_status, which spares a sort when most traces are new but
// reads every trace's entry: 22 ms of a 1,000-trace import into 100k
// traces, where the landed rows took under 1.
func landedBy(q string, few bool) string {
	if !few {
		return q
	}
	return strings.ReplaceAll(q, "FROM main.traces WHERE", "FROM main.traces NOT INDEXED WHERE")
}

// sqlLandTraces are the insert triggers of traces (migrations 0034,
// 0035, 0041 and the count and question keys before them), written once
// more for all the traces over id ?1. TestLandTracesDoesWhatTheTriggersDo
// holds each to the trigger it replaces.
var sqlLandTraces = []string{
	`UPDATE main.trace_count SET n = n + (SELECT count(*) FROM main.traces WHERE id > ?1)`,
	`INSERT INTO main.queue_counts (queue_class, case_status, n, disputed)
		SELECT * FROM (SELECT queue_class, case_status, count(*), sum(disputed) FROM main.traces WHERE id > ?1
			GROUP BY queue_class, case_status) WHERE true
		ON CONFLICT (queue_class, case_status) DO UPDATE SET n = n + excluded.n, disputed = disputed + excluded.disputed`,
	`INSERT OR IGNORE INTO main.question_keys (key) SELECT question_key FROM main.traces WHERE id > ?1`,
	`INSERT INTO main.id_search (rowid, trace_id, case_id, long) SELECT id,
		CASE WHEN octet_length(trace_id) <= 1024 THEN trace_id END,
		CASE WHEN case_id <> trace_id AND octet_length(case_id) <= 1024 THEN case_id END,
		CASE WHEN octet_length(trace_id) > 1024 OR octet_length(case_id) > 1024 THEN 'long' END
		FROM main.traces WHERE id > ?1`,
	`UPDATE main.scores SET confirmed = 1 WHERE trace_pk IN (SELECT id FROM main.traces
		WHERE id > ?1 AND case_status IN ('confirmed', 'pending'))`,
}

// sqlCopySearch fills the full-text index (migration 0024's trigger
// step_bodies_search_insert, written once more for many rows: the
// question of the trace, then the start of its body, line breaks and
// tabs as spaces) with the staged bodies copied at offset ?1; the caller
// appends the condition on trace_pk that selects them.
const sqlCopySearch = `INSERT INTO main.step_search (rowid, text)
	SELECT b.trace_pk + ?1, concat_ws(char(10), (SELECT question FROM main.traces WHERE id = b.trace_pk + ?1),
		replace(replace(replace(substr(b.body, 1, 4000000), '\n', ' '), '\t', ' '), '\r', ' '))
	FROM staged.step_bodies b WHERE b.trace_pk `

// rebuiltIndexes are indexes of traces whose keys come in no order of
// the traces' ids: a question is asked again and again over time, so
// each landed trace's key goes to a page of its own. Once the index
// outgrows the page cache every key is a page read and, before long, a
// page written to the WAL (and read back through the WAL's index, which
// a long transaction makes slower to search). A copy that lands many
// traces into a database holding fewer drops them and builds them again
// after the traces have landed, from keys sorted once. Measured as the
// traces' copy does it, one index at a time (a copy of the traces of
// the 1M corpus of bench gen, 21,000 questions, 32 MB cache): kept as
// the rows land 1.42 s at 300k traces, 2.85 s at 500k, 8.9 s at 1M;
// dropped and built again after 0.87+0.55, 1.31+0.77 and 2.5+1.4 s.
// At 100k keeping it is cheaper (0.51 s against 0.38+0.25 s). In an
// import of the 1M corpus the traces' copy took 9.4-9.7 s and the
// build 1.2-1.35 s, where the copy had taken 18.0 s.
var rebuiltIndexes = []string{"traces_question"}

// rebuildIndexesAt is the number of staged traces from which a copy into
// a database holding fewer rebuilds rebuiltIndexes (the measured
// crossing is near 300k).
var rebuildIndexesAt int64 = 400_000

// rebuildsIndexes says the copy rebuilds rebuiltIndexes: it stages at
// least rebuildIndexesAt traces, more than the database's offset ids.
// The staged ids run from 1 up, so their largest counts them (skipped
// ones included).
func (im *Importer) rebuildsIndexes(offset int64) (bool, error) {
	var staged int64
	err := im.tx.QueryRowContext(im.ctx, `SELECT COALESCE(max(id), 0) FROM staged.traces`).Scan(&staged)
	return staged >= rebuildIndexesAt && staged > offset, err
}

// rebuildSortKiB is the page cache, in KiB, of the connection while it
// builds rebuiltIndexes again. SQLite's sorter holds as many bytes of
// keys in memory as the page cache may (cacheKiB), beside that cache,
// full of the copy's pages. Importing the 1M corpus (one run each):
// peak RSS 228 MiB sorting with 32 MB (every connection's cache then),
// 191 MiB with 8 MiB, 174 MiB with 2 MiB, against 176 MiB keeping the
// index; the build took 1.35, 1.19 and 1.22 s.
const rebuildSortKiB = 2 << 10

// withSortCache makes build run with a page cache of rebuildSortKiB,
// and the connection's own again after it.
func (im *Importer) withSortCache(build func() error) func() error {
	return func() error {
		if _, err := im.tx.ExecContext(im.ctx, fmt.Sprintf(`PRAGMA main.cache_size = %d`, -rebuildSortKiB)); err != nil {
			return err
		}
		if err := build(); err != nil {
			return err
		}
		_, err := im.tx.ExecContext(im.ctx, fmt.Sprintf(`PRAGMA main.cache_size = %d`, cacheKiB))
		return err
	}
}

// setAside drops the triggers or indexes (kind) names, from this
// package, not from input, in the copy's transaction; restore creates
// them again, as they were defined, in the same transaction: a copy
// that fails or is killed leaves them as they are.
func (im *Importer) setAside(kind string, names []string) (restore func() error, err error) {
	ctx, tx := im.ctx, im.tx
	rows, err := tx.QueryContext(ctx, withList(`SELECT name, sql FROM main.sqlite_master WHERE type = ? AND name IN (?*) ORDER BY rowid`,
		len(names)), append([]any{kind}, anys(names)...)...)
	if err != nil {
		return nil, err
	}
	var found, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		found, defs = append(found, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(found) != len(names) {
		return nil, fmt.Errorf("the database has %d of the %ss %v the copy expects", len(found), kind, names)
	}
	for _, name := range found {
		if _, err := tx.ExecContext(ctx, `DROP `+kind+` main.`+name); err != nil {
			return nil, err
		}
	}
	return func() error {
		for i, def := range defs {
			if _, err := tx.ExecContext(ctx, def); err != nil {
				return fmt.Errorf("creating the %s %s again: %w", kind, found[i], err)
			}
		}
		return nil
	}, nil
}

// bulkHash is the size of the in-memory hash a full-text index fills
// before it writes a segment (FTS5's hashsize, 1 MiB by default) while
// the copy fills it in bulk: each segment written is merged with others
// later (automerge), so small ones are merged again and again. Filling
// the search index of a 100k import's bodies alone (loaded machine, CPU
// seconds, two runs each): 1 MiB 2.64/2.45, 4 MiB 2.49/2.23, 8 MiB
// 2.33/2.11, 16 MiB 1.94/1.91, peak RSS 80, 87, 96 and 110 MiB. SQLite
// holds the hash in memory at a point of the import where Go has given
// its own back (importPipe.write); 8 MiB keeps most of the gain within
// the import's 200 MiB.
const bulkHash = 8 << 20

// bulkSearchHash sets the hash of the full-text index table (a name
// from this package, not from input) to bulkHash in the copy's
// transaction; restore sets back what the database held (no setting:
// FTS5's default), so no other writer keeps a large hash. A copy that
// fails or is killed leaves it as it was.
func (im *Importer) bulkSearchHash(table string) (restore func() error, err error) {
	ctx, tx := im.ctx, im.tx
	var old sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT v FROM main.`+table+`_config WHERE k = 'hashsize'`).Scan(&old)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	set := `INSERT INTO main.` + table + ` (` + table + `, rank) VALUES ('hashsize', ?)`
	if _, err := tx.ExecContext(ctx, set, bulkHash); err != nil {
		return nil, err
	}
	return func() error {
		if old.Valid {
			_, err := tx.ExecContext(ctx, set, old.Int64)
			return err
		}
		// FTS5's default, for this connection's copy of the settings;
		// then no setting at all, as before.
		if _, err := tx.ExecContext(ctx, set, 1<<20); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM main.`+table+`_config WHERE k = 'hashsize'`)
		return err
	}, nil
}

// What SQLite had no memory left to do with an import's staged step
// bodies, as its refusal says it (outOfMemory).
const (
	toCopy  = "copy them into the database"
	toIndex = "index them for search"
)

// stagedOutOfMemory is the refusal of an import whose staged step bodies
// SQLite had no memory to copy or index (to) in one statement for them
// all: outOfMemory's, naming the trace with the biggest bodies (start and
// parts), where a bare "copying the staged step_body_parts: out of memory
// (7)" or "indexing the staged step bodies: out of memory (7)" named none.
func (im *Importer) stagedOutOfMemory(err error, to string) error {
	return im.outOfMemory(sqlStagedBodies+` ORDER BY 3 DESC LIMIT 1`, nil, err, to)
}

// bodyOutOfMemory is outOfMemory's refusal of an import whose staged step
// body (staged trace pk) SQLite had no memory to copy or index (to).
func (im *Importer) bodyOutOfMemory(pk int64, err error, to string) error {
	return im.outOfMemory(sqlStagedBodies+` WHERE st.id = ?1`, []any{pk}, err, to)
}

// sqlStagedBodies reads the staged traces with their step bodies: id,
// source line and the bodies' whole size, start and parts.
const sqlStagedBodies = `SELECT st.trace_id, st.source_line, octet_length(b.body)
		+ COALESCE((SELECT sum(octet_length(p.part)) FROM staged.step_body_parts p WHERE p.trace_pk = st.id), 0)
		FROM staged.traces st JOIN staged.step_bodies b ON b.trace_pk = st.id`

// outOfMemory is the refusal of an import SQLite had no memory for: the
// trace query (sqlStagedBodies narrowed to one) reads, its line and size,
// and what to change, where a bare "out of memory (7)" said none of it.
// Asked after the failure, so it may fail in turn: then the error says
// what it can.
func (im *Importer) outOfMemory(query string, args []any, err error, to string) error {
	var id string
	var line, size int64
	if qerr := im.tx.QueryRowContext(im.ctx, query, args...).Scan(&id, &line, &size); qerr != nil {
		return fmt.Errorf("the staged step bodies: %w: the process is short of memory to %s for a record this big; raise its memory limit (ulimit -v, the cgroup's memory.max) or lower --max-record to refuse such records", err, to)
	}
	return fmt.Errorf("line %d: trace %q: its step bodies (%.1f MB) do not fit in the memory this process has left to %s (%w): raise its memory limit (ulimit -v, the cgroup's memory.max), or import it on its own; a --max-record below %.1f MB refuses records this big",
		line, id, float64(size)/1e6, to, err, float64(size)/1e6)
}
