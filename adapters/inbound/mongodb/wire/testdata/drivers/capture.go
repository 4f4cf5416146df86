//go:build ignore

// capture records the messages a real client sends for one scenario, for
// the cross-driver tests (command/drivers_test.go) and the fuzz seeds (wire/fuzz_test.go). Run from the
// repository root, with the clients of conformance/mongodb/node installed:
//
//	go run ./adapters/inbound/mongodb/wire/testdata/drivers/capture.go \
//	    -out adapters/inbound/mongodb/wire/testdata/drivers/mongosh \
//	    -- conformance/mongodb/node/node_modules/.bin/mongosh 'mongodb://{{ADDR}}/test' --quiet --eval '…'
//
// {{ADDR}} is replaced by the recorder's address. Each OP_MSG / OP_QUERY
// whose command is one of -keep (default: the CRUD and DDL commands of the
// scenarios) is written as NN-<command>.bin, raw as received.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire/wiretest"
)

func main() {
	out := flag.String("out", "", "directory for the captured messages")
	keep := flag.String("keep", "find,insert,update,delete,aggregate,drop,findAndModify,count,distinct,createIndexes,isMaster,ismaster,hello", "commands to keep")
	flag.Parse()
	rec, err := wiretest.Start()
	if err != nil {
		log.Fatal(err)
	}
	args := flag.Args()
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "{{ADDR}}", rec.Addr())
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Printf("client: %v", err)
	}
	rec.Close()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	want := map[string]bool{}
	for _, k := range strings.Split(*keep, ",") {
		want[k] = true
	}
	n := 0
	for _, raw := range rec.Messages() {
		msg, err := wire.Decompress(raw, 0)
		if err != nil {
			log.Fatal(err)
		}
		var c *command.Command
		if h, _ := wire.ParseHeader(msg); h.OpCode == wire.OpQuery {
			q, err := wire.DecodeQuery(msg)
			if err != nil {
				log.Fatal(err)
			}
			c, err = command.FromQuery(q)
		} else {
			m, err := wire.DecodeMsg(msg)
			if err != nil {
				log.Fatal(err)
			}
			c, err = command.FromMsg(m)
		}
		if c == nil || !want[c.Name] {
			continue
		}
		n++
		name := filepath.Join(*out, fmt.Sprintf("%02d-%s.bin", n, c.Name))
		if err := os.WriteFile(name, raw, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, c.Display(200))
	}
}
