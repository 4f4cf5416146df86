package analyzer

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// guessed names the statements of a text the grammar refused by its
// keywords, so that a rule naming them (DENY, REVOKE, BULK_INSERT, RESTORE,
// which the grammar lacks, or DELETE in a statement it misreads) holds the
// text for a person. The result keeps Unknown and its error: a listener
// refuses such a text unless a rule holds it (fail closed), so a guess can
// only make more rules match, never fewer. Every keyword anywhere in the
// text counts (T-SQL needs no separator between statements).
func guessed(text string) []string {
	l := lex(text)
	set := map[string]struct{}{domain.ActionUnknown: {}}
	word := func(k int) string {
		if k < len(l.toks) && l.toks[k].kind == tokWord {
			return strings.ToUpper(text[l.toks[k].start:l.toks[k].end])
		}
		return ""
	}
	for k, t := range l.toks {
		if t.kind != tokWord || (k > 0 && text[l.toks[k-1].start] == '.') {
			continue
		}
		w := word(k)
		switch w {
		case "CREATE", "ALTER", "DROP":
			set[w] = struct{}{}
			for j := k + 1; j <= k+3; j++ {
				if o, ok := guessObjects[word(j)]; ok {
					set[w+"_"+o] = struct{}{}
					break
				}
			}
		case "BULK":
			if word(k+1) == "INSERT" {
				set["BULK_INSERT"] = struct{}{}
				set["INSERT"] = struct{}{}
			}
		case "EXECUTE":
			set["EXEC"] = struct{}{}
		default:
			for _, v := range guessVerbs {
				if w == v {
					set[v] = struct{}{}
				}
			}
		}
	}
	return keys(set)
}

// guessObjects are the object words of CREATE, ALTER and DROP.
var guessObjects = map[string]string{
	"TABLE": "TABLE", "VIEW": "VIEW", "INDEX": "INDEX", "DATABASE": "DATABASE", "SCHEMA": "SCHEMA", "USER": "USER",
	"LOGIN": "LOGIN", "ROLE": "ROLE", "PROCEDURE": "PROCEDURE", "PROC": "PROCEDURE", "FUNCTION": "FUNCTION",
	"TRIGGER": "TRIGGER", "SEQUENCE": "SEQUENCE", "SYNONYM": "SYNONYM", "TYPE": "TYPE", "ASSEMBLY": "ASSEMBLY",
	"CERTIFICATE": "CERTIFICATE", "CREDENTIAL": "CREDENTIAL", "ENDPOINT": "ENDPOINT",
}

// guessVerbs are statement keywords named as they are.
var guessVerbs = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "GRANT", "REVOKE", "DENY",
	"EXEC", "BACKUP", "RESTORE", "DBCC", "SHUTDOWN", "KILL", "USE", "RECONFIGURE", "SETUSER"}

// guessVocabulary lists what guessed may answer.
func guessVocabulary() []string {
	out := append([]string{domain.ActionUnknown, "BULK_INSERT", "CREATE", "ALTER", "DROP"}, guessVerbs...)
	for _, o := range guessObjects {
		out = append(out, "CREATE_"+o, "ALTER_"+o, "DROP_"+o)
	}
	return out
}
