package analyzer

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// Effects (domain/effects.go; docs/rules.md, "Effects"): the protocol-blind
// words a statement carries beside its actions. Most follow from the
// statement's actions (actionEffects); the walker adds those that need more
// than the kind: UNBOUNDED (bounds.go), a procedure's (procEffects), the
// rowset functions' FILE_ACCESS, and RUNS_CODE for a text it cannot read.

// actionFixed are the actions whose effects are not their prefix's
// (actionEffects).
var actionFixed = map[string][]string{
	"SELECT":      {domain.EffectRead},
	"SELECT_INTO": {domain.EffectRead, domain.EffectInsert, domain.EffectSchemaChange},
	"INSERT":      {domain.EffectInsert},
	"UPDATE":      {domain.EffectUpdate},
	"DELETE":      {domain.EffectDelete},
	"TRUNCATE":    {domain.EffectTruncate, domain.EffectUnbounded},
	"BULK_INSERT": {domain.EffectInsert, domain.EffectFileAccess},
	// Objects made from a file on the server's host (FROM 'C:\x.dll', FROM
	// FILE = …), and secrets for reaching outside it.
	"CREATE_ASSEMBLY": {domain.EffectSchemaChange, domain.EffectFileAccess}, "ALTER_ASSEMBLY": {domain.EffectSchemaChange, domain.EffectFileAccess},
	"CREATE_EXTERNAL_LIBRARY": {domain.EffectSchemaChange, domain.EffectFileAccess},
	"ALTER_EXTERNAL_LIBRARY":  {domain.EffectSchemaChange, domain.EffectFileAccess},
	"CREATE_CERTIFICATE":      {domain.EffectSchemaChange, domain.EffectFileAccess}, "ALTER_CERTIFICATE": {domain.EffectSchemaChange, domain.EffectFileAccess},
	"CREATE_CREDENTIAL": {domain.EffectSchemaChange, domain.EffectPrivilege}, "ALTER_CREDENTIAL": {domain.EffectSchemaChange, domain.EffectPrivilege},
	// Who may do what, and who the session is (EXECUTE AS, SETUSER).
	"GRANT": {domain.EffectPrivilege}, "REVOKE": {domain.EffectPrivilege}, "DENY": {domain.EffectPrivilege},
	"EXECUTE_AS": {domain.EffectPrivilege}, "SETUSER": {domain.EffectPrivilege},
	"CREATE_USER": {domain.EffectPrivilege}, "CREATE_LOGIN": {domain.EffectPrivilege}, "CREATE_ROLE": {domain.EffectPrivilege},
	"CREATE_SERVER_ROLE": {domain.EffectPrivilege}, "CREATE_APPLICATION_ROLE": {domain.EffectPrivilege},
	"ALTER_USER": {domain.EffectPrivilege}, "ALTER_LOGIN": {domain.EffectPrivilege}, "ALTER_ROLE": {domain.EffectPrivilege},
	"ALTER_SERVER_ROLE": {domain.EffectPrivilege}, "ALTER_APPLICATION_ROLE": {domain.EffectPrivilege},
	"ALTER_AUTHORIZATION": {domain.EffectPrivilege},
	"DROP_USER":           {domain.EffectDrop, domain.EffectPrivilege}, "DROP_LOGIN": {domain.EffectDrop, domain.EffectPrivilege},
	"DROP_ROLE": {domain.EffectDrop, domain.EffectPrivilege}, "DROP_SERVER_ROLE": {domain.EffectDrop, domain.EffectPrivilege},
	"DROP_APPLICATION_ROLE": {domain.EffectDrop, domain.EffectPrivilege},
	// The server, not the data.
	"KILL": {domain.EffectAdmin}, "SHUTDOWN": {domain.EffectAdmin}, "RECONFIGURE": {domain.EffectAdmin},
	"CHECKPOINT": {domain.EffectAdmin}, "UPDATE_STATISTICS": {domain.EffectAdmin},
	"RESTORE":                    {domain.EffectAdmin, domain.EffectFileAccess},
	"ALTER_SERVER_CONFIGURATION": {domain.EffectAdmin},
	"ALTER_DATABASE":             {domain.EffectSchemaChange, domain.EffectAdmin},
	"ENABLE_TRIGGER":             {domain.EffectSchemaChange}, "DISABLE_TRIGGER": {domain.EffectSchemaChange},
	// Code stored to run later: a procedure or function (a call of it by
	// name is RUNS_CODE), a trigger (it fires with no statement of its own
	// for the gate to hold). RUNS_CODE as on mysql and postgres, so preset:
	// destructive holds the setup step too.
	"CREATE_PROCEDURE": storedCode, "ALTER_PROCEDURE": storedCode, "CREATE_OR_ALTER_PROCEDURE": storedCode,
	"CREATE_FUNCTION": storedCode, "ALTER_FUNCTION": storedCode, "CREATE_OR_ALTER_FUNCTION": storedCode,
	"CREATE_TRIGGER": storedCode, "ALTER_TRIGGER": storedCode, "CREATE_OR_ALTER_TRIGGER": storedCode,
	domain.ActionUnknown: {domain.EffectUnknown},
}

var storedCode = []string{domain.EffectSchemaChange, domain.EffectRunsCode}

// actionEffects returns the effects an action carries by itself: those of
// actionFixed, else by its prefix (CREATE…, ALTER… → SCHEMA_CHANGE; DROP… →
// DROP; DBCC… → ADMIN; BACKUP… → ADMIN and FILE_ACCESS, a file on the
// server's host). EXEC carries none by itself: what a call does depends on
// the procedure (procEffects).
func actionEffects(action string) []string {
	if e, ok := actionFixed[action]; ok {
		return e
	}
	verb, _, _ := strings.Cut(action, "_")
	switch verb {
	case "CREATE", "ALTER":
		return []string{domain.EffectSchemaChange}
	case "DROP":
		return []string{domain.EffectDrop}
	case "DBCC":
		return []string{domain.EffectAdmin}
	case "BACKUP":
		return []string{domain.EffectAdmin, domain.EffectFileAccess}
	}
	return nil
}

// procEffects are the system procedures whose effects are known, by name
// (lower case). A call of one of them by its name alone, or with schema
// dbo or sys (SQL Server runs the system procedure then, not a user's of
// the same name), carries these effects; a call of any other procedure,
// or of one of these in another schema, runs a body the analyzer does not
// read: RUNS_CODE (callEffects). The procedures that run a text they are
// given (dynamic.go's dynamicProcs, opaqueProcs) are also UNKNOWN when the
// analyzer cannot read that text.
var procEffects = map[string][]string{
	// Renames and object properties.
	"sp_rename": {domain.EffectSchemaChange}, "sp_renamedb": {domain.EffectSchemaChange},
	"sp_addextendedproperty": {domain.EffectSchemaChange}, "sp_updateextendedproperty": {domain.EffectSchemaChange},
	"sp_dropextendedproperty": {domain.EffectSchemaChange}, "sp_addtype": {domain.EffectSchemaChange},
	"sp_droptype": {domain.EffectDrop}, "sp_settriggerorder": {domain.EffectSchemaChange},
	"sp_refreshview": {domain.EffectSchemaChange}, "sp_tableoption": {domain.EffectSchemaChange},
	"sp_bindrule": {domain.EffectSchemaChange}, "sp_unbindrule": {domain.EffectSchemaChange},
	"sp_bindefault": {domain.EffectSchemaChange}, "sp_unbindefault": {domain.EffectSchemaChange},
	"sp_changeobjectowner": {domain.EffectSchemaChange, domain.EffectPrivilege},
	// Logins, users, roles.
	"sp_addrolemember": {domain.EffectPrivilege}, "sp_droprolemember": {domain.EffectPrivilege},
	"sp_addsrvrolemember": {domain.EffectPrivilege}, "sp_dropsrvrolemember": {domain.EffectPrivilege},
	"sp_addlogin": {domain.EffectPrivilege}, "sp_droplogin": {domain.EffectPrivilege},
	"sp_adduser": {domain.EffectPrivilege}, "sp_dropuser": {domain.EffectPrivilege},
	"sp_grantlogin": {domain.EffectPrivilege}, "sp_revokelogin": {domain.EffectPrivilege},
	"sp_denylogin": {domain.EffectPrivilege}, "sp_grantdbaccess": {domain.EffectPrivilege},
	"sp_revokedbaccess": {domain.EffectPrivilege}, "sp_addrole": {domain.EffectPrivilege},
	"sp_droprole": {domain.EffectPrivilege}, "sp_addapprole": {domain.EffectPrivilege},
	"sp_dropapprole": {domain.EffectPrivilege}, "sp_setapprole": {domain.EffectPrivilege},
	"sp_password": {domain.EffectPrivilege}, "sp_defaultdb": {domain.EffectPrivilege},
	"sp_changedbowner": {domain.EffectPrivilege}, "sp_change_users_login": {domain.EffectPrivilege},
	"sp_addlinkedsrvlogin": {domain.EffectPrivilege}, "sp_droplinkedsrvlogin": {domain.EffectPrivilege},
	"sp_xp_cmdshell_proxy_account": {domain.EffectPrivilege, domain.EffectOSCommand},
	// The server's settings and state.
	"sp_configure": {domain.EffectAdmin}, "sp_addlinkedserver": {domain.EffectAdmin},
	"sp_dropserver": {domain.EffectAdmin}, "sp_addserver": {domain.EffectAdmin},
	"sp_serveroption": {domain.EffectAdmin}, "sp_dboption": {domain.EffectAdmin},
	"sp_detach_db": {domain.EffectAdmin}, "sp_recompile": {domain.EffectAdmin},
	"sp_updatestats": {domain.EffectAdmin}, "sp_autostats": {domain.EffectAdmin},
	"sp_procoption": {domain.EffectAdmin},
	// Files on the server's host.
	"sp_attach_db": {domain.EffectAdmin, domain.EffectFileAccess}, "sp_attach_single_file_db": {domain.EffectAdmin, domain.EffectFileAccess},
	"sp_addumpdevice": {domain.EffectAdmin, domain.EffectFileAccess}, "sp_dropdevice": {domain.EffectAdmin, domain.EffectFileAccess},
	"sp_trace_create": {domain.EffectAdmin, domain.EffectFileAccess},
	"xp_dirtree":      {domain.EffectFileAccess}, "xp_subdirs": {domain.EffectFileAccess},
	"xp_fileexist": {domain.EffectFileAccess}, "xp_fixeddrives": {domain.EffectFileAccess},
	"sp_readerrorlog": {domain.EffectRead, domain.EffectFileAccess}, "xp_readerrorlog": {domain.EffectRead, domain.EffectFileAccess},
	// The operating system, and bodies run elsewhere (UNKNOWN too: opaqueProcs).
	"xp_cmdshell": {domain.EffectOSCommand},
	"sp_oacreate": {domain.EffectOSCommand, domain.EffectRunsCode}, "sp_oamethod": {domain.EffectOSCommand, domain.EffectRunsCode},
	"sp_oasetproperty":           {domain.EffectOSCommand, domain.EffectRunsCode},
	"sp_execute_external_script": {domain.EffectOSCommand, domain.EffectRunsCode},
	"sp_add_jobstep":             {domain.EffectOSCommand, domain.EffectRunsCode}, "sp_update_jobstep": {domain.EffectOSCommand, domain.EffectRunsCode},
	// Reads of the catalog and the server's state.
	"sp_help": {domain.EffectRead}, "sp_helptext": {domain.EffectRead}, "sp_helpindex": {domain.EffectRead},
	"sp_helpdb": {domain.EffectRead}, "sp_helpuser": {domain.EffectRead}, "sp_helplogins": {domain.EffectRead},
	"sp_helprole": {domain.EffectRead}, "sp_helprolemember": {domain.EffectRead}, "sp_helpsrvrolemember": {domain.EffectRead},
	"sp_helpconstraint": {domain.EffectRead}, "sp_helptrigger": {domain.EffectRead}, "sp_helpfile": {domain.EffectRead},
	"sp_columns": {domain.EffectRead}, "sp_tables": {domain.EffectRead}, "sp_databases": {domain.EffectRead},
	"sp_stored_procedures": {domain.EffectRead}, "sp_sproc_columns": {domain.EffectRead}, "sp_pkeys": {domain.EffectRead},
	"sp_fkeys": {domain.EffectRead}, "sp_statistics": {domain.EffectRead}, "sp_special_columns": {domain.EffectRead},
	"sp_table_privileges": {domain.EffectRead}, "sp_column_privileges": {domain.EffectRead},
	"sp_datatype_info": {domain.EffectRead}, "sp_server_info": {domain.EffectRead}, "sp_spaceused": {domain.EffectRead},
	"sp_who": {domain.EffectRead}, "sp_who2": {domain.EffectRead}, "sp_lock": {domain.EffectRead},
	"sp_describe_first_result_set": {domain.EffectRead}, "sp_describe_undeclared_parameters": {domain.EffectRead},
}

// callEffects returns the effects of a call of the procedure named by
// parts (a multi-part name, lower case): procEffects for a listed system
// procedure called by its name, in dbo or in sys; RUNS_CODE for any other.
func callEffects(parts []string) []string {
	p := parts[len(parts)-1]
	schema := ""
	if len(parts) >= 2 {
		schema = parts[len(parts)-2]
	}
	if e, ok := procEffects[p]; ok && (schema == "" || schema == "dbo" || schema == "sys") {
		return e
	}
	return []string{domain.EffectRunsCode}
}

// orderEffects returns the effects of set in the vocabulary's order (nil
// for none).
func orderEffects(set map[string]struct{}) []string {
	var out []string
	for _, e := range domain.Effects {
		if _, ok := set[e]; ok {
			out = append(out, e)
		}
	}
	return out
}

// effectsOf returns the effects of a statement with actions and the
// effects its walk added (extra). A bare verb (CREATE, ALTER, DROP) beside
// one with its object (CREATE_USER) carries nothing itself, so CREATE USER
// is PRIVILEGE, not SCHEMA_CHANGE too.
func effectsOf(actions []string, extra map[string]struct{}) []string {
	set := make(map[string]struct{}, len(extra)+len(actions))
	for e := range extra {
		set[e] = struct{}{}
	}
	named := map[string]bool{} // verbs with an object: CREATE of CREATE_USER
	for _, a := range actions {
		if verb, _, ok := strings.Cut(a, "_"); ok && (verb == "CREATE" || verb == "ALTER" || verb == "DROP") {
			named[verb] = true
		}
	}
	for _, a := range actions {
		if named[a] {
			continue // CREATE beside CREATE_USER: the object's effects say it
		}
		for _, e := range actionEffects(a) {
			set[e] = struct{}{}
		}
	}
	return orderEffects(set)
}

// guessedEffects are the effects of a text the grammar refused, from the
// actions its keywords name (guessed) and those keywords: the stronger
// reading wherever a keyword leaves a choice, since such a text is held or
// refused anyway (fail closed). An EXEC runs a body (RUNS_CODE), an UPDATE
// or DELETE whose WHERE is unread is UNBOUNDED, OPENROWSET,
// OPENDATASOURCE and OPENQUERY reach files (FILE_ACCESS), xp_cmdshell the
// operating system, and a listed procedure's name adds its effects.
func guessedEffects(text string, actions []string) []string {
	extra := map[string]struct{}{domain.EffectUnknown: {}}
	for _, a := range actions {
		switch a {
		case "EXEC":
			extra[domain.EffectRunsCode] = struct{}{}
		case "UPDATE", "DELETE":
			extra[domain.EffectUnbounded] = struct{}{}
		}
	}
	l := lex(text)
	for _, t := range l.toks {
		if t.kind != tokWord && t.kind != tokQuoted {
			continue
		}
		w := strings.ToLower(unquoteName(text[t.start:t.end]))
		switch {
		case w == "openrowset" || w == "opendatasource" || w == "openquery":
			extra[domain.EffectFileAccess] = struct{}{}
		case procEffects[w] != nil:
			for _, e := range procEffects[w] {
				extra[e] = struct{}{}
			}
		}
	}
	return effectsOf(actions, extra)
}
