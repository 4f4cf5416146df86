package grpclistener

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// previewMax caps the length of a preview (characters, before "…").
const previewMax = 1024

// preview renders protobuf wire bytes without a schema, like protoc
// --decode_raw on one line: `1: "alice" 2: 42 3: {1: 7}`. Length-delimited
// fields show as a quoted string when they are printable UTF-8, as a nested
// message when they parse as one (three levels deep at most), else as hex.
// ok is false when b is not a valid protobuf message (the approver then sees
// the hex only).
func preview(b []byte) (string, bool) {
	var sb strings.Builder
	if !render(&sb, b, 0) {
		return "", false
	}
	s := sb.String()
	if len(s) > previewMax {
		s = s[:previewMax] + "…"
	}
	return s, true
}

func render(sb *strings.Builder, b []byte, depth int) bool {
	first := true
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		if !first {
			sb.WriteByte(' ')
		}
		first = false
		fmt.Fprintf(sb, "%d: ", num)
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false
			}
			sb.WriteString(strconv.FormatUint(v, 10))
			b = b[n:]
		case protowire.Fixed32Type:
			v, n := protowire.ConsumeFixed32(b)
			if n < 0 {
				return false
			}
			fmt.Fprintf(sb, "0x%08x", v)
			b = b[n:]
		case protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return false
			}
			fmt.Fprintf(sb, "0x%016x", v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			renderBytes(sb, v, depth)
			b = b[n:]
		default: // groups (deprecated) and reserved wire types
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return false
			}
			sb.WriteString("group")
			b = b[n:]
		}
		if sb.Len() > previewMax {
			return true
		}
	}
	return true
}

func renderBytes(sb *strings.Builder, v []byte, depth int) {
	if printable(v) {
		sb.WriteString(strconv.Quote(string(v)))
		return
	}
	if depth < 3 && len(v) > 0 {
		var nested strings.Builder
		if render(&nested, v, depth+1) {
			sb.WriteString("{" + nested.String() + "}")
			return
		}
	}
	const max = 32
	if len(v) > max {
		fmt.Fprintf(sb, "0x%x… (%d bytes)", v[:max], len(v))
		return
	}
	fmt.Fprintf(sb, "0x%x", v)
}

func printable(v []byte) bool {
	if !utf8.Valid(v) {
		return false
	}
	for _, r := range string(v) {
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
