package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Cache memoises Analyze by text and current database, keeping the most
// recently used results within a bound in bytes (each entry costs its key
// and its result's estimated size, analyzerkit.Cache.Put). Texts longer than
// MaxText bytes are analysed but not kept. It is safe for concurrent use;
// the zero value is not usable, call NewCache.
type Cache struct {
	entries *analyzerkit.Cache[cacheKey, Result]
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 16 << 10

// CacheBytes is the bound of a listener's cache, in bytes; the memory bound
// counts it per SQL listener (docs/config.md, "Memory bound").
const CacheBytes = 16 << 20

type cacheKey struct{ text, db string }

// NewCache returns a cache holding results whose estimated sizes sum to at
// most maxBytes.
func NewCache(maxBytes int64) *Cache {
	return &Cache{entries: analyzerkit.NewCache[cacheKey, Result](maxBytes)}
}

// Analyze is AnalyzeContext without a client to wait for.
func (c *Cache) Analyze(text, currentDB string) Result {
	return c.AnalyzeContext(context.Background(), text, currentDB)
}

// AnalyzeContext returns AnalyzeContext(ctx, text, currentDB), from the
// cache when it has it: by the exact text, or for a single DML statement by
// its shape (see shapeKey), with the statement's Text set to text's own.
// The result is shared: callers must not modify its slices.
func (c *Cache) AnalyzeContext(ctx context.Context, text, currentDB string) Result {
	if len(text) > MaxText {
		return AnalyzeContext(ctx, text, currentDB)
	}
	key := cacheKey{text, currentDB}
	if r, ok := c.entries.Get(key); ok {
		return r
	}
	shape, shaped := shapeKey(text)
	skey := cacheKey{shape, currentDB}
	if shaped {
		if r, ok := c.entries.Get(skey); ok {
			st := r.Statements[0]
			st.Text = trimStatement(text)
			r = Result{Statements: []Statement{st}}
			c.entries.Put(r, key) // the same text again is an exact hit, without a lexical pass
			return r
		}
	}
	r := AnalyzeContext(ctx, text, currentDB)
	if shaped && r.Err == nil && len(r.Statements) == 1 {
		c.entries.Put(r, key, skey)
	} else {
		c.entries.Put(r, key)
	}
	return r
}
