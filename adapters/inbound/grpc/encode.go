package grpclistener

// blockMemo remembers header blocks a side's HPACK encoder produced that
// changed nothing in its dynamic table: every field was an index into the
// table (RFC 7541 section 6.1). Encoding the same fields again gives the
// same bytes for as long as the table has not changed since, which gen
// tracks: every other block, and every change of the table's size, may
// change it. A unary call's response headers and trailers, and the
// request headers of a method called again, are then copied instead of
// looked up field by field in the table.
type blockMemo struct {
	gen     uint64
	entries [4]memoEntry
	next    int // the entry replaced next
}

type memoEntry struct {
	gen    uint64 // the memo's gen when stored, plus one (0: empty)
	fields fields
	block  []byte
}

// lookup returns the block for f if one is remembered and still valid.
func (m *blockMemo) lookup(f fields) ([]byte, bool) {
	for i := range m.entries {
		e := &m.entries[i]
		if e.gen == m.gen+1 && sameFields(e.fields, f) {
			return e.block, true
		}
	}
	return nil, false
}

// encoded records that f was encoded as block: remembered when block only
// indexes the table, else the table may have changed and every remembered
// block is forgotten.
func (m *blockMemo) encoded(f fields, block []byte) {
	if !onlyIndexed(block) {
		m.gen++
		return
	}
	e := &m.entries[m.next]
	m.next = (m.next + 1) % len(m.entries)
	e.gen = m.gen + 1
	e.fields = append(e.fields[:0], f...)
	e.block = append(e.block[:0], block...)
}

// changed forgets every remembered block (the table's size changed).
func (m *blockMemo) changed() { m.gen++ }

// sameFields reports whether a and b are the same fields in the same order.
func sameFields(a, b fields) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// onlyIndexed reports whether block consists of indexed header field
// representations only (a 1 bit, then the index as an integer with a
// 7-bit prefix: RFC 7541 sections 5.1 and 6.1).
func onlyIndexed(block []byte) bool {
	for i := 0; i < len(block); i++ {
		if block[i]&0x80 == 0 {
			return false
		}
		if block[i]&0x7f == 0x7f { // the index goes on in the bytes that follow
			for i++; i < len(block) && block[i]&0x80 != 0; i++ {
			}
		}
	}
	return true
}
