package analyzer

import (
	"container/list"
	"sync"
)

// Cache memoises Analyze by statement text, keeping the most recently used
// entries. Texts longer than MaxText bytes are analysed but not kept. It is
// safe for concurrent use; the zero value is not usable, call NewCache.
type Cache struct {
	mu      sync.Mutex
	size    int
	order   *list.List
	entries map[string]*list.Element
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 8 << 10

type cached struct {
	sql string
	res Result
}

// NewCache returns a cache holding at most size results (size < 1 means 1).
func NewCache(size int) *Cache {
	if size < 1 {
		size = 1
	}
	return &Cache{size: size, order: list.New(), entries: map[string]*list.Element{}}
}

// Analyze returns Analyze(sql), from the cache when it has it: by the exact
// text, or for a single DML statement by its shape (see fastShape and
// shapeKey), with the
// statement's Text set to sql's own. The result is shared: callers must not
// modify its slices.
func (c *Cache) Analyze(sql string) Result {
	if len(sql) > MaxText {
		return Analyze(sql)
	}
	if r, ok := c.get(sql); ok {
		return r
	}
	shape, shaped := fastShape(sql) // most texts: no call into the C scanner
	if !shaped {
		shape, shaped = shapeKey(sql)
	}
	if shaped {
		if r, ok := c.get(shape); ok {
			st := r.Statements[0]
			st.Text = stmtText(sql, 0, 0)
			return Result{Statements: []Statement{st}}
		}
	}
	r := Analyze(sql)
	c.put(sql, r)
	if shaped && r.Err == nil && len(r.Statements) == 1 {
		c.put(shape, r)
	}
	return r
}

func (c *Cache) get(key string) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return Result{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).res, true
}

func (c *Cache) put(key string, r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = c.order.PushFront(&cached{sql: key, res: r})
	for c.order.Len() > c.size {
		old := c.order.Remove(c.order.Back()).(*cached)
		delete(c.entries, old.sql)
	}
}
