package mongodb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain/masking"
)

// maskJob is the masking of one reply: the plan, and where it came from
// (to mask the batches of the cursor it opens alike).
type maskJob struct {
	src      maskSource
	plan     *masking.Plan
	getMore  int64    // the cursor a getMore continued, 0 for another command
	distinct []string // the path of a distinct's key, nil for another command
	results  bool     // a mapReduce: the documents of its inline results
}

// maskFor returns the masking of the reply to cmd, decided with set as
// st, or nil when no masking rule applies. set.Masking must not be nil.
// st keeps no reference to cmd (whose bytes the session reuses): its
// text, when a rule's match reads it, is rendered now.
func maskFor(set *app.ListenerSettings, st app.Statement, cmd *command.Command) *maskJob {
	st.Render, st.Canonicalize, st.OnWait = nil, nil, nil
	if set.Masking.NeedsFacts() {
		st.Display = cmd.Display(app.MaxShownStatement)
	}
	job := maskSource{set: set, st: st}.job()
	if job != nil && strings.EqualFold(cmd.Name, "mapReduce") {
		job.results = true
	}
	if job != nil && strings.EqualFold(cmd.Name, "distinct") {
		if key, ok := cmd.Body.Lookup("key").StringValueOK(); ok {
			job.distinct = strings.Split(key, ".")
		}
	}
	return job
}

// continuation returns the masking of the reply to a getMore (the plan of
// the statement that opened its cursor; a cursor not remembered is masked
// by the getMore's own statement when the listener masks), and forgets the
// cursors a killCursors ends. nil: nothing to mask.
func (s *session) continuation(cmd *command.Command) *maskJob {
	if !strings.EqualFold(cmd.Name, "getMore") {
		s.cursors.drop(s.l, cmd.CursorIDs...)
		return nil
	}
	if len(cmd.CursorIDs) != 1 {
		return nil // the server refuses it
	}
	id := cmd.CursorIDs[0]
	var job *maskJob
	if src, ok := s.cursors.get(s.l, id); ok {
		job = src.job()
	} else if set := s.l.Settings(); set.Masking != nil {
		st := statement(cmd)
		st.Identity, st.Client = s.identity(), s.clientAddr
		job = maskFor(set, st, cmd)
	}
	if job != nil {
		job.getMore = id
	}
	return job
}

// relayMasked relays one reply that a masking plan covers (p.mask): read
// whole (it is within maxMessageSizeBytes), its result documents masked
// (maskReplyOf), then written; the audit line written once it is sent
// (app.Listener.Masked). A reply that cannot be read (over the maximum,
// not decodable) is withheld with an error reply, or passed unread when
// the rules are best_effort. hdr is the reply's header, already read into
// head.
func (s *session) relayMasked(p *pending, head []byte, br *bufio.Reader, hdr wire.Header) error {
	job := p.mask
	req := wire.Header{RequestID: hdr.ResponseTo}
	legacy := hdr.OpCode == wire.OpReply
	n := int64(hdr.Length) - wire.HeaderLen
	if int(hdr.Length) > s.max() {
		if p.ticket != nil {
			p.ticket.Spend() // its outcome is not read
		}
		withheld := job.unreadable(fmt.Sprintf("a reply of %d bytes, over maxMessageSizeBytes", hdr.Length))
		var err error
		if withheld == nil {
			err = s.stream(head, br, n)
		} else if _, err = br.Discard(int(n)); err == nil {
			err = s.reply(req, legacy, errorDoc(CodeWithheld, withheld.Error()))
		}
		s.masked(job, withheld)
		return err
	}
	msg := make([]byte, hdr.Length)
	copy(msg, head)
	if _, err := io.ReadFull(br, msg[wire.HeaderLen:]); err != nil {
		return err
	}
	s.inspect(p, msg)
	r, err := maskReplyOf(msg, &masker{plan: job.plan, distinct: job.distinct, results: job.results}, s.max())
	var withheld error
	switch {
	case err == nil:
		msg = r.Msg
		s.track(job, r)
	default:
		withheld = job.unreadable("a reply that could not be decoded: " + err.Error())
	}
	if withheld != nil {
		err = s.reply(req, legacy, errorDoc(CodeWithheld, withheld.Error()))
	} else {
		s.wmu.Lock()
		_, err = s.client.Write(msg)
		s.wmu.Unlock()
	}
	s.masked(job, withheld)
	return err
}

// track notes the cursor a masked reply opened or continued: remembered
// while open, forgotten once exhausted; the next reply of an exhaust
// stream is masked alike.
func (s *session) track(job *maskJob, r maskedReply) {
	switch {
	case r.CursorID != 0 && r.CursorID != job.getMore:
		s.cursors.put(s.l, r.CursorID, job.src)
	case r.CursorID == 0 && job.getMore != 0:
		s.cursors.drop(s.l, job.getMore)
	}
	if r.MoreToCome {
		if next := job.src.job(); next != nil {
			h, _ := wire.ParseHeader(r.Msg)
			next.getMore = r.CursorID
			s.mu.Lock()
			s.pending[h.RequestID] = &pending{mask: next}
			s.mu.Unlock()
		}
	}
}

// masked writes the audit line of one masked reply.
func (s *session) masked(job *maskJob, withheld error) {
	s.l.Masked(job.src.set, job.src.st.Client, job.src.st.Identity, job.plan, withheld)
}

// errUnreadable withholds a reply a plan with column rules only could not
// read: which mode it takes is not known without a field to ask.
var errUnreadable = errors.New("hoop: the result was withheld: a masking rule applies and the reply could not be read")

// unreadable is the error a reply that cannot be read is withheld with,
// nil when the plan's rules are best_effort (it is then sent unread and
// counted).
func (j *maskJob) unreadable(what string) error {
	f := j.plan.Field()
	if f == nil {
		return errUnreadable
	}
	if _, err := f.Unreadable(what); err != nil {
		return err
	}
	return nil
}
