package command

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The effects (domain/effects.go) of a command, the protocol-blind words
// rules match with `match: {effects: […]}` (docs/rules.md; the table of
// docs/mongodb-listener.md, "Effects"). They follow from the actions the
// reading found (actionEffects), plus what only the command's fields say:
//
//   - an aggregate's $out replaces its output collection (INSERT, DROP),
//     its $merge inserts and updates (INSERT, UPDATE);
//   - mapReduce runs JavaScript (RUNS_CODE) and writes as its out says;
//   - renameCollection with dropTarget drops the collection it replaces;
//   - an index or collection with expireAfterSeconds makes the server
//     delete documents (TTL): DELETE; so does setClusterParameter's (the
//     change stream pre-images expire). Its document sequences are read
//     as well as the body;
//   - collMod with cappedSize or cappedMax removes the documents beyond
//     the new limits: DELETE;
//   - a command inside applyOps brings its own effects, these fields'
//     included (fieldEffects reads both alike);
//   - a write to system.users or system.roles changes privileges;
//   - a delete of many documents, or an update with multi, whose filter
//     matches every document whatever the data (unbounded.go): UNBOUNDED.
//
// A command the table does not know is UNKNOWN; so is a write that yields
// no effect at all (a bulkWrite whose ops cannot be read), so a write is
// never left without a word a rule can hold.

// noEffect are the actions that neither read nor change data on their
// own: the handshake, login, sessions, a transaction's end (each statement
// in it was decided when sent), closing a cursor. FIND_AND_MODIFY and
// BULK_WRITE get their effects from the DELETE, UPDATE, INSERT actions the
// reading adds beside them.
var noEffect = map[string]bool{
	"HELLO": true, "AUTH": true, "START_SESSION": true, "REFRESH_SESSIONS": true, "END_SESSIONS": true,
	"COMMIT_TRANSACTION": true, "ABORT_TRANSACTION": true, "KILL_CURSORS": true,
	"FIND_AND_MODIFY": true, ActionBulkWrite: true, ActionAggregateWrite: true, "MAP_REDUCE": true,
}

// actionEffects maps an action (names.go) to its effects. Every action of
// Actions() is here or in noEffect (TestEveryActionHasEffects); one that is
// in neither reads as UNKNOWN.
var actionEffects = func() map[string][]string {
	m := map[string][]string{}
	set := func(effects []string, actions ...string) {
		for _, a := range actions {
			m[a] = effects[:len(effects):len(effects)]
		}
	}
	set([]string{domain.EffectRead}, "FIND", "AGGREGATE", "COUNT", "DISTINCT", "GET_MORE", "EXPLAIN",
		"LIST_INDEXES", "LIST_SEARCH_INDEXES", "COLL_STATS", "VALIDATE", "DATA_SIZE", "LIST_COLLECTIONS",
		"DB_STATS", "DB_HASH", "CURRENT_OP", "LIST_DATABASES", "USERS_INFO", "ROLES_INFO",
		"PING", "BUILD_INFO", "SERVER_STATUS", "HOST_INFO", "CONNECTION_STATUS", "WHATSMYURI",
		"GET_CMD_LINE_OPTS", "GET_LOG", "LIST_COMMANDS", "GET_PARAMETER", "LOCK_INFO", "CONN_POOL_STATS",
		"TOP", "FEATURES", "GET_DEFAULT_RW_CONCERN", "GET_CLUSTER_PARAMETER", "REPL_SET_GET_STATUS",
		"REPL_SET_GET_CONFIG", "LIST_SHARDS", "BALANCER_STATUS", "GET_SHARD_MAP", "GET_LAST_ERROR",
		"RESET_ERROR", "ISDBGRID", "GET_FREE_MONITORING_STATUS", "DRIVER_OID_TEST")
	set([]string{domain.EffectInsert}, "INSERT")
	set([]string{domain.EffectUpdate}, "UPDATE")
	set([]string{domain.EffectDelete}, "DELETE")
	set([]string{domain.EffectDrop}, "DROP", "DROP_DATABASE", "DROP_INDEXES", "DROP_SEARCH_INDEX")
	set([]string{domain.EffectSchemaChange}, "CREATE", "COLL_MOD", "CREATE_INDEXES", "RENAME_COLLECTION",
		"CREATE_SEARCH_INDEXES", "UPDATE_SEARCH_INDEX")
	// convertToCapped copies the collection into a capped one of the given
	// size and replaces it: documents beyond the size are gone.
	set([]string{domain.EffectSchemaChange, domain.EffectDelete}, "CONVERT_TO_CAPPED")
	set([]string{domain.EffectSchemaChange, domain.EffectInsert}, "CLONE_COLLECTION_AS_CAPPED")
	set([]string{domain.EffectPrivilege}, "CREATE_USER", "UPDATE_USER", "DROP_USER",
		"DROP_ALL_USERS_FROM_DATABASE", "GRANT_ROLES_TO_USER", "REVOKE_ROLES_FROM_USER", "CREATE_ROLE",
		"UPDATE_ROLE", "DROP_ROLE", "DROP_ALL_ROLES_FROM_DATABASE", "GRANT_PRIVILEGES_TO_ROLE",
		"REVOKE_PRIVILEGES_FROM_ROLE", "GRANT_ROLES_TO_ROLE", "REVOKE_ROLES_FROM_ROLE")
	set([]string{domain.EffectRunsCode}, ActionServerJS)
	set([]string{domain.EffectAdmin}, "INVALIDATE_USER_CACHE", "KILL_SESSIONS", "KILL_ALL_SESSIONS",
		"KILL_ALL_SESSIONS_BY_PATTERN", "KILL_OP", "SHUTDOWN", "FSYNC", "FSYNC_UNLOCK", "SET_PARAMETER",
		"SET_FEATURE_COMPATIBILITY_VERSION", "LOG_ROTATE", "SET_DEFAULT_RW_CONCERN", "SET_CLUSTER_PARAMETER",
		"REPL_SET_RECONFIG", "REPL_SET_STEP_DOWN", "REPL_SET_FREEZE", "REPL_SET_INITIATE",
		"REPL_SET_MAINTENANCE", "REPL_SET_SYNC_FROM", "ADD_SHARD", "REMOVE_SHARD", "MOVE_CHUNK", "MOVE_RANGE",
		"SPLIT", "MERGE_CHUNKS", "BALANCER_START", "BALANCER_STOP", "CLEAR_JUMBO_FLAG", "APPLY_OPS",
		"SET_USER_WRITE_BLOCK_MODE", "ROTATE_CERTIFICATES", "COMPACT_STRUCTURED_ENCRYPTION_DATA",
		"CLEANUP_STRUCTURED_ENCRYPTION_DATA", "SET_INDEX_COMMIT_QUORUM", "ABORT_RESHARD_COLLECTION",
		"COMMIT_RESHARD_COLLECTION", "ENABLE_SHARDING", "MOVE_PRIMARY", "PROFILE", "REPAIR_DATABASE",
		"COMPACT", "RE_INDEX", "SHARD_COLLECTION", "RESHARD_COLLECTION", "REFINE_COLLECTION_SHARD_KEY",
		"UNSHARD_COLLECTION", "MOVE_COLLECTION", "CLEANUP_ORPHANED", "ANALYZE_SHARD_KEY",
		"CONFIGURE_QUERY_ANALYZER")
	set([]string{domain.EffectUnknown}, ActionUnknown)
	return m
}()

// effects returns the command's effects (see the comment at the top). A
// command with one action and nothing special gets the table's shared,
// full-capacity slice (no allocation on the hot path: find).
func (r *reading) effects() []string {
	acts := r.actions.items
	if len(acts) == 1 && !r.special4Effects() {
		if e, ok := actionEffects[acts[0]]; ok {
			return e
		}
	}
	var out []string
	for _, a := range acts {
		switch a {
		case ActionAggregateWrite:
			out = domain.AddEffects(out, r.aggregateWriteEffects()...)
		case "MAP_REDUCE":
			out = domain.AddEffects(out, r.mapReduceEffects()...)
		default:
			if e, ok := actionEffects[a]; ok {
				out = domain.AddEffects(out, e...)
			} else if !noEffect[a] {
				out = domain.AddEffects(out, domain.EffectUnknown)
			}
		}
	}
	out = domain.AddEffects(out, r.fieldEffects()...)
	out = domain.AddEffects(out, r.inner...)
	if r.c.Write && r.writesSystemAuth() {
		out = domain.AddEffects(out, domain.EffectPrivilege)
	}
	if r.unbounded() {
		out = domain.AddEffects(out, domain.EffectUnbounded)
	}
	if len(out) == 0 && r.c.Write {
		out = domain.AddEffects(out, domain.EffectUnknown)
	}
	return out
}

// fieldEffects returns the effects the command's own fields add to its
// actions' (see the comment at the top), for the command sent and for each
// command inside applyOps alike.
func (r *reading) fieldEffects() []string {
	var out []string
	switch r.name {
	case "renamecollection":
		if v := r.c.Body.Lookup("dropTarget"); truthy(v) {
			out = append(out, domain.EffectDrop)
		}
	case "create", "createindexes", "collmod", "setclusterparameter":
		// setClusterParameter's changeStreamOptions.preAndPostImages
		// .expireAfterSeconds makes the server delete change stream
		// pre-images.
		if r.hasKey("expireAfterSeconds") {
			out = append(out, domain.EffectDelete)
		}
		// collMod's cappedSize and cappedMax (6.0+) shrink a capped
		// collection: the documents beyond the new size or count are
		// removed, as convertToCapped removes them.
		if r.name == "collmod" && (hasField(r.c.Body, "cappedSize") || hasField(r.c.Body, "cappedMax")) {
			out = domain.AddEffects(out, domain.EffectDelete)
		}
	case "emptycapped":
		out = append(out, domain.EffectTruncate, domain.EffectUnbounded)
	}
	return out
}

// hasKey reports whether key is a field anywhere in the command: in its
// body or in a document of its document sequences (mongod's IDL commands,
// createIndexes among them, take an array of documents as a sequence).
func (r *reading) hasKey(key string) bool {
	if hasKey(r.c.Body, key, 0) {
		return true
	}
	for _, s := range r.c.Sequences {
		for _, d := range s.Documents {
			if hasKey(d, key, 1) {
				return true
			}
		}
	}
	return false
}

// hasField reports whether key is a top-level field of d, whatever its
// value (mongod refuses the values it cannot read; null is counted too).
func hasField(d bsoncore.Document, key string) bool {
	_, err := d.LookupErr(key)
	return err == nil
}

// special4Effects reports whether the command's effects need more than its
// one action's row: the commands effects() reads fields of, and any write
// (its targets may be system.users).
func (r *reading) special4Effects() bool {
	switch r.name {
	case "renamecollection", "create", "createindexes", "collmod", "setclusterparameter", "emptycapped",
		"delete", "update", "bulkwrite":
		return true
	}
	return r.c.Write || len(r.inner) > 0
}

// aggregateWriteEffects: $out replaces its output collection (mongod
// writes a temporary collection and renames it over the target, dropping
// the old one and its documents): INSERT and DROP. $merge inserts
// documents and replaces or merges matched ones: INSERT and UPDATE.
func (r *reading) aggregateWriteEffects() []string {
	var out []string
	for _, f := range r.functions.items {
		switch f {
		case "$out":
			out = domain.AddEffects(out, domain.EffectInsert, domain.EffectDrop)
		case "$merge":
			out = domain.AddEffects(out, domain.EffectInsert, domain.EffectUpdate)
		}
	}
	if len(out) == 0 {
		return []string{domain.EffectInsert, domain.EffectUpdate, domain.EffectDrop}
	}
	return out
}

// mapReduceEffects: mapReduce reads its collection and runs its map and
// reduce functions (RUNS_CODE comes with SERVER_JS); out: {inline: 1}
// writes nothing (inlineOnly), out: "name", {replace: …} or its old name
// {normal: …} replaces the output
// collection (INSERT, DROP), {merge: …} and {reduce: …} insert and update.
// An out it cannot read is all three. A MAP_REDUCE that came from a
// command inside applyOps adds nothing here: that command's own reading
// gave its effects (r.inner).
func (r *reading) mapReduceEffects() []string {
	if r.name != "mapreduce" {
		return nil
	}
	out := []string{domain.EffectRead}
	v := r.c.Body.Lookup("out")
	if _, ok := v.StringValueOK(); ok {
		return append(out, domain.EffectInsert, domain.EffectDrop)
	}
	d, ok := v.DocumentOK()
	if !ok {
		return append(out, domain.EffectInsert, domain.EffectUpdate, domain.EffectDrop)
	}
	if inlineOnly(d) {
		return out
	}
	if hasField(d, "replace") || hasField(d, "normal") {
		out = append(out, domain.EffectInsert, domain.EffectDrop)
	}
	if _, err := d.LookupErr("merge"); err == nil {
		out = domain.AddEffects(out, domain.EffectInsert, domain.EffectUpdate)
	}
	if _, err := d.LookupErr("reduce"); err == nil {
		out = domain.AddEffects(out, domain.EffectInsert, domain.EffectUpdate)
	}
	if len(out) == 1 {
		out = append(out, domain.EffectInsert, domain.EffectUpdate, domain.EffectDrop)
	}
	return out
}

// writesSystemAuth reports whether a target is a system.users or
// system.roles collection: a write there changes who may do what.
func (r *reading) writesSystemAuth() bool {
	for _, t := range r.targets.items {
		_, coll, _ := strings.Cut(t, ".")
		if strings.EqualFold(coll, "system.users") || strings.EqualFold(coll, "system.roles") {
			return true
		}
	}
	return false
}

// truthy reads v as BSONElement::trueValue does (older servers read
// dropTarget so; current ones refuse a non-boolean, non-number value):
// absent, null, undefined, false and numeric zeros are false, anything
// else true. A flag read this way for an effect can only add the effect.
func truthy(v bsoncore.Value) bool {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return false
	case bsoncore.TypeBoolean, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		b, err := flag("", v, idlSafeBool)
		return b || err != nil
	}
	return true
}

// hasKey reports whether key is a field of d or of any document or array
// inside it, down to the wire's depth limit.
func hasKey(d []byte, key string, depth int) bool {
	if depth > maxWalkDepth {
		return false
	}
	found := false
	each(d, func(k []byte, e bsoncore.Element) bool {
		if string(k) == key {
			found = true
			return false
		}
		v := valueOf(k, e)
		if v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray {
			found = hasKey(v.Data, key, depth+1)
		}
		return !found
	})
	return found
}
