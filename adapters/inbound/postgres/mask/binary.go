package mask

import "github.com/jackc/pgx/v5/pgtype"

// rendered are the non-text types whose binary values render reads: the
// types an entity can hide in (a card number kept in a bigint or a
// numeric, an address in an inet). Any other binary type is unread.
var rendered = map[uint32]bool{16: true, 18: true, 20: true, 21: true, 23: true, 26: true, 700: true, 701: true,
	1700: true, 2950: true, 1082: true, 1083: true, 1114: true, 1184: true, 1266: true, 1186: true,
	650: true, 869: true, 774: true, 829: true}

// render appends to dst the text of a binary value v of type oid, as
// pgx's codec for the type writes it (close to what PostgreSQL prints),
// so that Field.NonText can look for entities in it. ok is false for a
// type not in rendered or a value pgx cannot decode. types is a Map of the
// caller's own (a pgtype.Map memoizes its plans unlocked).
func render(types *pgtype.Map, dst []byte, oid uint32, v []byte) (out []byte, ok bool) {
	if !rendered[oid] {
		return dst, false
	}
	if oid == pgtype.TimetzOID { // pgx has no timetz codec: its time, without the zone
		if len(v) != 12 {
			return dst, false
		}
		oid, v = pgtype.TimeOID, v[:8]
	}
	t, ok := types.TypeForOID(oid)
	if !ok {
		return dst, false
	}
	x, err := t.Codec.DecodeValue(types, oid, pgtype.BinaryFormatCode, v)
	if err != nil || x == nil {
		return dst, false
	}
	if out, err = types.Encode(oid, pgtype.TextFormatCode, x, dst); err != nil {
		return dst, false
	}
	return out, true
}
