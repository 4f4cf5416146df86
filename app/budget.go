package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/hoophq/sidecar/domain"
)

// Defaults of Limits (docs/config.md, "limits").
const (
	// DefaultHeldBytes is the default held-payload budget: 64 MiB (eight
	// statements of the largest size a listener holds, 8 MiB, at once).
	DefaultHeldBytes = 64 << 20
	// DefaultHeaderBytes is the default cap of one request's header list
	// (http) or metadata (grpc): 64 KiB, about Envoy's default (60 KiB).
	DefaultHeaderBytes = 64 << 10
	// DefaultBodyReadTimeout bounds reading the body of a request that an
	// approval rule covers: 60 s.
	DefaultBodyReadTimeout = time.Minute
	// BudgetWait is the longest a payload waits for budget that other
	// statements hold before it is refused.
	BudgetWait = time.Second
)

// Limits bound what one Sidecar process holds in memory for its clients. The
// zero value of a field means its default.
type Limits struct {
	// HeldBytes is the process-wide budget of held payload bytes (HeldBudget).
	HeldBytes int64
	// HeaderBytes caps one request's header list or metadata, in bytes.
	HeaderBytes int
	// BodyReadTimeout bounds the read of a held request body.
	BodyReadTimeout time.Duration
}

// WithDefaults returns l with each zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.HeldBytes <= 0 {
		l.HeldBytes = DefaultHeldBytes
	}
	if l.HeaderBytes <= 0 {
		l.HeaderBytes = DefaultHeaderBytes
	}
	if l.BodyReadTimeout <= 0 {
		l.BodyReadTimeout = DefaultBodyReadTimeout
	}
	return l
}

// HeldBudget is the process-wide budget of payload bytes that listeners hold
// in memory to decide statements (domain/budget.go). An adapter takes a
// payload's size before reading it (or, when the protocol library reads it
// first, right after) and gives it back once the statement is forwarded or
// denied. It is safe for concurrent use.
type HeldBudget struct {
	size int64
	sem  *semaphore.Weighted
}

// NewHeldBudget returns a budget of size bytes (DefaultHeldBytes when size
// is not positive).
func NewHeldBudget(size int64) *HeldBudget {
	if size <= 0 {
		size = DefaultHeldBytes
	}
	return &HeldBudget{size: size, sem: semaphore.NewWeighted(size)}
}

// Size returns the budget's size in bytes.
func (b *HeldBudget) Size() int64 { return b.size }

// ErrBudget is wrapped by the errors of Reserve.
var ErrBudget = errors.New("held-payload budget exceeded")

// BudgetError is a refused reservation: the payload's size and the budget's.
type BudgetError struct{ N, Size int64 }

func (e *BudgetError) Error() string { return domain.BudgetMessage(e.N, e.Size) }

// Unwrap returns ErrBudget.
func (e *BudgetError) Unwrap() error { return ErrBudget }

// Reserve takes n bytes for a payload about to be held. It waits for other
// payloads to give bytes back at most BudgetWait, and never past ctx's end.
// It returns a *BudgetError when the bytes are not free in time, or when n
// is larger than the whole budget (refused at once). A non-positive n
// reserves nothing. The caller must Release the returned Reservation.
func (b *HeldBudget) Reserve(ctx context.Context, n int64) (*Reservation, error) {
	if n <= 0 {
		return nil, nil
	}
	if n > b.size {
		return nil, &BudgetError{N: n, Size: b.size}
	}
	if !b.sem.TryAcquire(n) {
		wctx, cancel := context.WithTimeout(ctx, BudgetWait)
		defer cancel()
		if b.sem.Acquire(wctx, n) != nil {
			return nil, &BudgetError{N: n, Size: b.size}
		}
	}
	return &Reservation{b: b, n: n}, nil
}

// Reservation is bytes taken from a HeldBudget. Its methods are safe on a nil
// Reservation and for concurrent use.
type Reservation struct {
	mu sync.Mutex
	b  *HeldBudget
	n  int64
}

// Release gives every byte back. Later calls do nothing.
func (r *Reservation) Release() { r.Shrink(0) }

// Shrink gives back all but n bytes (a payload read shorter than reserved).
func (r *Reservation) Shrink(n int64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n < 0 {
		n = 0
	}
	if n < r.n {
		r.b.sem.Release(r.n - n)
		r.n = n
	}
}

// The documented bound of the Sidecar's resident memory (docs/config.md,
// "limits"): BaseRSS + HeldFactor × held_bytes + PerConnectionRSS per open
// client connection. HeldFactor covers the copies a listener makes of a held
// statement while deciding it (e.g. a PostgreSQL Query: the message, its
// text and its canonical bytes) and the garbage collector's headroom; BaseRSS
// covers the binary, the SQL parser's working memory (one large text at a
// time) and idle buffers; PerSQLListenerRSS is a SQL listener's analysis
// cache (each analyzer's CacheBytes).
const (
	BaseRSS           = 160 << 20
	HeldFactor        = 5
	PerConnectionRSS  = 256 << 10
	PerSQLListenerRSS = 16 << 20
)

// RSSBound returns the documented bound of resident memory, in bytes, for
// these limits, conns open client connections and sqlListeners listeners
// of protocol postgres, mysql or mssql.
func (l Limits) RSSBound(conns, sqlListeners int) int64 {
	return BaseRSS + HeldFactor*l.WithDefaults().HeldBytes + int64(conns)*PerConnectionRSS + int64(sqlListeners)*PerSQLListenerRSS
}

// GoMemoryLimit is the soft limit (runtime/debug.SetMemoryLimit) the Sidecar
// gives the Go runtime for these limits and sqlListeners SQL listeners: the
// bound without connections (the caches are Go heap), less the PostgreSQL
// parser's memory, which is outside the Go heap. Near it the garbage
// collector runs sooner and returns freed memory to the system.
func (l Limits) GoMemoryLimit(sqlListeners int) int64 { return l.RSSBound(0, sqlListeners) - 64<<20 }

// IsSQLProtocol reports the listener protocols whose analyzer keeps a cache
// of PerSQLListenerRSS.
func IsSQLProtocol(protocol string) bool {
	return protocol == "postgres" || protocol == "mysql" || protocol == "mssql"
}

// Reservations is the budget one message took in several Reserve calls (a
// message read packet by packet). Release gives all of it back; it is safe
// on a nil or empty slice.
type Reservations []*Reservation

// Release gives every reservation back.
func (rs Reservations) Release() {
	for _, r := range rs {
		r.Release()
	}
}
