package grpclistener

import (
	"fmt"

	"google.golang.org/grpc/mem"
)

// rawCodec passes message bytes through untouched in both directions, so the
// listener needs no protobuf definitions. Messages are *[]byte (receiving)
// and []byte or *[]byte (sending).
type rawCodec struct{}

// Marshal returns the bytes of v, which must be []byte or *[]byte.
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch b := v.(type) {
	case []byte:
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	case *[]byte:
		return mem.BufferSlice{mem.SliceBuffer(*b)}, nil
	}
	return nil, fmt.Errorf("grpc listener codec: cannot marshal %T", v)
}

// Unmarshal copies data into v, which must be *[]byte.
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("grpc listener codec: cannot unmarshal into %T", v)
	}
	*b = data.Materialize()
	return nil
}

// Name is "proto": the listener forwards requests as application/grpc+proto,
// the content type of nearly every gRPC service.
func (rawCodec) Name() string { return "proto" }
