package analyzer

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// guessed names the statements of a text the parser refused by their first
// keywords, so that a rule naming them (XA, HANDLER, DROP_TRIGGER, DELETE
// for MariaDB's DELETE … RETURNING) holds the text for a person. The text's
// result keeps UNKNOWN and its error: a listener refuses such a text unless
// a rule covers it (fail closed), so a guess can only make more rules match,
// never fewer.
func guessed(sql string) []string {
	l := lex(sql, Mode{})
	w := newWalker("", Mode{}, 0)
	w.Act(domain.ActionUnknown)
	var words []string
	flush := func() {
		if len(words) > 0 {
			w.Act(guessStatement(words)...)
		}
		words = words[:0]
	}
	for _, t := range l.toks {
		switch {
		case t.kind == tokSemicolon:
			flush()
		case t.kind == tokWord && len(words) < 12:
			words = append(words, strings.ToUpper(sql[t.start:t.end]))
		}
	}
	flush()
	return keys(w.Actions)
}

// guessObjects are the object words of CREATE, ALTER and DROP statements
// the parser may refuse.
var guessObjects = []string{"TABLE", "VIEW", "INDEX", "DATABASE", "USER", "ROLE", "SEQUENCE", "PROCEDURE",
	"FUNCTION", "TRIGGER", "EVENT", "SERVER", "TABLESPACE", "PACKAGE"}

// guessVerbs are statement keywords named as they are.
var guessVerbs = []string{"XA", "HANDLER", "INSTALL", "UNINSTALL", "PURGE", "RESET", "CHECK", "CHECKSUM",
	"SELECT", "INSERT", "UPDATE", "DELETE", "CALL", "DO", "SHOW", "LOAD", "SET", "GRANT", "REVOKE", "TRUNCATE", "RENAME"}

// guessStatement returns the actions of one statement from its first
// keywords (upper case).
func guessStatement(words []string) []string {
	switch first := words[0]; first {
	case "CREATE", "ALTER", "DROP":
		for _, w := range words[1:] {
			if w == "SCHEMA" {
				w = "DATABASE"
			}
			for _, o := range guessObjects {
				if w == o {
					return []string{first, first + "_" + o}
				}
			}
		}
		return []string{first}
	case "REPLACE":
		return []string{"REPLACE", "INSERT", "DELETE"}
	case "LOAD":
		return []string{"LOAD_DATA", "INSERT"}
	case "SET":
		for _, w := range words[1:] {
			if w == "GLOBAL" || w == "PERSIST" || w == "PERSIST_ONLY" {
				return []string{"SET", "SET_GLOBAL"}
			}
		}
		return []string{"SET"}
	case "START", "STOP", "CHANGE":
		if len(words) > 1 && (words[1] == "SLAVE" || words[1] == "REPLICA" || words[1] == "MASTER" || words[1] == "REPLICATION") {
			return []string{"REPLICATION"}
		}
	default:
		for _, v := range guessVerbs {
			if first == v {
				return []string{v}
			}
		}
	}
	return nil
}
