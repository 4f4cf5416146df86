package mongodb

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
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
			a.subject = certSubject(st.PeerCertificates[0])
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

// certSubject is cert's subject in RFC 2253 form, read from the RDN
// sequence as the certificate has it (most specific RDN first, every
// attribute, multi-valued RDNs joined with '+'), as mongod names an X.509
// user. Not pkix.Name.String: a parsed pkix.Name keeps only the last CN,
// orders attributes its own way and merges repeated attributes into one
// RDN, so certificates with different names would share one text (and one
// x509_logins entry). "" when the subject does not parse (never for a
// certificate crypto/x509 verified).
func certSubject(cert *x509.Certificate) string {
	var rdns pkix.RDNSequence
	if rest, err := asn1.Unmarshal(cert.RawSubject, &rdns); err != nil || len(rest) > 0 {
		return ""
	}
	return rdns.String()
}

// stillMapped reports whether set (the listener's settings now) still
// verifies client certificates and maps login's subject to login's
// certificate.
func stillMapped(set *app.ListenerSettings, login *app.X509Login) bool {
	if set.TLS.ClientCAFile == "" {
		return false
	}
	for _, l := range set.X509Logins {
		if l.Subject == login.Subject {
			return l.CertFile == login.CertFile && l.KeyFile == login.KeyFile
		}
	}
	return false
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
// the subject becomes the connection's identity. The error is set (with
// the 18 answer) when the upstream's answer to the listener's own
// authenticate did not come (in x509LoginWait, or the write failed): the
// upstream may still log in with the mapped certificate, so the caller
// ends the connection rather than relay commands under an identity it
// does not know.
func (s *session) loginX509(a *command.Auth) (bsoncore.Document, error) {
	x := s.x509
	switch {
	case x.subject == "":
		return authFailedNow("No verified subject name available from client")
	case a.User != "" && a.User != x.subject:
		return authFailedNow("There is no x.509 client certificate matching the user.")
	case s.identity() != "" && s.identity() != x.subject:
		// Logged in as another user (SCRAM through the upstream): mongod
		// since 6.0 refuses a second user on a connection, and so does the
		// listener, so the identity is always the user the upstream has.
		return authFailedNow("Each client connection may only be authenticated once. Previously authenticated as: " + s.identity())
	case x.login == nil:
		s.log.Warn("mongodb X.509 login refused: no x509_logins entry for the client certificate's subject", "subject", x.subject)
		return authFailedNow("Authentication failed.")
	case !stillMapped(s.l.Settings(), x.login):
		// A reload since the client connected removed the entry or gave it
		// another certificate: the entry in force now decides, so a
		// revoked mapping cannot be used by a connection opened before.
		s.log.Warn("mongodb X.509 login refused: the client certificate's x509_logins entry changed since it connected (reload); reconnect",
			"subject", x.subject)
		return authFailedNow("Authentication failed.")
	}
	body := bsoncore.NewDocumentBuilder().
		AppendInt32("authenticate", 1).
		AppendString("mechanism", "MONGODB-X509").
		AppendString("$db", "$external").
		Build()
	answer, err := s.ask(body, x509LoginWait)
	if err != nil {
		s.log.Warn("mongodb X.509 login refused and connection closed: no answer from the upstream to the listener's authenticate, whose outcome is unknown",
			"subject", x.subject, "upstream_cert", x.login.CertFile, "error", err)
		return authFailed("Authentication failed."), fmt.Errorf("X.509 login for %s: %w", x.subject, err)
	}
	if !commandOK(answer) {
		msg, _ := answer.Lookup("errmsg").StringValueOK()
		s.log.Warn("mongodb X.509 login refused: the upstream did not accept the listener's certificate for this subject",
			"subject", x.subject, "upstream_cert", x.login.CertFile, "upstream_error", msg)
		return authFailedNow("Authentication failed.")
	}
	s.mu.Lock()
	s.user = x.subject
	s.mu.Unlock()
	s.log.Info("mongodb X.509 login", "subject", x.subject)
	return bsoncore.NewDocumentBuilder().
		AppendString("dbname", "$external").
		AppendString("user", x.subject).
		AppendDouble("ok", 1).
		Build(), nil
}

// switchesFromX509 reports whether a begins a login (saslStart,
// authenticate) on a connection the listener's X.509 login made the
// certificate's subject's: mongod since 6.0 refuses a second user on a
// connection, and an older upstream would add that user's rights while
// the identity changed.
func (s *session) switchesFromX509(a *command.Auth) bool {
	if !strings.EqualFold(a.Command, "saslStart") && !strings.EqualFold(a.Command, "authenticate") {
		return false
	}
	id := s.identity()
	return id != "" && id == s.x509.subject
}

// authFailed is mongod's answer to a failed authentication: 18
// AuthenticationFailed.
func authFailed(msg string) bsoncore.Document { return errorDoc(CodeAuthFailed, msg) }

// authFailedNow is authFailed for loginX509's refusals that leave the
// connection usable.
func authFailedNow(msg string) (bsoncore.Document, error) { return authFailed(msg), nil }

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
