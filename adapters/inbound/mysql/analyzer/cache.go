package analyzer

import (
	"container/list"
	"sync"
)

// Cache memoises AnalyzeMode by text, current database and mode, keeping the
// most recently used entries. Texts longer than MaxText bytes are analysed
// but not kept. It is safe for concurrent use; the zero value is not
// usable, call NewCache.
type Cache struct {
	mu      sync.Mutex
	size    int
	order   *list.List
	entries map[cacheKey]*list.Element
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 8 << 10

type cacheKey struct {
	sql, db string
	mode    Mode
}

type cached struct {
	key cacheKey
	res Result
}

// NewCache returns a cache holding at most size results (size < 1 means 1).
func NewCache(size int) *Cache {
	if size < 1 {
		size = 1
	}
	return &Cache{size: size, order: list.New(), entries: map[cacheKey]*list.Element{}}
}

// Analyze returns Analyze(sql, currentDB), from the cache when it has it.
// The result is shared: callers must not modify its slices.
func (c *Cache) Analyze(sql, currentDB string) Result {
	return c.AnalyzeMode(sql, currentDB, Mode{})
}

// AnalyzeMode returns AnalyzeMode(sql, currentDB, m), from the cache when it
// has it: by the exact text, or for a single DML statement by its shape (see
// shapeKey), with the statement's Text set to sql's own.
func (c *Cache) AnalyzeMode(sql, currentDB string, m Mode) Result {
	if len(sql) > MaxText {
		return AnalyzeMode(sql, currentDB, m)
	}
	if m.multiByte() && multiByteAmbiguous(sql) { // before the shape, which hides literals
		return AnalyzeMode(sql, currentDB, m)
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
			c.put(key, r) // the same text again is an exact hit, without a lexical pass
			return r
		}
	}
	r := AnalyzeMode(sql, currentDB, m)
	c.put(key, r)
	if shaped && r.Err == nil && len(r.Statements) == 1 {
		c.put(skey, r)
	}
	return r
}

func (c *Cache) get(key cacheKey) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return Result{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).res, true
}

func (c *Cache) put(key cacheKey, r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = c.order.PushFront(&cached{key: key, res: r})
	for c.order.Len() > c.size {
		old := c.order.Remove(c.order.Back()).(*cached)
		delete(c.entries, old.key)
	}
}
