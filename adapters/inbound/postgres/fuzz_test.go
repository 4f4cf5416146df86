package postgres

import (
	"bufio"
	"bytes"
	"log/slog"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/internal/tlsconf"
	"github.com/hoophq/sidecar/ports"
)

// fuzzListener is a return-mode listener on the in-memory Control Plane
// with an approval rule (DELETE, DROP, TRUNCATE, FUNCTION_CALL) and a
// policy rule (ALTER SYSTEM), so fuzzed statements reach every verdict.
func fuzzListener(tb testing.TB, ts app.TLSServer) *app.Listener {
	tb.Helper()
	s := app.ListenerSettings{Name: "pg", Protocol: "postgres", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent, TLS: ts,
		Approvals: []domain.ApprovalRule{{Name: "destructive",
			Match: domain.Match{Actions: []string{"DELETE", "DROP", "TRUNCATE", "FUNCTION_CALL"}}}},
		Policies: []domain.PolicyRule{{Name: "no-system", Match: domain.Match{Actions: []string{"ALTER_SYSTEM"}}}}}
	for _, m := range []*domain.Match{&s.Approvals[0].Match, &s.Policies[0].Match} {
		if err := m.Compile(); err != nil {
			tb.Fatal(err)
		}
	}
	return app.NewCore(app.CoreOptions{Sidecar: "fuzz", CP: fakecp.New(nil)}).Listener(s)
}

// FuzzStartup feeds a client's first bytes to the startup: SSLRequest,
// GSSENCRequest, CancelRequest, direct TLS (the listener has a
// certificate) and the StartupMessage. The upstream address is empty, so a
// well-formed StartupMessage ends at the dial with a FATAL to the client.
// Any input must end in an error or a session, never a panic.
func FuzzStartup(f *testing.F) {
	cert, key := writeCert(f, f.TempDir())
	l := fuzzListener(f, app.TLSServer{CertFile: cert, KeyFile: key})
	certs := tlsconf.NewCertLoader(l)
	p := New(nil)
	log := slog.New(slog.DiscardHandler)
	f.Fuzz(func(_ *testing.T, data []byte) {
		if s, _ := p.startup(listenertest.ReadConn{R: bytes.NewReader(data)}, l, certs, log); s != nil {
			s.up.Close()
		}
	})
}

// FuzzFrames feeds a logged-in session a stream of messages from both
// sides: each record is one direction byte (even: from the client, odd:
// from the upstream) followed by one protocol message (type, length, body).
// Client messages go through readFrame and fromClient (Query, Parse, Bind,
// Describe, Execute, Close, Sync, Flush, FunctionCall, SASL, Terminate);
// upstream messages through fromUpstream (ErrorResponse, ReadyForQuery,
// AuthenticationSASL, BackendKeyData, ParameterStatus, ParameterDescription,
// CommandComplete…). Nothing answers in between, so the session runs as if
// its relay had ended (waits return at once). Any input must end in an
// error or EOF, never a panic or a hang.
func FuzzFrames(f *testing.F) {
	l := fuzzListener(f, app.TLSServer{})
	p := New(nil)
	log := slog.New(slog.DiscardHandler)
	f.Fuzz(func(_ *testing.T, data []byte) {
		s := newSession(p, l, log, listenertest.ReadConn{}, bufio.NewReader(listenertest.ReadConn{}), listenertest.ReadConn{})
		s.user, s.database = "fuzz", "fuzz"
		s.relayDone = true
		s.push(&expect{kind: expStartup, unit: &unit{}})
		s.authed.Store(true)
		defer func() {
			for _, k := range s.cancelKeys {
				p.cancels.remove(k, s)
			}
		}()
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			dir, err := r.ReadByte()
			if err != nil {
				return
			}
			typ, frame, err := readFrame(r)
			if err != nil {
				return
			}
			if dir%2 == 0 {
				err = s.fromClient(typ, frame)
			} else {
				err = s.locked(func() error { return s.fromUpstream(typ, frame) })
			}
			if err != nil {
				return
			}
		}
	})
}
