package httplistener

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/hoophq/sidecar/domain/masking"
)

// MaxMaskedBody is the largest response body (bytes, as the upstream sends
// it and once decoded) that the listener reads to mask it. A larger body
// that a masking rule applies to is refused (502) by a strict rule, and
// sent as it is by a best_effort one (docs/http-listener.md, Masking).
const MaxMaskedBody = 8 << 20

// bodyKind is how a response body is masked, from its Content-Type.
type bodyKind uint8

const (
	// kindOpaque: not read (images, archives, octet streams…).
	kindOpaque bodyKind = iota
	// kindJSON: by field path and entity (application/json, */*+json,
	// NDJSON): one JSON value or a sequence of them.
	kindJSON
	// kindText: by entity (text/*, XML, form data, YAML, JavaScript).
	kindText
	// kindSniff: no Content-Type; JSON when it parses, else text.
	kindSniff
)

// mediaKind reads a Content-Type value. unreadable is set for a text in a
// character set whose bytes the entities cannot be found in (UTF-16, UTF-32).
func mediaKind(ct string) (k bodyKind, unreadable string) {
	if strings.TrimSpace(ct) == "" {
		return kindSniff, ""
	}
	mt, params, err := mime.ParseMediaType(ct)
	cs := strings.ToLower(params["charset"])
	if err != nil {
		// A bad parameter: mime still gives the type (a client reads the
		// body by it), but not the charset, which is looked for in the
		// raw value. Not a media type at all: read as a body without one.
		cs = strings.ToLower(ct)
		if i := strings.IndexByte(ct, ';'); mt != "" && i >= 0 {
			cs = cs[i:]
		} else if mt != "" {
			cs = ""
		}
	}
	switch {
	case mt == "":
		k = kindSniff
	case textualSuffix(mt, "json") || // application/json, +json, text/json, x-json
		mt == "application/x-ndjson" || mt == "application/ndjson" || mt == "application/jsonl" ||
		mt == "application/jsonlines" || mt == "application/x-jsonlines":
		k = kindJSON
	case strings.HasPrefix(mt, "text/") || mt == "application/x-www-form-urlencoded" ||
		textualSuffix(mt, "xml", "yaml", "csv", "javascript", "ecmascript", "graphql", "sql", "jwt"):
		k = kindText
	default:
		return kindOpaque, ""
	}
	if strings.Contains(cs, "16") || strings.Contains(cs, "32") {
		return k, "the body's charset " + cs
	}
	return k, ""
}

// inspect decides, from a final response's head alone, whether its body
// must be read to be masked by plan p: read is false for a body of a type
// that is not read, or one that cannot be (a part of a body, an encoding
// the listener does not decode, a length over MaxMaskedBody), which a
// best_effort plan lets pass (counted) and a strict one refuses: err is
// then a *masking.UnreadableError. length is the Content-Length, -1 when
// unknown.
func inspect(p *masking.Plan, status int, ct, ce string, length int64) (read bool, err error) {
	k, why := mediaKind(ct)
	switch {
	case k == kindOpaque:
		return false, nil
	case why != "":
	case status == http.StatusPartialContent:
		why = "a part of a body (206 Partial Content)"
	case !decodable(ce):
		why = "a body with Content-Encoding " + ce
	case length > MaxMaskedBody:
		why = fmt.Sprintf("a body of %d bytes, over the %d the listener reads", length, MaxMaskedBody)
	default:
		return true, nil
	}
	return false, p.Unreadable(why)
}

// overLimit is what a body that turned out longer than MaxMaskedBody is.
func overLimit() string {
	return fmt.Sprintf("a body over the %d bytes the listener reads", MaxMaskedBody)
}

// maskBody masks a response body raw, as the upstream sent it with
// Content-Type ct and Content-Encoding ce (inspect said to read it), by
// plan p. It returns the body to send (encoded as raw was) and whether it
// differs from raw. err is a *masking.UnreadableError when a strict rule
// could not read it (not JSON although it says so, a decoding that fails
// or grows over MaxMaskedBody): nothing of it may be sent then.
func maskBody(p *masking.Plan, ct, ce string, raw []byte) (out []byte, changed bool, err error) {
	if len(raw) == 0 {
		return raw, false, nil // no body, whatever its Content-Encoding says
	}
	doc, err := decodeBody(ce, raw)
	if err != nil {
		return raw, false, p.Unreadable(err.Error())
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		return raw, false, nil // nothing to read (a 201 with an empty body)
	}
	k, _ := mediaKind(ct)
	sniffed := k == kindSniff
	var values [][2]int // a sniffed body's JSON values, split once
	if k == kindSniff {
		k = kindText
		if v, ok := jsonValues(doc); ok && documents(doc, v) {
			k, values = kindJSON, v
		}
	}
	var masked []byte
	switch k {
	case kindJSON:
		if values == nil {
			var ok bool
			if values, ok = jsonValues(doc); !ok {
				return raw, false, p.Unreadable("a body that is not valid JSON")
			}
		}
		if jsonObjectDepth(doc) > maxJSONPath {
			return raw, false, p.Unreadable(fmt.Sprintf("JSON objects nested deeper than %d", maxJSONPath))
		}
		masked, changed = maskJSON(p, doc, values)
	default:
		if wideText(doc, sniffed) {
			return raw, false, p.Unreadable("a text in UTF-16 or UTF-32 that names no charset")
		}
		masked, changed = p.Field().Text(nil, doc)
	}
	if !changed {
		return raw, false, nil
	}
	return encodeBody(ce, masked), true, nil
}

// codings returns the content codings of ce in the order they were applied.
func codings(ce string) []string {
	var out []string
	for c := range strings.SplitSeq(ce, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
			out = append(out, c)
		}
	}
	return out
}

// decodable reports whether the listener decodes every coding of ce (gzip,
// x-gzip, deflate).
func decodable(ce string) bool {
	for _, c := range codings(ce) {
		if c != "gzip" && c != "x-gzip" && c != "deflate" {
			return false
		}
	}
	return true
}

// decodeBody undoes the content codings ce of raw, refusing an encoding
// it does not decode or a decoded body over MaxMaskedBody.
func decodeBody(ce string, raw []byte) ([]byte, error) {
	cs := codings(ce)
	b := raw
	for i := len(cs) - 1; i >= 0; i-- {
		var r io.Reader
		var err error
		switch cs[i] {
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(bytes.NewReader(b))
		case "deflate":
			// RFC 9110 says zlib; some servers send raw deflate.
			if r, err = zlib.NewReader(bytes.NewReader(b)); err != nil {
				r, err = flate.NewReader(bytes.NewReader(b)), nil
			}
		default:
			return nil, errors.New("a body with Content-Encoding " + ce)
		}
		if err != nil {
			return nil, fmt.Errorf("a %s body that does not decode", cs[i])
		}
		d, err := io.ReadAll(io.LimitReader(r, MaxMaskedBody+1))
		if err != nil {
			return nil, fmt.Errorf("a %s body that does not decode", cs[i])
		}
		if len(d) > MaxMaskedBody {
			return nil, errors.New(overLimit() + " once decoded")
		}
		b = d
	}
	return b, nil
}

// encodeBody applies the content codings ce to b again, so the client
// reads the masked body as it reads the upstream's.
func encodeBody(ce string, b []byte) []byte {
	for _, c := range codings(ce) {
		var buf bytes.Buffer
		var w io.WriteCloser
		if c == "deflate" {
			w = zlib.NewWriter(&buf)
		} else {
			w = gzip.NewWriter(&buf)
		}
		_, _ = w.Write(b)
		_ = w.Close()
		b = buf.Bytes()
	}
	return b
}

// digestFields are response fields that describe the upstream's body bytes
// and would be wrong for a masked one: they are dropped with it.
var digestFields = []string{"Content-Md5", "Digest", "Content-Digest", "Repr-Digest", "Etag"}

// writeWithheld writes the answer to a request whose result a strict
// masking rule refused: 502 with {"message": err's text}, never the body.
func writeWithheld(w http.ResponseWriter, err error) {
	b, _ := json.Marshal(errorBody(err.Error()))
	b = append(b, '\n')
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write(b)
}

// withheldError returns err as the *masking.UnreadableError it holds, or nil.
func withheldError(err error) error {
	var ue *masking.UnreadableError
	if errors.As(err, &ue) {
		return ue
	}
	return nil
}

// documents reports whether the JSON values of a body without a
// Content-Type read as JSON: one value, or objects and arrays only (NDJSON).
// Bare numbers and strings side by side are text: 4111 1111 1111 1111 is
// one card number, not four JSON numbers.
func documents(doc []byte, values [][2]int) bool {
	if len(values) <= 1 {
		return true
	}
	for _, v := range values {
		if c := doc[v[0]]; c != '{' && c != '[' {
			return false
		}
	}
	return true
}

// wideText reports whether a text body is UTF-16 or UTF-32 although its
// Content-Type names no such charset: it starts with a byte order mark
// (which a client decodes it by), or, for a declared text type (sniffed
// false), a quarter or more of its first 512 bytes are NUL, which no
// ASCII-compatible text holds. Its letters are then not the bytes the
// entity patterns read.
func wideText(doc []byte, sniffed bool) bool {
	if bytes.HasPrefix(doc, []byte{0xFE, 0xFF}) || bytes.HasPrefix(doc, []byte{0xFF, 0xFE}) ||
		bytes.HasPrefix(doc, []byte{0, 0, 0xFE, 0xFF}) {
		return true
	}
	if sniffed {
		return false
	}
	head := doc[:min(len(doc), 512)]
	return len(head) >= 4 && bytes.Count(head, []byte{0})*4 >= len(head)
}

// textualSuffix reports whether the media type mt ends in one of the
// formats names after its '/', a '+', a '-' or 'x-' (application/xml,
// application/atom+xml, application/x-yaml, text/json): not a name that
// only holds it (an office document's ...sheet.main+zip, ubjson).
func textualSuffix(mt string, names ...string) bool {
	for _, n := range names {
		if !strings.HasSuffix(mt, n) {
			continue
		}
		switch rest := mt[:len(mt)-len(n)]; {
		case strings.HasSuffix(rest, "/"), strings.HasSuffix(rest, "+"), strings.HasSuffix(rest, "-"):
			return true
		}
	}
	return false
}
