package mysql

import (
	"bufio"
	"encoding/binary"
	"io"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
)

// respKind is the shape of the upstream's answer to one command (MySQL
// Client/Server Protocol, "Text Protocol" and "Prepared Statements").
type respKind int

const (
	// respResult: COM_QUERY, COM_STMT_EXECUTE: OK, ERR, a LOCAL INFILE
	// request, or a result set; repeated while SERVER_MORE_RESULTS_EXISTS.
	respResult respKind = iota
	// respPrepare: COM_STMT_PREPARE_OK with its parameter and column
	// definitions, or ERR.
	respPrepare
	// respFields: COM_FIELD_LIST: column definitions up to EOF, or ERR.
	respFields
	// respRows: COM_STMT_FETCH: rows up to EOF, or ERR.
	respRows
	// respOne: one packet (OK, ERR, EOF, COM_STATISTICS' string).
	respOne
)

// answer is what the listener reads of an answer while relaying it.
type answer struct {
	first  byte   // the first byte of the first packet: 0x00 OK, 0xff ERR, …
	failed bool   // an ERR came
	code   uint16 // the error number of an ERR first packet
	state  string // its SQLSTATE ("" when it has none)
	stmtID uint32
	params int
}

// keepHead is how much of a packet the relay holds to read it: small packets
// whole, the first bytes of larger ones (a row's bytes are streamed).
const keepHead = 16 << 10

// relay copies the upstream's answer of kind k to dst packet by packet,
// unread except for the headers that say where it ends, and records the
// server status flags. Results are never decoded, and a large result
// streams with constant memory.
func (s *session) relay(k respKind, dst *bufio.Writer) (answer, error) {
	var a answer
	if k == respRows && s.mask != nil {
		_, err := s.maskRows(dst)
		return a, err
	}
	head, err := s.copyLogical(dst)
	if err != nil {
		return a, err
	}
	a.first = head[0]
	if head[0] == 0xff && len(head) >= 3 {
		a.code = binary.LittleEndian.Uint16(head[1:3])
		if len(head) >= 9 && head[3] == '#' {
			a.state = string(head[4:9])
		}
	}
	for {
		switch {
		case head[0] == 0xff:
			a.failed = true
			return a, dst.Flush()
		case k == respOne:
			if head[0] == 0x00 || (head[0] == 0xfe && len(head) < 9) {
				s.status = wire.OKOrEOFStatus(head, s.deprecateEOF() && head[0] == 0xfe)
			}
			return a, dst.Flush()
		case k == respPrepare:
			return a, s.relayPrepare(head, &a, dst)
		case k == respFields, k == respRows:
			more, err := s.relayRows(head, dst, k == respRows)
			if err != nil || !more {
				return a, err
			}
		case head[0] == 0x00:
			s.status = wire.OKOrEOFStatus(head, false)
		case head[0] == 0xfb:
			if err := s.localInfile(dst); err != nil {
				return a, err
			}
		default:
			more, err := s.relayResultSet(head, dst)
			if err != nil {
				return a, err
			}
			if !more {
				return a, dst.Flush()
			}
			if s.mask != nil && s.mask.withheld != nil { // the client had its ERR: the rest is read, not sent
				dst = discard()
			}
		}
		if head[0] != 0xfb && s.status&gm.SERVER_MORE_RESULTS_EXISTS == 0 {
			return a, dst.Flush()
		}
		if head, err = s.copyLogical(dst); err != nil {
			return a, err
		}
		if head[0] == 0xff {
			a.failed = true
			return a, dst.Flush()
		}
	}
}

// relayResultSet copies a result set whose column-count packet is head:
// column definitions, the EOF after them (without CLIENT_DEPRECATE_EOF),
// rows and the terminator. It reports whether more results follow.
func (s *session) relayResultSet(head []byte, dst *bufio.Writer) (bool, error) {
	cols, _, ok := wire.LenencInt(head)
	if !ok || cols > 1<<16 {
		return false, wire.Errorf("upstream sent a bad column count")
	}
	if s.mask != nil {
		s.mask.start()
	}
	for range cols {
		h, err := s.copyLogical(dst)
		if err != nil {
			return false, err
		}
		if s.mask != nil {
			if err := s.mask.column(h); err != nil {
				return false, err
			}
		}
	}
	if !s.deprecateEOF() {
		h, err := s.copyLogical(dst)
		if err != nil {
			return false, err
		}
		if h[0] == 0xff {
			return false, nil
		}
		s.status = wire.OKOrEOFStatus(h, false)
		if s.status&gm.SERVER_STATUS_CURSOR_EXISTS != 0 { // COM_STMT_EXECUTE with a cursor: rows come with COM_STMT_FETCH
			return false, nil
		}
	}
	if s.mask != nil {
		return s.maskRows(dst)
	}
	h, err := s.copyLogical(dst)
	if err != nil {
		return false, err
	}
	return s.relayRows(h, dst, true)
}

// relayRows copies packets, starting with head, up to the terminator (EOF,
// or OK with CLIENT_DEPRECATE_EOF) or an ERR. It reports whether more
// results follow.
func (s *session) relayRows(head []byte, dst *bufio.Writer, rows bool) (bool, error) {
	for {
		if head[0] == 0xff {
			return false, nil
		}
		if s.terminator(head) {
			s.status = wire.OKOrEOFStatus(head, s.deprecateEOF())
			return s.status&gm.SERVER_MORE_RESULTS_EXISTS != 0 && rows, nil
		}
		var err error
		if head, err = s.copyLogical(dst); err != nil {
			return false, err
		}
	}
}

// terminator reports whether a packet in a row stream ends it: 0xfe with
// a short payload (a row starting 0xfe is at least 9 bytes, or 2^24-1 with
// CLIENT_DEPRECATE_EOF).
func (s *session) terminator(head []byte) bool {
	if head[0] != 0xfe {
		return false
	}
	if s.deprecateEOF() {
		return len(head) < keepHead
	}
	return len(head) < 9
}

// relayPrepare copies the rest of a COM_STMT_PREPARE answer after its
// first packet head.
func (s *session) relayPrepare(head []byte, a *answer, dst *bufio.Writer) error {
	if head[0] != 0x00 || len(head) < 12 {
		return wire.Errorf("upstream sent a bad COM_STMT_PREPARE answer")
	}
	a.stmtID = binary.LittleEndian.Uint32(head[1:])
	cols := int(binary.LittleEndian.Uint16(head[5:]))
	a.params = int(binary.LittleEndian.Uint16(head[7:]))
	for _, n := range []int{a.params, cols} {
		if n == 0 {
			continue
		}
		if !s.deprecateEOF() {
			n++
		}
		for range n {
			if _, err := s.copyLogical(dst); err != nil {
				return err
			}
		}
	}
	return dst.Flush()
}

// localInfile relays a LOAD DATA LOCAL INFILE transfer: the upstream asked
// for the file (0xfb, already copied to the client); the client's packets,
// up to its empty one, stream to the upstream unheld.
func (s *session) localInfile(dst *bufio.Writer) error {
	if err := dst.Flush(); err != nil {
		return err
	}
	for {
		n, seq, err := wire.Header(s.cr)
		if err != nil {
			return err
		}
		if err := wire.WriteHeader(s.uw, n, seq); err != nil {
			return err
		}
		if _, err := io.CopyN(s.uw, s.cr, int64(n)); err != nil {
			return wire.UnexpectedEOF(err)
		}
		if n == 0 {
			return s.uw.Flush()
		}
	}
}

// copyLogical copies one logical packet (with its continuations) from the
// upstream to dst and returns its head: the whole payload up to keepHead
// bytes, else its first keepHead bytes. An empty packet's head is {0}.
func (s *session) copyLogical(dst *bufio.Writer) ([]byte, error) {
	var head []byte
	for first := true; ; first = false {
		n, seq, err := wire.Header(s.ur)
		if err != nil {
			return nil, wire.UnexpectedEOF(err)
		}
		if err := wire.WriteHeader(dst, n, seq); err != nil {
			return nil, err
		}
		if first {
			k := min(n, keepHead)
			if cap(s.head) < k {
				s.head = make([]byte, keepHead)
			}
			head = s.head[:k]
			if _, err := io.ReadFull(s.ur, head); err != nil {
				return nil, wire.UnexpectedEOF(err)
			}
			if _, err := dst.Write(head); err != nil {
				return nil, err
			}
			if n > k { // io.CopyN allocates: only for the rest of a large packet
				if _, err := io.CopyN(dst, s.ur, int64(n-k)); err != nil {
					return nil, wire.UnexpectedEOF(err)
				}
			}
			if n == 0 {
				head = []byte{0}
			}
		} else if _, err := io.CopyN(dst, s.ur, int64(n)); err != nil {
			return nil, wire.UnexpectedEOF(err)
		}
		if n < wire.MaxPayload {
			return head, nil
		}
	}
}
