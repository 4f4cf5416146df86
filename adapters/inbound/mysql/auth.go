package mysql

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/pem"
	"fmt"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
)

// authExchange relays the authentication packets between a client and its
// upstream after the handshake response (or a COM_CHANGE_USER), renumbering
// sequence ids for each side, until the upstream's OK or ERR.
//
// Each plugin's exchange passes through unchanged, since the client's
// scramble was computed over the upstream's own nonce: mysql_native_password,
// caching_sha2_password's fast path, auth switches. caching_sha2_password's
// full authentication needs the password itself, in the clear over TLS or
// RSA-encrypted over plain TCP; when only one side of the Sidecar is TLS the
// listener converts:
//   - client TLS, upstream plain: the client sends the password in the
//     clear; the listener asks the upstream for its RSA public key and sends
//     the password encrypted with it;
//   - client plain, upstream TLS: the client asks for the server's public
//     key; the listener answers with its own, decrypts the client's answer
//     and sends the password in the clear over the upstream's TLS.
//
// The password is never stored or logged.
type authExchange struct {
	s      *session
	cseq   byte // next sequence id towards the client
	useq   byte // next sequence id towards the upstream
	nonce  []byte
	plugin string
}

// run relays until the login ends. It returns the OK's status flags, or
// errLoginRefused once the upstream's ERR reached the client.
func (a *authExchange) run() (uint16, error) {
	if err := a.s.uw.Flush(); err != nil {
		return 0, err
	}
	for {
		p, seq, err := wire.Read(a.s.ur, maxLoginPacket)
		if err != nil {
			return 0, fmt.Errorf("upstream during login: %w", err)
		}
		a.useq = seq + 1
		if len(p) == 0 {
			return 0, wire.Errorf("empty packet from the upstream during login")
		}
		switch p[0] {
		case 0x00:
			if err := a.toClient(p); err != nil {
				return 0, err
			}
			return wire.OKStatus(p), nil
		case 0xff:
			a.toClient(p)
			return 0, errLoginRefused
		case 0xfe: // AuthSwitchRequest: plugin name, then its nonce
			plugin, rest, _ := wire.CString(p[1:])
			a.plugin, a.nonce = plugin, bytes.TrimRight(rest, "\x00")
			if err := a.toClient(p); err != nil {
				return 0, err
			}
			if err := a.clientToUpstream(); err != nil {
				return 0, err
			}
		case 0x01: // AuthMoreData
			if err := a.moreData(p); err != nil {
				return 0, err
			}
		default:
			return 0, wire.Errorf("unexpected packet 0x%02x from the upstream during login", p[0])
		}
	}
}

// moreData handles an AuthMoreData packet of the upstream.
func (a *authExchange) moreData(p []byte) error {
	fullAuth := a.plugin == gm.AUTH_CACHING_SHA2_PASSWORD && len(p) == 2 && p[1] == 4
	if err := a.toClient(p); err != nil {
		return err
	}
	if len(p) == 2 && p[1] == 3 { // fast auth succeeded; the OK follows
		return nil
	}
	resp, err := a.fromClient()
	if err != nil {
		return err
	}
	switch {
	case fullAuth && a.s.clientTLS && !a.s.upstreamTLS && !isKeyRequest(resp):
		return a.encryptForUpstream(bytes.TrimRight(resp, "\x00"))
	case fullAuth && !a.s.clientTLS && a.s.upstreamTLS && isKeyRequest(resp):
		return a.decryptForUpstream()
	}
	return a.toUpstream(resp)
}

func isKeyRequest(p []byte) bool { return len(p) == 1 && p[0] == 2 }

// encryptForUpstream sends password to a plain-TCP upstream the way
// caching_sha2_password requires there: RSA-OAEP with the upstream's key.
func (a *authExchange) encryptForUpstream(password []byte) error {
	if err := a.toUpstream([]byte{2}); err != nil {
		return err
	}
	p, seq, err := wire.Read(a.s.ur, maxLoginPacket)
	if err != nil {
		return err
	}
	a.useq = seq + 1
	if len(p) < 2 || p[0] != 1 {
		if len(p) > 0 && p[0] == 0xff {
			a.toClient(p)
			return errLoginRefused
		}
		return wire.Errorf("upstream sent no public key")
	}
	block, _ := pem.Decode(p[1:])
	if block == nil {
		return wire.Errorf("upstream public key is not PEM")
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return fmt.Errorf("upstream public key: %w", err)
	}
	pub, ok := key.(*rsa.PublicKey)
	if !ok {
		return wire.Errorf("upstream public key is not RSA")
	}
	enc, err := gm.EncryptPassword(string(password), a.nonce, pub)
	if err != nil {
		return err
	}
	return a.toUpstream(enc)
}

// decryptForUpstream answers a plain-TCP client's public-key request with
// the listener's own key, decrypts the password it sends and passes it in
// the clear to the upstream over TLS.
func (a *authExchange) decryptForUpstream() error {
	key, der, err := a.s.p.rsaKey()
	if err != nil {
		return err
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	if err := a.toClient(append([]byte{1}, pemKey...)); err != nil {
		return err
	}
	enc, err := a.fromClient()
	if err != nil {
		return err
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), rand.Reader, key, enc, nil)
	if err != nil {
		return wire.Errorf("the client's encrypted password cannot be decrypted")
	}
	for i := range plain {
		plain[i] ^= a.nonce[i%len(a.nonce)]
	}
	return a.toUpstream(plain) // NUL-terminated, as the client encrypted it
}

func (a *authExchange) clientToUpstream() error {
	p, err := a.fromClient()
	if err != nil {
		return err
	}
	return a.toUpstream(p)
}

func (a *authExchange) fromClient() ([]byte, error) {
	p, seq, err := wire.Read(a.s.cr, maxLoginPacket)
	if err != nil {
		return nil, err
	}
	a.cseq = seq + 1
	return p, nil
}

func (a *authExchange) toClient(p []byte) error {
	seq, err := wire.Write(a.s.cw, a.cseq, p)
	a.cseq = seq
	if err != nil {
		return err
	}
	return a.s.cw.Flush()
}

func (a *authExchange) toUpstream(p []byte) error {
	seq, err := wire.Write(a.s.uw, a.useq, p)
	a.useq = seq
	if err != nil {
		return err
	}
	return a.s.uw.Flush()
}
