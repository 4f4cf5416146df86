package hangup

import (
	"bufio"
	"errors"
	"os"
	"time"
)

// probeWait is how long Closed waits for the peer's close or bytes: long
// enough for the kernel to report what it has already received, short
// enough to cost nothing on a statement a person approved.
const probeWait = time.Millisecond

// ErrUnasked is Closed's answer for a peer that sent bytes while nothing
// was asked of it: a server ending an idle connection (MySQL 8's ERR 4031
// before the close).
var ErrUnasked = errors.New("the upstream sent bytes while nothing was asked of it (it is closing the connection)")

// Closed tells, before a statement is written to a connection that nothing
// reads while it is idle (the session's buffered reader r of it, and its
// SetReadDeadline), whether the peer has already ended it: the read error
// (io.EOF, a reset), ErrUnasked when bytes are waiting, or nil when the
// connection is open and quiet. It peeks for up to probeWait and leaves
// no deadline set; bytes read stay buffered in r.
func Closed(r *bufio.Reader, setDeadline func(time.Time) error) error {
	if r.Buffered() > 0 {
		return ErrUnasked
	}
	if err := setDeadline(time.Now().Add(probeWait)); err != nil {
		return err
	}
	_, err := r.Peek(1)
	if derr := setDeadline(time.Time{}); derr != nil && err == nil {
		err = derr
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil
	case err == nil:
		return ErrUnasked
	}
	return err
}
