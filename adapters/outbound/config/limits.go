package config

import (
	"fmt"
	"math"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/hoophq/sidecar/app"
)

// Limits bounds what the Sidecar holds in memory for its clients
// (docs/config.md, "limits"). Sizes are byte counts with an optional unit:
// "256MiB", "64KiB", "1GiB" (powers of 1024) or "64MB" (powers of 1000). An
// empty field takes its default.
type Limits struct {
	// HeldBytes is the process-wide budget of statement payloads held in
	// memory at once; default 64MiB, at least 8MiB.
	HeldBytes string `yaml:"held_bytes"`
	// HeaderBytes caps one http request's header list and one grpc call's
	// metadata; default 64KiB, from 4KiB to 1MiB.
	HeaderBytes string `yaml:"header_bytes"`
	// BodyReadTimeout bounds reading the body of an http request that an
	// approval rule covers; default 60s.
	BodyReadTimeout string `yaml:"body_read_timeout"`
}

// Bounds of the limits block.
const (
	minHeldBytes   = 8 << 20
	minHeaderBytes = 4 << 10
	maxHeaderBytes = 1 << 20
)

func (v *validator) limits(l *Limits) {
	if l == nil {
		return
	}
	if n, ok := v.size("limits.held_bytes", l.HeldBytes); ok && n < minHeldBytes {
		v.add("limits.held_bytes", fmt.Sprintf("%q is less than 8MiB, the largest request body a listener holds", l.HeldBytes))
	}
	if n, ok := v.size("limits.header_bytes", l.HeaderBytes); ok && (n < minHeaderBytes || n > maxHeaderBytes) {
		v.add("limits.header_bytes", fmt.Sprintf("%q is not between 4KiB and 1MiB", l.HeaderBytes))
	}
	if d := v.duration("limits.body_read_timeout", l.BodyReadTimeout); l.BodyReadTimeout != "" && d == 0 {
		v.add("limits.body_read_timeout", "must be more than 0s")
	}
}

// size parses a byte size; ok is false when s is empty or wrong (reported).
func (v *validator) size(path, s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	n, err := humanize.ParseBytes(s)
	if err != nil || n > math.MaxInt64 {
		v.add(path, fmt.Sprintf("%q is not a size such as 256MiB, 64KiB or 1GiB", s))
		return 0, false
	}
	return n, true
}

// LimitsOf returns the validated file's limits for app.CoreOptions (zero
// fields mean the defaults).
func LimitsOf(f *File) app.Limits {
	var out app.Limits
	l := f.Limits
	if l == nil {
		return out
	}
	if n, err := humanize.ParseBytes(l.HeldBytes); err == nil && l.HeldBytes != "" {
		out.HeldBytes = int64(n)
	}
	if n, err := humanize.ParseBytes(l.HeaderBytes); err == nil && l.HeaderBytes != "" {
		out.HeaderBytes = int(n)
	}
	out.BodyReadTimeout, _ = time.ParseDuration(l.BodyReadTimeout)
	return out
}
