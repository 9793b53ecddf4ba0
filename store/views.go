package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// SavedView is a queue filter and search saved under a name (migration
// 0018): saved from the workbench, listed in its filter menu, and read by
// `tracelab ls --view NAME`.
type SavedView struct {
	Name    string
	Filter  Filter // TraceIDs are not saved: a view names what to look for, not a list
	SavedBy string
	SavedAt string
}

const (
	sqlSaveView = `INSERT INTO saved_views (name, filter, saved_by, saved_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET filter = excluded.filter, saved_by = excluded.saved_by, saved_at = excluded.saved_at`
	sqlViews = `SELECT name, filter, saved_by, saved_at FROM saved_views ORDER BY name`
	sqlView  = `SELECT name, filter, saved_by, saved_at FROM saved_views WHERE name = ?`
)

// maxViewName bounds a view's name: it is typed, shown in a menu and
// passed on a command line.
const maxViewName = 64

// SaveView saves f under name, replacing a view of that name.
func (s *Store) SaveView(ctx context.Context, name string, f Filter, by string) error {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return errors.New("a view needs a name")
	case len(name) > maxViewName:
		return fmt.Errorf("view name %q is longer than %d bytes", name, maxViewName)
	}
	f.TraceIDs = nil
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, sqlSaveView, name, string(b), by, s.stamp())
	return err
}

// Views lists the saved views by name.
func (s *Store) Views(ctx context.Context) ([]SavedView, error) {
	rows, err := s.db.QueryContext(ctx, sqlViews)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SavedView
	for rows.Next() {
		v, err := scanView(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// View is the saved view of that name; ErrNotFound when there is none.
func (s *Store) View(ctx context.Context, name string) (SavedView, error) {
	v, err := scanView(s.db.QueryRowContext(ctx, sqlView, name))
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("view %q: %w", name, ErrNotFound)
	}
	return v, err
}

func scanView(r interface{ Scan(...any) error }) (SavedView, error) {
	var v SavedView
	var f string
	if err := r.Scan(&v.Name, &f, &v.SavedBy, &v.SavedAt); err != nil {
		return v, err
	}
	if err := json.Unmarshal([]byte(f), &v.Filter); err != nil {
		return v, fmt.Errorf("view %q: %w", v.Name, err)
	}
	return v, nil
}
