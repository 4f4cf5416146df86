package domain

import "fmt"

// The held-payload budget (docs/config.md, "limits"): a listener reads a
// statement's payload into memory only after taking its size from one
// process-wide budget of bytes, and gives the bytes back once the statement
// is forwarded or denied. A payload that does not fit is refused with the
// protocol's own "out of resources" error and nothing is filed or run; other
// clients and the refused client's connection are unaffected.

// BudgetMessage is the text of a refusal for a payload of n bytes when the
// budget holds size bytes in all. A payload larger than the whole budget can
// never be held; a smaller one fits once other statements are decided, so
// the client may resend it shortly.
func BudgetMessage(n, size int64) string {
	if n > size {
		return fmt.Sprintf("hoop sidecar: the statement is %d bytes, more than the %d bytes the Sidecar may hold in memory at once (limits.held_bytes); nothing was filed or run: send it in smaller parts", n, size)
	}
	return fmt.Sprintf("hoop sidecar: the Sidecar is holding its limit of %d bytes of statements in memory (limits.held_bytes); this %d-byte statement was not read, filed or run: resend it shortly", size, n)
}
