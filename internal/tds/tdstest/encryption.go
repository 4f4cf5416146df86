package tdstest

import (
	"crypto/tls"
	"testing"

	"github.com/hoophq/sidecar/internal/tds/tdstls"
)

// encryption returns the negotiator for s's Encryption setting, with a
// self-signed certificate (for 127.0.0.1 and localhost) when s.TLS is nil.
func (s *Server) encryption(t testing.TB) *tdstls.Server {
	t.Helper()
	if s.Encryption == tdstls.NotSupported {
		return &tdstls.Server{Setting: tdstls.NotSupported}
	}
	cfg := s.TLS
	if cfg == nil {
		cert, _, err := tdstls.SelfSigned("127.0.0.1", "localhost")
		if err != nil {
			t.Fatalf("tdstest: %v", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	return &tdstls.Server{Setting: s.Encryption, Config: cfg}
}

// Outcomes returns the encryption each connection negotiated so far, in the
// order their PRELOGIN exchanges ended.
func (s *Server) Outcomes() []tdstls.Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tdstls.Outcome(nil), s.outcomes...)
}
