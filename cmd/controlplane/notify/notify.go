package notify

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// Formats of a webhook's body.
const (
	FormatJSON  = "json"  // the generic JSON POST (payload.go, jsonBody)
	FormatSlack = "slack" // a Slack incoming-webhook message
)

// DefaultGiveUpAfter bounds the retries of a notification whose webhook
// sets no give_up_after: long enough for a receiver that is down for hours.
const DefaultGiveUpAfter = 72 * time.Hour

// Webhook is one configured receiver.
type Webhook struct {
	// Name identifies the webhook in logs and in the outbox (never the URL,
	// which is often a secret).
	Name string
	// URL receives the POST.
	URL string
	// Format is FormatJSON or FormatSlack.
	Format string
	// IncludeStatement sends the statement itself; otherwise only who asked,
	// where and under which rule.
	IncludeStatement bool
	// GiveUpAfter bounds the retries of one notification, counted from its
	// event; 0 means DefaultGiveUpAfter.
	GiveUpAfter time.Duration
	// Secret is the Standard Webhooks key (ParseSecret) that signs each
	// POST (webhook-signature); nil sends none.
	Secret []byte
}

// Options configure New.
type Options struct {
	// Outbox holds the notifications (store.OutboxOf); required.
	Outbox store.Outbox
	// Store, when set, is swept for expired requests and due reminders
	// (sweep.go); nil sweeps nothing.
	Store store.Store
	// Webhooks are the receivers by name; a notification for a webhook no
	// longer configured is given up with a log line.
	Webhooks []Webhook
	// Remind returns, for a request's approval_rule, when a PENDING request
	// is announced again (0: never) and the webhook it goes to ("": all).
	Remind func(rule string) (after time.Duration, escalateTo string)
	// PublicURL is the Control Plane's address as people open it, for the
	// link to a request (PublicURL + "/#r-" + id).
	PublicURL string
	// Version goes in the User-Agent (hoop-controlplane/VERSION).
	Version string
	// Client sends the POSTs; nil means one with a 10 s timeout per try.
	Client *http.Client
	// FirstRetry is the wait before the first retry; 0 means 1 s. It grows
	// by 1.5 (randomised ±50%) up to 1 minute between tries.
	FirstRetry time.Duration
	// PollEvery is how often the outbox is read for due notifications; 0
	// means 1 s. Wake reads it at once.
	PollEvery time.Duration
	// SweepEvery is how often Store is swept; 0 means 15 s.
	SweepEvery time.Duration
	// ClaimFor is how long a claimed notification is this replica's alone
	// (longer than one try); 0 means 1 minute.
	ClaimFor time.Duration
	// Logger receives one line per delivery, retry and give-up; nil means slog.Default().
	Logger *slog.Logger
}

// batch is how many notifications one replica delivers at once.
const batch = 16

// Notifier delivers the outbox's notifications in the background.
type Notifier struct {
	o      Options
	hooks  map[string]Webhook
	owner  string
	wake   chan struct{}
	ctx    context.Context // ends deliveries (Close past its deadline)
	cancel context.CancelFunc
	stop   chan struct{}
	once   sync.Once
	done   chan struct{}
	// swept is what sweeps of this Notifier queued (or found queued) already,
	// by request id and event, with when: the sweep loop's own, so a request
	// that expired or is overdue is written to the outbox once, not on every
	// sweep for as long as it stays in its look-back.
	swept map[string]time.Time
}

// New starts the delivery loop. A Notifier with no webhooks does nothing.
func New(o Options) *Notifier {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.FirstRetry <= 0 {
		o.FirstRetry = time.Second
	}
	if o.PollEvery <= 0 {
		o.PollEvery = time.Second
	}
	if o.SweepEvery <= 0 {
		o.SweepEvery = 15 * time.Second
	}
	if o.ClaimFor <= 0 {
		o.ClaimFor = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	n := &Notifier{o: o, hooks: map[string]Webhook{}, owner: uuid.NewString(),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	for _, w := range o.Webhooks {
		n.hooks[w.Name] = w
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	if len(o.Webhooks) == 0 || o.Outbox == nil {
		close(n.done)
		return n
	}
	go n.run()
	return n
}

// Names returns the webhooks' names, the argument of store.WithOutbox.
func Names(ws []Webhook) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Name
	}
	return out
}

// Wake makes the loop read the outbox now (a change was just queued).
// Safe for concurrent use and on a nil Notifier.
func (n *Notifier) Wake() {
	if n == nil {
		return
	}
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Requested wakes the loop for a newly filed request, whose notification
// its filing queued (server.Options.Requested).
func (n *Notifier) Requested(store.Record) { n.Wake() }

func (n *Notifier) run() {
	defer close(n.done)
	poll := time.NewTicker(n.o.PollEvery)
	defer poll.Stop()
	var lastSweep time.Time
	for {
		if n.o.Store != nil && time.Since(lastSweep) >= n.o.SweepEvery {
			lastSweep = time.Now()
			if added := n.sweep(n.ctx, lastSweep); added > 0 {
				continue
			}
		}
		n.pump()
		select {
		case <-n.stop:
			return
		case <-poll.C:
		case <-n.wake:
		}
	}
}

// pump delivers every due notification, a batch at a time, until a batch
// comes back short (none left due) or Close is called.
func (n *Notifier) pump() {
	for {
		select {
		case <-n.stop:
			return
		default:
		}
		due, err := n.o.Outbox.ClaimDue(n.ctx, n.owner, batch, n.o.ClaimFor, time.Now())
		if err != nil {
			if n.ctx.Err() == nil {
				n.o.Logger.Warn("webhook: cannot read the outbox; retrying", "err", err)
			}
			return
		}
		if len(due) == 0 {
			return
		}
		var wg sync.WaitGroup
		for _, nt := range due {
			wg.Add(1)
			go func() { defer wg.Done(); n.deliver(nt) }()
		}
		wg.Wait()
		if len(due) < batch {
			// The outbox had no more due: another read would find none.
			// A change queued meanwhile woke the loop (Wake), and a retry
			// comes due by the next poll.
			return
		}
	}
}

// Close stops claiming notifications and waits until the tries under way
// end or ctx ends; then they are abandoned and stay queued (another
// replica, or this one restarted, delivers them).
func (n *Notifier) Close(ctx context.Context) {
	if n == nil {
		return
	}
	n.once.Do(func() { close(n.stop) })
	select {
	case <-n.done:
	case <-ctx.Done():
		n.cancel()
		<-n.done
	}
	n.cancel()
}
