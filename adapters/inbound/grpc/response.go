package grpclistener

import (
	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"

	"github.com/hoophq/sidecar/domain"
)

// upstreamFrame handles one frame from the upstream (under the session's
// lock). An error is a connection error: GOAWAY goes upstream and its
// calls end with UNAVAILABLE.
func (s *session) upstreamFrame(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.HeadersFrame:
		s.upstreamHeaders(s.u.blk)
	case *http2.DataFrame:
		n := int64(f.Length)
		s.creditConn(s.u, n)
		st := s.byU[f.StreamID]
		if st == nil || st.phase == phaseDone {
			return nil
		}
		data := f.Data()
		if pad := n - int64(len(data)); pad > 0 {
			s.credit(s.u, st, pad)
		}
		if len(data) > 0 {
			st.respData = true
		}
		st.upClosed = f.StreamEnded()
		s.sendC(st, item{data: data, end: f.StreamEnded()})
	case *http2.RSTStreamFrame:
		if st := s.byU[f.StreamID]; st != nil {
			st.upClosed = true
			if st.ticket != nil && !st.settled {
				st.settled = true
				go st.ticket.Spend() // no status: the call may have run
			}
			_ = s.c.fr.WriteRSTStream(st.cid, f.ErrCode)
			st.cEnd = true
			s.forget(st)
		}
	case *http2.SettingsFrame:
		return s.peerSettings(s.u, f)
	case *http2.PingFrame:
		if !f.IsAck() {
			_ = s.u.fr.WritePing(true, f.Data)
		}
	case *http2.WindowUpdateFrame:
		return s.windowUpdate(s.u, f)
	case *http2.GoAwayFrame:
		s.upstreamGoAway(f)
	case *http2.PushPromiseFrame:
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	return nil
}

// upstreamHeaders relays response HEADERS or trailers to the client,
// encoded again for the client's connection. Metadata over
// limits.header_bytes ends the call with INTERNAL.
func (s *session) upstreamHeaders(f *headerBlock) {
	st := s.byU[f.id]
	if st == nil || st.phase == phaseDone {
		return
	}
	if f.truncated {
		st.upClosed = f.ended
		s.answer(st, codes.Internal, "grpc listener: peer header list size exceeded limit (limits.header_bytes)", nil)
		return
	}
	if f.ended {
		st.upClosed = true
		for _, hf := range f.fields {
			switch hf.Name {
			case "grpc-status":
				st.status = hf.Value
			case "grpc-message":
				st.message = hf.Value
			}
		}
	}
	s.sendC(st, item{hdr: f.fields, end: f.ended})
}

// upstreamGoAway: the upstream takes no new calls. Calls it never saw
// (above its last stream id) are refused to the client, which sends them
// again on a new connection; the client is sent away.
func (s *session) upstreamGoAway(f *http2.GoAwayFrame) {
	for _, st := range s.byU {
		if st.uid > f.LastStreamID {
			_ = s.c.fr.WriteRSTStream(st.cid, http2.ErrCodeRefusedStream)
			st.cEnd = true
			if st.ticket != nil && !st.settled {
				st.settled = true
				go st.ticket.GiveBack(notSeen)
			}
			s.forget(st)
		}
	}
	s.upDraining = true
	s.goAwayClient()
}

// notSeen proves that the upstream never saw a call: it refused its stream
// with GOAWAY (RFC 9113 section 6.8: streams above the last id were not
// processed).
var notSeen = domain.NotSent("the upstream refused the stream unprocessed (GOAWAY)")
