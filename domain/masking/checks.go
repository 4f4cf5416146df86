package masking

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
)

// luhn reports whether digits (ASCII '0'-'9' only) pass the Luhn check
// (ISO/IEC 7812-1, Annex B), as every payment card number does.
func luhn(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return len(digits) > 0 && sum%10 == 0
}

// cardPrefix reports whether a 13–19 digit number starts with an issuer
// prefix of a major network (Visa 4; Mastercard 51–55 and 2221–2720;
// American Express 34, 37; Discover 6011, 644–649, 65; JCB 3528–3589;
// Diners 300–305, 36, 38; UnionPay 62; Maestro 50, 56–69).
func cardPrefix(d string) bool {
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	n2 := int(d[0]-'0')*10 + int(d[1]-'0')
	n4 := n2*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	switch {
	case d[0] == '4':
		return true
	case n2 >= 50 && n2 <= 69:
		return true
	case n4 >= 2221 && n4 <= 2720:
		return true
	case n2 == 34 || n2 == 37 || n2 == 36 || n2 == 38:
		return true
	case n4 >= 3000 && n4 <= 3059, n4 >= 3528 && n4 <= 3589:
		return true
	}
	return false
}

// ibanValid reports whether s (letters and digits, no spaces) is an IBAN
// whose check digits hold: ISO 13616-1, the remainder mod 97 of the
// rearranged number is 1. Length 15–34, a two-letter country code, two
// check digits.
func ibanValid(s string) bool {
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	if !isUpper(s[0]) || !isUpper(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	r := s[4:] + s[:4]
	var num strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case isDigit(c):
			num.WriteByte(c)
		case isUpper(c):
			v := int(c-'A') + 10
			num.WriteByte(byte('0' + v/10))
			num.WriteByte(byte('0' + v%10))
		case c >= 'a' && c <= 'z':
			v := int(c-'a') + 10
			num.WriteByte(byte('0' + v/10))
			num.WriteByte(byte('0' + v%10))
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(num.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// ssnValid reports whether area-group-serial (3, 2 and 4 digits) can be a
// US Social Security number as the SSA issues them: the area is not 000,
// 666 or 900–999, the group not 00, the serial not 0000, and the number is
// not one of the SSA's published invalid or advertising numbers.
func ssnValid(area, group, serial string) bool {
	if area == "000" || area == "666" || area[0] == '9' || group == "00" || serial == "0000" {
		return false
	}
	switch area + group + serial {
	case "078051120", "219099999", "123456789":
		return false
	}
	return true
}

// jwtValid reports whether s is three dot-separated base64url segments
// whose first two decode to JSON objects and whose header names an "alg"
// (RFC 7519 section 7.2, RFC 7515 section 4.1.1).
func jwtValid(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	var header map[string]any
	if !decodeSegment(parts[0], &header) {
		return false
	}
	if _, ok := header["alg"]; !ok {
		return false
	}
	var claims map[string]any
	return decodeSegment(parts[1], &claims)
}

func decodeSegment(seg string, v any) bool {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(seg, "="))
	return err == nil && json.Unmarshal(b, v) == nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
