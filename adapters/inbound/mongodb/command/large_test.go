package command

import (
	"strconv"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestLargeCommandsAreLinear: a command with 100,000 fields, sequences or
// targets (a 48 MB message can hold millions) is analysed in linear time:
// the duplicate checks and target lists first written compared every pair,
// 10^10 comparisons here (minutes, longer under -race, until go test's
// timeout), and a client could stall the listener that way.
func TestLargeCommandsAreLinear(t *testing.T) {
	const n = 100_000
	t.Run("fields", func(t *testing.T) {
		b := bsoncore.NewDocumentBuilder().AppendString("find", "t").AppendString("$db", "test")
		for i := range n {
			b.AppendNull("f" + strconv.Itoa(i))
		}
		c, err := FromMsg(&wire.Msg{Body: b.Build()})
		if err != nil || join(c.Analysis.Targets) != "test.t" {
			t.Fatalf("%v, %v", c, err)
		}
		dup := bsoncore.NewDocumentBuilder().AppendString("find", "t")
		for i := range n {
			dup.AppendNull("f" + strconv.Itoa(i))
		}
		if _, err := FromMsg(&wire.Msg{Body: dup.AppendNull("f7").Build()}); err == nil {
			t.Fatal("the duplicate at the end was missed")
		}
	})
	t.Run("sequences", func(t *testing.T) {
		seqs := make([]wire.Sequence, n)
		for i := range seqs {
			seqs[i].Identifier = "s" + strconv.Itoa(i)
		}
		body := bsoncore.NewDocumentBuilder().AppendString("insert", "t").AppendString("$db", "test").Build()
		if _, err := FromMsg(&wire.Msg{Body: body, Sequences: seqs}); err != nil {
			t.Fatal(err)
		}
		if _, err := FromMsg(&wire.Msg{Body: body, Sequences: append(seqs, wire.Sequence{Identifier: "s3"})}); err == nil {
			t.Fatal("the repeated sequence at the end was missed")
		}
	})
	t.Run("targets", func(t *testing.T) {
		stages := bsoncore.NewArrayBuilder()
		for i := range n {
			stages.AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument("$lookup",
				bsoncore.NewDocumentBuilder().AppendString("from", "c"+strconv.Itoa(i)).AppendString("as", "x").Build()).Build())
		}
		body := bsoncore.NewDocumentBuilder().AppendString("aggregate", "t").AppendArray("pipeline", stages.Build()).
			AppendString("$db", "test").Build()
		c, err := FromMsg(&wire.Msg{Body: body})
		if err != nil || len(c.Analysis.Targets) != n+1 {
			t.Fatalf("%d targets, %v", len(c.Analysis.Targets), err)
		}
	})
}
