package mongodb

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// maskedReply is what maskReplyOf made of one upstream reply.
type maskedReply struct {
	Msg        []byte // the reply to send: the one read when nothing changed
	CursorID   int64  // cursor.id of a find, aggregate or getMore reply; 0 when none is open
	MoreToCome bool   // an exhaust reply: another follows without a request
}

// maskReplyOf masks the result documents of msg, a whole reply as the
// upstream sent it (OP_MSG, OP_REPLY, or either in an OP_COMPRESSED,
// within max bytes once decompressed), with m (its plan, and what the
// command's reply holds): the documents of cursor.firstBatch and
// cursor.nextBatch (find, aggregate, getMore and the other cursor
// commands), value (findAndModify), and those of any document sequence,
// each from its own root; with m.distinct (the path of a distinct's key)
// the values of a distinct reply, at that path; with m.results the inline
// results of a mapReduce. A changed reply is encoded again (its checksum
// recomputed, compressed again with the same compressor). An error means
// the reply could not be decoded: nothing of it may be sent.
func maskReplyOf(msg []byte, m *masker, max int) (maskedReply, error) {
	orig, err := wire.Decompress(msg, max)
	if err != nil {
		return maskedReply{}, err
	}
	h, err := wire.ParseHeader(orig)
	if err != nil {
		return maskedReply{}, err
	}
	out := maskedReply{Msg: msg}
	var changed bool
	switch h.OpCode {
	case wire.OpMsg:
		r, err := wire.DecodeMsg(orig)
		if err != nil {
			return maskedReply{}, err
		}
		out.MoreToCome = r.MoreToCome()
		var c bool
		r.Body, out.CursorID, changed, err = m.reply(r.Body)
		if err != nil {
			return maskedReply{}, err
		}
		for i := range r.Sequences {
			for j, d := range r.Sequences[i].Documents {
				if r.Sequences[i].Documents[j], c, err = m.root(d); err != nil {
					return maskedReply{}, err
				}
				changed = changed || c
			}
		}
		if changed {
			orig = r.Append(nil)
		}
	case wire.OpReply:
		r, err := wire.DecodeReply(orig)
		if err != nil {
			return maskedReply{}, err
		}
		if len(r.Documents) > 0 {
			if r.Documents[0], out.CursorID, changed, err = m.reply(r.Documents[0]); err != nil {
				return maskedReply{}, err
			}
		}
		if changed {
			orig = r.Append(nil)
		}
	default:
		return out, nil // no documents to read (the client judges it)
	}
	if !changed {
		return out, nil
	}
	if h0, _ := wire.ParseHeader(msg); h0.OpCode == wire.OpCompressed {
		c, _ := wire.DecodeCompressed(msg) // decoded once above
		if orig, err = wire.Compress(orig, c.CompressorID); err != nil {
			return maskedReply{}, err
		}
	}
	out.Msg = orig
	return out, nil
}

// root masks one result document from its root.
func (m *masker) root(doc bsoncore.Document) (bsoncore.Document, bool, error) {
	m.path = m.path[:0]
	out, changed, err := m.document(nil, doc)
	if err != nil || !changed {
		return doc, false, err
	}
	return out, true, nil
}

// reply masks a command reply's result documents (cursor.firstBatch,
// cursor.nextBatch, value; values of a distinct) and returns its
// cursor.id.
func (m *masker) reply(body bsoncore.Document) (bsoncore.Document, int64, bool, error) {
	var id int64
	if cur, ok := body.Lookup("cursor").DocumentOK(); ok {
		id, _ = cur.Lookup("id").AsInt64OK()
	}
	out, changed, err := m.fields(nil, body, func(key string, v bsoncore.Value) ([]byte, bool, error) {
		switch {
		case key == "value" && v.Type == bsoncore.TypeEmbeddedDocument:
			return m.root(v.Data)
		case key == "results" && v.Type == bsoncore.TypeArray && m.results:
			return m.fields(nil, v.Data, func(_ string, v bsoncore.Value) ([]byte, bool, error) {
				if v.Type != bsoncore.TypeEmbeddedDocument {
					return nil, false, nil
				}
				return m.root(v.Data)
			})
		case key == "values" && v.Type == bsoncore.TypeArray && m.distinct != nil:
			m.path = append(m.path[:0], m.distinct...)
			return m.container(nil, v.Data, false)
		case key == "cursor" && v.Type == bsoncore.TypeEmbeddedDocument:
			return m.fields(nil, v.Data, func(key string, v bsoncore.Value) ([]byte, bool, error) {
				if (key == "firstBatch" || key == "nextBatch") && v.Type == bsoncore.TypeArray {
					return m.fields(nil, v.Data, func(_ string, v bsoncore.Value) ([]byte, bool, error) {
						if v.Type != bsoncore.TypeEmbeddedDocument {
							return nil, false, nil
						}
						return m.root(v.Data)
					})
				}
				return nil, false, nil
			})
		}
		return nil, false, nil
	})
	if err != nil || !changed {
		return body, id, false, err
	}
	return out, id, true, nil
}

// fields appends doc (a document or an array) to dst with each value
// replaced by what each returns for it when it says changed; the others
// are copied as they are.
func (m *masker) fields(dst []byte, doc []byte, each func(key string, v bsoncore.Value) ([]byte, bool, error)) ([]byte, bool, error) {
	return walk(dst, doc, func(dst []byte, e bsoncore.Element) ([]byte, bool, error) {
		v := e.Value()
		out, c, err := each(e.Key(), v)
		if err != nil {
			return dst, false, err
		}
		if !c {
			return append(dst, e...), false, nil
		}
		dst = bsoncore.AppendHeader(dst, v.Type, e.Key())
		return append(dst, out...), true, nil
	})
}
