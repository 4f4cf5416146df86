package mongodb

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// replies splits what the listener wrote to the client into messages and
// returns each reply's body.
func replies(t *testing.T, out []byte) []wire.Msg {
	t.Helper()
	var got []wire.Msg
	r := bytes.NewReader(out)
	for r.Len() > 0 {
		raw, err := wire.ReadMessage(r, 0)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := wire.ParseHeader(raw)
		if h.OpCode == wire.OpReply {
			rep, err := wire.DecodeReply(raw)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, wire.Msg{Header: rep.Header, Body: rep.Documents[0]})
			continue
		}
		m, err := wire.DecodeMsg(raw)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *m)
	}
	return got
}

// What the listener forwards is the client's bytes as sent (the
// OP_COMPRESSED too); what it denies is answered in place with the
// request's id: a held delete with code 13 and the spec's text naming the
// approval, a policy-denied $where with code 13 and the policy text; a
// moreToCome delete gets no answer and is not forwarded.
func TestSessionForwardsOriginalBytesAndAnswersDenials(t *testing.T) {
	msgs := seedMessages(t)
	var out, fwd bytes.Buffer
	s := testSession(testListener(t), bytes.Join(msgs, nil), &out, &fwd)
	if err := s.serve(); !errors.Is(err, io.EOF) {
		t.Fatalf("serve: %v", err)
	}
	want := bytes.Join([][]byte{msgs[0], msgs[1], msgs[5], msgs[6]}, nil)
	if !bytes.Equal(fwd.Bytes(), want) {
		t.Fatalf("forwarded %d bytes, want the hello, the find, the isMaster and the compressed find as sent (%d bytes)", fwd.Len(), len(want))
	}
	if !s.returnMode.Load() {
		t.Fatal("hello's appName asked for return mode")
	}
	got := replies(t, out.Bytes())
	if len(got) != 2 {
		t.Fatalf("want 2 answers (the held delete, the $where), got %d", len(got))
	}
	held, policy := got[0], got[1]
	if held.Header.ResponseTo != 3 || policy.Header.ResponseTo != 4 {
		t.Fatalf("responseTo %d and %d, want 3 and 4", held.Header.ResponseTo, policy.Header.ResponseTo)
	}
	if c, _ := held.Body.Lookup("code").Int32OK(); c != CodeHeld {
		t.Fatalf("held: %s", held.Body)
	}
	msg, _ := held.Body.Lookup("errmsg").StringValueOK()
	if !strings.HasPrefix(msg, "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval ") {
		t.Fatalf("held errmsg %q", msg)
	}
	if name, _ := held.Body.Lookup("codeName").StringValueOK(); name != "Unauthorized" {
		t.Fatalf("codeName %q", name)
	}
	if ok, _ := held.Body.Lookup("ok").DoubleOK(); ok != 0 {
		t.Fatal("ok is not 0")
	}
	if c, _ := policy.Body.Lookup("code").Int32OK(); c != CodeHeld {
		t.Fatalf("policy: %s", policy.Body)
	}
}

// A malformed message (a messageLength over the maximum, a broken OP_MSG)
// ends that session with errMalformed; nothing is forwarded.
func TestSessionClosesOnMalformedMessage(t *testing.T) {
	for name, in := range map[string][]byte{
		"length over max":  {0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 0x07, 0, 0},
		"bad section":      {21, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 0x07, 0, 0, 0, 0, 0, 0, 9},
		"legacy OP_INSERT": {20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xd2, 0x07, 0, 0, 0, 0, 0, 0},
	} {
		var out, fwd bytes.Buffer
		err := testSession(testListener(t), in, &out, &fwd).serve()
		if !errors.As(err, new(errMalformed)) {
			t.Errorf("%s: %v, want a malformed-message error", name, err)
		}
		if fwd.Len() != 0 {
			t.Errorf("%s: forwarded %d bytes", name, fwd.Len())
		}
	}
}

// The upstream is one host:port, not a URL or a seed list.
func TestCheckUpstream(t *testing.T) {
	p := New(nil)
	if err := p.CheckUpstream("mongo:27017"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"mongodb://mongo:27017/", "a:1,b:2", "mongo", "user@mongo:27017"} {
		if p.CheckUpstream(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
