// Package differential compares what a SQL listener lets through with what
// its server records as executed.
package differential
