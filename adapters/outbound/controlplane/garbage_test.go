package controlplane

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

const (
	nginx502  = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	nginx404  = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	loginPage = "<!doctype html><html><body><form action=\"/oauth2/start\">Sign in</form></body></html>"
)

// Answers that are not the contract's shape (a proxy's page, garbage, a
// missing version header on a body that is not JSON) are not the Control
// Plane saying it is older: they read as unavailable, so a waiter keeps
// waiting through them (docs/control-plane-api.md).
func TestGarbageIsUnavailableNotOlder(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"HTML 502 of a proxy":                replyRaw("", 502, "text/html", nginx502),
		"HTML 404 of a proxy":                replyRaw("", 404, "text/html", nginx404),
		"HTML 404 of a proxy, no type":       replyRaw("", 404, "", nginx404),
		"HTML 200 login page":                replyRaw("", 200, "text/html; charset=utf-8", loginPage),
		"HTML 200 labelled JSON":             replyRaw("", 200, "application/json", loginPage),
		"200 broken JSON, no header":         replyRaw("", 200, "application/json", `{"id": "9f97", "status": "PEN`),
		"200 empty body, no header":          replyRaw("", 200, "", ""),
		"404 empty body, no header":          replyRaw("", 404, "", ""),
		"403 text of a proxy, no header":     replyRaw("", 403, "text/plain", "Forbidden"),
		"200 version header not a number":    replyRaw("v1", 200, "application/json", `{"id": "9f97", "status": "PENDING"}`),
		"HTML 200 labelled JSON, header v2x": replyRaw("2x", 200, "application/json", loginPage),
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, h)
			var obs []observation
			_, err := newClient(t, s.URL, &obs).Get(context.Background(), "9f97")
			if !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrOlder) {
				t.Fatalf("err = %v, want ErrUnavailable and not ErrOlder", err)
			}
			if len(obs) != 1 || obs[0].Kind != "unavailable" {
				t.Fatalf("observations %+v, want one get/unavailable", obs)
			}
			if n := len(s.requests()); n != readTries {
				t.Fatalf("%d requests, want %d (unavailable is retried)", n, readTries)
			}
		})
	}
}

// The writes see the same garbage as unavailable (never retried).
func TestGarbageIsUnavailableOnWrites(t *testing.T) {
	s := newServer(t, replyRaw("", 502, "text/html", nginx502), replyRaw("", 404, "text/html", nginx404),
		replyRaw("", 200, "text/html", loginPage))
	c := newClient(t, s.URL, nil)
	if _, err := c.File(context.Background(), fileReq); !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrOlder) {
		t.Fatalf("File through a proxy's 502 page: %v, want ErrUnavailable", err)
	}
	if _, _, err := c.Claim(context.Background(), "9f97", "v1:4f0c", ports.SpendOnSent, ""); !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrOlder) {
		t.Fatalf("Claim through a proxy's 404 page: %v, want ErrUnavailable", err)
	}
	if _, err := c.Settle(context.Background(), "9f97", "", true); !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrOlder) {
		t.Fatalf("Settle answered by a login page: %v, want ErrUnavailable", err)
	}
	if err := c.Ping(context.Background()); !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrOlder) {
		t.Fatalf("Ping answered by a login page: %v, want ErrUnavailable", err)
	}
}

// A proxy's page between two tries does not end a read: the retry gets the
// Control Plane's answer.
func TestGetRetriesAProxyPageThenReads(t *testing.T) {
	s := newServer(t, replyRaw("", 404, "text/html", nginx404), reply(200, approvalJSON("9f97", "APPROVED")))
	a, err := newClient(t, s.URL, nil).Get(context.Background(), "9f97")
	if err != nil || a.Status != domain.StatusApproved {
		t.Fatalf("Get = %+v, %v; want APPROVED after the retry", a, err)
	}
}

// What a Control Plane says about its own version still reads as older.
func TestOlderNeedsTheControlPlaneToSaySo(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"JSON 200 without the header (before the contract)": replyVersion("", 200, approvalJSON("9f97", "PENDING")),
		"JSON 404 without the header (route missing there)": replyVersion("", 404, map[string]any{"message": "Not Found"}),
		"version 0":                      replyVersion("0", 200, approvalJSON("9f97", "PENDING")),
		"version 0 on a 404 page":        replyRaw("0", 404, "text/html", nginx404),
		"text 404 of a v1 Control Plane": replyRaw("1", 404, "text/plain", "404 page not found\n"),
		"text 405 of a v1 Control Plane": replyRaw("1", 405, "text/plain", "Method Not Allowed\n"),
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, h)
			_, err := newClient(t, s.URL, nil).Get(context.Background(), "9f97")
			if !errors.Is(err, ports.ErrOlder) {
				t.Fatalf("err = %v, want ErrOlder", err)
			}
			if n := len(s.requests()); n != 1 {
				t.Fatalf("%d requests, want 1 (older is never retried)", n)
			}
		})
	}
}
