package command

import (
	"sort"
	"strings"
	"sync"

	"github.com/hoophq/sidecar/domain"
)

// targetKind says where a command names what it acts on.
type targetKind uint8

const (
	targetNone targetKind = iota // nothing (hello, ping, auth, sessions)
	targetColl                   // the command's value is a collection name: db.collection (else db)
	targetDB                     // the database ($db)
	targetNS                     // the command's value is a full namespace "db.collection"
)

// spec is what one command is: its actions, whether it writes, where its
// target is.
type spec struct {
	actions []string
	write   bool
	target  targetKind
}

// The actions with a meaning beyond one command (see Actions).
const (
	ActionUnknown        = domain.ActionUnknown // a command this table does not know
	ActionServerJS       = "SERVER_JS"          // $where, $function, $accumulator, mapReduce, eval
	ActionAggregateWrite = "AGGREGATE_WRITE"    // aggregate with $out or $merge
	ActionExplain        = "EXPLAIN"
	ActionBulkWrite      = "BULK_WRITE"
)

// commands maps a command name, lower case, to its spec. MongoDB looks
// command names up case-sensitively (with a few lower-case aliases such as
// ismaster and findandmodify); the analysis matches them case-insensitively
// so a case variant the server refuses anyway can never slip past a rule.
// Each action is the upper-snake form of the command's documented name
// except where noted.
var commands = func() map[string]spec {
	m := map[string]spec{}
	add := func(write bool, target targetKind, names ...string) {
		for _, n := range names {
			m[strings.ToLower(n)] = spec{actions: []string{upperSnake(n)}, write: write, target: target}
		}
	}
	alias := func(name string, s spec) { m[strings.ToLower(name)] = s }

	// CRUD and queries.
	add(false, targetColl, "find", "aggregate", "count", "distinct", "listIndexes", "listSearchIndexes",
		"collStats", "validate", "killCursors")
	add(false, targetNone, "getMore") // its value is the cursor id; the collection is "collection"
	add(true, targetColl, "insert", "update", "delete", "findAndModify", "drop", "create", "collMod",
		"createIndexes", "dropIndexes", "convertToCapped", "cloneCollectionAsCapped", "compact", "reIndex",
		"createSearchIndexes", "dropSearchIndex", "updateSearchIndex", "mapReduce", "shardCollection",
		"reshardCollection", "refineCollectionShardKey", "unshardCollection", "moveCollection", "cleanupOrphaned",
		"analyzeShardKey", "configureQueryAnalyzer")
	alias("deleteIndexes", m["dropindexes"])
	alias("dropIndex", m["dropindexes"])
	add(true, targetNS, "renameCollection")
	add(false, targetNS, "dataSize")
	m["bulkwrite"] = spec{actions: []string{ActionBulkWrite}, write: true, target: targetNone}

	// Databases.
	add(true, targetDB, "dropDatabase", "repairDatabase", "enableSharding", "movePrimary", "profile")
	add(false, targetDB, "listCollections", "dbStats", "dbHash", "currentOp")
	add(false, targetNone, "listDatabases")

	// Users and roles.
	add(true, targetDB, "createUser", "updateUser", "dropUser", "dropAllUsersFromDatabase", "grantRolesToUser",
		"revokeRolesFromUser", "createRole", "updateRole", "dropRole", "dropAllRolesFromDatabase",
		"grantPrivilegesToRole", "revokePrivilegesFromRole", "grantRolesToRole", "revokeRolesFromRole",
		"invalidateUserCache")
	add(false, targetDB, "usersInfo", "rolesInfo")

	// Sessions and transactions.
	add(false, targetNone, "startSession", "refreshSessions", "endSessions", "commitTransaction",
		"abortTransaction")
	add(true, targetNone, "killSessions", "killAllSessions", "killAllSessionsByPattern")

	// Operations and the server.
	add(true, targetNone, "killOp", "shutdown", "fsync", "fsyncUnlock", "setParameter",
		"setFeatureCompatibilityVersion", "logRotate", "setDefaultRWConcern", "setClusterParameter",
		"replSetReconfig", "replSetStepDown", "replSetFreeze", "replSetInitiate", "replSetMaintenance",
		"replSetSyncFrom", "addShard", "removeShard", "moveChunk", "moveRange", "split", "mergeChunks",
		"balancerStart", "balancerStop", "clearJumboFlag", "applyOps", "setUserWriteBlockMode",
		"rotateCertificates", "compactStructuredEncryptionData", "cleanupStructuredEncryptionData",
		"setIndexCommitQuorum", "abortReshardCollection", "commitReshardCollection")
	add(false, targetNone, "ping", "buildInfo", "serverStatus", "hostInfo", "connectionStatus", "whatsmyuri",
		"getCmdLineOpts", "getLog", "listCommands", "getParameter", "lockInfo", "connPoolStats", "top",
		"features", "getDefaultRWConcern", "getClusterParameter", "replSetGetStatus", "replSetGetConfig",
		"listShards", "balancerStatus", "getShardMap", "getLastError", "resetError", "isdbgrid",
		"getFreeMonitoringStatus", "driverOIDTest")

	// The handshake and authentication.
	for _, n := range []string{"hello", "isMaster"} {
		alias(n, spec{actions: []string{"HELLO"}})
	}
	for _, n := range []string{"saslStart", "saslContinue", "authenticate", "logout", "getnonce"} {
		alias(n, spec{actions: []string{"AUTH"}})
	}

	// Server-side JavaScript commands (removed from current servers; an
	// old or emulated one could still run them).
	alias("mapReduce", spec{actions: []string{"MAP_REDUCE", ActionServerJS}, write: true, target: targetColl})
	for _, n := range []string{"eval", "$eval", "group"} {
		alias(n, spec{actions: []string{ActionServerJS}, write: true, target: targetDB})
	}
	alias("explain", spec{actions: []string{ActionExplain}})
	return m
}()

// lookup finds a command's spec by name, any case.
func lookup(name string) (spec, bool) {
	s, ok := commands[strings.ToLower(name)]
	return s, ok
}

// upperSnake turns a command name into an action: "findAndModify" →
// "FIND_AND_MODIFY", "dbStats" → "DB_STATS", "setDefaultRWConcern" →
// "SET_DEFAULT_RW_CONCERN" (an acronym stays one word).
func upperSnake(name string) string {
	name = strings.TrimPrefix(name, "$")
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isUpper(c) && i > 0 && (!isUpper(name[i-1]) || (i+1 < len(name) && !isUpper(name[i+1]))) {
			b.WriteByte('_')
		}
		b.WriteByte(c)
	}
	return strings.ToUpper(b.String())
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// Actions returns every action the analysis can report, upper case,
// sorted: the vocabulary of a mongodb listener's rules
// (docs/mongodb-listener.md, "Actions"). `sidecar validate` refuses any
// other, so a typo cannot silently turn a rule off.
func Actions() []string { return vocabulary() }

// IsAction reports whether action (any case) is in Actions.
func IsAction(action string) bool {
	_, ok := vocabularySet()[strings.ToUpper(action)]
	return ok
}

var vocabulary = sync.OnceValue(func() []string {
	set := map[string]struct{}{ActionUnknown: {}, ActionServerJS: {}, ActionAggregateWrite: {}, "INSERT": {},
		"UPDATE": {}, "DELETE": {}}
	for _, s := range commands {
		for _, a := range s.actions {
			set[a] = struct{}{}
		}
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
})

var vocabularySet = sync.OnceValue(func() map[string]struct{} {
	set := map[string]struct{}{}
	for _, a := range vocabulary() {
		set[a] = struct{}{}
	}
	return set
})
