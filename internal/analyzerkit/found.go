package analyzerkit

import "github.com/hoophq/sidecar/domain"

// Found is what a walk of one statement's parse tree has found so far: its
// kinds (Actions, upper case), the names it acts on (Targets) and the
// functions it calls, each kept once. Each SQL analyzer's walker embeds it
// and adds what its language names.
type Found struct {
	Actions, Targets, Functions map[string]struct{}
}

// NewFound returns an empty Found.
func NewFound() Found {
	return Found{Actions: map[string]struct{}{}, Targets: map[string]struct{}{}, Functions: map[string]struct{}{}}
}

// Act adds statement kinds.
func (f Found) Act(actions ...string) {
	for _, a := range actions {
		f.Actions[a] = struct{}{}
	}
}

// Add merges a (a nested statement's analysis) in.
func (f Found) Add(a domain.Analysis) {
	f.Act(a.Actions...)
	for _, t := range a.Targets {
		f.Targets[t] = struct{}{}
	}
	for _, fn := range a.Functions {
		f.Functions[fn] = struct{}{}
	}
}

// Analysis returns what was found, each list sorted (nil when empty).
func (f Found) Analysis() domain.Analysis {
	return domain.Analysis{Actions: SortedKeys(f.Actions), Targets: SortedKeys(f.Targets), Functions: SortedKeys(f.Functions)}
}
