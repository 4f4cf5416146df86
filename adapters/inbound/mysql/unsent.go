package mysql

import (
	"fmt"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/hangup"
)

// upstreamOpen checks, before an approved statement (t, a claimed
// approval) is written, that the upstream has not ended the connection
// meanwhile (wait_timeout or a KILL while the gate held the statement,
// when nothing reads the upstream: hangup.Closed). An upstream that did
// never receives the statement, so t is given back (domain.NotSent) and
// the client gets ERR 1184 (08S01) saying so, then the error ends the
// session: the client reconnects and its resend uses the approval. Nothing
// is probed without a ticket.
func (s *session) upstreamOpen(t *app.Ticket, seq byte) error {
	if t == nil {
		return nil
	}
	err := hangup.Closed(s.ur, s.up.SetReadDeadline)
	if err == nil {
		return nil
	}
	t.GiveBack(domain.NotSent("the upstream had closed the connection: " + err.Error()))
	s.log.Info("mysql upstream closed the connection before an approved statement was sent; approval given back, connection closed",
		"approval_id", t.ApprovalID(), "error", err)
	s.reply(seq, errUpstreamGone.With("hoop sidecar: the upstream closed this connection before the approved statement was sent; "+
		"nothing ran and the approval is kept: reconnect and resend the identical statement"))
	return fmt.Errorf("upstream closed before the approved statement was sent: %w", err)
}
