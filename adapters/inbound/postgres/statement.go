package postgres

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hoophq/sidecar/app"
)

// canonicalBind returns the canonical bytes of an extended-protocol
// statement: the query text alone when nothing is bound, else the text, a
// NUL (which no query text holds), and then the parameter types given in
// Parse, each parameter's format code (0 text, 1 binary; the Bind's zero,
// one or per-parameter codes expanded) and its value (length -1 for NULL).
// Statement and portal names are not part of it, so the same statement sent
// under another name, or on another connection, is the same statement.
func canonicalBind(query string, oids []uint32, formats []int16, params [][]byte) []byte {
	if len(oids) == 0 && len(params) == 0 {
		return []byte(query)
	}
	n := len(query) + 32 + 4*len(oids)
	for _, p := range params {
		n += 6 + len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, query...)
	b = append(b, 0)
	b = append(b, "hoop-bind-v1"...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(oids)))
	for _, o := range oids {
		b = binary.BigEndian.AppendUint32(b, o)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(params)))
	for i, p := range params {
		b = binary.BigEndian.AppendUint16(b, uint16(formatOf(formats, i)))
		if p == nil {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b
}

// formatOf expands a Bind's format codes: none means text for all, one
// applies to all, else one per parameter.
func formatOf(formats []int16, i int) int16 {
	switch {
	case len(formats) == 0:
		return 0
	case len(formats) == 1:
		return formats[0]
	case i < len(formats):
		return formats[i]
	}
	return 0
}

// displayBind renders a statement for the approver: the query text and,
// when bound, "-- parameters: $1 = …". Binary values are decoded when their
// type is known (given in Parse or described by the upstream), else shown
// in hex.
func displayBind(query string, oids []uint32, formats []int16, params [][]byte) string {
	values := make([]string, len(params))
	for i, p := range params {
		var oid uint32
		if i < len(oids) {
			oid = oids[i]
		}
		values[i] = fmt.Sprintf("$%d = %s", i+1, renderParam(p, formatOf(formats, i), oid))
	}
	return app.WithParameters(query, values)
}

const maxShown = 200

func renderParam(p []byte, format int16, oid uint32) string {
	if p == nil {
		return "NULL"
	}
	if format == 0 {
		return quote(string(p))
	}
	switch {
	case oid == 16 && len(p) == 1:
		return strconv.FormatBool(p[0] != 0)
	case oid == 21 && len(p) == 2:
		return strconv.Itoa(int(int16(binary.BigEndian.Uint16(p))))
	case (oid == 23 || oid == 26) && len(p) == 4:
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(p))), 10)
	case oid == 20 && len(p) == 8:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(p)), 10)
	case oid == 700 && len(p) == 4:
		return strconv.FormatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(p))), 'g', -1, 32)
	case oid == 701 && len(p) == 8:
		return strconv.FormatFloat(math.Float64frombits(binary.BigEndian.Uint64(p)), 'g', -1, 64)
	case oid == 25 || oid == 1043 || oid == 19 || oid == 1042:
		return quote(string(p))
	case oid == 2950 && len(p) == 16:
		h := hex.EncodeToString(p)
		return "'" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + "'"
	}
	h := hex.EncodeToString(p)
	if len(h) > maxShown {
		h = h[:maxShown] + "…"
	}
	return fmt.Sprintf("(binary, %d bytes) \\x%s", len(p), h)
}

func quote(s string) string {
	cut := ""
	if len(s) > maxShown {
		n := maxShown
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], fmt.Sprintf("… (%d bytes)", len(s))
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'" + cut
}
