package analyzer

import (
	_ "embed"
	"slices"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// functionEffects returns the effects of a call of the function named by
// parts (as the parser gives them: [name], [schema, name] or [catalog,
// schema, name]):
//
//   - a name qualified by a schema other than pg_catalog is never
//     PostgreSQL's own: RUNS_CODE, plus its knownFunctions row when it has
//     one (an extension installed in that schema: public.dblink,
//     public.pg_file_write);
//   - otherwise (unqualified, or pg_catalog.name) the function's row of
//     knownFunctions when it has one;
//   - nothing for any other function of pg_catalog (builtinFunctions);
//   - RUNS_CODE for every other function: a user's function (or an
//     extension's) has a body the analyzer does not read, and that body may
//     write, drop or call anything, exactly as CALL may.
//
// An unqualified name of a built-in function is read as PostgreSQL's own,
// which it cannot prove: a function of the same name in a schema on the
// search_path wins when its argument types fit the call better (length(42)
// calls public.length(int) before pg_catalog's length(text)), and wins
// outright when the search_path lists pg_catalog after its schema. Such a
// function was created by a statement that carried SCHEMA_CHANGE;
// docs/postgres-listener.md says so and what to revoke.
func functionEffects(parts []string) []string {
	if len(parts) == 0 {
		return nil
	}
	name := parts[len(parts)-1]
	known, isKnown := knownFunctions[strings.ToLower(name)]
	if len(parts) > 1 && parts[len(parts)-2] != "pg_catalog" {
		return domain.AddEffects(slices.Clone(known), domain.EffectRunsCode)
	}
	if isKnown {
		return known
	}
	if builtin(name) {
		return nil
	}
	return runsCode
}

var (
	fileAccess = []string{domain.EffectFileAccess}
	readData   = []string{domain.EffectRead}
)

// knownFunctions are the functions, PostgreSQL's own and well-known
// extensions', whose calls have an effect of their own: server files, the
// server's administration, large objects (data kept outside tables) and
// functions that run a query given as text.
var knownFunctions = map[string][]string{
	// Server files.
	"pg_read_file": fileAccess, "pg_read_file_old": fileAccess, "pg_read_binary_file": fileAccess,
	"pg_stat_file": fileAccess, "pg_ls_dir": fileAccess, "pg_ls_logdir": fileAccess,
	"pg_ls_waldir": fileAccess, "pg_ls_tmpdir": fileAccess, "pg_ls_archive_statusdir": fileAccess,
	"pg_ls_logicalsnapdir": fileAccess, "pg_ls_logicalmapdir": fileAccess,
	"pg_ls_replslotdir": fileAccess, "pg_current_logfile": fileAccess,
	"lo_import": {domain.EffectFileAccess, domain.EffectInsert},
	"lo_export": {domain.EffectFileAccess, domain.EffectRead},
	// adminpack
	"pg_file_write": fileAccess, "pg_file_rename": fileAccess, "pg_file_unlink": fileAccess,
	"pg_file_sync": fileAccess, "pg_logdir_ls": fileAccess,
	// Large objects.
	"lo_create": {domain.EffectInsert}, "lo_creat": {domain.EffectInsert}, "lo_from_bytea": {domain.EffectInsert},
	"lo_put": {domain.EffectUpdate}, "lowrite": {domain.EffectUpdate},
	"lo_truncate": {domain.EffectUpdate}, "lo_truncate64": {domain.EffectUpdate},
	"lo_unlink": {domain.EffectDelete}, "lo_get": readData, "loread": readData,
	// The server's administration.
	"pg_terminate_backend": admin, "pg_cancel_backend": admin, "pg_reload_conf": admin,
	"pg_rotate_logfile": admin, "pg_rotate_logfile_old": admin, "pg_switch_wal": admin,
	"pg_create_restore_point": admin, "pg_promote": admin, "pg_backup_start": admin,
	"pg_backup_stop": admin, "pg_start_backup": admin, "pg_stop_backup": admin,
	"pg_wal_replay_pause": admin, "pg_wal_replay_resume": admin,
	"pg_create_physical_replication_slot": admin, "pg_create_logical_replication_slot": admin,
	"pg_drop_replication_slot": admin, "pg_copy_physical_replication_slot": admin,
	"pg_copy_logical_replication_slot": admin, "pg_replication_slot_advance": admin,
	"pg_logical_slot_get_changes": admin, "pg_logical_slot_get_binary_changes": admin,
	"pg_replication_origin_create": admin, "pg_replication_origin_drop": admin,
	"pg_replication_origin_advance": admin, "pg_replication_origin_session_setup": admin,
	"pg_stat_reset": admin, "pg_stat_reset_shared": admin, "pg_stat_reset_slru": admin,
	"pg_stat_reset_single_table_counters": admin, "pg_stat_reset_single_function_counters": admin,
	"pg_stat_reset_replication_slot": admin, "pg_stat_reset_subscription_stats": admin,
	"pg_log_backend_memory_contexts": admin, "pg_import_system_collations": admin,
	"pg_sync_replication_slots": admin, "brin_desummarize_range": admin,
	"brin_summarize_range": admin, "brin_summarize_new_values": admin, "gin_clean_pending_list": admin,
	// A query given as text, which the analyzer does not read.
	"query_to_xml": runsCode, "query_to_xmlschema": runsCode, "query_to_xml_and_xmlschema": runsCode,
	"ts_stat": runsCode, "ts_rewrite": runsCode,
	"dblink": runsCode, "dblink_exec": runsCode, "dblink_open": runsCode, "dblink_send_query": runsCode,
	// A table named as text: it reads what Targets does not list.
	"table_to_xml": readData, "table_to_xmlschema": readData, "table_to_xml_and_xmlschema": readData,
	"schema_to_xml": readData, "schema_to_xmlschema": readData, "schema_to_xml_and_xmlschema": readData,
	"database_to_xml": readData, "database_to_xmlschema": readData, "database_to_xml_and_xmlschema": readData,
}

// builtinFunctionList is the names of pg_catalog's functions, one a line, as
// PostgreSQL 15 lists them:
//
//	psql -Atc "SELECT DISTINCT proname FROM pg_proc
//	  WHERE pronamespace = 'pg_catalog'::regnamespace ORDER BY 1"
//
// A function a later version adds is missing, so its calls carry RUNS_CODE:
// over-reported, never under-reported.
//
//go:embed builtin_functions.txt
var builtinFunctionList string

var builtinFunctions = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, n := range strings.Fields(builtinFunctionList) {
		m[n] = struct{}{}
	}
	return m
}()

// builtin reports whether name (as the parser gives it: folded to lower
// case unless quoted) is a function of pg_catalog.
func builtin(name string) bool {
	_, ok := builtinFunctions[name]
	return ok
}
