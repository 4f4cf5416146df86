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

// Analyze returns Analyze(sql), from the cache when it has it. The result is
// shared: callers must not modify its slices.
func (c *Cache) Analyze(sql string) Result {
	if len(sql) > MaxText {
		return Analyze(sql)
	}
	c.mu.Lock()
	if e, ok := c.entries[sql]; ok {
		c.order.MoveToFront(e)
		r := e.Value.(*cached).res
		c.mu.Unlock()
		return r
	}
	c.mu.Unlock()
	r := Analyze(sql)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[sql]; !ok {
		c.entries[sql] = c.order.PushFront(&cached{sql: sql, res: r})
		for c.order.Len() > c.size {
			old := c.order.Remove(c.order.Back()).(*cached)
			delete(c.entries, old.sql)
		}
	}
	return r
}
