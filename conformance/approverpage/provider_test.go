package approverpage

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"golang.org/x/text/language"
)

// The person who signs in at the test's OpenID provider.
const (
	idpUser     = "tester"
	idpPassword = "correct horse battery staple"
	idpEmail    = "tester@example.com"
	idpSubject  = "u-tester-7"
	idpClientID = "hoop-controlplane"
	idpSecret   = "test-oidc-client-secret"
	// A person the provider knows and the Control Plane does not.
	strangerUser  = "stranger"
	strangerEmail = "stranger@example.com"
)

// idpGroups is what the provider's groups claim says the person is in.
var idpGroups = []string{"dba"}

// provider is zitadel/oidc's example OpenID provider (in memory: one user,
// one web client whose redirect URI is redirect), listening on a free
// loopback port; it returns the issuer URL ("http://127.0.0.1:PORT/").
func provider(t *testing.T, redirect string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String() + "/"
	users := someUsers{
		{ID: idpSubject, Username: idpUser, Password: idpPassword, FirstName: "Test", LastName: "Er",
			Email: idpEmail, EmailVerified: true, PreferredLanguage: language.English},
		{ID: "u-stranger-1", Username: strangerUser, Password: idpPassword, FirstName: "Str", LastName: "Anger",
			Email: strangerEmail, EmailVerified: true, PreferredLanguage: language.English},
	}
	st := storage.NewStorageWithClients(users, map[string]*storage.Client{
		idpClientID: storage.WebClient(idpClientID, idpSecret, redirect),
	})
	srv := &http.Server{Handler: exampleop.SetupServer(issuer, withGroups{st}, nil, false)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return issuer
}

// withGroups adds the groups claim to the provider's UserInfo answer, as a
// company directory would.
type withGroups struct{ *storage.Storage }

func (s withGroups) SetUserinfoFromToken(ctx context.Context, ui *oidc.UserInfo, tokenID, subject, origin string) error {
	if err := s.Storage.SetUserinfoFromToken(ctx, ui, tokenID, subject, origin); err != nil {
		return err
	}
	ui.AppendClaims("groups", idpGroups)
	return nil
}

// someUsers is the provider's user store.
type someUsers []*storage.User

func (us someUsers) GetUserByID(id string) *storage.User {
	for _, u := range us {
		if u.ID == id {
			return u
		}
	}
	return nil
}

func (us someUsers) GetUserByUsername(name string) *storage.User {
	for _, u := range us {
		if u.Username == name {
			return u
		}
	}
	return nil
}

func (someUsers) ExampleClientID() string { return "" }
