package grpclistener

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// Action is the one action of every gRPC call: rules match methods through
// their targets.
const Action = "CALL"

// displayHexBytes is how many message bytes the approver sees in hex.
const displayHexBytes = 512

// analysis is what rules see of a call: Actions = ["CALL"], Targets = [the
// full method name, "/package.Service/Method"], Effects from the method's
// name (effects.go).
func analysis(method string) domain.Analysis {
	return domain.Analysis{Actions: []string{Action}, Targets: []string{method}, Effects: methodEffects(method)}
}

// request is what the gate reads of one call before deciding: the method and,
// when an approval rule covers it, the first request message.
type request struct {
	method string
	an     domain.Analysis // analysis(method), when the caller has it
	md     fields
	// msg is the first request message; hasMsg is false when it was not read
	// (no approval rule covers the method) or the client half-closed before
	// sending one (then clientDone is true).
	msg        []byte
	hasMsg     bool
	clientDone bool
}

// canonical returns the bytes the fingerprint covers: a tag, the full method
// name, and the first request message (or a marker that there was none), so
// an empty message and no message differ. Metadata never enters it (the
// listener's identity_keys enter the fingerprint separately).
func (r *request) canonical() []byte {
	b := make([]byte, 0, len(r.method)+len(r.msg)+16)
	b = append(b, "grpc-call\x00"...)
	b = append(b, r.method...)
	if !r.hasMsg {
		return append(b, "\x00none"...)
	}
	b = append(b, "\x00message\x00"...)
	return append(b, r.msg...)
}

// display is the approver's rendering: the method, the message size, a
// schema-free decoding of the message and its first bytes in hex.
func (r *request) display() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", Action, r.method)
	if !r.hasMsg {
		b.WriteString("no request message")
		return b.String()
	}
	fmt.Fprintf(&b, "request message: %d bytes\n", len(r.msg))
	if p, ok := preview(r.msg); ok && len(r.msg) > 0 {
		fmt.Fprintf(&b, "fields (no schema): %s\n", p)
	}
	h := r.msg
	if len(h) > displayHexBytes {
		h = h[:displayHexBytes]
	}
	b.WriteString("hex: " + hex.EncodeToString(h))
	if len(h) < len(r.msg) {
		b.WriteString("…")
	}
	return b.String()
}

// analysis returns r.an, or analysis(r.method) when it is unset.
func (r *request) analysis() domain.Analysis {
	if r.an.Actions == nil {
		return analysis(r.method)
	}
	return r.an
}

// statement builds the gate's statement for r, a call from the client at
// address client, on a listener with settings s. The canonical bytes and
// the approver's rendering are built only when the gate needs them (a rule
// holds the call, an audit sink keeps it).
func (r *request) statement(client string, s *app.ListenerSettings) app.Statement {
	return app.Statement{
		IdentityValues: app.IdentityValues(r.md.Get, s.IdentityKeys),
		Canonicalize:   r.canonical,
		Render:         r.display,
		Analysis:       r.analysis(),
		ReturnMode:     app.WantsReturnModeHeader(r.md.Get),
		Client:         client,
	}
}
