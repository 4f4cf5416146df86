package controlplane

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

func TestGetFullObject(t *testing.T) {
	body := with(approvalJSON("9f97", "REJECTED"), "decided_at", "2026-09-29T14:03:40Z",
		"rejection_reason", "not during the freeze")
	s := newServer(t, reply(200, body))
	a, err := newClient(t, s.URL, nil).Get(context.Background(), "9f97")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != domain.StatusRejected || a.RejectionReason != "not during the freeze" ||
		a.DecidedAt == nil || !a.DecidedAt.Equal(mustTime("2026-09-29T14:03:40Z")) ||
		a.ExpiresAt == nil || !a.ExpiresAt.Equal(mustTime("2026-09-29T14:32:11Z")) {
		t.Fatalf("approval = %+v", a)
	}
	r := s.requests()[0]
	if r.Method != "GET" || r.Path != "/api/sidecars/reviews/9f97" || r.Header.Get("Authorization") != "Bearer "+testToken {
		t.Fatalf("request %s %s auth=%q", r.Method, r.Path, r.Header.Get("Authorization"))
	}
}

func TestGetNullAndAbsentFields(t *testing.T) {
	body := with(approvalJSON("9f97", "PENDING"), "expires_at", deleteKey, "decided_at", nil, "rejection_reason", nil)
	s := newServer(t, reply(200, body))
	a, err := newClient(t, s.URL, nil).Get(context.Background(), "9f97")
	if err != nil {
		t.Fatal(err)
	}
	if a.DecidedAt != nil || a.ExpiresAt != nil || a.RejectionReason != "" || a.Status != domain.StatusPending {
		t.Fatalf("approval = %+v, want no decided_at, expires_at or rejection_reason", a)
	}
}

func TestGetUnknownStatusKeptVerbatim(t *testing.T) {
	s := newServer(t, reply(200, approvalJSON("9f97", "On_Hold")))
	a, err := newClient(t, s.URL, nil).Get(context.Background(), "9f97")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != "On_Hold" || domain.NextFor(a.Status) != domain.NextStop {
		t.Fatalf("status = %q next = %q, want On_Hold / stop", a.Status, domain.NextFor(a.Status))
	}
}

func TestGetEscapesTheID(t *testing.T) {
	s := newServer(t, reply(200, approvalJSON("a/b c", "PENDING")))
	if _, err := newClient(t, s.URL, nil).Get(context.Background(), "a/b c"); err != nil {
		t.Fatal(err)
	}
	if p := s.requests()[0].Path; p != "/api/sidecars/reviews/a%2Fb%20c" {
		t.Fatalf("path = %q", p)
	}
}

func TestBaseURLPathPrefixIsKept(t *testing.T) {
	s := newServer(t, reply(200, approvalJSON("9f97", "PENDING")))
	if _, err := newClient(t, s.URL+"/cp/", nil).Get(context.Background(), "9f97"); err != nil {
		t.Fatal(err)
	}
	if p := s.requests()[0].Path; p != "/cp/api/sidecars/reviews/9f97" {
		t.Fatalf("path = %q", p)
	}
}

func TestGetErrors(t *testing.T) {
	cases := []struct {
		name  string
		reply http.HandlerFunc
		want  error
		kind  string
		tries int
	}{
		{"404 not_found", reply(404, apiErr("not_found", "no such approval")), ports.ErrNotFound, "not_found", 1},
		{"401 unauthorized", reply(401, apiErr("unauthorized", "unknown token")), ports.ErrUnauthorized, "unauthorized", 1},
		{"404 plain text, route missing on a v1 Control Plane", reply(404, "404 page not found\n"), ports.ErrOlder, "older", 1},
		{"404 JSON without version header, route missing before the contract", replyVersion("", 404, map[string]any{"error": "no route"}), ports.ErrOlder, "older", 1},
		{"404 plain text without version header, a proxy's", replyRaw("", 404, "text/plain", "404 page not found\n"), ports.ErrUnavailable, "unavailable", 3},
		{"404 json without code", reply(404, map[string]any{"error": "nope"}), ports.ErrOlder, "older", 1},
		{"405 plain text", reply(405, "method not allowed"), ports.ErrOlder, "older", 1},
		{"200 without version header", replyVersion("", 200, approvalJSON("9f97", "PENDING")), ports.ErrOlder, "older", 1},
		{"200 with version 0", replyVersion("0", 200, approvalJSON("9f97", "PENDING")), ports.ErrOlder, "older", 1},
		{"200 with version garbage", replyVersion("v1", 200, approvalJSON("9f97", "PENDING")), ports.ErrUnavailable, "unavailable", 3},
		{"500 internal, retried", reply(500, apiErr("internal", "boom")), ports.ErrUnavailable, "unavailable", 3},
		{"503 always, retried", reply(503, nil), ports.ErrUnavailable, "unavailable", 3},
		{"302 redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
		}, ErrRejected, "other", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.reply)
			var obs []observation
			_, err := newClient(t, s.URL, &obs).Get(context.Background(), "9f97")
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if n := len(s.requests()); n != tc.tries {
				t.Fatalf("%d requests, want %d", n, tc.tries)
			}
			if len(obs) != 1 || obs[0].Call != "get" || obs[0].Kind != tc.kind {
				t.Fatalf("observations %+v, want one get/%s", obs, tc.kind)
			}
		})
	}
}

func TestGetRetries503Then200(t *testing.T) {
	s := newServer(t, reply(503, apiErr("internal", "starting")), reply(200, approvalJSON("9f97", "APPROVED")))
	var obs []observation
	a, err := newClient(t, s.URL, &obs).Get(context.Background(), "9f97")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != domain.StatusApproved {
		t.Fatalf("status %q", a.Status)
	}
	if n := len(s.requests()); n != 2 {
		t.Fatalf("%d requests, want 2 (one retry)", n)
	}
	if len(obs) != 1 || obs[0].Kind != "" {
		t.Fatalf("observations %+v, want one success", obs)
	}
}

func TestGetRetriesNetworkError(t *testing.T) {
	// The first answer hangs up without a response; the retry succeeds.
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	s := newServer(t, hangUp, reply(200, approvalJSON("9f97", "PENDING")))
	if _, err := newClient(t, s.URL, nil).Get(context.Background(), "9f97"); err != nil {
		t.Fatal(err)
	}
	if n := len(s.requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestListQueryAndOrder(t *testing.T) {
	s := newServer(t, reply(200, map[string]any{"reviews": []any{
		approvalJSON("b", "PENDING"), with(approvalJSON("a", "PENDING"), "created_at", "2026-09-29T13:00:00Z"),
	}}))
	got, err := newClient(t, s.URL, nil).List(context.Background(), domain.StatusPending, 20)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ID)
	}
	if !reflect.DeepEqual(ids, []string{"b", "a"}) {
		t.Fatalf("ids = %v, want the Control Plane's order [b a]", ids)
	}
	r := s.requests()[0]
	if r.Method != "GET" || r.Path != "/api/sidecars/reviews" || r.RawQuery != "limit=20&status=PENDING" {
		t.Fatalf("request %s %s?%s", r.Method, r.Path, r.RawQuery)
	}
}

func TestListWithoutFilters(t *testing.T) {
	s := newServer(t, reply(200, map[string]any{"reviews": []any{}}))
	got, err := newClient(t, s.URL, nil).List(context.Background(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || len(got) != 0 {
		t.Fatalf("got %#v, want an empty, non-nil list", got)
	}
	if q := s.requests()[0].RawQuery; q != "" {
		t.Fatalf("query = %q, want none", q)
	}
}

func TestListErrors(t *testing.T) {
	cases := []struct {
		name  string
		reply http.HandlerFunc
		want  error
		tries int
	}{
		{"400 invalid", reply(400, apiErr("invalid", "limit out of range")), ErrRejected, 1},
		{"401", reply(401, apiErr("unauthorized", "x")), ports.ErrUnauthorized, 1},
		{"502 retried", reply(502, nil), ports.ErrUnavailable, 3},
		{"no version header", replyVersion("", 200, map[string]any{"reviews": []any{}}), ports.ErrOlder, 1},
		{"a review without id", reply(200, map[string]any{"reviews": []any{map[string]any{"status": "PENDING"}}}), ErrBadAnswer, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.reply)
			_, err := newClient(t, s.URL, nil).List(context.Background(), "", 0)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if n := len(s.requests()); n != tc.tries {
				t.Fatalf("%d requests, want %d", n, tc.tries)
			}
		})
	}
}

func TestInfo(t *testing.T) {
	s := newServer(t, reply(200, map[string]any{"api_version": 1, "version": "0.3.0", "sidecar": "demo"}))
	in, err := newClient(t, s.URL, nil).Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if in != (Info{APIVersion: 1, Version: "0.3.0", Sidecar: "demo"}) {
		t.Fatalf("info = %+v", in)
	}
	if p := s.requests()[0].Path; p != "/api/sidecars/info" {
		t.Fatalf("path %q", p)
	}
	if err := newClient(t, s.URL, nil).Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestInfoOlder(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"api_version 0":  reply(200, map[string]any{"api_version": 0, "version": "0.1", "sidecar": "demo"}),
		"route missing":  reply(404, "404 page not found"),
		"JSON 404":       replyVersion("", 404, map[string]any{"message": "not found"}),
		"405 no json":    reply(405, ""),
		"no header, 200": replyVersion("", 200, map[string]any{"api_version": 1}),
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, h)
			_, err := newClient(t, s.URL, nil).Info(context.Background())
			if !errors.Is(err, ports.ErrOlder) || !errors.Is(newClient(t, s.URL, nil).Ping(context.Background()), ports.ErrOlder) {
				t.Fatalf("err = %v, want ErrOlder", err)
			}
			if n := len(s.requests()); n != 2 {
				t.Fatalf("%d requests for Info and Ping, want 2 (older is never retried)", n)
			}
		})
	}
}

func TestInfoRetries503(t *testing.T) {
	s := newServer(t, reply(503, nil), reply(200, map[string]any{"api_version": 1, "version": "0.3.0", "sidecar": "demo"}))
	if _, err := newClient(t, s.URL, nil).Info(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(s.requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

// A Control Plane that accepts and never answers: the try that ran out of
// Options.Timeout is not tried again, so a status path or an MCP read
// answers after one timeout, not three (a hang is not a blip; 5xx and
// refused connections are still retried, see the two tests above).
func TestGetDoesNotRetryATryThatTimedOut(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	s := newServer(t, hang)
	_, err := newClient(t, s.URL, nil).Get(context.Background(), "9f97")
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Fatalf("%d requests, want 1 (a timed-out try is not retried)", n)
	}
}
