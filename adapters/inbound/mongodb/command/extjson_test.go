package command

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// sameAsDriver fails unless appendRelaxed writes doc exactly as the
// driver's bson.MarshalExtJSON (relaxed, no HTML escaping) does, or
// declines it.
func sameAsDriver(t testing.TB, doc []byte) bool {
	t.Helper()
	fast, ok := appendRelaxed(nil, doc, false, 1)
	if !ok {
		return false
	}
	slow, err := bson.MarshalExtJSON(bson.Raw(doc), false, false)
	if err != nil {
		t.Fatalf("the driver cannot render what appendRelaxed did: %v", err)
	}
	if string(fast) != string(slow) {
		t.Fatalf("appendRelaxed differs from the driver:\n got %s\nwant %s", fast, slow)
	}
	return true
}

func TestRelaxedMatchesDriver(t *testing.T) {
	b := bsoncore.NewDocumentBuilder().
		AppendString("plain", "abc").
		AppendString("escapes", "q\"b\\s/n\nr\rt\tb\bf\fnul\x00ctl\x1fdel\x7f<>&").
		AppendString("unicode", "é中😀\u2028\u2029").
		AppendString("invalid utf8", "a\xffb\xc3").
		AppendString("", "empty key").
		AppendInt32("i32", -7).AppendInt64("i64", math.MaxInt64).AppendInt64("min64", math.MinInt64).
		AppendBoolean("t", true).AppendBoolean("f", false).AppendNull("null").
		AppendObjectID("oid", [12]byte{0x6b, 0x0e, 0x4e, 0x9a, 0xdb, 0x65, 0x95, 0xed, 0xbd, 0xb7, 0xaa, 0x59}).
		AppendDateTime("date", 1767323045000).AppendDateTime("millis", 1767323045123).AppendDateTime("1969", -1).
		AppendDateTime("year 10000", 253402300800000).AppendDateTime("epoch", 0).
		AppendBinary("bin0", 0, []byte("hello")).AppendBinary("uuid", 4, make([]byte, 16)).AppendBinary("user", 0x80, nil).
		AppendTimestamp("ts", 4294967295, 7).
		AppendDocument("empty doc", bsoncore.NewDocumentBuilder().Build()).
		AppendArray("empty array", bsoncore.NewArrayBuilder().Build()).
		AppendArray("nested", bsoncore.NewArrayBuilder().AppendDocument(bsoncore.NewDocumentBuilder().
			AppendArray("a", bsoncore.NewArrayBuilder().AppendInt32(1).AppendString("x").Build()).Build()).Build())
	for i, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e21, 1e20, 123456789.125, 1e-7, 0.1, 5e-324,
		math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 100, 1e15, 12345678901234567890} {
		b.AppendDouble("d"+itoa(i), f)
	}
	if !sameAsDriver(t, b.Build()) {
		t.Fatal("appendRelaxed declined the common types")
	}
	// Types it leaves to the driver.
	for _, d := range []bsoncore.Document{
		bsoncore.NewDocumentBuilder().AppendRegex("r", "a.*", "i").Build(),
		bsoncore.NewDocumentBuilder().AppendJavaScript("js", "1").Build(),
		bsoncore.NewDocumentBuilder().AppendMinKey("min").Build(),
		bsoncore.NewDocumentBuilder().AppendBinary("old", 2, []byte("x")).Build(),
	} {
		if _, ok := appendRelaxed(nil, d, false, 1); ok {
			t.Errorf("appendRelaxed rendered %s itself", bson.Raw(d))
		}
	}
	// Every command real clients sent, as the approver sees it.
	names, _ := filepath.Glob(filepath.Join("..", "wire", "testdata", "drivers", "*", "*.bin"))
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		c := analyseRaw(t, raw)
		if !sameAsDriver(t, c.CanonicalBytes()) || !sameAsDriver(t, c.Body) {
			t.Errorf("%s: appendRelaxed declined a real command", n)
		}
	}
}
