package httplistener

import (
	"net/http"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// The effects (domain/effects.go) of a request, the protocol-blind words
// rules match with `match: {effects: […]}` (docs/rules.md; docs/http-listener.md,
// "Effects"). They follow from the method (and every method override
// header value) by RFC 9110's meaning of each, and, on a Kubernetes API
// path, from the resource it names (kubeEffects).
//
// POST is INSERT and UNKNOWN: RFC 9110 §9.3.3 leaves its meaning to the
// resource ("process the enclosed representation according to the
// resource's own semantics"), so beside its common meaning (create) it may
// delete, run a job or anything else, which the listener cannot read. It
// is not RUNS_CODE: that word names code the client sends (a DO block,
// $where), and would put every create under the `destructive` preset.
// PUT creates or replaces (§9.3.4): UPDATE and INSERT, as an upsert.

// methodEffects maps a method, upper case, to its effects; a method not
// here (CONNECT's tunnel, an extension method) is UNKNOWN.
var methodEffects = map[string][]string{
	http.MethodGet:     {domain.EffectRead},
	http.MethodHead:    {domain.EffectRead},
	http.MethodOptions: {domain.EffectRead},
	http.MethodTrace:   {domain.EffectRead},
	http.MethodPost:    {domain.EffectInsert, domain.EffectUnknown},
	http.MethodPut:     {domain.EffectUpdate, domain.EffectInsert},
	http.MethodPatch:   {domain.EffectUpdate},
	http.MethodDelete:  {domain.EffectDelete},
	// WebDAV (RFC 4918): PROPFIND reads properties, PROPPATCH sets them,
	// MKCOL creates a collection, COPY writes (and with Overwrite
	// replaces) the destination, MOVE also removes the source, LOCK and
	// UNLOCK change a resource's lock.
	"PROPFIND":  {domain.EffectRead},
	"PROPPATCH": {domain.EffectUpdate},
	"MKCOL":     {domain.EffectInsert},
	"COPY":      {domain.EffectInsert, domain.EffectUpdate},
	"MOVE":      {domain.EffectInsert, domain.EffectUpdate, domain.EffectDelete},
	"LOCK":      {domain.EffectUpdate},
	"UNLOCK":    {domain.EffectUpdate},
}

// effects returns the effects of r given its analysis's actions (the method
// and override values) and targets (every reading of its path): the
// methods' effects, then what each reading of the path adds as a
// Kubernetes API path. Readings can only add effects, never take one away.
func effects(r *http.Request, actions, targets []string) []string {
	if len(actions) == 1 && !anyAPIPath(targets) {
		if e, ok := methodEffects[actions[0]]; ok {
			return e // shared, never appended to in place (len == cap): a plain request allocates nothing here
		}
	}
	var out []string
	for _, m := range actions {
		if e, ok := methodEffects[strings.ToUpper(m)]; ok {
			out = domain.AddEffects(out, e...)
		} else {
			out = domain.AddEffects(out, domain.EffectUnknown)
		}
	}
	for _, t := range targets {
		if !strings.HasPrefix(t, "/api") {
			continue
		}
		if k, ok := kubePath(t); ok {
			for _, m := range actions {
				out = domain.AddEffects(out, k.effects(strings.ToUpper(m), r)...)
			}
		}
	}
	return out
}

// anyAPIPath reports whether a reading of the path may be a Kubernetes API
// path (kubePath is asked only then).
func anyAPIPath(targets []string) bool {
	for _, t := range targets {
		if strings.HasPrefix(t, "/api") {
			return true
		}
	}
	return false
}
