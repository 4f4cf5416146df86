package listenertest

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// ReadConn is a client or upstream connection for a listener's fuzz
// target: reads come from R (EOF after it, or at once when R is nil),
// writes are discarded, deadlines are ignored.
type ReadConn struct{ R io.Reader }

func (c ReadConn) Read(b []byte) (int, error) {
	if c.R == nil {
		return 0, io.EOF
	}
	return c.R.Read(b)
}
func (ReadConn) Write(b []byte) (int, error)      { return len(b), nil }
func (ReadConn) Close() error                     { return nil }
func (ReadConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000} }
func (ReadConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }
func (ReadConn) SetDeadline(time.Time) error      { return nil }
func (ReadConn) SetReadDeadline(time.Time) error  { return nil }
func (ReadConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzListener returns a return-mode listener of protocol on the in-memory
// Control Plane (fakecp) with an approval rule on DELETE, DROP and UNKNOWN
// and a policy rule on TRUNCATE, so fuzzed statements reach every verdict.
func FuzzListener(tb testing.TB, protocol string, spend ports.SpendOn) *app.Listener {
	tb.Helper()
	s := app.ListenerSettings{Name: "fuzz-" + protocol, Protocol: protocol, Mode: app.ModeReturn, SpendOn: spend,
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE", "DROP", "UNKNOWN"}}}},
		Policies:  []domain.PolicyRule{{Name: "no-truncate", Match: domain.Match{Actions: []string{"TRUNCATE"}}}}}
	for _, m := range []*domain.Match{&s.Approvals[0].Match, &s.Policies[0].Match} {
		if err := m.Compile(); err != nil {
			tb.Fatal(err)
		}
	}
	return app.NewCore(app.CoreOptions{Sidecar: "fuzz", CP: fakecp.New(nil)}).Listener(s)
}
