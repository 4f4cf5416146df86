package mysql

import "testing"

// The server uses a parameter's COM_STMT_SEND_LONG_DATA value even when the
// execute's NULL bitmap marks it NULL (MariaDB and MySQL insert_params), so
// the value the approval covers must be the long data, not NULL: else an
// approval of "… = NULL" would run with any long value sent for it.
func TestLongDataWinsOverTheNullBit(t *testing.T) {
	// one parameter: NULL bitmap 0x01, new-params-bound 1, type VAR_STRING.
	p := []byte{0x01, 0x01, 0xfd, 0x00}
	got, _, err := decodeParams(p, 1, nil, map[int][]byte{0: []byte("admin")})
	if err != nil || len(got) != 1 || got[0] != "'admin'" {
		t.Fatalf("long data 'admin' with the NULL bit set renders %q %v, want 'admin'", got, err)
	}
}
