package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// StoredContract is one distinct tool contract in the database, keyed by
// its wire fingerprint (sha256 of the canonical JSON the model saw).
type StoredContract struct {
	Name        string
	Fingerprint string
	// Semantic is scoring.SemanticFingerprint of the contract, "" until
	// package suite fills it in (the store does not import scoring).
	Semantic string
	Body     json.RawMessage // canonical JSON
}

// Contract decodes the stored body into a model contract, Raw included,
// so it fingerprints exactly as when it was imported.
func (c StoredContract) Contract() (model.ToolContract, error) {
	var tc model.ToolContract
	if err := json.Unmarshal(c.Body, &tc); err != nil {
		return tc, fmt.Errorf("contract %s (%s): %w", c.Name, short(c.Fingerprint), err)
	}
	tc.Raw = append(json.RawMessage(nil), c.Body...)
	return tc, nil
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

// ContractsWithoutSemantic lists the stored contracts whose semantic hash
// has not been computed yet.
func (s *Store) ContractsWithoutSemantic(ctx context.Context) ([]StoredContract, error) {
	rows, err := s.db.QueryContext(ctx, sqlContractsWithoutSemantic)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredContract
	for rows.Next() {
		var c StoredContract
		var body string
		if err := rows.Scan(&c.Name, &c.Fingerprint, &body); err != nil {
			return nil, err
		}
		c.Body = json.RawMessage(body)
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetSemantic stores semantic hashes by wire fingerprint, in one transaction.
func (s *Store) SetSemantic(ctx context.Context, semantic map[string]string) error {
	if len(semantic) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, sqlSetSemantic)
		if err != nil {
			return err
		}
		defer st.Close()
		for fp, sem := range semantic {
			if _, err := st.ExecContext(ctx, sem, fp); err != nil {
				return err
			}
		}
		return nil
	})
}

// ContractVersion is one distinct contract a server's traces saw for one
// tool: when it was first and last seen (trace started_at), by how many
// traces, in which runs.
type ContractVersion struct {
	Server      string   `json:"server"`
	Tool        string   `json:"tool"`
	Fingerprint string   `json:"fingerprint"`
	Semantic    string   `json:"semantic"`
	FirstSeen   string   `json:"first_seen"`
	LastSeen    string   `json:"last_seen"`
	Traces      int      `json:"traces"`
	Runs        []string `json:"runs"` // sorted
}

// ContractHistory lists, per server and tool, every distinct contract its
// traces saw, ordered by server, tool, first seen and fingerprint. An empty
// server lists every server.
func (s *Store) ContractHistory(ctx context.Context, server string) ([]ContractVersion, error) {
	rows, err := s.db.QueryContext(ctx, sqlContractHistory, server, server)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ContractVersion
	for rows.Next() {
		var v ContractVersion
		var runs string
		if err := rows.Scan(&v.Server, &v.Tool, &v.Fingerprint, &v.Semantic, &v.FirstSeen, &v.LastSeen,
			&v.Traces, &runs); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(runs), &v.Runs); err != nil {
			return nil, err
		}
		sort.Strings(v.Runs)
		out = append(out, v)
	}
	return out, rows.Err()
}

// RunInfo is one imported run of a server that saw tool contracts.
type RunInfo struct {
	Server    string `json:"server"`
	RunID     string `json:"run_id"`
	FirstSeen string `json:"first_seen"` // earliest trace started_at
	LastSeen  string `json:"last_seen"`
	Traces    int    `json:"traces"`
}

// ContractRuns lists the runs of a server whose traces saw contracts,
// oldest first (by their last trace, then run id). An empty server lists
// every server's runs.
func (s *Store) ContractRuns(ctx context.Context, server string) ([]RunInfo, error) {
	rows, err := s.db.QueryContext(ctx, sqlContractRuns, server, server)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunInfo
	for rows.Next() {
		var r RunInfo
		if err := rows.Scan(&r.Server, &r.RunID, &r.FirstSeen, &r.LastSeen, &r.Traces); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RunContract is the contract one run saw for one tool. A run whose
// traces saw more than one contract for a tool keeps the one its latest
// trace saw and names the others in Also.
type RunContract struct {
	StoredContract
	Traces int
	Also   []string // other wire fingerprints seen for the tool in the same run
}

// RunContracts returns the contracts the traces of one server's run saw,
// one per tool name, sorted by name. It returns ErrNotFound when the run
// saw none.
func (s *Store) RunContracts(ctx context.Context, server, runID string) ([]RunContract, error) {
	rows, err := s.db.QueryContext(ctx, sqlRunContracts, server, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunContract
	for rows.Next() {
		var rc RunContract
		var body, last string
		var lastPK int64
		if err := rows.Scan(&rc.Name, &rc.Fingerprint, &rc.Semantic, &body, &rc.Traces, &last, &lastPK); err != nil {
			return nil, err
		}
		rc.Body = json.RawMessage(body)
		if n := len(out); n > 0 && out[n-1].Name == rc.Name {
			out[n-1].Also = append(out[n-1].Also, rc.Fingerprint)
			continue
		}
		out = append(out, rc)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("server %q run %q: no tool contracts: %w", server, runID, ErrNotFound)
	}
	return out, nil
}

// ContractTraceIDs lists the traces of a server (every server when "")
// that saw the contract with this wire fingerprint, in import order.
func (s *Store) ContractTraceIDs(ctx context.Context, server, fingerprint string) ([]string, error) {
	return s.queryStrings(ctx, sqlContractTraceIDs, fingerprint, server, server)
}

// Approval is one entry of the approved-contract registry.
type Approval struct {
	Server      string `json:"server"` // "" = every server
	Tool        string `json:"tool"`
	Fingerprint string `json:"fingerprint"`
	Semantic    string `json:"semantic,omitempty"`
	Body        json.RawMessage
	Source      string `json:"source"`
	ApprovedBy  string `json:"approved_by"`
	ApprovedAt  string `json:"approved_at"`
}

// Approve adds contracts to the approved registry in one transaction and
// returns how many were new; approving a contract again keeps the first
// approval. ApprovedAt is the store's clock.
func (s *Store) Approve(ctx context.Context, as []Approval) (int, error) {
	at := s.stamp()
	added := 0
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, sqlApprove)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, a := range as {
			if a.Tool == "" || a.Fingerprint == "" {
				return errors.New("approve: a contract needs a tool name and a fingerprint")
			}
			r, err := st.ExecContext(ctx, a.Server, a.Tool, a.Fingerprint, a.Semantic, string(a.Body), a.Source, a.ApprovedBy, at)
			if err != nil {
				return err
			}
			n, err := r.RowsAffected()
			if err != nil {
				return err
			}
			added += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// Approvals lists the registry sorted by server, tool and approval time.
func (s *Store) Approvals(ctx context.Context) ([]Approval, error) {
	rows, err := s.db.QueryContext(ctx, sqlApprovals)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Approval
	for rows.Next() {
		var a Approval
		var body string
		if err := rows.Scan(&a.Server, &a.Tool, &a.Fingerprint, &a.Semantic, &body, &a.Source, &a.ApprovedBy, &a.ApprovedAt); err != nil {
			return nil, err
		}
		a.Body = json.RawMessage(body)
		out = append(out, a)
	}
	return out, rows.Err()
}

// UnapprovedUse is one imported trace that ran against a contract the
// registry does not hold for its server.
type UnapprovedUse struct {
	TraceID     string `json:"trace_id"`
	Server      string `json:"server"`
	RunID       string `json:"run_id"`
	StartedAt   string `json:"started_at"`
	Tool        string `json:"tool"`
	Fingerprint string `json:"fingerprint"`
	// KnownTool says the registry approves another contract of this tool
	// on this server: the tool drifted, rather than being new.
	KnownTool bool `json:"known_tool"`
}

// UnapprovedUses lists every (trace, tool) whose wire fingerprint is not
// approved for the trace's server (an approval with server "" counts for
// every server), ordered by server, run, trace and tool. An empty server
// checks every server.
func (s *Store) UnapprovedUses(ctx context.Context, server string) ([]UnapprovedUse, error) {
	rows, err := s.db.QueryContext(ctx, sqlUnapprovedUses, server, server)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UnapprovedUse
	for rows.Next() {
		var u UnapprovedUse
		if err := rows.Scan(&u.TraceID, &u.Server, &u.RunID, &u.StartedAt, &u.Tool, &u.Fingerprint, &u.KnownTool); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// caseContractsColumns are appended to caseColumns: the contracts block
// stored with an imported case, and the contracts its linked trace saw
// (an object tool -> wire fingerprint, '{}' when none).
const caseContractsColumns = `c.contracts,
	(SELECT json_group_object(tc.name, tc.fingerprint) FROM trace_contracts tc WHERE tc.trace_pk = c.trace_pk)`

// caseContracts decodes a case's contracts block (the linked trace's, else
// the one imported with the case; see caseDecoder.scan).
func caseContracts(src sql.NullString) (map[string]string, error) {
	if !src.Valid || strings.TrimSpace(src.String) == "" {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(src.String), &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// The SQL of this file, one constant per statement. Groups are by
// c.fingerprint, the contracts table's key, so its other columns may be
// selected (PostgreSQL allows that only through the key).
const (
	sqlContractsWithoutSemantic = `SELECT name, fingerprint, body FROM contracts WHERE semantic = '' ORDER BY fingerprint`
	sqlSetSemantic              = `UPDATE contracts SET semantic = ? WHERE fingerprint = ?`
	sqlContractHistory          = `SELECT t.server, tc.name, c.fingerprint, c.semantic,
		min(t.started_at), max(t.started_at), count(*), json_group_array(DISTINCT t.run_id)
		FROM trace_contracts tc
		JOIN traces t ON t.id = tc.trace_pk
		JOIN contracts c ON c.fingerprint = tc.fingerprint
		WHERE ? = '' OR t.server = ?
		GROUP BY t.server, tc.name, c.fingerprint
		ORDER BY t.server, tc.name, min(t.started_at), max(t.started_at), c.fingerprint`
	sqlContractRuns = `SELECT t.server, t.run_id, min(t.started_at), max(t.started_at), count(*)
		FROM traces t
		WHERE (? = '' OR t.server = ?) AND EXISTS (SELECT 1 FROM trace_contracts tc WHERE tc.trace_pk = t.id)
		GROUP BY t.server, t.run_id
		ORDER BY t.server, max(t.started_at), max(t.id), t.run_id`
	sqlRunContracts = `SELECT tc.name, c.fingerprint, c.semantic, c.body, count(*),
		max(t.started_at), max(t.id)
		FROM trace_contracts tc
		JOIN traces t ON t.id = tc.trace_pk
		JOIN contracts c ON c.fingerprint = tc.fingerprint
		WHERE t.server = ? AND t.run_id = ?
		GROUP BY tc.name, c.fingerprint
		ORDER BY tc.name, max(t.started_at) DESC, max(t.id) DESC, c.fingerprint`
	sqlContractTraceIDs = `SELECT t.trace_id FROM trace_contracts tc JOIN traces t ON t.id = tc.trace_pk
		WHERE tc.fingerprint = ? AND (? = '' OR t.server = ?) ORDER BY t.id`
	sqlApprove = `INSERT INTO approved_contracts
			(server, name, fingerprint, semantic, body, source, approved_by, approved_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlApprovals = `SELECT server, name, fingerprint, semantic, body, source, approved_by, approved_at
		FROM approved_contracts ORDER BY server, name, approved_at, fingerprint`
	sqlUnapprovedUses = `SELECT t.trace_id, t.server, t.run_id, t.started_at, tc.name, tc.fingerprint,
		EXISTS (SELECT 1 FROM approved_contracts a WHERE a.name = tc.name AND a.server IN (t.server, ''))
		FROM trace_contracts tc
		JOIN traces t ON t.id = tc.trace_pk
		WHERE (? = '' OR t.server = ?) AND NOT EXISTS (SELECT 1 FROM approved_contracts a
			WHERE a.fingerprint = tc.fingerprint AND a.name = tc.name AND a.server IN (t.server, ''))
		ORDER BY t.server, t.run_id, t.started_at, t.id, tc.name`
)
