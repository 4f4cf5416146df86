package mysql

import (
	"bytes"
	"encoding/binary"

	gm "github.com/go-mysql-org/go-mysql/mysql"
)

// relayedCaps are the capability flags the listener lets client and
// upstream agree on. It relays packets raw after login, so it keeps only
// the flags whose packet formats it reads (no compression, no query
// attributes, no optional result-set metadata, no MariaDB extended
// capabilities).
const relayedCaps = gm.CLIENT_LONG_PASSWORD | gm.CLIENT_FOUND_ROWS | gm.CLIENT_LONG_FLAG |
	gm.CLIENT_CONNECT_WITH_DB | gm.CLIENT_NO_SCHEMA | gm.CLIENT_ODBC | gm.CLIENT_LOCAL_FILES |
	gm.CLIENT_IGNORE_SPACE | gm.CLIENT_PROTOCOL_41 | gm.CLIENT_INTERACTIVE | gm.CLIENT_IGNORE_SIGPIPE |
	gm.CLIENT_TRANSACTIONS | gm.CLIENT_RESERVED | gm.CLIENT_SECURE_CONNECTION | gm.CLIENT_MULTI_STATEMENTS |
	gm.CLIENT_MULTI_RESULTS | gm.CLIENT_PS_MULTI_RESULTS | gm.CLIENT_PLUGIN_AUTH | gm.CLIENT_CONNECT_ATTRS |
	gm.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | gm.CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS |
	gm.CLIENT_SESSION_TRACK | gm.CLIENT_DEPRECATE_EOF

// requiredCaps are what a client must support: the 4.1 protocol with
// plugin authentication, which every maintained client speaks.
const requiredCaps = gm.CLIENT_PROTOCOL_41 | gm.CLIENT_SECURE_CONNECTION | gm.CLIENT_PLUGIN_AUTH

// serverHello is the upstream's Protocol::HandshakeV10, as the listener
// reads it and passes it on.
type serverHello struct {
	version  []byte
	threadID uint32
	nonce    []byte // auth-plugin-data, 20 bytes for the built-in plugins
	caps     uint32
	charset  byte
	status   uint16
	plugin   string
}

// parseServerHello decodes a HandshakeV10 payload.
func parseServerHello(p []byte) (*serverHello, error) {
	if len(p) < 1 || p[0] != 10 {
		return nil, protoErr("upstream handshake is not protocol version 10")
	}
	h := &serverHello{}
	i := bytes.IndexByte(p[1:], 0)
	if i < 0 {
		return nil, protoErr("upstream handshake: no server version")
	}
	h.version = p[1 : 1+i]
	p = p[2+i:]
	if len(p) < 4+8+1+2+1+2+2+1+10 {
		return nil, protoErr("upstream handshake too short")
	}
	h.threadID = binary.LittleEndian.Uint32(p)
	h.nonce = append([]byte(nil), p[4:12]...)
	h.caps = uint32(binary.LittleEndian.Uint16(p[13:]))
	h.charset = p[15]
	h.status = binary.LittleEndian.Uint16(p[16:])
	h.caps |= uint32(binary.LittleEndian.Uint16(p[18:])) << 16
	authLen := int(p[20])
	p = p[31:]
	if h.caps&gm.CLIENT_SECURE_CONNECTION != 0 {
		n := max(13, authLen-8)
		if len(p) < n {
			return nil, protoErr("upstream handshake: short auth-plugin-data")
		}
		h.nonce = append(h.nonce, bytes.TrimRight(p[:n], "\x00")...)
		p = p[n:]
	}
	if h.caps&gm.CLIENT_PLUGIN_AUTH != 0 {
		if i := bytes.IndexByte(p, 0); i >= 0 {
			p = p[:i]
		}
		h.plugin = string(p)
	}
	return h, nil
}

// encode returns the HandshakeV10 the listener sends its client: the
// upstream's version, thread id, nonce and plugin (so the client's auth
// response is valid for the upstream), with caps in place of the
// upstream's flags and no MariaDB extended capabilities.
func (h *serverHello) encode(caps uint32) []byte {
	b := []byte{10}
	b = append(b, h.version...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, h.threadID)
	nonce := append(append([]byte(nil), h.nonce...), make([]byte, 20)...)
	b = append(b, nonce[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(caps))
	b = append(b, h.charset)
	b = binary.LittleEndian.AppendUint16(b, h.status)
	b = binary.LittleEndian.AppendUint16(b, uint16(caps>>16))
	b = append(b, byte(max(len(h.nonce), 20)+1))
	b = append(b, make([]byte, 10)...)
	part2 := nonce[8:max(len(h.nonce), 20)]
	b = append(b, part2...)
	b = append(b, 0)
	b = append(b, h.plugin...)
	return append(b, 0)
}

// clientHello is a client's Protocol::HandshakeResponse41.
type clientHello struct {
	caps       uint32
	maxPacket  uint32
	charset    byte
	user       string
	authResp   []byte
	database   string
	plugin     string
	attrsRaw   []byte // the length-encoded attribute block as sent
	attributes map[string]string
}

// sslRequestLen is the payload length of an SSLRequest, the first 32 bytes
// of a HandshakeResponse41 with CLIENT_SSL set.
const sslRequestLen = 32

// parseClientHello decodes a HandshakeResponse41 payload.
func parseClientHello(p []byte) (*clientHello, error) {
	if len(p) < sslRequestLen {
		return nil, protoErr("handshake response too short")
	}
	h := &clientHello{caps: binary.LittleEndian.Uint32(p), maxPacket: binary.LittleEndian.Uint32(p[4:]), charset: p[8]}
	if h.caps&requiredCaps != requiredCaps {
		return nil, protoErr("client does not speak the 4.1 protocol with plugin authentication")
	}
	p = p[sslRequestLen:]
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return nil, protoErr("handshake response: no user name")
	}
	h.user, p = string(p[:i]), p[i+1:]
	switch {
	case h.caps&gm.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0:
		v, rest, ok := lenencString(p)
		if !ok {
			return nil, protoErr("handshake response: bad auth response length")
		}
		h.authResp, p = v, rest
	default:
		if len(p) < 1 || len(p)-1 < int(p[0]) {
			return nil, protoErr("handshake response: bad auth response length")
		}
		h.authResp, p = p[1:1+int(p[0])], p[1+int(p[0]):]
	}
	if h.caps&gm.CLIENT_CONNECT_WITH_DB != 0 {
		s, rest, err := cstring(p)
		if err != nil {
			return nil, err
		}
		h.database, p = s, rest
	}
	if h.caps&gm.CLIENT_PLUGIN_AUTH != 0 {
		s, rest, err := cstring(p)
		if err != nil {
			return nil, err
		}
		h.plugin, p = s, rest
	}
	if h.caps&gm.CLIENT_CONNECT_ATTRS != 0 && len(p) > 0 {
		v, rest, ok := lenencString(p)
		if !ok {
			return nil, protoErr("handshake response: bad attributes length")
		}
		h.attrsRaw = p[:len(p)-len(rest)]
		attrs, err := parseAttributes(v)
		if err != nil {
			return nil, err
		}
		h.attributes = attrs
	}
	return h, nil
}

// cstring splits a NUL-terminated string off p (a missing NUL ends the
// string at the end of p, as servers accept).
func cstring(p []byte) (string, []byte, error) {
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return string(p), nil, nil
	}
	return string(p[:i]), p[i+1:], nil
}

// parseAttributes decodes connection attributes: length-encoded key and
// value strings, one pair after another.
func parseAttributes(p []byte) (map[string]string, error) {
	out := map[string]string{}
	for len(p) > 0 {
		k, rest, ok := lenencString(p)
		if !ok {
			return nil, protoErr("handshake response: bad connection attribute")
		}
		v, rest, ok := lenencString(rest)
		if !ok {
			return nil, protoErr("handshake response: bad connection attribute")
		}
		p = rest
		out[string(k)] = string(v)
	}
	return out, nil
}

// encode returns the HandshakeResponse41 for the upstream: the client's
// with caps in place of its flags (the auth response is sent
// length-encoded when caps allow it).
func (h *clientHello) encode(caps uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, caps)
	b = binary.LittleEndian.AppendUint32(b, h.maxPacket)
	b = append(b, h.charset)
	b = append(b, make([]byte, 23)...)
	b = append(b, h.user...)
	b = append(b, 0)
	if caps&gm.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
		b = gm.AppendLengthEncodedInteger(b, uint64(len(h.authResp)))
	} else {
		b = append(b, byte(len(h.authResp)))
	}
	b = append(b, h.authResp...)
	if caps&gm.CLIENT_CONNECT_WITH_DB != 0 {
		b = append(b, h.database...)
		b = append(b, 0)
	}
	if caps&gm.CLIENT_PLUGIN_AUTH != 0 {
		b = append(b, h.plugin...)
		b = append(b, 0)
	}
	if caps&gm.CLIENT_CONNECT_ATTRS != 0 {
		b = append(b, h.attrsRaw...)
	}
	return b
}

// sslRequest returns the SSLRequest payload for the upstream.
func sslRequest(caps, maxPacket uint32, charset byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, caps|gm.CLIENT_SSL)
	b = binary.LittleEndian.AppendUint32(b, maxPacket)
	b = append(b, charset)
	return append(b, make([]byte, 23)...)
}
