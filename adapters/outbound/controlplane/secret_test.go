package controlplane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/ports"
)

// echoAuth answers status with a message that repeats the Authorization
// header, like a careless proxy would.
func echoAuth(status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		reply(status, apiErr("unauthorized", "bad credentials: "+r.Header.Get("Authorization")))(w, r)
	}
}

func TestTokenNeverInErrors(t *testing.T) {
	s := newServer(t, echoAuth(401))
	c := newClient(t, s.URL, nil)
	ctx := context.Background()
	errs := map[string]error{}
	_, errs["file"] = c.File(ctx, fileReq)
	_, errs["get"] = c.Get(ctx, "x")
	_, errs["list"] = c.List(ctx, "", 0)
	_, _, errs["claim"] = c.Claim(ctx, "x", "fp", ports.SpendOnSent, "")
	_, errs["settle"] = c.Settle(ctx, "x", "", true)
	_, errs["info"] = c.Info(ctx)

	// A network error (nothing listens any more) and a 500 echo too.
	s5 := newServer(t, echoAuth(500))
	_, errs["get 500"] = newClient(t, s5.URL, nil).Get(ctx, "x")
	dead := newServer(t, reply(200, nil))
	dead.Close()
	_, errs["get, nothing listens"] = newClient(t, dead.URL, nil).Get(ctx, "x")

	for name, err := range errs {
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(text, testToken) {
				t.Fatalf("%s: error text holds the token: %s", name, text)
			}
		}
	}
	if !errors.Is(errs["get"], ports.ErrUnauthorized) || !errors.Is(errs["get 500"], ports.ErrUnavailable) ||
		!errors.Is(errs["get, nothing listens"], ports.ErrUnavailable) {
		t.Fatalf("kinds: %v / %v / %v", errs["get"], errs["get 500"], errs["get, nothing listens"])
	}
}

func TestTokenNeverPrinted(t *testing.T) {
	s := newServer(t, reply(200, nil))
	opts := Options{URL: s.URL, Token: StaticToken(testToken), SidecarVersion: "1.250.0"}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	jl := slog.New(slog.NewJSONHandler(&logs, nil))
	tl := slog.New(slog.NewTextHandler(&logs, nil))
	jl.Info("x", "opts", opts, "client", c, "token", opts.Token)
	tl.Info("x", "opts", opts, "client", c, "token", opts.Token)
	texts := []string{logs.String()}
	// Every JSON form must exist (a marshal error would leave nothing to
	// check) and hold no token: Options, and each token source alone and in
	// a struct, as a caller's config dump would hold them.
	env := "HOOP_TEST_SECRET_ENV"
	t.Setenv(env, testToken)
	fromEnv, err := TokenFromEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(testToken), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, err := TokenFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{opts, &opts, opts.Token, fromEnv, fromFile,
		struct{ A, B, C TokenSource }{opts.Token, fromEnv, fromFile}} {
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T has no JSON form: %v", v, err)
		}
		if !strings.Contains(string(js), Redacted) {
			t.Fatalf("JSON of %T is %s, want %s in place of the token", v, js, Redacted)
		}
		texts = append(texts, string(js))
	}
	for _, v := range []any{opts, &opts, c, *c, opts.Token} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			texts = append(texts, fmt.Sprintf(verb, v))
		}
	}
	for _, text := range texts {
		if strings.Contains(text, testToken) || strings.Contains(text, fmt.Sprintf("%x", testToken)) {
			t.Fatalf("printed form holds the token: %s", text)
		}
	}
	if !strings.Contains(fmt.Sprint(opts), Redacted) || !strings.Contains(fmt.Sprint(opts), s.URL) {
		t.Fatalf("Options print as %s, want the URL and %s", opts, Redacted)
	}
}

func TestTokenFromEnv(t *testing.T) {
	t.Setenv("HOOP_TEST_TOKEN", "  "+testToken+"\n")
	ts, err := TokenFromEnv("HOOP_TEST_TOKEN")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := ts.Token(); v != testToken {
		t.Fatalf("token not trimmed: %q", v)
	}
	if s := fmt.Sprintf("%+v %#v", ts, ts); strings.Contains(s, testToken) || !strings.Contains(s, "HOOP_TEST_TOKEN") {
		t.Fatalf("printed as %s", s)
	}

	t.Setenv("HOOP_TEST_EMPTY", " \t\n")
	t.Setenv("HOOP_TEST_BAD", "abcd efgh")
	for name, want := range map[string]string{
		"HOOP_TEST_UNSET_VARIABLE": "environment variable HOOP_TEST_UNSET_VARIABLE is not set",
		"HOOP_TEST_EMPTY":          "environment variable HOOP_TEST_EMPTY is empty",
		"HOOP_TEST_BAD":            "environment variable HOOP_TEST_BAD holds whitespace",
	} {
		_, err := TokenFromEnv(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: err = %v, want it to say %q", name, err, want)
		}
		if strings.Contains(err.Error(), "abcd") {
			t.Fatalf("error holds the value: %v", err)
		}
	}
}

func TestTokenFromFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "token")
	if err := os.WriteFile(p, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := TokenFromFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := ts.Token(); v != testToken {
		t.Fatalf("token = %q", v)
	}
	if s := fmt.Sprintf("%v %+v %#v", ts, ts, ts); strings.Contains(s, testToken) || !strings.Contains(s, p) {
		t.Fatalf("printed as %s", s)
	}

	// A rotated file is picked up.
	rotated := "rotated-token-abcdefgh"
	if err := os.WriteFile(p, []byte(rotated), 0o600); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	_ = os.Chtimes(p, future, future)
	if v, err := ts.Token(); err != nil || v != rotated {
		t.Fatalf("after rotation token=%q err=%v", v, err)
	}

	empty := filepath.Join(dir, "empty")
	_ = os.WriteFile(empty, []byte("\n  \n"), 0o600)
	for path, want := range map[string]string{
		filepath.Join(dir, "missing"): "file " + filepath.Join(dir, "missing") + ": no such file",
		empty:                         "file " + empty + " is empty",
	} {
		_, err := TokenFromFile(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want it to say %q", err, want)
		}
	}
}

func TestTokenFailureIsReported(t *testing.T) {
	s := newServer(t, reply(200, approvalJSON("9f97", "PENDING")))
	c, err := New(Options{URL: s.URL, Token: StaticToken("  ")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "9f97")
	if !errors.Is(err, ErrNoToken) || ErrKind(err) != "other" {
		t.Fatalf("err = %v", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("%d requests sent without a token", n)
	}
}

func TestTimeoutIsUnavailable(t *testing.T) {
	release := make(chan struct{})
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	s := newServer(t, hang)
	t.Cleanup(func() { close(release) })
	c, err := New(Options{URL: s.URL, Token: StaticToken(testToken), Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, ferr := c.File(context.Background(), fileReq)
	_, gerr := c.Get(context.Background(), "9f97")
	for name, err := range map[string]error{"file": ferr, "get": gerr} {
		if !errors.Is(err, ports.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: err = %v, want ErrUnavailable from a deadline", name, err)
		}
	}
	// File once, Get once: a try that timed out is not retried
	// (TestGetDoesNotRetryATryThatTimedOut).
	if n := len(s.requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestCallerContextBoundsRetries(t *testing.T) {
	s := newServer(t, reply(503, nil))
	c := newClient(t, s.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Get(ctx, "9f97")
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("%d requests after the caller left", n)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"no url":     {Token: StaticToken(testToken)},
		"ftp url":    {URL: "ftp://cp", Token: StaticToken(testToken)},
		"no host":    {URL: "http://", Token: StaticToken(testToken)},
		"query":      {URL: "http://cp/?a=b", Token: StaticToken(testToken)},
		"user info":  {URL: "http://user:pw-secret@cp", Token: StaticToken(testToken)},
		"no token":   {URL: "http://cp"},
		"unparsable": {URL: "http://cp:port:x/%zz", Token: StaticToken(testToken)},
	} {
		_, err := New(o)
		if err == nil {
			t.Fatalf("%s: New accepted %v", name, o)
		}
		if strings.Contains(err.Error(), "pw-secret") {
			t.Fatalf("%s: error holds the URL password: %v", name, err)
		}
	}
}
