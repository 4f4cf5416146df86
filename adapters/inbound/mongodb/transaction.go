package mongodb

import (
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// A denial inside a multi-document transaction fails the transaction, as a
// server error in a transaction does (docs/architecture.md, "The core's
// rules": never open and healthy, so a later commitTransaction cannot apply
// half of what the agent sent).
// The listener sends abortTransaction for the command's lsid and txnNumber
// to the upstream itself and drops its reply; the client gets the denial
// (code 13, no TransientTransactionError label, so drivers' withTransaction
// helpers do not retry it), and the upstream answers the transaction's
// next command or commitTransaction with NoSuchTransaction (251).
// docs/mongodb-listener.md, "Transactions".

// abortWait bounds how long the listener waits for the upstream's answer
// to its abortTransaction before it answers the client anyway.
var abortWait = 10 * time.Second

// abortTransaction aborts the transaction cmd belongs to on the upstream.
func (s *session) abortTransaction(cmd *command.Command) {
	if cmd.LSID == nil || !cmd.HasTxnNumber {
		return
	}
	body := bsoncore.NewDocumentBuilder().
		AppendInt32("abortTransaction", 1).
		AppendDocument("lsid", cmd.LSID).
		AppendInt64("txnNumber", cmd.TxnNumber).
		AppendBoolean("autocommit", false).
		AppendString("$db", "admin").
		Build()
	switch _, err := s.ask(body, abortWait); {
	case errors.Is(err, errNoAnswer):
		s.log.Warn("mongodb: the upstream did not answer abortTransaction in time")
	case err != nil:
		s.log.Warn("mongodb: abortTransaction for a denied command could not be sent", "error", err)
	default:
		s.log.Info("mongodb transaction aborted on the upstream after a denial", "txnNumber", cmd.TxnNumber)
	}
}

// errNoAnswer is ask's error when the upstream's answer did not come in
// time (or was too large to read).
var errNoAnswer = errors.New("the upstream did not answer the listener's own command")

// ask sends the listener's own command (an OP_MSG with body) to the
// upstream and returns the body of its answer, which never reaches the
// client; errNoAnswer when none came within wait.
func (s *session) ask(body bsoncore.Document, wait time.Duration) (bsoncore.Document, error) {
	id := s.nextID.Add(1)
	m := &wire.Msg{Header: wire.Header{RequestID: id}, Body: body}
	answer := make(chan []byte, 1)
	s.mu.Lock()
	s.pending[id] = &pending{own: answer}
	s.mu.Unlock()
	if _, err := s.up.Write(m.Append(nil)); err != nil {
		return nil, err
	}
	select {
	case msg := <-answer:
		if b := replyBody(msg, s.max()); b != nil {
			return b, nil
		}
	case <-time.After(wait):
	}
	return nil, errNoAnswer
}
