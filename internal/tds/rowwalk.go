package tds

import (
	"encoding/binary"
	"fmt"
)

// RowWalker measures one ROW, NBCROW or ALTROW body (MS-TDS 2.2.7.19,
// 2.2.7.17, 2.2.7.2) fed to it in pieces, keeping only where it is: a value
// of any size (a PLP chunk of a varbinary(max), a TEXT) is skipped as it
// passes, never held. The mssql relay walks a row too long to hold with
// it; RowLen is the same walk over bytes at hand, so a row is measured by
// one rule. Its value layouts are readValue's (TYPE_VARBYTE, 2.2.5.2.3).
type RowWalker struct {
	cols   []Column
	nbc    bool
	bitmap []byte // NBCROW's null bitmap, read first
	alias  bool   // bitmap may point into the bytes fed (RowLen: one Feed)
	col    int    // the column whose value is next or under way
	step   walkStep
	kind   lenKind // the length field under way (step wHeader)
	hdr    [8]byte
	hdrN   int    // bytes of hdr read
	skip   uint64 // value bytes still to pass (step wSkip)
	after  lenKind
	done   bool
}

type walkStep uint8

const (
	wBitmap walkStep = iota // reading the NBCROW bitmap
	wValue                  // the value of column col starts
	wHeader                 // reading a length field of kind
	wSkip                   // passing skip bytes, then after
)

type lenKind uint8

const (
	kNone     lenKind = iota // after a skip: the next column
	kByte                    // BYTELEN
	kUShort                  // USHORTLEN
	kLong                    // LONGLEN (sql_variant)
	kTextPtr                 // TEXT/NTEXT/IMAGE: text pointer length
	kTextLen                 // its LONGLEN after pointer and timestamp
	kPLPTotal                // PLP: ULONGLONG total length
	kPLPChunk                // PLP: ULONG chunk length
)

var lenSize = [...]int{kByte: 1, kUShort: 2, kLong: 4, kTextPtr: 1, kTextLen: 4, kPLPTotal: 8, kPLPChunk: 4}

// NewRowWalker starts the walk of a row body (after the token byte, and
// after an ALTROW's Id) typed by cols; nbc for an NBCROW.
func NewRowWalker(cols []Column, nbc bool) *RowWalker {
	w := &RowWalker{}
	w.start(cols, nbc)
	return w
}

func (w *RowWalker) start(cols []Column, nbc bool) {
	*w = RowWalker{cols: cols, nbc: nbc, step: wValue}
	if nbc {
		w.step = wBitmap
	}
}

// Feed walks b, the next bytes of the row, and returns how many of them
// belong to it and whether the row ended there (the rest of b is the next
// token). It keeps none of b: at most an NBCROW's bitmap is copied.
func (w *RowWalker) Feed(b []byte) (int, bool) {
	used := 0
	for !w.done {
		switch w.step {
		case wBitmap:
			if want := (len(w.cols) + 7) / 8; w.alias && len(b)-used >= want {
				w.bitmap = b[used : used+want]
				used += want
				w.step = wValue
				continue
			}
			if w.bitmap == nil {
				w.bitmap = make([]byte, 0, (len(w.cols)+7)/8)
			}
			k := min(cap(w.bitmap)-len(w.bitmap), len(b)-used)
			w.bitmap = append(w.bitmap, b[used:used+k]...)
			used += k
			if len(w.bitmap) < cap(w.bitmap) {
				return used, false
			}
			w.step = wValue
		case wValue:
			w.startValue()
		case wHeader:
			k := min(lenSize[w.kind]-w.hdrN, len(b)-used)
			copy(w.hdr[w.hdrN:], b[used:used+k])
			w.hdrN += k
			used += k
			if w.hdrN < lenSize[w.kind] {
				return used, false
			}
			w.header()
		case wSkip:
			k := min(w.skip, uint64(len(b)-used))
			w.skip -= k
			used += int(k)
			if w.skip > 0 {
				return used, false
			}
			w.then(w.after)
		}
	}
	return used, true
}

// startValue begins the value of column col, as readValue reads it.
func (w *RowWalker) startValue() {
	for w.col < len(w.cols) && w.nbc && w.bitmap[w.col/8]&(1<<(w.col%8)) != 0 {
		w.col++ // NULL: no bytes
	}
	if w.col == len(w.cols) {
		w.done = true
		return
	}
	ti := w.cols[w.col].Type
	if n, ok := fixedSize(ti.Type); ok {
		w.skipThen(uint64(n), kNone)
		return
	}
	switch ti.Type {
	case TypeGUID, TypeIntN, TypeBitN, TypeFltN, TypeMoneyN, TypeDateTimeN,
		TypeDecimal, TypeNumeric, TypeDecimalN, TypeNumericN,
		TypeDateN, TypeTimeN, TypeDateTime2N, TypeDateTimeOffset,
		TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
		w.then(kByte)
	case TypeText, TypeNText, TypeImage:
		w.then(kTextPtr)
	case TypeVariant:
		w.then(kLong)
	default:
		if ti.IsPLP() {
			w.then(kPLPTotal)
		} else {
			w.then(kUShort)
		}
	}
}

// then reads a length field of kind k next, or (kNone) the next column.
func (w *RowWalker) then(k lenKind) {
	if k == kNone {
		w.col++
		w.step = wValue
		return
	}
	w.step, w.kind, w.hdrN = wHeader, k, 0
}

func (w *RowWalker) skipThen(n uint64, k lenKind) {
	w.step, w.skip, w.after = wSkip, n, k
}

// header acts on a length field read whole.
func (w *RowWalker) header() {
	le := binary.LittleEndian
	switch w.kind {
	case kByte:
		n := uint64(w.hdr[0])
		switch w.cols[w.col].Type.Type {
		case TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
			if n == 0xFF { // NULL
				n = 0
			}
		}
		w.skipThen(n, kNone)
	case kUShort:
		n := uint64(le.Uint16(w.hdr[:]))
		if n == 0xFFFF { // NULL
			n = 0
		}
		w.skipThen(n, kNone)
	case kLong:
		w.skipThen(uint64(le.Uint32(w.hdr[:])), kNone)
	case kTextPtr:
		if p := uint64(w.hdr[0]); p > 0 {
			w.skipThen(p+8, kTextLen)
		} else {
			w.then(kNone) // NULL
		}
	case kTextLen:
		w.skipThen(uint64(le.Uint32(w.hdr[:])), kNone)
	case kPLPTotal:
		if le.Uint64(w.hdr[:]) == plpNull {
			w.then(kNone)
		} else {
			w.then(kPLPChunk)
		}
	case kPLPChunk:
		if n := uint64(le.Uint32(w.hdr[:])); n > 0 {
			w.skipThen(n, kPLPChunk)
		} else {
			w.then(kNone) // the terminator
		}
	}
}

// WalkRow starts a RowWalker on the ROW, NBCROW or ALTROW token at the
// start of b (token byte included), typed by the Scanner's columns, and
// feeds it b. It returns the walker and how many bytes of b the token has
// used, and whether it ended in b. Errors: ErrShort when b holds no ALTROW
// Id yet; ErrCannotFrame (wrapped) for another token type or an ALTROW of
// no ALTMETADATA.
func (s *Scanner) WalkRow(b []byte) (*RowWalker, int, bool, error) {
	if len(b) == 0 {
		return nil, 0, false, short("row token")
	}
	var w *RowWalker
	hdr := 1
	switch b[0] {
	case TokenRow, TokenNBCRow:
		w = NewRowWalker(s.Columns, b[0] == TokenNBCRow)
	case TokenAltRow:
		if len(b) < 3 {
			return nil, 0, false, short("ALTROW Id")
		}
		id := binary.LittleEndian.Uint16(b[1:])
		cols, ok := s.Alt[id]
		if !ok {
			return nil, 0, false, fmt.Errorf("%w: ALTROW of Id %d follows no ALTMETADATA of that Id", ErrCannotFrame, id)
		}
		w, hdr = NewRowWalker(cols, false), 3
	default:
		return nil, 0, false, fmt.Errorf("%w: token 0x%02X is not a row", ErrCannotFrame, b[0])
	}
	n, done := w.Feed(b[hdr:])
	return w, hdr + n, done, nil
}
