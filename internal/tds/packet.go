package tds

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Packet types, MS-TDS 2.2.3.1.1.
const (
	PacketSQLBatch    byte = 1
	PacketPreTDS7     byte = 2
	PacketRPC         byte = 3
	PacketReply       byte = 4 // tabular result, server → client
	PacketAttention   byte = 6
	PacketBulkLoad    byte = 7
	PacketFedAuth     byte = 8
	PacketTransaction byte = 14
	PacketLogin7      byte = 16
	PacketSSPI        byte = 17
	PacketPrelogin    byte = 18
)

// Packet status bits, MS-TDS 2.2.3.1.2.
const (
	StatusEOM                     byte = 0x01
	StatusIgnore                  byte = 0x02
	StatusResetConnection         byte = 0x08
	StatusResetConnectionSkipTran byte = 0x10
)

// HeaderLen is the size of the packet header, MS-TDS 2.2.3.1.
const HeaderLen = 8

// Packet sizes: the spec's range for the negotiated size (LOGIN7 PacketSize,
// ENVCHANGE type 4) and the 4096 every client starts with before LOGIN7.
const (
	MinPacketSize     = 512
	MaxPacketSize     = 32767
	DefaultPacketSize = 4096
)

// Header is the 8-byte packet header, MS-TDS 2.2.3.1. Length counts the header
// itself and is big-endian on the wire, as is SPID.
type Header struct {
	Type     byte
	Status   byte
	Length   uint16
	SPID     uint16
	PacketID byte
	Window   byte
}

// DecodeHeader reads a header from the first 8 bytes of b.
func DecodeHeader(b []byte) (Header, error) {
	if len(b) < HeaderLen {
		return Header{}, short("packet header")
	}
	return Header{
		Type:     b[0],
		Status:   b[1],
		Length:   binary.BigEndian.Uint16(b[2:]),
		SPID:     binary.BigEndian.Uint16(b[4:]),
		PacketID: b[6],
		Window:   b[7],
	}, nil
}

// Append appends the 8 header bytes to dst.
func (h Header) Append(dst []byte) []byte {
	dst = append(dst, h.Type, h.Status)
	dst = binary.BigEndian.AppendUint16(dst, h.Length)
	dst = binary.BigEndian.AppendUint16(dst, h.SPID)
	return append(dst, h.PacketID, h.Window)
}

// Message is one TDS message: the payload of one or more packets of the same
// type, the last carrying EOM. Status is the first packet's status (where
// RESETCONNECTION lives); Ignore reports the client's "ignore this message"
// bit (MS-TDS 2.2.3.1.2: a cancelled, partly sent request).
type Message struct {
	Type   byte
	Status byte
	SPID   uint16
	Ignore bool
	Data   []byte
}

// MessageReader reassembles messages from packets read from R (MS-TDS 2.2.3).
// PacketSize is the negotiated packet size (a packet longer than it is an
// error; 0 means MaxPacketSize), MaxMessage bounds the reassembled payload in
// bytes (0 means no bound other than memory). The reader keeps no state
// between messages besides its scratch header buffer.
type MessageReader struct {
	R          io.Reader
	PacketSize int
	MaxMessage int
	hdr        [HeaderLen]byte
}

// ReadMessage returns the next whole message. Errors: io.EOF when R ends
// cleanly between messages, io.ErrUnexpectedEOF inside one, ErrTooLarge past
// MaxMessage, and a descriptive error for a bad header (length out of range, a
// packet type changing mid-message).
func (mr *MessageReader) ReadMessage() (Message, error) {
	var m Message
	var buf bytes.Buffer
	limit := mr.PacketSize
	if limit <= 0 || limit > 65535 {
		limit = 65535
	}
	for first := true; ; first = false {
		if _, err := io.ReadFull(mr.R, mr.hdr[:]); err != nil {
			if !first && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Message{}, err
		}
		h, _ := DecodeHeader(mr.hdr[:])
		if int(h.Length) < HeaderLen || int(h.Length) > limit {
			return Message{}, fmt.Errorf("tds: packet length %d outside [%d, %d]", h.Length, HeaderLen, limit)
		}
		if first {
			m.Type, m.Status, m.SPID = h.Type, h.Status, h.SPID
		} else if h.Type != m.Type {
			return Message{}, fmt.Errorf("tds: packet type changed from %d to %d inside a message", m.Type, h.Type)
		}
		n := int(h.Length) - HeaderLen
		if mr.MaxMessage > 0 && buf.Len()+n > mr.MaxMessage {
			return Message{}, ErrTooLarge
		}
		// Copy rather than allocate what the header announces: memory
		// follows the bytes actually received.
		if _, err := io.CopyN(&buf, mr.R, int64(n)); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return Message{}, err
		}
		if h.Status&StatusIgnore != 0 {
			m.Ignore = true
		}
		if h.Status&StatusEOM != 0 {
			m.Data = buf.Bytes()
			return m, nil
		}
	}
}

// AppendPackets splits data into packets of at most packetSize bytes
// (header included; 0 means DefaultPacketSize) and appends them to dst. Every
// packet carries status (RESETCONNECTION etc.) and the last one EOM; packet ids
// count from 1 and wrap at 256, as clients do.
func AppendPackets(dst []byte, typ, status byte, spid uint16, data []byte, packetSize int) []byte {
	if packetSize <= HeaderLen || packetSize > 65535 {
		packetSize = DefaultPacketSize
	}
	room := packetSize - HeaderLen
	id := byte(1)
	for {
		n := min(room, len(data))
		st := status &^ StatusEOM
		if n == len(data) {
			st |= StatusEOM
		}
		dst = Header{Type: typ, Status: st, Length: uint16(HeaderLen + n), SPID: spid, PacketID: id}.Append(dst)
		dst = append(dst, data[:n]...)
		data = data[n:]
		id++
		if st&StatusEOM != 0 {
			return dst
		}
	}
}

// WriteMessage writes data as one message of type typ to w, split per
// AppendPackets, in a single Write.
func WriteMessage(w io.Writer, typ, status byte, spid uint16, data []byte, packetSize int) error {
	_, err := w.Write(AppendPackets(nil, typ, status, spid, data, packetSize))
	return err
}
