package httplistener

import (
	"net"
	"time"
)

// readDeadline is the read deadline the relay keeps on one connection.
// Setting a deadline changes a runtime timer, so a rolling one (roll) is
// moved only once it has run down by slack, not at every read: a busy
// connection moves it about once per slack, and it may fire up to slack
// early.
type readDeadline struct {
	at      time.Time // the deadline set on the connection (zero: none)
	rolling bool      // at was set by roll, not by set
}

// roll sets c's read deadline to length from now, unless the rolling
// deadline set last has more than length-slack left.
func (d *readDeadline) roll(c net.Conn, length, slack time.Duration) {
	now := time.Now()
	if d.rolling && d.at.Sub(now) > length-slack {
		return
	}
	d.at, d.rolling = now.Add(length), true
	_ = c.SetReadDeadline(d.at)
}

// set sets c's read deadline to t (zero: none), which is not a rolling one.
func (d *readDeadline) set(c net.Conn, t time.Time) {
	d.at, d.rolling = t, false
	_ = c.SetReadDeadline(t)
}
