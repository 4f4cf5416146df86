package grpclistener

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPreview renders any bytes as the approver's schema-free view of a
// request message. It never panics, a preview is valid UTF-8 and at most
// previewMax bytes plus the "…" mark, and the whole rendering (display)
// names the message size.
func FuzzPreview(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg []byte) {
		if p, ok := preview(msg); ok {
			if !utf8.ValidString(p) {
				t.Fatalf("preview of %x is not UTF-8: %q", msg, p)
			}
			if len(p) > previewMax+len("…") {
				t.Fatalf("preview of %x is %d bytes, over the cap of %d", msg, len(p), previewMax)
			}
		}
		r := &request{method: "/pkg.Svc/Method", msg: msg, hasMsg: true}
		if d := r.display(); !strings.Contains(d, "request message: ") {
			t.Fatalf("display of %x lacks the size: %q", msg, d)
		}
	})
}
