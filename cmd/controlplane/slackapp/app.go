package slackapp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/slack-go/slack"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// Options configure New.
type Options struct {
	// BotToken is the app's bot token (xoxb-…), with the chat:write scope.
	BotToken string
	// SigningSecret is the app's signing secret, for the interactivity endpoint.
	SigningSecret string
	// Channel is the channel id (or name) new requests are posted to.
	Channel string
	// APIURL is the Web API's base ("https://slack.com/api/" when ""); a
	// testing aid, for a Slack stand-in.
	APIURL string
	// PublicURL is the Control Plane's web page, for the link to a request.
	PublicURL string
	// IncludeStatement shows the statement itself in the message.
	IncludeStatement bool
	// Store and Policies decide the clicks (through policy.Decider).
	Store    store.Store
	Policies policy.Set
	// SlackUsers maps a Slack member id (approvers[].slack_user) to the
	// approver's name; a click by anyone else decides nothing.
	SlackUsers map[string]string
	// GiveUpAfter bounds the retries of one post; 0 means 10 minutes.
	GiveUpAfter time.Duration
	// Logger receives a line per post, decision and refusal; nil: slog.Default().
	Logger *slog.Logger
	// Now is the clock of decisions; nil means time.Now. (The signature's
	// 5-minute window always reads this machine's clock.)
	Now func() time.Time
	// Client makes the Web API calls; nil means one with a 10 s timeout.
	Client *http.Client
}

// App is the Slack app: it posts requests (Requested) and serves the
// interactivity endpoint (ServeHTTP).
type App struct {
	o   Options
	api *slack.Client
	dec policy.Decider
	wg  sync.WaitGroup
	ctx context.Context
	end context.CancelFunc
}

// New returns the App; it makes no call to Slack until a request is filed.
func New(o Options) *App {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.GiveUpAfter <= 0 {
		o.GiveUpAfter = 10 * time.Minute
	}
	opts := []slack.Option{slack.OptionHTTPClient(o.Client)}
	if o.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(o.APIURL))
	}
	a := &App{o: o, api: slack.New(o.BotToken, opts...), dec: policy.Decider{Store: o.Store, Set: o.Policies}}
	a.ctx, a.end = context.WithCancel(context.Background())
	return a
}

// Requested posts rec (a newly filed request) to the channel in the
// background and returns at once. A failed post is retried with exponential
// backoff (Slack's Retry-After honoured) until GiveUpAfter, then logged.
func (a *App) Requested(rec store.Record) {
	if a == nil {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.post(a.ctx, rec)
	}()
}

func (a *App) post(ctx context.Context, rec store.Record) {
	text, blocks := message(rec, a.o.PublicURL, a.o.IncludeStatement, a.dec.Required(rec))
	b := backoff.NewExponentialBackOff()
	b.MaxInterval = time.Minute
	ts, err := backoff.Retry(ctx, func() (string, error) {
		_, ts, err := a.api.PostMessageContext(ctx, a.o.Channel, slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...))
		var rl *slack.RateLimitedError
		var se slack.SlackErrorResponse
		switch {
		case errors.As(err, &rl):
			return "", backoff.RetryAfter(int(max(rl.RetryAfter/time.Second, 1)))
		case errors.As(err, &se): // Slack said no (channel_not_found, invalid_auth, …): trying again cannot help
			return "", backoff.Permanent(err)
		}
		return ts, err
	}, backoff.WithBackOff(b), backoff.WithMaxElapsedTime(a.o.GiveUpAfter))
	if err != nil {
		a.o.Logger.Error("slack: cannot post the request", "id", rec.ID, "channel", a.o.Channel, "err", err)
		return
	}
	a.o.Logger.Info("slack: request posted", "id", rec.ID, "channel", a.o.Channel, "ts", ts)
}

// Close waits for the posts under way until ctx ends, then abandons them.
func (a *App) Close(ctx context.Context) {
	if a == nil {
		return
	}
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		a.end()
		<-done
	}
	a.end()
}
