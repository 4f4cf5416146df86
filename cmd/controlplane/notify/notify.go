package notify

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// Formats of a webhook's body.
const (
	FormatJSON  = "json"  // the generic JSON POST (payload.go, jsonBody)
	FormatSlack = "slack" // a Slack incoming-webhook message
)

// Webhook is one configured receiver.
type Webhook struct {
	// Name identifies the webhook in logs (never the URL, which is often a secret).
	Name string
	// URL receives the POST.
	URL string
	// Format is FormatJSON or FormatSlack.
	Format string
	// IncludeStatement sends the statement itself; otherwise only who asked,
	// where and under which rule.
	IncludeStatement bool
	// GiveUpAfter bounds the retries of one delivery; 0 means 10 minutes.
	GiveUpAfter time.Duration
}

// Options configure New.
type Options struct {
	Webhooks []Webhook
	// PublicURL is the Control Plane's address as people open it, for the
	// link to a request (PublicURL + "/#r-" + id).
	PublicURL string
	// Version goes in the User-Agent (hoop-controlplane/VERSION).
	Version string
	// Client sends the POSTs; nil means one with a 10 s timeout per attempt.
	Client *http.Client
	// FirstRetry is the wait before the first retry; 0 means 1 s. It grows
	// by 1.5 (randomised ±50%) up to 1 minute between tries.
	FirstRetry time.Duration
	// QueueSize is how many requests wait per webhook; 0 means 1000.
	QueueSize int
	// Logger receives one line per delivery, retry and drop; nil means slog.Default().
	Logger *slog.Logger
}

// Notifier delivers new approval requests to its webhooks in the background.
type Notifier struct {
	o      Options
	queues []chan store.Record
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.RWMutex
	closed bool
}

// workersPerWebhook bounds the concurrent deliveries to one receiver.
const workersPerWebhook = 4

// New starts the delivery workers. A Notifier with no webhooks does nothing.
func New(o Options) *Notifier {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.FirstRetry <= 0 {
		o.FirstRetry = time.Second
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 1000
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	n := &Notifier{o: o}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, w := range o.Webhooks {
		q := make(chan store.Record, o.QueueSize)
		n.queues = append(n.queues, q)
		for range workersPerWebhook {
			n.wg.Add(1)
			go func() {
				defer n.wg.Done()
				for rec := range q {
					n.deliver(n.ctx, w, rec)
				}
			}()
		}
	}
	return n
}

// Requested queues rec (a newly filed approval request) for every webhook and
// returns at once. A full queue drops rec for that webhook with a log line.
// Safe for concurrent use; after Close it does nothing.
func (n *Notifier) Requested(rec store.Record) {
	if n == nil {
		return
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		return
	}
	for i, q := range n.queues {
		select {
		case q <- rec:
		default:
			n.o.Logger.Warn("webhook queue full; notification dropped", "webhook", n.o.Webhooks[i].Name, "id", rec.ID)
		}
	}
}

// Close stops taking requests and waits until the queued ones are delivered
// or ctx ends; then in-flight retries are abandoned (logged).
func (n *Notifier) Close(ctx context.Context) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, q := range n.queues {
			close(q)
		}
	}
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		n.cancel()
		<-done
	}
	n.cancel()
}
