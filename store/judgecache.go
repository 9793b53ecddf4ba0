package store

import (
	"context"
	"database/sql"
	"errors"
)

// The built-in judge's answer cache (migration 0021): one row per request
// a model answered, keyed by the sha256 the judge computes over what it
// sent, so a rerun over unchanged traces calls no endpoint.

const (
	sqlJudgeCacheGet = `SELECT answer, usd FROM judge_cache WHERE key = ?`
	sqlJudgeCachePut = `INSERT INTO judge_cache (key, model, prompt_sha256, answer, usd, created_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET answer = excluded.answer, usd = excluded.usd, created_at = excluded.created_at`
)

// JudgeAnswer is one cached model answer.
type JudgeAnswer struct {
	Key, Model, PromptSHA256 string
	Answer                   string // JSON, as the judge wrote it
	USD                      float64
}

// JudgeCached returns the cached answer under key; ok is false when there
// is none.
func (s *Store) JudgeCached(ctx context.Context, key string) (a JudgeAnswer, ok bool, err error) {
	a.Key = key
	err = s.db.QueryRowContext(ctx, sqlJudgeCacheGet, key).Scan(&a.Answer, &a.USD)
	if errors.Is(err, sql.ErrNoRows) {
		return a, false, nil
	}
	return a, err == nil, err
}

// PutJudgeAnswer caches one answer (a later one under the same key
// replaces it).
func (s *Store) PutJudgeAnswer(ctx context.Context, a JudgeAnswer) error {
	_, err := s.db.ExecContext(ctx, sqlJudgeCachePut, a.Key, a.Model, a.PromptSHA256, a.Answer, a.USD, s.stamp())
	return err
}
