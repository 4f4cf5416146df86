// Package mongodb is the conformance suite of the mongodb listener: the real
// sidecar and controlplane binaries (conformance/harness), real MongoDB
// clients (mongosh 2.12.0 and the Node driver 7.x from npm, installed by
// make deps into conformance/mongodb/node; the Go driver
// go.mongodb.org/mongo-driver/v2 v2.10.0) and a MongoDB-compatible upstream
// picked by upstream_test.go (HOOP_TEST_MONGODB_URL, a container, else
// FerretDB v1.24.2 embedded in the test process). Approvals are decided with
// the reference Control Plane's CLI.
package mongodb
