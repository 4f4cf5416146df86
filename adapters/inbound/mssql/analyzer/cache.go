package analyzer

import (
	lru "github.com/hashicorp/golang-lru/v2"
)

// Cache memoises Analyze by text and current database, keeping the most
// recently used entries. Texts longer than MaxText bytes are analysed but
// not kept. It is safe for concurrent use; the zero value is not usable,
// call NewCache.
type Cache struct {
	entries *lru.Cache[cacheKey, Result]
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 16 << 10

type cacheKey struct{ text, db string }

// NewCache returns a cache holding at most size results (size < 1 means 1).
func NewCache(size int) *Cache {
	c, _ := lru.New[cacheKey, Result](max(size, 1)) // fails only for size < 1
	return &Cache{entries: c}
}

// Analyze returns Analyze(text, currentDB), from the cache when it has it:
// by the exact text, or for a single DML statement by its shape (see
// shapeKey), with the statement's Text set to text's own. The result is
// shared: callers must not modify its slices.
func (c *Cache) Analyze(text, currentDB string) Result {
	if len(text) > MaxText {
		return Analyze(text, currentDB)
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
			c.entries.Add(key, r) // the same text again is an exact hit, without a lexical pass
			return r
		}
	}
	r := Analyze(text, currentDB)
	c.entries.Add(key, r)
	if shaped && r.Err == nil && len(r.Statements) == 1 {
		c.entries.Add(skey, r)
	}
	return r
}
