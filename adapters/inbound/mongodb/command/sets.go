package command

// Small-then-large sets: a linear search while few (no allocation, faster
// than a map for the handful of fields and targets of a real command), a
// map past smallSet entries, so a 48 MB command with millions of fields,
// sequences or targets costs linear time, not quadratic.
const smallSet = 32

// keySet holds field names as their bytes in the message.
type keySet struct {
	n     int
	small [smallSet][]byte
	big   map[string]struct{}
}

// add adds k and reports whether it was new.
func (s *keySet) add(k []byte) bool {
	if s.big != nil {
		if _, ok := s.big[string(k)]; ok {
			return false
		}
		s.big[string(k)] = struct{}{}
		return true
	}
	for _, x := range s.small[:s.n] {
		if string(x) == string(k) {
			return false
		}
	}
	if s.n < smallSet {
		s.small[s.n] = k
		s.n++
		return true
	}
	s.big = make(map[string]struct{}, 2*smallSet)
	for _, x := range s.small[:s.n] {
		s.big[string(x)] = struct{}{}
	}
	s.big[string(k)] = struct{}{}
	return true
}

// has reports whether k was added.
func (s *keySet) has(k string) bool {
	if s.big != nil {
		_, ok := s.big[k]
		return ok
	}
	for _, x := range s.small[:s.n] {
		if string(x) == k {
			return true
		}
	}
	return false
}

// list is an ordered list of strings without repeats.
type list struct {
	items []string
	index map[string]struct{}
}

// add appends v unless it is empty or already there.
func (l *list) add(v string) {
	if v == "" {
		return
	}
	if l.index != nil {
		if _, ok := l.index[v]; ok {
			return
		}
		l.index[v] = struct{}{}
		l.items = append(l.items, v)
		return
	}
	for _, x := range l.items {
		if x == v {
			return
		}
	}
	l.items = append(l.items, v)
	if len(l.items) > smallSet {
		l.index = make(map[string]struct{}, 2*len(l.items))
		for _, x := range l.items {
			l.index[x] = struct{}{}
		}
	}
}
