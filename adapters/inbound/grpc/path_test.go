package grpclistener_test

import (
	"bytes"
	"encoding/binary"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/domain"
)

// rawCall sends one gRPC call with the given :path over a raw h2c
// connection (no gRPC client would send such a path) and returns the
// grpc-status it ended with (noStatus when none came) and its grpc-message.
const noStatus = codes.Code(1 << 20)

func rawCall(t *testing.T, addr, path string, msg []byte) (codes.Code, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte(http2.ClientPreface))
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.WriteSettings()
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", path}, {":authority", addr},
		{"content-type", "application/grpc"}, {"te", "trailers"}, {"x-hoop-approval", "return"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndHeaders: true})
	body := append([]byte{0}, binary.BigEndian.AppendUint32(nil, uint32(len(msg)))...)
	fr.WriteData(1, true, append(body, msg...))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return noStatus, ""
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			if v := f.PseudoValue("status"); v != "" && v != "200" {
				return noStatus, ""
			}
			code, msg := noStatus, ""
			for _, hf := range f.RegularFields() {
				switch hf.Name {
				case "grpc-status":
					n, _ := strconv.Atoi(hf.Value)
					code = codes.Code(n)
				case "grpc-message":
					msg, _ = url.PathUnescape(hf.Value)
				}
			}
			if code != noStatus {
				return code, msg
			}
		case *http2.RSTStreamFrame, *http2.GoAwayFrame:
			return noStatus, ""
		}
	}
}

// A :path that is not /service/method (a query, %XX escapes, extra
// segments) is refused before any rule is asked: servers that route by the
// path without its query or with escapes decoded would run a method no rule
// matched.
func TestMalformedMethodIsRefused(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	msg, _ := proto.Marshal(&testpb.Item{Name: "x"})
	if got, _ := rawCall(t, addr, unaryMethod, msg); got != codes.PermissionDenied {
		t.Fatalf("the well-formed call: %v, want PermissionDenied", got)
	}
	for _, p := range []string{unaryMethod + "?x=1", unaryMethod + "#x", "/hoop.probe.v1.Probe/%55nary",
		unaryMethod + "/", "/hoop.probe.v1.Probe//Unary", "//hoop.probe.v1.Probe/Unary", "/hoop.probe.v1.Probe/Un ary"} {
		// The listener answers, not the upstream (which says "unknown service").
		if got, m := rawCall(t, addr, p, msg); got != codes.Unimplemented || !strings.Contains(m, "grpc listener: malformed method name") {
			t.Errorf("%q: %v %q, want the listener's Unimplemented", p, got, m)
		}
	}
	if n := up.Count("Unary"); n != 0 {
		t.Fatalf("Unary ran %d times", n)
	}
	if len(sc.CP.Records()) != 1 {
		t.Fatalf("%d approval requests, want the well-formed call's only", len(sc.CP.Records()))
	}
}
