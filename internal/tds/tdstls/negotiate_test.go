package tdstls

import (
	"errors"
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
)

// TestNegotiateTable checks every cell of MS-TDS 2.2.6.5 as Negotiate's
// docstring writes it.
func TestNegotiateTable(t *testing.T) {
	const refused = 0xEE
	clients := []int{int(tds.EncryptOff), int(tds.EncryptOn), int(tds.EncryptReq), int(tds.EncryptNotSup), -1}
	servers := []Setting{NotSupported, Off, On, Required}
	want := [][]struct {
		answer byte
		o      Outcome
	}{
		{{tds.EncryptNotSup, Plain}, {tds.EncryptOff, LoginOnly}, {tds.EncryptOn, Full}, {tds.EncryptReq, Full}},
		{{refused, 0}, {tds.EncryptOn, Full}, {tds.EncryptOn, Full}, {tds.EncryptReq, Full}},
		{{refused, 0}, {tds.EncryptOn, Full}, {tds.EncryptOn, Full}, {tds.EncryptReq, Full}},
		{{tds.EncryptNotSup, Plain}, {tds.EncryptNotSup, Plain}, {tds.EncryptOn, Full}, {tds.EncryptReq, Full}},
		{{tds.EncryptNotSup, Plain}, {tds.EncryptNotSup, Plain}, {tds.EncryptOn, Full}, {tds.EncryptReq, Full}},
	}
	for i, c := range clients {
		for j, s := range servers {
			answer, o, err := Negotiate(c, s, false)
			w := want[i][j]
			if w.answer == refused {
				if !errors.Is(err, ErrCannotEncrypt) {
					t.Errorf("client %d × %v: %v, want ErrCannotEncrypt", c, s, err)
				}
				continue
			}
			if err != nil || answer != w.answer || o != w.o {
				t.Errorf("client %d × %v: 0x%02X %v %v, want 0x%02X %v", c, s, answer, o, err, w.answer, w.o)
			}
		}
		if _, _, err := Negotiate(c, Strict, false); !errors.Is(err, ErrStrictRequired) {
			t.Errorf("client %d × strict: %v, want ErrStrictRequired", c, err)
		}
	}
}

// TestNeverNotSupToAskingClient: for every byte a client can send and every
// setting, a client that asked for encryption (ON, REQ, with or without
// CLIENT_CERT) either gets an encrypted outcome or an error, never the
// answer ENCRYPT_NOT_SUP; and whatever the server answers, the client's
// side reads the same outcome from it (the two tables agree).
func TestNeverNotSupToAskingClient(t *testing.T) {
	for c := 0; c < 256; c++ {
		asked := c&^clientCertBit == int(tds.EncryptOn) || c&^clientCertBit == int(tds.EncryptReq)
		for s := NotSupported; s <= Strict; s++ {
			for _, strict := range []bool{false, true} {
				answer, o, err := Negotiate(c, s, strict)
				if err != nil {
					continue
				}
				if asked && (answer == tds.EncryptNotSup || o == Plain || o == LoginOnly) {
					t.Fatalf("client 0x%02X × %v (strict %v): answer 0x%02X, outcome %v", c, s, strict, answer, o)
				}
				if strict {
					continue
				}
				co, err := ClientOutcome(byte(c), answer)
				if err != nil || co != o {
					t.Fatalf("client 0x%02X × %v: server says %v, client reads %v (%v)", c, s, o, co, err)
				}
			}
		}
	}
}

// TestClientRefusesDowngrade: a client that asked for encryption reads
// ENCRYPT_NOT_SUP and ENCRYPT_OFF as ErrServerCannotEncrypt.
func TestClientRefusesDowngrade(t *testing.T) {
	for _, sent := range []byte{tds.EncryptOn, tds.EncryptReq, tds.EncryptOn | clientCertBit} {
		for _, answer := range []byte{tds.EncryptNotSup, tds.EncryptOff} {
			if o, err := ClientOutcome(sent, answer); !errors.Is(err, ErrServerCannotEncrypt) {
				t.Errorf("sent 0x%02X, answer 0x%02X: %v %v", sent, answer, o, err)
			}
		}
	}
	if _, err := ClientOutcome(tds.EncryptOff, 0x09); !errors.Is(err, ErrBadValue) {
		t.Errorf("answer 0x09: %v", err)
	}
}

func TestParseSetting(t *testing.T) {
	for s := NotSupported; s <= Strict; s++ {
		if got, err := ParseSetting(s.String()); err != nil || got != s {
			t.Errorf("%v: %v %v", s, got, err)
		}
	}
	for word, want := range map[string]Setting{"disable": NotSupported, "false": Off, "true": On, "strict": Strict} {
		if got, err := ParseSetting(word); err != nil || got != want {
			t.Errorf("%s: %v %v", word, got, err)
		}
	}
	if _, err := ParseSetting("maybe"); err == nil {
		t.Error("maybe accepted")
	}
}
