package mongodb

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
)

// MONGODB-X509 (docs/mongodb-listener.md, "Login"). The client's TLS ends
// at the listener, so its certificate cannot reach the upstream. With
// tls.client_ca_file the listener therefore does what mongod does with a
// client certificate: it verifies the certificate against those CAs in the
// TLS handshake, and answers the client's authenticate {mechanism:
// "MONGODB-X509"} itself, for the certificate's subject (RFC 2253, as
// mongod names the user; a "user" the client names must be that subject).
// For a subject listed in x509_logins, the connection to the upstream was
// made with that entry's client certificate, and the login succeeds only
// when the upstream accepts the listener's own authenticate {mechanism:
// "MONGODB-X509"} on it; the subject then is the connection's identity.
// A hello's speculativeAuthenticate for MONGODB-X509 is taken out of the
// hello before it is forwarded (the upstream would log in for its own
// certificate and answer with that user), so the driver authenticates
// with the authenticate command, which the listener answers.

// x509Auth is a connection's client certificate, when the listener
// verifies them (tls.client_ca_file).
type x509Auth struct {
	subject string         // the verified certificate's subject, "" when the client sent none
	login   *app.X509Login // the x509_logins entry for subject, nil when none
}

// clientCertificate reads the verified client certificate of a TLS
// connection: its subject and the listener's login for it.
func clientCertificate(c net.Conn, set *app.ListenerSettings) *x509Auth {
	if set.TLS.ClientCAFile == "" {
		return nil
	}
	a := &x509Auth{}
	if tc, ok := c.(*tls.Conn); ok {
		st := tc.ConnectionState()
		if len(st.VerifiedChains) > 0 && len(st.PeerCertificates) > 0 {
			a.subject = st.PeerCertificates[0].Subject.String()
		}
	}
	for i := range set.X509Logins {
		if a.subject != "" && set.X509Logins[i].Subject == a.subject {
			a.login = &set.X509Logins[i]
			break
		}
	}
	return a
}

// upstreamTLS is the TLS towards the upstream for a connection: the
// listener's upstream_tls, with the client certificate of the
// connection's x509_logins entry when it has one.
func upstreamTLS(set *app.ListenerSettings, a *x509Auth) app.TLSClient {
	t := set.UpstreamTLS
	if a != nil && a.login != nil {
		t.CertFile, t.KeyFile = a.login.CertFile, a.login.KeyFile
	}
	return t
}

// isX509 reports whether an authentication step is MONGODB-X509's.
func isX509(a *command.Auth) bool {
	return a != nil && strings.EqualFold(a.Mechanism, "MONGODB-X509")
}

// x509LoginWait bounds the wait for the upstream's answer to the
// listener's own authenticate.
var x509LoginWait = 15 * time.Second

// loginX509 answers a client's authenticate {mechanism: "MONGODB-X509"}
// as mongod does: {dbname: "$external", user: <subject>, ok: 1}, or 18
// AuthenticationFailed (with mongod's texts where it has one). On success
// the subject becomes the connection's identity.
func (s *session) loginX509(a *command.Auth) bsoncore.Document {
	x := s.x509
	switch {
	case x.subject == "":
		return authFailed("No verified subject name available from client")
	case a.User != "" && a.User != x.subject:
		return authFailed("There is no x.509 client certificate matching the user.")
	case x.login == nil:
		s.log.Warn("mongodb X.509 login refused: no x509_logins entry for the client certificate's subject", "subject", x.subject)
		return authFailed("Authentication failed.")
	}
	body := bsoncore.NewDocumentBuilder().
		AppendInt32("authenticate", 1).
		AppendString("mechanism", "MONGODB-X509").
		AppendString("$db", "$external").
		Build()
	answer, err := s.ask(body, x509LoginWait)
	if err != nil || !commandOK(answer) {
		msg, _ := answer.Lookup("errmsg").StringValueOK()
		s.log.Warn("mongodb X.509 login refused: the upstream did not accept the listener's certificate for this subject",
			"subject", x.subject, "upstream_cert", x.login.CertFile, "error", err, "upstream_error", msg)
		return authFailed("Authentication failed.")
	}
	s.mu.Lock()
	s.user = x.subject
	s.mu.Unlock()
	s.log.Info("mongodb X.509 login", "subject", x.subject)
	return bsoncore.NewDocumentBuilder().
		AppendString("dbname", "$external").
		AppendString("user", x.subject).
		AppendDouble("ok", 1).
		Build()
}

// authFailed is mongod's answer to a failed authentication: 18
// AuthenticationFailed.
func authFailed(msg string) bsoncore.Document { return errorDoc(CodeAuthFailed, msg) }

// withoutSpeculative returns a client's hello message (OP_MSG or OP_QUERY,
// OP_COMPRESSED decompressed) without its speculativeAuthenticate (also
// inside a legacy $query wrapper), with the same requestID; a checksum is
// recomputed.
func withoutSpeculative(raw []byte, max int) ([]byte, error) {
	orig, err := wire.Decompress(raw, max)
	if err != nil {
		return nil, err
	}
	h, err := wire.ParseHeader(orig)
	if err != nil {
		return nil, err
	}
	switch h.OpCode {
	case wire.OpMsg:
		m, err := wire.DecodeMsg(orig)
		if err != nil {
			return nil, err
		}
		m.Body = withoutKey(m.Body, "speculativeAuthenticate")
		return m.Append(nil), nil
	case wire.OpQuery:
		q, err := wire.DecodeQuery(orig)
		if err != nil {
			return nil, err
		}
		q.Query = withoutKey(q.Query, "speculativeAuthenticate")
		return q.Append(nil), nil
	}
	return nil, fmt.Errorf("opCode %d is not a hello", h.OpCode)
}

// withoutKey returns doc without its top-level key (and without it in a
// $query or query wrapper).
func withoutKey(doc bsoncore.Document, key string) bsoncore.Document {
	elems, err := doc.Elements()
	if err != nil {
		return doc
	}
	b := bsoncore.NewDocumentBuilder()
	for _, el := range elems {
		switch k := el.Key(); {
		case k == key:
		case k == "$query" || k == "query":
			if inner, ok := el.Value().DocumentOK(); ok {
				b.AppendDocument(k, withoutKey(inner, key))
				continue
			}
			b.AppendValue(k, el.Value())
		default:
			b.AppendValue(k, el.Value())
		}
	}
	return b.Build()
}
