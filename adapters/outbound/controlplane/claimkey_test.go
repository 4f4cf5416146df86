package controlplane

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// dropAnswer reads the request and resets the connection without an
// answer, as a proxy that lost the Control Plane's answer does.
func dropAnswer(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }

// A keyed claim or settle whose answer was lost (the connection reset, a
// 503, a try that ran out of the timeout) is asked again with the same key
// and the same body; the answer of the repeat is the call's answer.
func TestKeyedWritesAreRetriedWithTheirKey(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	for _, tc := range []struct {
		name  string
		first http.HandlerFunc
	}{
		{"connection reset", dropAnswer},
		{"503", reply(503, apiErr("internal", "x"))},
		{"no answer within the timeout", hang},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.first, reply(200, with(approvalJSON("9f97", "EXECUTED"), "claimed", true)))
			c := newClient(t, s.URL, nil)
			c.timeout = 300 * time.Millisecond
			a, won, err := c.Claim(context.Background(), "9f97", "v1:4f0c", ports.SpendOnSent, "key-1")
			if err != nil || !won || a.Status != domain.StatusExecuted {
				t.Fatalf("claim: %+v won=%v %v; want won EXECUTED from the repeat", a, won, err)
			}
			reqs := s.requests()
			if len(reqs) != 2 || reqs[0].Body["claim_key"] != "key-1" || reqs[1].Body["claim_key"] != "key-1" {
				t.Fatalf("requests %+v; want two claims, both with claim_key key-1", reqs)
			}

			s = newServer(t, tc.first, reply(200, approvalJSON("9f97", "EXECUTED")))
			c = newClient(t, s.URL, nil)
			c.timeout = 300 * time.Millisecond
			if a, err = c.Settle(context.Background(), "9f97", "key-1", true); err != nil || a.Status != domain.StatusExecuted {
				t.Fatalf("settle: %+v %v", a, err)
			}
			if reqs = s.requests(); len(reqs) != 2 || reqs[1].Body["claim_key"] != "key-1" || reqs[1].Body["outcome"] != "accepted" {
				t.Fatalf("settle requests %+v; want two with claim_key key-1", reqs)
			}
		})
	}
}

// A claim without a key is never repeated: a Control Plane cannot tell its
// repeat from another attempt's claim.
func TestUnkeyedClaimIsNotRetried(t *testing.T) {
	s := newServer(t, dropAnswer, reply(200, with(approvalJSON("9f97", "EXECUTED"), "claimed", true)))
	_, won, err := newClient(t, s.URL, nil).Claim(context.Background(), "9f97", "v1:4f0c", ports.SpendOnSent, "")
	if won || !errors.Is(err, ports.ErrUnavailable) || len(s.requests()) != 1 {
		t.Fatalf("won=%v err=%v after %d requests; want one try, unavailable", won, err, len(s.requests()))
	}
}

// A won keyed claim whose answer echoes claim_key shows that the Control
// Plane keeps keys, and a give-back whose answer was lost is then asked
// again; one whose answer does not echo it (a Control Plane older than
// claim keys) makes the client try a give-back once, since a repeat could
// give back the next attempt's claim there. A spend is retried either way.
func TestGiveBackIsRetriedOnlyWhereClaimKeysAreKept(t *testing.T) {
	for _, echo := range []bool{true, false} {
		won := with(approvalJSON("9f97", "PROCESSING"), "claimed", true)
		if echo {
			won = with(won, "claim_key", "key-1")
		}
		s := newServer(t, reply(200, won))
		c := newClient(t, s.URL, nil)
		if _, w, err := c.Claim(context.Background(), "9f97", "v1:4f0c", ports.SpendOnAccepted, "key-1"); !w || err != nil {
			t.Fatalf("claim: won=%v %v", w, err)
		}
		if c.KeepsClaimKeys() != echo {
			t.Fatalf("echo=%v: KeepsClaimKeys %v", echo, c.KeepsClaimKeys())
		}
		for _, accepted := range []bool{false, true} {
			s := newServer(t, dropAnswer, reply(200, approvalJSON("9f97", "APPROVED")))
			u, _ := url.Parse(s.URL)
			c.base = u
			_, err := c.Settle(context.Background(), "9f97", "key-1", accepted)
			want := 2
			if !accepted && !echo {
				want = 1
			}
			if n := len(s.requests()); n != want {
				t.Fatalf("echo=%v accepted=%v: %d settle tries (err %v), want %d", echo, accepted, n, err, want)
			}
		}
	}
}

// A claim answered 200 with an approval the client cannot read may have
// won: it is reported as unavailable, as a lost answer is, so the gate
// remembers its key for the resend instead of taking it as a refusal.
func TestUnreadableWonClaimIsUnavailable(t *testing.T) {
	s := newServer(t, reply(200, with(approvalJSON("9f97", "EXECUTED"), "claimed", true, "created_at", 17)))
	_, won, err := newClient(t, s.URL, nil).Claim(context.Background(), "9f97", "v1:4f0c", ports.SpendOnSent, "key-1")
	if won || !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("won=%v err=%v; want unavailable", won, err)
	}
}
