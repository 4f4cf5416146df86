package grpclistener

import (
	"strings"
	"unicode"

	"github.com/hoophq/sidecar/domain"
)

// The effects (domain/effects.go) of a call, the protocol-blind words
// rules match with `match: {effects: […]}` (docs/rules.md; docs/grpc-listener.md,
// "Effects"). The listener reads no .proto file, so only the method's name
// is known. Names that follow Google's API Improvement Proposals for
// standard methods are read by their verb:
//
//	Get… (AIP-131), List… (AIP-132), BatchGet… (AIP-231), Search… → READ
//	Create… (AIP-133), BatchCreate… (AIP-233)                     → INSERT
//	Update… (AIP-134), BatchUpdate… (AIP-234)                     → UPDATE
//	Delete… (AIP-135), BatchDelete… (AIP-235)                     → DELETE
//
// The verb must be a whole word (GetBook, not Getaway), and the rest of the
// name may not hold another verb or a joining word (GetOrCreateBook,
// DeleteAndGetBook), which would do more than the first verb says. Every
// other method is a custom method (AIP-136: PurgeBooks, MoveBook,
// Undelete…) whose server code may do anything: UNKNOWN. A server may of
// course name a method against the AIPs; the effect is what the name
// promises, and a rule that must not trust names matches targets.
//
// The health check and server reflection services (grpc.health.v1,
// grpc.reflection.v1 and v1alpha) only read.

// aipVerbs are the standard methods' verbs and their effects.
var aipVerbs = map[string][]string{
	"Get": {domain.EffectRead}, "List": {domain.EffectRead}, "BatchGet": {domain.EffectRead},
	"Search": {domain.EffectRead},
	"Create": {domain.EffectInsert}, "BatchCreate": {domain.EffectInsert},
	"Update": {domain.EffectUpdate}, "BatchUpdate": {domain.EffectUpdate},
	"Delete": {domain.EffectDelete}, "BatchDelete": {domain.EffectDelete},
}

// notAfterVerb are words that, after the verb, mean the method does more
// than it: a second verb or a joining word.
var notAfterVerb = map[string]bool{
	"Get": true, "List": true, "Search": true, "Create": true, "Update": true, "Delete": true,
	"Batch": true, "And": true, "Or": true, "Then": true,
}

// readOnlyServices are services whose every method only reads.
var readOnlyServices = map[string]bool{
	"grpc.health.v1.Health":                    true,
	"grpc.reflection.v1.ServerReflection":      true,
	"grpc.reflection.v1alpha.ServerReflection": true,
}

var (
	effectsRead    = []string{domain.EffectRead}
	effectsUnknown = []string{domain.EffectUnknown}
)

// methodEffects returns the effects of a call to the full method name
// "/package.Service/Method". The slices are shared: callers must not
// modify them (domain.AddEffects copies when it grows one).
func methodEffects(fullMethod string) []string {
	service, method, ok := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	if !ok {
		return effectsUnknown
	}
	if readOnlyServices[service] {
		return effectsRead
	}
	words := camelWords(method)
	if len(words) == 0 {
		return effectsUnknown
	}
	verb, rest := words[0], words[1:]
	if verb == "Batch" && len(rest) > 0 {
		verb, rest = verb+rest[0], rest[1:]
	}
	e, ok := aipVerbs[verb]
	if !ok {
		return effectsUnknown
	}
	for _, w := range rest {
		if notAfterVerb[w] {
			return effectsUnknown
		}
	}
	return e[:len(e):len(e)]
}

// camelWords splits an UpperCamelCase name into its words ("GetHTTPRoute"
// → Get, HTTP, Route); a name that does not start with an upper-case
// letter, or holds anything but letters and digits, gives none, so it
// reads as a custom method.
func camelWords(name string) []string {
	if name == "" || !unicode.IsUpper(rune(name[0])) {
		return nil
	}
	var words []string
	start := 0
	for i := 1; i < len(name); i++ {
		c := rune(name[i])
		if c > unicode.MaxASCII || !(unicode.IsLetter(c) || unicode.IsDigit(c)) {
			return nil
		}
		prev := rune(name[i-1])
		nextLower := i+1 < len(name) && unicode.IsLower(rune(name[i+1]))
		if unicode.IsUpper(c) && (!unicode.IsUpper(prev) || nextLower) {
			words = append(words, name[start:i])
			start = i
		}
	}
	return append(words, name[start:])
}
