package analyzer

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Actions returns every action the analyzer can report, upper case, sorted:
// the vocabulary of a postgres listener's rules (docs/postgres-listener.md,
// "The analyzer"). `sidecar validate` refuses any other action, so a typo
// (DORP) cannot silently turn a rule off.
//
// The list is not written by hand: it is what classify answers for every
// node type of PostgreSQL's parse tree (pg_query's protobuf messages), once
// as the parser's zero value and once per value of each enum field, per bool
// field set and per message field set. Each action depends on one such field
// (DropStmt.RemoveType, CopyStmt.IsFrom, SelectStmt.IntoClause…), so a new
// parser version or a new case in classify changes the list with it. Object
// words come from the parser's enums, so DROP_<OBJECT> covers every object
// type PostgreSQL names, even those a DROP never takes.
func Actions() []string { return vocabulary.Actions() }

// IsAction reports whether action (any case) is in Actions.
func IsAction(action string) bool { return vocabulary.IsAction(action) }

var vocabulary = analyzerkit.NewVocabulary(func(add func(...string)) {
	add(domain.ActionUnknown)
	msgs := pg.File_pg_query_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(msgs.Get(i).FullName())
		if err != nil {
			continue
		}
		for _, m := range variants(mt) {
			w := newWalker()
			w.classify(m.Interface())
			for a := range w.Actions {
				// Each enum's zero value is pg_query's placeholder
				// (OBJECT_TYPE_UNDEFINED…), which the parser never emits.
				if !strings.HasSuffix(a, "UNDEFINED") {
					add(a)
				}
			}
		}
	}
})

// variants returns mt's zero value and one value per enum value, bool field
// and message field of mt set (lists and maps stay empty).
func variants(mt protoreflect.MessageType) []protoreflect.Message {
	out := []protoreflect.Message{mt.New()}
	fields := mt.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.IsList() || fd.IsMap() {
			continue
		}
		switch fd.Kind() {
		case protoreflect.EnumKind:
			values := fd.Enum().Values()
			for j := 0; j < values.Len(); j++ {
				m := mt.New()
				m.Set(fd, protoreflect.ValueOfEnum(values.Get(j).Number()))
				out = append(out, m)
			}
		case protoreflect.BoolKind:
			m := mt.New()
			m.Set(fd, protoreflect.ValueOfBool(true))
			out = append(out, m)
		case protoreflect.MessageKind:
			m := mt.New()
			m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
			out = append(out, m)
		}
	}
	return out
}
