package mssql

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/hoophq/sidecar/internal/tds"
)

// protocolError is a message that breaks MS-TDS: the connection is closed
// with ERROR 4002 and a log line.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }

func protoErr(format string, args ...any) error {
	return &protocolError{msg: fmt.Sprintf(format, args...)}
}

// isClosed reports whether err only says that a connection ended.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrDeadlineExceeded)
}

// readPacket reads one packet from r into buf (reused when large enough):
// its header and its payload. A length outside [8, max] is a protocolError.
func readPacket(r io.Reader, buf []byte, max int) (tds.Header, []byte, error) {
	var hb [tds.HeaderLen]byte
	if _, err := io.ReadFull(r, hb[:]); err != nil {
		return tds.Header{}, nil, err
	}
	h, _ := tds.DecodeHeader(hb[:])
	if int(h.Length) < tds.HeaderLen || int(h.Length) > max {
		return h, nil, protoErr("packet length %d outside [%d, %d]", h.Length, tds.HeaderLen, max)
	}
	n := int(h.Length) - tds.HeaderLen
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return h, nil, err
	}
	return h, buf, nil
}

// appendMessage splits data into packets of at most packetSize bytes, as
// tds.AppendPackets does, but keeps the RESETCONNECTION bits of status on
// the first packet only (MS-TDS 2.2.3.1.2: they apply to the message).
func appendMessage(dst []byte, typ, status byte, spid uint16, data []byte, packetSize int) []byte {
	if packetSize <= tds.HeaderLen || packetSize > tds.MaxPacketSize {
		packetSize = tds.DefaultPacketSize
	}
	room := packetSize - tds.HeaderLen
	id := byte(1)
	st := status &^ tds.StatusEOM &^ tds.StatusIgnore
	for {
		n := min(room, len(data))
		s := st
		if n == len(data) {
			s |= tds.StatusEOM
		}
		dst = tds.Header{Type: typ, Status: s, Length: uint16(tds.HeaderLen + n), SPID: spid, PacketID: id}.Append(dst)
		dst = append(dst, data[:n]...)
		data = data[n:]
		id++
		st &^= tds.StatusResetConnection | tds.StatusResetConnectionSkipTran
		if s&tds.StatusEOM != 0 {
			return dst
		}
	}
}
