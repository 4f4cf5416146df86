package wire

import (
	"bytes"
	"encoding/binary"

	gm "github.com/go-mysql-org/go-mysql/mysql"
)

// RequiredCaps are what a client must support: the 4.1 protocol with
// plugin authentication, which every maintained client speaks.
const RequiredCaps = gm.CLIENT_PROTOCOL_41 | gm.CLIENT_SECURE_CONNECTION | gm.CLIENT_PLUGIN_AUTH

// HandshakeV10 is the upstream's Protocol::HandshakeV10, as the listener
// reads it and passes it on.
type HandshakeV10 struct {
	Version  []byte
	ThreadID uint32
	Nonce    []byte // auth-plugin-data, 20 bytes for the built-in plugins
	Caps     uint32
	Charset  byte
	Status   uint16
	Plugin   string
}

// ParseHandshakeV10 decodes a HandshakeV10 payload.
func ParseHandshakeV10(p []byte) (*HandshakeV10, error) {
	if len(p) < 1 || p[0] != 10 {
		return nil, Errorf("upstream handshake is not protocol version 10")
	}
	h := &HandshakeV10{}
	i := bytes.IndexByte(p[1:], 0)
	if i < 0 {
		return nil, Errorf("upstream handshake: no server version")
	}
	h.Version = p[1 : 1+i]
	p = p[2+i:]
	if len(p) < 4+8+1+2+1+2+2+1+10 {
		return nil, Errorf("upstream handshake too short")
	}
	h.ThreadID = binary.LittleEndian.Uint32(p)
	h.Nonce = append([]byte(nil), p[4:12]...)
	h.Caps = uint32(binary.LittleEndian.Uint16(p[13:]))
	h.Charset = p[15]
	h.Status = binary.LittleEndian.Uint16(p[16:])
	h.Caps |= uint32(binary.LittleEndian.Uint16(p[18:])) << 16
	authLen := int(p[20])
	p = p[31:]
	if h.Caps&gm.CLIENT_SECURE_CONNECTION != 0 {
		n := max(13, authLen-8)
		if len(p) < n {
			return nil, Errorf("upstream handshake: short auth-plugin-data")
		}
		h.Nonce = append(h.Nonce, bytes.TrimRight(p[:n], "\x00")...)
		p = p[n:]
	}
	if h.Caps&gm.CLIENT_PLUGIN_AUTH != 0 {
		if i := bytes.IndexByte(p, 0); i >= 0 {
			p = p[:i]
		}
		h.Plugin = string(p)
	}
	return h, nil
}

// Encode returns the HandshakeV10 the listener sends its client: the
// upstream's version, thread id, nonce and plugin (so the client's auth
// response is valid for the upstream), with caps in place of the
// upstream's flags and no MariaDB extended capabilities.
func (h *HandshakeV10) Encode(caps uint32) []byte {
	b := []byte{10}
	b = append(b, h.Version...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, h.ThreadID)
	nonce := append(append([]byte(nil), h.Nonce...), make([]byte, 20)...)
	b = append(b, nonce[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(caps))
	b = append(b, h.Charset)
	b = binary.LittleEndian.AppendUint16(b, h.Status)
	b = binary.LittleEndian.AppendUint16(b, uint16(caps>>16))
	b = append(b, byte(max(len(h.Nonce), 20)+1))
	b = append(b, make([]byte, 10)...)
	part2 := nonce[8:max(len(h.Nonce), 20)]
	b = append(b, part2...)
	b = append(b, 0)
	b = append(b, h.Plugin...)
	return append(b, 0)
}

// HandshakeResponse41 is a client's Protocol::HandshakeResponse41.
type HandshakeResponse41 struct {
	Caps         uint32
	MaxPacket    uint32
	Charset      byte
	User         string
	AuthResponse []byte
	Database     string
	Plugin       string
	AttrsRaw     []byte // the length-encoded attribute block as sent
	Attributes   map[string]string
}

// SSLRequestLen is the payload length of an SSLRequest, the first 32 bytes
// of a HandshakeResponse41 with CLIENT_SSL set.
const SSLRequestLen = 32

// ParseHandshakeResponse41 decodes a HandshakeResponse41 payload.
func ParseHandshakeResponse41(p []byte) (*HandshakeResponse41, error) {
	if len(p) < SSLRequestLen {
		return nil, Errorf("handshake response too short")
	}
	h := &HandshakeResponse41{Caps: binary.LittleEndian.Uint32(p), MaxPacket: binary.LittleEndian.Uint32(p[4:]), Charset: p[8]}
	if h.Caps&RequiredCaps != RequiredCaps {
		return nil, Errorf("client does not speak the 4.1 protocol with plugin authentication")
	}
	p = p[SSLRequestLen:]
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return nil, Errorf("handshake response: no user name")
	}
	h.User, p = string(p[:i]), p[i+1:]
	switch {
	case h.Caps&gm.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0:
		v, rest, ok := LenencString(p)
		if !ok {
			return nil, Errorf("handshake response: bad auth response length")
		}
		h.AuthResponse, p = v, rest
	default:
		if len(p) < 1 || len(p)-1 < int(p[0]) {
			return nil, Errorf("handshake response: bad auth response length")
		}
		h.AuthResponse, p = p[1:1+int(p[0])], p[1+int(p[0]):]
	}
	if h.Caps&gm.CLIENT_CONNECT_WITH_DB != 0 {
		s, rest, err := CString(p)
		if err != nil {
			return nil, err
		}
		h.Database, p = s, rest
	}
	if h.Caps&gm.CLIENT_PLUGIN_AUTH != 0 {
		s, rest, err := CString(p)
		if err != nil {
			return nil, err
		}
		h.Plugin, p = s, rest
	}
	if h.Caps&gm.CLIENT_CONNECT_ATTRS != 0 && len(p) > 0 {
		v, rest, ok := LenencString(p)
		if !ok {
			return nil, Errorf("handshake response: bad attributes length")
		}
		h.AttrsRaw = p[:len(p)-len(rest)]
		attrs, err := ParseAttributes(v)
		if err != nil {
			return nil, err
		}
		h.Attributes = attrs
	}
	return h, nil
}

// CString splits a NUL-terminated string off p (a missing NUL ends the
// string at the end of p, as servers accept).
func CString(p []byte) (string, []byte, error) {
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return string(p), nil, nil
	}
	return string(p[:i]), p[i+1:], nil
}

// ParseAttributes decodes connection attributes: length-encoded key and
// value strings, one pair after another.
func ParseAttributes(p []byte) (map[string]string, error) {
	out := map[string]string{}
	for len(p) > 0 {
		k, rest, ok := LenencString(p)
		if !ok {
			return nil, Errorf("handshake response: bad connection attribute")
		}
		v, rest, ok := LenencString(rest)
		if !ok {
			return nil, Errorf("handshake response: bad connection attribute")
		}
		p = rest
		out[string(k)] = string(v)
	}
	return out, nil
}

// Encode returns the HandshakeResponse41 for the upstream: the client's
// with caps in place of its flags (the auth response is sent
// length-encoded when caps allow it).
func (h *HandshakeResponse41) Encode(caps uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, caps)
	b = binary.LittleEndian.AppendUint32(b, h.MaxPacket)
	b = append(b, h.Charset)
	b = append(b, make([]byte, 23)...)
	b = append(b, h.User...)
	b = append(b, 0)
	if caps&gm.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
		b = gm.AppendLengthEncodedInteger(b, uint64(len(h.AuthResponse)))
	} else {
		b = append(b, byte(len(h.AuthResponse)))
	}
	b = append(b, h.AuthResponse...)
	if caps&gm.CLIENT_CONNECT_WITH_DB != 0 {
		b = append(b, h.Database...)
		b = append(b, 0)
	}
	if caps&gm.CLIENT_PLUGIN_AUTH != 0 {
		b = append(b, h.Plugin...)
		b = append(b, 0)
	}
	if caps&gm.CLIENT_CONNECT_ATTRS != 0 {
		b = append(b, h.AttrsRaw...)
	}
	return b
}

// SSLRequest returns the SSLRequest payload for the upstream.
func SSLRequest(caps, maxPacket uint32, charset byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, caps|gm.CLIENT_SSL)
	b = binary.LittleEndian.AppendUint32(b, maxPacket)
	b = append(b, charset)
	return append(b, make([]byte, 23)...)
}
