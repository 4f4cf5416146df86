package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Cache memoises AnalyzeMode by text, current database and mode, keeping the
// most recently used results within a bound in bytes (each entry costs its
// key and its result's estimated size, analyzerkit.Cache.Put). Texts longer than
// MaxText bytes are analysed but not kept. It is safe for concurrent use;
// the zero value is not usable, call NewCache.
type Cache struct {
	entries *analyzerkit.Cache[cacheKey, Result]
}

// CacheBytes is the bound of a listener's cache, in bytes; the memory bound
// counts it per SQL listener (docs/config.md, "Memory bound").
const CacheBytes = 16 << 20

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 8 << 10

type cacheKey struct {
	sql, db string
	mode    Mode
}

// NewCache returns a cache holding results whose estimated sizes sum to at
// most maxBytes.
func NewCache(maxBytes int64) *Cache {
	return &Cache{entries: analyzerkit.NewCache[cacheKey, Result](maxBytes)}
}

// Analyze returns Analyze(sql, currentDB), from the cache when it has it.
// The result is shared: callers must not modify its slices.
func (c *Cache) Analyze(sql, currentDB string) Result {
	return c.AnalyzeMode(sql, currentDB, Mode{})
}

// AnalyzeMode is AnalyzeModeContext without a client to wait for.
func (c *Cache) AnalyzeMode(sql, currentDB string, m Mode) Result {
	return c.AnalyzeModeContext(context.Background(), sql, currentDB, m)
}

// AnalyzeModeContext returns AnalyzeModeContext(ctx, sql, currentDB, m),
// from the cache when it has it: by the exact text, or for a single DML
// statement by its shape (see shapeKey), with the statement's Text set to
// sql's own.
func (c *Cache) AnalyzeModeContext(ctx context.Context, sql, currentDB string, m Mode) Result {
	if len(sql) > MaxText {
		return AnalyzeModeContext(ctx, sql, currentDB, m)
	}
	if m.multiByte() && multiByteAmbiguous(sql) { // before the shape, which hides literals
		return AnalyzeModeContext(ctx, sql, currentDB, m)
	}
	key := cacheKey{sql, currentDB, m}
	if r, ok := c.get(key); ok {
		return r
	}
	shape, shaped := shapeKey(sql, m)
	skey := cacheKey{shape, currentDB, m}
	if shaped {
		if r, ok := c.get(skey); ok {
			st := r.Statements[0]
			st.Text = trimStatement(sql)
			r = Result{Statements: []Statement{st}}
			c.entries.Put(r, key) // the same text again is an exact hit, without a lexical pass
			return r
		}
	}
	r := AnalyzeModeContext(ctx, sql, currentDB, m)
	if shaped && r.Err == nil && len(r.Statements) == 1 {
		c.entries.Put(r, key, skey)
	} else {
		c.entries.Put(r, key)
	}
	return r
}

func (c *Cache) get(key cacheKey) (Result, bool) { return c.entries.Get(key) }
