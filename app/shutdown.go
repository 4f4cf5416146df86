package app

import (
	"context"
	"sync"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// ForcedSettleBudget bounds the settles that Gate.SettleOpen makes itself
// for tickets still open when its wait ends.
const ForcedSettleBudget = 2 * time.Second

// lifecycle is the gate's shutdown state and its open tickets. The zero
// value is ready to use.
type lifecycle struct {
	mu       sync.Mutex
	stopping chan struct{} // closed by BeginShutdown
	stopped  bool
	open     map[*Ticket]struct{}
	idle     chan struct{} // closed when open becomes empty; nil while empty
}

// stoppingCh returns the channel that BeginShutdown closes.
func (lc *lifecycle) stoppingCh() <-chan struct{} {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.stopping == nil {
		lc.stopping = make(chan struct{})
	}
	return lc.stopping
}

// BeginShutdown tells the gate the Sidecar is shutting down: statements
// waiting for a person (wait mode) end at once with a DeniedShutdown denial,
// and later ones that would wait get it without waiting. Statements that
// need no wait keep being decided as usual, so the connections that drain
// can finish what is in flight. It is idempotent.
func (g *Gate) BeginShutdown() {
	g.lc.stoppingCh()
	g.lc.mu.Lock()
	defer g.lc.mu.Unlock()
	if !g.lc.stopped {
		g.lc.stopped = true
		close(g.lc.stopping)
	}
}

// ShuttingDown reports whether BeginShutdown was called.
func (g *Gate) ShuttingDown() bool {
	select {
	case <-g.lc.stoppingCh():
		return true
	default:
		return false
	}
}

// OpenTickets returns how many claimed approvals (spend_approval_on:
// accepted) are not settled yet.
func (g *Gate) OpenTickets() int {
	g.lc.mu.Lock()
	defer g.lc.mu.Unlock()
	return len(g.lc.open)
}

// SettleOpen waits until every ticket the gate handed out has been settled
// by its adapter, or until ctx ends. Tickets still open then are settled as
// accepted (EXECUTED), each with ForcedSettleBudget: their statement was
// forwarded and may have run, and spending the approval is the side that can
// never run a statement twice (Ticket.Spend). It returns how many it
// settled itself.
func (g *Gate) SettleOpen(ctx context.Context) int {
wait:
	for {
		g.lc.mu.Lock()
		idle := g.lc.idle
		g.lc.mu.Unlock()
		if idle == nil {
			return 0
		}
		select {
		case <-idle:
		case <-ctx.Done():
			break wait
		}
	}
	g.lc.mu.Lock()
	left := make([]*Ticket, 0, len(g.lc.open))
	for t := range g.lc.open {
		left = append(left, t)
	}
	g.lc.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range left {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.Log.Warn("approval still unsettled at shutdown; spending it (EXECUTED) so the statement can never run twice",
				"approval_id", t.id, "listener", t.audit.Listener)
			t.settle(domain.NothingRan{}, ForcedSettleBudget)
		}()
	}
	wg.Wait()
	return len(left)
}

// track records t as open until it is settled.
func (lc *lifecycle) track(t *Ticket) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.open == nil {
		lc.open = map[*Ticket]struct{}{}
	}
	if len(lc.open) == 0 {
		lc.idle = make(chan struct{})
	}
	lc.open[t] = struct{}{}
}

// untrack records that t was settled.
func (lc *lifecycle) untrack(t *Ticket) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if _, ok := lc.open[t]; !ok {
		return
	}
	delete(lc.open, t)
	if len(lc.open) == 0 && lc.idle != nil {
		close(lc.idle)
		lc.idle = nil
	}
}
