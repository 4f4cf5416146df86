package mssql

import (
	"fmt"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// Encryption (MS-TDS 2.2.6.5, ENCRYPTION): until TLS inside TDS is wired
// in, the listener serves clients that ask for no encryption
// (ENCRYPT_NOT_SUP, go-mssqldb's encrypt=disable) and refuses the others
// with a clear error rather than answer ENCRYPT_NOT_SUP: a client that
// asked for encryption is never downgraded.

// errNeedsTLS refuses a client that asked for encryption.
type errNeedsTLS struct{ enc byte }

func (e errNeedsTLS) Error() string {
	return fmt.Sprintf("the client asked for encryption (PRELOGIN ENCRYPTION 0x%02X), which this listener does not provide yet", e.enc)
}

// clientEncryption returns the ENCRYPTION value the listener answers to
// the client's (enc, as sent; absent is ENCRYPT_OFF per MS-TDS), or
// errNeedsTLS.
func clientEncryption(enc byte, sent bool, _ app.TLSServer, _ *tlsconf.CertLoader) (byte, error) {
	if sent && enc&^0x80 == tds.EncryptNotSup && enc&0x80 == 0 {
		return tds.EncryptNotSup, nil
	}
	if !sent {
		enc = tds.EncryptOff
	}
	return 0, errNeedsTLS{enc}
}

// upstreamEncryption returns the ENCRYPTION value the listener sends the
// upstream, or an error when the listener's upstream_tls asks for what is
// not wired in yet.
func upstreamEncryption(t app.TLSClient) (byte, error) {
	if t.Enabled {
		return 0, fmt.Errorf("upstream_tls is not supported by mssql listeners yet")
	}
	return tds.EncryptNotSup, nil
}
