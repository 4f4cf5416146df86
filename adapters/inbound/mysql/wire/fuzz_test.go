package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"

	gm "github.com/go-mysql-org/go-mysql/mysql"
)

// FuzzWire feeds one byte string to every decoder of packets that come
// from outside: the packet reader, the upstream's HandshakeV10 (and its
// re-encoding, which must parse again), the client's HandshakeResponse41,
// OK status flags and length-encoded strings. Any input must end in a
// value or an error, never a panic.
func FuzzWire(f *testing.F) {
	var framed bytes.Buffer
	Write(&framed, 0, []byte{gm.COM_QUERY, 'S', 'E', 'L'})
	f.Add(framed.Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0, 1, 2, 3})
	f.Add(append([]byte{10}, "5.5.5-10.11.6-MariaDB\x00\x01\x00\x00\x00abcdefgh\x00\xfe\xf7\x2d\x02\x00\xff\x81\x15\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00ijklmnopqrst\x00mysql_native_password\x00"...))
	f.Add(append(binary.LittleEndian.AppendUint32(nil, RequiredCaps|gm.CLIENT_CONNECT_WITH_DB|gm.CLIENT_CONNECT_ATTRS|gm.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA),
		append(make([]byte, 28), "root\x00\x14abcdefghijklmnopqrst\x00test\x00mysql_native_password\x00\x1d\x0cprogram_name\x0fhoop-approval=return"...)...))
	f.Add([]byte{0x00, 0x01, 0x01, 0x02, 0x00, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		Read(bufio.NewReader(bytes.NewReader(data)), 1<<20)
		if h, err := ParseHandshakeV10(data); err == nil {
			if _, err := ParseHandshakeV10(h.Encode(h.Caps)); err != nil {
				t.Fatalf("the re-encoded handshake does not parse: %v", err)
			}
		}
		if h, err := ParseHandshakeResponse41(data); err == nil {
			h.Encode(h.Caps)
		}
		if len(data) > 0 {
			OKStatus(data)
			OKOrEOFStatus(data, false)
		}
		LenencString(data)
	})
}
