package mssql

import (
	"errors"
	"fmt"

	"github.com/hoophq/sidecar/internal/tds"
)

// maskPacket is the relay of one upstream packet of a masked answer: its
// whole tokens are read (as scan does for the session) and rewritten by m,
// and what m made of them goes to the client in packets of the negotiated
// size, the last with EOM at the end of the message. Unlike the unmasked
// relay, nothing is copied unread: a row is held whole to be masked, up to
// maxCarry bytes; a longer token withholds the result (its bytes and the
// rest of the answer are dropped, and the session asks the upstream where
// it is, as after any answer it could not read: res.lost). It returns
// false when the session must end.
func (s *session) maskPacket(m *masker, sc *tds.Scanner, carry *[]byte, retryAt *int, res *response, h tds.Header, body []byte, eom bool) bool {
	if !m.blind {
		*carry = append(*carry, body...)
		if len(*carry) >= *retryAt || eom {
			n, err := s.scan(sc, *carry, res, false, m)
			if err == nil && eom && n < len(*carry) {
				err = fmt.Errorf("the message ended inside a token 0x%02X (%d bytes unread)", (*carry)[n], len(*carry)-n)
			}
			if err != nil {
				if s.sendMasked(m, h, true, false) == nil {
					s.unreadableAnswer(h, nil, 0, err, false)
				}
				return false
			}
			*carry = (*carry)[:copy(*carry, (*carry)[n:])]
			*retryAt = 0
			switch {
			case len(*carry) > maxCarry:
				m.withhold(errors.New("hoop: the result was withheld: a row or token over 4 MiB, which the masking does not hold"))
				m.blind, res.lost, *carry = true, true, (*carry)[:0]
			case len(*carry) > 64<<10:
				*retryAt = 2 * len(*carry) // read again once its bytes doubled (relayLoop)
			}
		}
	}
	if eom {
		m.end()
		m.blind = false
	}
	return s.sendMasked(m, h, eom, eom) == nil
}

// sendMasked writes m's rewritten bytes to the client as packets of the
// negotiated size, with h's type and SPID: whole packets only, unless end,
// when all of them go and the last carries EOM if eom.
func (s *session) sendMasked(m *masker, h tds.Header, end, eom bool) error {
	room := int(s.packetSize.Load()) - tds.HeaderLen
	out := m.out
	for {
		n := min(room, len(out))
		last := n == len(out)
		if last && (!end || n == 0 && !eom) {
			break
		}
		st := h.Status &^ tds.StatusEOM
		if last && eom {
			st |= tds.StatusEOM
		}
		ph := tds.Header{Type: h.Type, Status: st, Length: uint16(tds.HeaderLen + n), SPID: h.SPID, PacketID: m.id}
		m.id++
		if err := s.copyPacket(ph, out[:n], last && eom); err != nil {
			return err
		}
		out = out[n:]
		if last {
			break
		}
	}
	m.out = m.out[:copy(m.out, out)]
	if eom {
		m.id = 1
	}
	return nil
}
