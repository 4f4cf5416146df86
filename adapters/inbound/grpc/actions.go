package grpclistener

import (
	"fmt"
	"strings"
)

// CheckAction implements app.ActionChecker: every gRPC call is the action
// CALL (the method is the target), so a rule's action must be CALL.
func (p *Protocol) CheckAction(action string) error {
	if strings.EqualFold(action, "CALL") {
		return nil
	}
	return fmt.Errorf("%q is not an action of grpc listeners: every call is CALL; match the method with targets", action)
}
