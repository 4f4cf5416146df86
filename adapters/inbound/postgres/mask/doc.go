// Package mask rewrites the values of a PostgreSQL result under a masking
// plan (domain/masking): the DataRows of a RowDescription, in text and
// binary format, and the rows of a COPY TO STDOUT in text or csv format.
// It holds no connection state and does no I/O; the listener's relay
// (../mask.go) feeds it the upstream's messages one by one, so memory
// stays that of one row whatever the size of the result.
//
// One job per file:
//
//   - row.go: Columns (from a RowDescription) and Row, which rewrites one
//     DataRow and says when a value could not be read.
//   - value.go: one value by its type OID and format: text-like types
//     masked inside, other types NULL when masked.
//   - json.go: the string and number tokens of a json or jsonb text.
//   - array.go: arrays of text-like types, text and binary format, and
//     binary arrays of the types binary.go renders.
//   - binary.go: which non-text types a binary value is read of (numbers,
//     dates, uuid, inet), and their text as pgx's pgtype codecs write it,
//     for NonText.
//   - copy.go: one COPY TO STDOUT row in text or csv format.
package mask
