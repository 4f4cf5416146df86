package main

import (
	"github.com/hoophq/sidecar/cmd/controlplane/cpconfig"
	"github.com/hoophq/sidecar/cmd/controlplane/web"
)

// webOIDC is the page's OIDC sign-in for the config's oidc block (nil for
// none); the provider sends people back to public + web.CallbackPath.
func webOIDC(o *cpconfig.OIDC, public string) *web.OIDC {
	if o == nil {
		return nil
	}
	return &web.OIDC{Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret, GroupsClaim: o.GroupsClaim,
		RedirectURL: public + web.CallbackPath, Approver: o.Approver}
}
