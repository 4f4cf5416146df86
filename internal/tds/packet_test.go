package tds

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestMessageReaderReassembles(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789"), 1000) // 10,000 bytes
	for _, tc := range []struct {
		name       string
		packetSize int
		packets    int
	}{
		{"one packet", 32767, 1},
		{"default size", 4096, 3},
		{"min size", 512, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wire := AppendPackets(nil, PacketSQLBatch, StatusResetConnection, 52, payload, tc.packetSize)
			if want := len(payload) + tc.packets*HeaderLen; len(wire) != want {
				t.Fatalf("wire = %d bytes, want %d (%d packets)", len(wire), want, tc.packets)
			}
			last, _ := DecodeHeader(wire[len(wire)-(len(payload)-(tc.packets-1)*(tc.packetSize-HeaderLen))-HeaderLen:])
			if last.Status&StatusEOM == 0 || last.PacketID != byte(tc.packets) {
				t.Fatalf("last header %+v", last)
			}
			mr := &MessageReader{R: bytes.NewReader(wire), PacketSize: tc.packetSize, MaxMessage: 1 << 20}
			m, err := mr.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if m.Type != PacketSQLBatch || m.SPID != 52 || m.Status&StatusResetConnection == 0 || !bytes.Equal(m.Data, payload) {
				t.Fatalf("message %d type %d spid %d status %x", len(m.Data), m.Type, m.SPID, m.Status)
			}
			if _, err := mr.ReadMessage(); err != io.EOF {
				t.Fatalf("after the message: %v, want io.EOF", err)
			}
		})
	}
}

func TestMessageReaderRejects(t *testing.T) {
	two := append(AppendPackets(nil, PacketSQLBatch, 0, 0, []byte("ab"), 9)[:9], AppendPackets(nil, PacketRPC, 0, 0, []byte("b"), 9)...)
	two[1] = 0 // first packet without EOM
	for _, tc := range []struct {
		name string
		wire []byte
		max  int
		want string
	}{
		{"length below header", []byte{1, 1, 0, 7, 0, 0, 1, 0}, 0, "outside"},
		{"length above packet size", []byte{1, 1, 0x10, 0x01, 0, 0, 1, 0}, 0, "outside"},
		{"truncated body", []byte{1, 1, 0, 12, 0, 0, 1, 0, 'a'}, 0, io.ErrUnexpectedEOF.Error()},
		{"truncated header", []byte{1, 1, 0}, 0, io.ErrUnexpectedEOF.Error()},
		{"missing EOM", []byte{1, 0, 0, 9, 0, 0, 1, 0, 'a'}, 0, io.ErrUnexpectedEOF.Error()},
		{"type change", two, 0, "type changed"},
		{"too large", AppendPackets(nil, PacketSQLBatch, 0, 0, make([]byte, 2000), 512), 1000, ErrTooLarge.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mr := &MessageReader{R: bytes.NewReader(tc.wire), PacketSize: 4096, MaxMessage: tc.max}
			_, err := mr.ReadMessage()
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestIgnoreAndAttention(t *testing.T) {
	wire := AppendPackets(nil, PacketSQLBatch, StatusIgnore, 0, []byte("x"), 512)
	wire = AppendAttention(wire, 0)
	mr := &MessageReader{R: bytes.NewReader(wire)}
	m, err := mr.ReadMessage()
	if err != nil || !m.Ignore || IsAttention(m) {
		t.Fatalf("first = %+v, %v", m, err)
	}
	m, err = mr.ReadMessage()
	if err != nil || !IsAttention(m) || len(m.Data) != 0 {
		t.Fatalf("second = %+v, %v", m, err)
	}
}

func TestWriteMessage(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMessage(&buf, PacketReply, 0, 0, nil, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), []byte{4, 1, 0, 8, 0, 0, 1, 0}) {
		t.Fatalf("empty reply = %x", buf.Bytes())
	}
	if !errors.Is(func() error { _, err := DecodeHeader([]byte{1}); return err }(), ErrShort) {
		t.Fatal("short header accepted")
	}
}
