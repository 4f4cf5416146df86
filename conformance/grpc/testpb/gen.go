// Package testpb is the generated code of probe.proto, the conformance
// suite's upstream test service. The generated files are committed; tests
// never run protoc.
//
// To regenerate (not part of make test):
//
//	apt-get install protobuf-compiler
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
//	go generate ./conformance/grpc/testpb
package testpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative probe.proto
