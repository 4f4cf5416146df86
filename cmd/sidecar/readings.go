package main

import (
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	mssqlanalyzer "github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
	mysqlanalyzer "github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	pganalyzer "github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// How `sidecar explain` reads one statement for each protocol, through the
// analyzers the listeners use. It has no session: no current database, no
// statement prepared before this text, the default SQL modes.

// reading is what a protocol's analyzer read of one statement: one
// analysis per statement of the text, and what could not be read ("" when
// it was read whole: the gate's domain.Unread).
type reading struct {
	parts  []domain.Analysis
	unread string
}

// explainFunc reads statement as a protocol's listener would; an error says
// that statement is not in the form the protocol takes.
type explainFunc func(statement string) (reading, error)

// one adapts an analyzer of one request (http, grpc) to an explainFunc.
func one(read func(string) (domain.Analysis, error)) explainFunc {
	return func(statement string) (reading, error) {
		a, err := read(statement)
		if err != nil {
			return reading{}, err
		}
		return reading{parts: []domain.Analysis{a}}, nil
	}
}

// prepared is a SQL text's PREPARE, EXECUTE or neither, so that an EXECUTE
// runs what a PREPARE of the same text made, as on the listeners.
type prepared struct {
	name     string // PREPARE name, lower case ("" when not one)
	analysis domain.Analysis
	execute  string // EXECUTE name, lower case
}

// sqlReading turns an analyzer's statements into a reading: an EXECUTE of a
// name PREPAREd earlier in the text adds what that PREPARE made; one of a
// name prepared before (explain has no session) is UNKNOWN.
func sqlReading(stmts []analyzerkit.Statement, preps []prepared, err error) reading {
	var r reading
	if err != nil {
		r.unread = err.Error()
	}
	made := map[string]domain.Analysis{}
	for i, s := range stmts {
		a := s.Analysis
		if p := preps[i]; p.name != "" {
			made[p.name] = p.analysis
		} else if p.execute != "" {
			ran, ok := made[p.execute]
			if !ok {
				// As the listeners read an EXECUTE of a name they never
				// saw prepared: unknown code runs.
				ran = domain.UnreadRun()
				r.unread = "EXECUTE of a statement prepared before this text (explain has no session)"
			}
			a = domain.Merge(a, ran)
		}
		r.parts = append(r.parts, a)
	}
	return r
}

// statements reads an analyzer's statements into sqlReading's input, each
// through read (its text's analysis and what it prepares or executes).
func statements[S any](list []S, read func(S) (analyzerkit.Statement, prepared)) ([]analyzerkit.Statement, []prepared) {
	stmts, preps := make([]analyzerkit.Statement, len(list)), make([]prepared, len(list))
	for i, s := range list {
		stmts[i], preps[i] = read(s)
	}
	return stmts, preps
}

func explainPostgres(text string) (reading, error) {
	res := pganalyzer.Analyze(text)
	stmts, preps := statements(res.Statements, func(s pganalyzer.Statement) (analyzerkit.Statement, prepared) {
		p := prepared{execute: strings.ToLower(s.Execute)}
		if s.Prepare != nil {
			p.name, p.analysis = strings.ToLower(s.Prepare.Name), s.Prepare.Analysis
		}
		return s.Statement, p
	})
	return sqlReading(stmts, preps, res.Err), nil
}

func explainMySQL(text string) (reading, error) {
	res := mysqlanalyzer.Analyze(text, "")
	stmts, preps := statements(res.Statements, func(s mysqlanalyzer.Statement) (analyzerkit.Statement, prepared) {
		p := prepared{execute: strings.ToLower(s.Execute)}
		if s.Prepare != nil {
			p.name, p.analysis = strings.ToLower(s.Prepare.Name), s.Prepare.Analysis
		}
		return s.Statement, p
	})
	return sqlReading(stmts, preps, res.Err), nil
}

func explainMSSQL(text string) (reading, error) {
	res := mssqlanalyzer.Analyze(text, "")
	stmts, preps := statements(res.Statements, func(s mssqlanalyzer.Statement) (analyzerkit.Statement, prepared) {
		return s.Statement, prepared{}
	})
	return sqlReading(stmts, preps, res.Err), nil
}

// explainMongoDB reads a command written in extended JSON (relaxed or
// canonical), e.g. {"delete": "t", "deletes": [{"q": {}, "limit": 0}]}, as
// the body of an OP_MSG (command.FromExtJSON; $db defaults to "test").
func explainMongoDB(text string) (reading, error) {
	c, err := command.FromExtJSON(text)
	if err != nil {
		return reading{}, fmt.Errorf("a mongodb statement is a command in extended JSON, e.g. "+
			`{"delete": "t", "deletes": [{"q": {}, "limit": 0}]}: %w`, err)
	}
	return reading{parts: []domain.Analysis{c.Analysis}}, nil
}
