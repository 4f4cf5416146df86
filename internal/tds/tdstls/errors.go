package tdstls

import "errors"

// ErrCannotEncrypt: the client asked for encryption (ENCRYPT_ON/REQ, or a
// TLS ClientHello as its first bytes) and this server has no TLS. The
// server closes the connection without answering ENCRYPT_NOT_SUP.
var ErrCannotEncrypt = errors.New("tdstls: the client asked for encryption and this server offers none")

// ErrServerCannotEncrypt: our client side asked for encryption and the
// server refused it; the connection is not used.
var ErrServerCannotEncrypt = errors.New("tdstls: encryption was required but the server does not offer it")

// ErrStrictRequired: the server accepts only TDS 8.0 strict encryption and
// the client opened with a TDS 7.x PRELOGIN.
var ErrStrictRequired = errors.New("tdstls: this server requires TDS 8.0 strict encryption (TLS from the first byte)")

// ErrBadValue: an ENCRYPTION value or setting outside MS-TDS 2.2.6.5.
var ErrBadValue = errors.New("tdstls: encryption value outside MS-TDS 2.2.6.5")

// ErrNoConfig: a TLS step was needed and the side has no *tls.Config.
var ErrNoConfig = errors.New("tdstls: TLS is needed but no TLS configuration was given")

// ErrBadPacket: a packet during the TLS handshake or the LOGIN7 under TLS
// breaks MS-TDS framing (wrong type, length out of range).
var ErrBadPacket = errors.New("tdstls: bad TDS packet around the TLS handshake")
