package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Cache memoises Analyze by statement text, keeping the most recently used
// results within a bound in bytes (each entry costs its text and its
// result's estimated size, analyzerkit.Cache.Put). Texts longer than MaxText
// bytes are analysed but not kept. It is safe for concurrent use; the zero
// value is not usable, call NewCache.
type Cache struct {
	entries *analyzerkit.Cache[string, Result]
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 8 << 10

// CacheBytes is the bound of a listener's cache, in bytes; the memory bound
// counts it per SQL listener (docs/config.md, "Memory bound").
const CacheBytes = 16 << 20

// NewCache returns a cache holding results whose estimated sizes sum to at
// most maxBytes.
func NewCache(maxBytes int64) *Cache {
	return &Cache{entries: analyzerkit.NewCache[string, Result](maxBytes)}
}

// Analyze is AnalyzeContext without a client to wait for.
func (c *Cache) Analyze(sql string) Result {
	return c.AnalyzeContext(context.Background(), sql)
}

// AnalyzeContext returns AnalyzeContext(ctx, sql), from the cache when it
// has it: by the exact text, or for a single DML statement by its shape
// (see fastShape and shapeKey), with the statement's Text set to sql's own.
// The result is shared: callers must not modify its slices.
func (c *Cache) AnalyzeContext(ctx context.Context, sql string) Result {
	if len(sql) > MaxText {
		return AnalyzeContext(ctx, sql)
	}
	if r, ok := c.entries.Get(sql); ok {
		return r
	}
	shape, shaped := fastShape(sql) // most texts: no call into the C scanner
	if !shaped {
		shape, shaped = shapeKey(sql)
	}
	if shaped {
		if r, ok := c.entries.Get(shape); ok {
			st := r.Statements[0]
			st.Text = stmtText(sql, 0, 0)
			return Result{Statements: []Statement{st}}
		}
	}
	r := AnalyzeContext(ctx, sql)
	if shaped && r.Err == nil && len(r.Statements) == 1 {
		c.entries.Put(r, sql, shape)
	} else {
		c.entries.Put(r, sql)
	}
	return r
}
