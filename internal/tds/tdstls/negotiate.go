package tdstls

import (
	"fmt"

	"github.com/hoophq/sidecar/internal/tds"
)

// Setting is the encryption one side of a TDS connection is configured
// for: for a server, its column of the MS-TDS 2.2.6.5 negotiation table;
// for a client, the ENCRYPTION value it sends (or TDS 8.0).
type Setting uint8

const (
	// NotSupported: no TLS at all (ENCRYPT_NOT_SUP; go-mssqldb
	// encrypt=disable). A server with this setting refuses a client that
	// asks for encryption rather than downgrade it.
	NotSupported Setting = iota
	// Off: TLS is available but only the LOGIN7 message travels under it
	// unless the peer asks for more (ENCRYPT_OFF; go-mssqldb
	// encrypt=false; SQL Server's default with a certificate).
	Off
	// On: the whole session under TLS (ENCRYPT_ON; go-mssqldb
	// encrypt=true).
	On
	// Required: the whole session under TLS, and a server says so with
	// ENCRYPT_REQ ("force encryption").
	Required
	// Strict: TDS 8.0, TLS from the first byte with ALPN "tds/8.0"; the
	// PRELOGIN travels inside TLS. A server with this setting refuses TDS
	// 7.x clients (SQL Server's "force strict encryption"); a server with
	// any other setting and a certificate still accepts a strict client.
	Strict
)

// String returns the setting's name as configured (not_supported, off, on,
// required, strict).
func (s Setting) String() string {
	switch s {
	case NotSupported:
		return "not_supported"
	case Off:
		return "off"
	case On:
		return "on"
	case Required:
		return "required"
	case Strict:
		return "strict"
	}
	return fmt.Sprintf("Setting(%d)", uint8(s))
}

// ParseSetting reads a setting's name as String writes it; it also accepts
// go-mssqldb's encrypt= words (disable, false, true, strict). Errors name
// the word.
func ParseSetting(word string) (Setting, error) {
	switch word {
	case "not_supported", "disable":
		return NotSupported, nil
	case "off", "false", "":
		return Off, nil
	case "on", "true":
		return On, nil
	case "required":
		return Required, nil
	case "strict":
		return Strict, nil
	}
	return 0, fmt.Errorf("tdstls: unknown encryption setting %q (not_supported, off, on, required, strict)", word)
}

// Outcome is what a negotiation leaves a connection with.
type Outcome uint8

const (
	// Plain: no TLS; every message in clear.
	Plain Outcome = iota
	// LoginOnly: a TLS handshake carried in PRELOGIN packets, the LOGIN7
	// message under TLS, then everything in clear (both directions).
	LoginOnly
	// Full: a TLS handshake carried in PRELOGIN packets, then the whole
	// session as TLS records on the socket.
	Full
	// StrictTLS: TDS 8.0; TLS already runs from the first byte, nothing to
	// add after PRELOGIN.
	StrictTLS
)

// String names the outcome for log lines.
func (o Outcome) String() string {
	switch o {
	case Plain:
		return "plaintext"
	case LoginOnly:
		return "login-only TLS"
	case Full:
		return "TLS"
	case StrictTLS:
		return "TDS 8.0 strict TLS"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// clientCertBit is ENCRYPT_CLIENT_CERT (MS-TDS 2.2.6.5): certificate
// authentication of the client, which this package does not offer; it is
// masked off before the table is read.
const clientCertBit = 0x80

// ENCRYPT_STRICT is not in the 7.x table: go-mssqldb sends 0x04 in the
// PRELOGIN it writes inside a TDS 8.0 TLS session.
const encryptStrict = 0x04

// Negotiate is the server's side of the MS-TDS 2.2.6.5 encryption table:
// given the ENCRYPTION value of the client's PRELOGIN (client; -1 when the
// option is absent, read as "did not ask") and the server's setting, it
// returns the ENCRYPTION value to answer and the outcome. strict tells that
// the connection already runs TLS from its first byte (TDS 8.0); then the
// outcome is StrictTLS whatever the values, and the answer ENCRYPT_REQ.
//
// The table (client ↓, server →), answer / outcome:
//
//	             NotSupported     Off              On               Required
//	OFF          NOT_SUP/Plain    OFF/LoginOnly    ON/Full          REQ/Full
//	ON, REQ      refused          ON/Full          ON/Full          REQ/Full
//	NOT_SUP      NOT_SUP/Plain    NOT_SUP/Plain    ON/Full          REQ/Full
//	absent       NOT_SUP/Plain    NOT_SUP/Plain    ON/Full          REQ/Full
//
// Where the spec says "terminate" for a NOT_SUP client and a server that
// requires encryption, the server answers ON/REQ and lets the client
// decide (go-mssqldb encrypt=disable then performs the handshake; a client
// that cannot, disconnects): the session is encrypted or does not happen.
// A client that asked for encryption is never answered ENCRYPT_NOT_SUP:
// against a NotSupported server the result is ErrCannotEncrypt and the
// caller closes the connection (with a log line) instead of answering. A
// Strict server refuses every TDS 7.x client with ErrStrictRequired.
// ENCRYPT_CLIENT_CERT (0x80) is ignored. Errors: ErrCannotEncrypt,
// ErrStrictRequired, or a value outside the table (wrapped ErrBadValue).
func Negotiate(client int, server Setting, strict bool) (answer byte, o Outcome, err error) {
	if strict {
		return tds.EncryptReq, StrictTLS, nil
	}
	if server == Strict {
		return 0, Plain, ErrStrictRequired
	}
	v := -1 // absent
	if client >= 0 {
		v = client &^ clientCertBit
	}
	asked := v == int(tds.EncryptOn) || v == int(tds.EncryptReq)
	if v >= 0 && !asked && v != int(tds.EncryptOff) && v != int(tds.EncryptNotSup) {
		return 0, Plain, fmt.Errorf("%w: client ENCRYPTION 0x%02X", ErrBadValue, client)
	}
	switch server {
	case NotSupported:
		if asked {
			return 0, Plain, ErrCannotEncrypt
		}
		return tds.EncryptNotSup, Plain, nil
	case Off:
		switch {
		case asked:
			return tds.EncryptOn, Full, nil
		case v == int(tds.EncryptOff):
			return tds.EncryptOff, LoginOnly, nil
		}
		return tds.EncryptNotSup, Plain, nil
	case On:
		return tds.EncryptOn, Full, nil
	case Required:
		return tds.EncryptReq, Full, nil
	}
	return 0, Plain, fmt.Errorf("%w: server setting %d", ErrBadValue, server)
}

// ClientOutcome is the client's side of the MS-TDS 2.2.6.5 table: given the
// ENCRYPTION value the client sent and the one the server answered, the
// outcome. A client that sent ON or REQ accepts only ON or REQ (full
// encryption): ENCRYPT_NOT_SUP, or ENCRYPT_OFF (which would leave the
// session in clear after LOGIN7), is ErrServerCannotEncrypt, never a
// downgrade. A client that sent OFF or NOT_SUP follows the server: OFF →
// LoginOnly, ON/REQ → Full, NOT_SUP → Plain. Errors: ErrServerCannotEncrypt,
// or an answer outside the table (wrapped ErrBadValue).
func ClientOutcome(sent, answer byte) (Outcome, error) {
	asked := sent&^clientCertBit == tds.EncryptOn || sent&^clientCertBit == tds.EncryptReq
	switch answer &^ clientCertBit {
	case tds.EncryptOn, tds.EncryptReq:
		return Full, nil
	case tds.EncryptOff:
		if asked {
			return Plain, fmt.Errorf("%w (it answered ENCRYPT_OFF: login only)", ErrServerCannotEncrypt)
		}
		return LoginOnly, nil
	case tds.EncryptNotSup:
		if asked {
			return Plain, fmt.Errorf("%w (it answered ENCRYPT_NOT_SUP)", ErrServerCannotEncrypt)
		}
		return Plain, nil
	}
	return Plain, fmt.Errorf("%w: server ENCRYPTION 0x%02X", ErrBadValue, answer)
}

// clientValue is the ENCRYPTION value a client with setting s sends.
func clientValue(s Setting) byte {
	switch s {
	case NotSupported:
		return tds.EncryptNotSup
	case Off:
		return tds.EncryptOff
	case On:
		return tds.EncryptOn
	case Required:
		return tds.EncryptReq
	}
	return encryptStrict
}

// preloginValue returns the ENCRYPTION value of p as Negotiate takes it
// (-1 when absent).
func preloginValue(p *tds.Prelogin) int {
	if v, ok := p.Encryption(); ok {
		return int(v)
	}
	return -1
}
