package mongodb

import (
	"sync"
	"sync/atomic"

	"github.com/hoophq/sidecar/app"
)

// maxCursors bounds the cursors remembered for masking, across the
// listeners of one Protocol. Past it one is forgotten; a getMore of a
// forgotten cursor is masked by its own statement (cursors.job).
const maxCursors = 1 << 16

// cursors remembers, for each cursor a masked statement opened, what
// masked it: its settings and statement, so each getMore's batch is
// masked by the same rules (app.MaskPlan, a fresh plan per batch) on
// whichever connection it comes (drivers send getMore on any pooled
// connection). A nil *cursors remembers nothing. A cursor is forgotten when a reply says it is exhausted
// (cursor.id 0) or killCursors names it.
type cursors struct {
	n  atomic.Int32 // len(m), read without the lock: zero cost when nothing masks
	mu sync.Mutex
	m  map[cursorKey]maskSource
}

type cursorKey struct {
	l  *app.Listener
	id int64
}

// maskSource is what makes the plan of one reply: the settings the
// statement was decided with and the statement (Render nil: its text is
// in Display when a rule's match reads it).
type maskSource struct {
	set *app.ListenerSettings
	st  app.Statement
}

// job returns a fresh masking job from src, nil when no rule applies.
func (src maskSource) job() *maskJob {
	st := src.st
	plan := app.MaskPlan(src.set, &st)
	if plan == nil {
		return nil
	}
	return &maskJob{src: src, plan: plan}
}

// put remembers cursor id of l as opened by src.
func (c *cursors) put(l *app.Listener, id int64, src maskSource) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[cursorKey]maskSource{}
	}
	if len(c.m) >= maxCursors {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[cursorKey{l, id}] = src
	c.n.Store(int32(len(c.m)))
}

// get returns what masks cursor id of l, if it is remembered.
func (c *cursors) get(l *app.Listener, id int64) (maskSource, bool) {
	if c == nil || c.n.Load() == 0 {
		return maskSource{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	src, ok := c.m[cursorKey{l, id}]
	return src, ok
}

// drop forgets cursors ids of l.
func (c *cursors) drop(l *app.Listener, ids ...int64) {
	if c == nil || c.n.Load() == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		delete(c.m, cursorKey{l, id})
	}
	c.n.Store(int32(len(c.m)))
}
