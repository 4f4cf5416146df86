package tdstest

import (
	"net"
)

// Listen serves on addr (host:port; port 0 picks a free one) until Close,
// for callers that are not a single test (the conformance harness's
// stand-in, bench/mssqlupstream); it returns the address.
func (s *Server) Listen(addr string) (string, error) {
	enc, err := s.encryption()
	if err != nil {
		return "", err
	}
	s.enc = enc
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	s.ln = ln
	s.done = make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.serve(c) }()
		}
	}()
	return ln.Addr().String(), nil
}

// Close stops a server started with Listen and waits for its connections
// to end.
func (s *Server) Close() error {
	close(s.done)
	err := s.ln.Close()
	s.wg.Wait()
	return err
}
