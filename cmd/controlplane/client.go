package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// Defaults of the client commands.
const (
	defaultURL = "http://127.0.0.1:8080"
	envURL     = "HOOP_CONTROLPLANE_URL"
	envToken   = "HOOP_APPROVER_TOKEN"
)

// clientFlags are --url and --token of every client command. Their env
// fallbacks are read at run time so --help never prints a token.
type clientFlags struct{ url, token string }

func (f *clientFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.url, "url", "", "Control Plane URL (default $"+envURL+", else "+defaultURL+")")
	cmd.Flags().StringVar(&f.token, "token", "", "approver token (default $"+envToken+"; prefer the variable: a flag shows in ps)")
}

// apiClient calls the approver API.
type apiClient struct {
	base  string
	token string
	hc    *http.Client
}

func (f *clientFlags) client() (*apiClient, error) {
	base := f.url
	if base == "" {
		base = os.Getenv(envURL)
	}
	if base == "" {
		base = defaultURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url %q is not an http(s) URL", base)
	}
	tok := f.token
	if tok == "" {
		tok = os.Getenv(envToken)
	}
	if tok == "" {
		return nil, errors.New("no approver token: set " + envToken + " (or pass --token)")
	}
	return &apiClient{base: strings.TrimRight(base, "/"), token: tok, hc: &http.Client{Timeout: 30 * time.Second}}, nil
}

// apiError is a non-2xx answer.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string {
	if e.Code == "unauthorized" {
		return "the Control Plane refused the approver token (check --token or " + envToken + ")"
	}
	return fmt.Sprintf("%s (%s, HTTP %d)", e.Message, e.Code, e.Status)
}

// call sends method path with body (JSON, or none when nil) and decodes a
// 2xx answer into out.
func (c *apiClient) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the Control Plane at %s: %w", c.base, unwrapURLError(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("reading the answer of %s: %w", c.base, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Code, Message string }
		if json.Unmarshal(raw, &e) != nil || e.Code == "" {
			return fmt.Errorf("HTTP %d from %s%s, which is not a Control Plane API answer (is --url right?)", resp.StatusCode, c.base, path)
		}
		return &apiError{Status: resp.StatusCode, Code: e.Code, Message: e.Message}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("the answer of %s%s is not the JSON expected: %w", c.base, path, err)
		}
	}
	return nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
