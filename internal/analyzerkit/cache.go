package analyzerkit

import (
	"container/list"
	"sync"
)

// ListenerCacheBytes is the bound, in bytes, of one SQL listener's
// analysis cache (each analyzer's Cache, a Memo over a Cache); the memory
// bound counts it per SQL listener (docs/config.md, "Memory bound").
const ListenerCacheBytes = 16 << 20

// Cache keeps the most recently used values, evicting the least recently
// used until the sum of the entries' costs (bytes, as the caller estimates
// them: see Size) is at most the bound given to NewCache. It is safe for
// concurrent use; the zero value is not usable, call NewCache.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	max     int64
	used    int64
	order   *list.List
	entries map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key  K
	val  V
	cost int64
}

// NewCache returns a cache holding entries whose costs sum to at most
// maxBytes (maxBytes < 1 means 1).
func NewCache[K comparable, V any](maxBytes int64) *Cache[K, V] {
	return &Cache[K, V]{max: max(maxBytes, 1), order: list.New(), entries: map[K]*list.Element{}}
}

// Get returns the value kept for key and marks it most recently used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*entry[K, V]).val, true
}

// Add keeps val for key at the given cost in bytes, evicting older entries
// to stay within the bound. A key already kept keeps its value; an entry
// costing more than the whole bound is not kept.
func (c *Cache[K, V]) Add(key K, val V, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok || cost > c.max {
		return
	}
	c.entries[key] = c.order.PushFront(&entry[K, V]{key: key, val: val, cost: cost})
	c.used += cost
	for c.used > c.max {
		old := c.order.Remove(c.order.Back()).(*entry[K, V])
		delete(c.entries, old.key)
		c.used -= old.cost
	}
}

// Put keeps val under each of keys (an exact text and its shape, say), each
// entry costing val's estimated size (Size, taken once), its key's, and
// the cache's own bookkeeping (entryOverhead).
func (c *Cache[K, V]) Put(val V, keys ...K) {
	size := Size(val) + entryOverhead
	for _, k := range keys {
		c.Add(k, val, size+Size(k))
	}
}

// Bytes returns the sum of the kept entries' costs, in bytes.
func (c *Cache[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// Len returns the number of kept entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
