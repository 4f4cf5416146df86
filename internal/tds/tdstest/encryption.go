package tdstest

import (
	"crypto/tls"
	"fmt"

	"github.com/hoophq/sidecar/internal/tds/tdstls"
)

// encryption returns the negotiator for s's Encryption setting, with a
// self-signed certificate (for 127.0.0.1 and localhost) when s.TLS is nil.
func (s *Server) encryption() (*tdstls.Server, error) {
	if s.Encryption == tdstls.NotSupported {
		return &tdstls.Server{Setting: tdstls.NotSupported}, nil
	}
	cfg := s.TLS
	if cfg == nil {
		cert, _, err := tdstls.SelfSigned("127.0.0.1", "localhost")
		if err != nil {
			return nil, fmt.Errorf("tdstest: %v", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	return &tdstls.Server{Setting: s.Encryption, Config: cfg}, nil
}

// Outcomes returns the encryption each connection negotiated so far, in the
// order their PRELOGIN exchanges ended.
func (s *Server) Outcomes() []tdstls.Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tdstls.Outcome(nil), s.outcomes...)
}
