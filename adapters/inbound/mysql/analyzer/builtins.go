package analyzer

import "slices"

// builtins are the function names the analyzer reads as the server's own
// (lower case): an unqualified call of any other name is a stored function
// or a loadable one (a UDF such as sys_exec), whose body it does not read:
// RUNS_CODE (effects.go).
//
// The list is the parser's function names (TiDB's ast constants, MySQL's
// built-ins and its own) that MariaDB 10.11 runs as built-ins: `SELECT
// name()` there does not answer "FUNCTION db.name does not exist". A
// stored function of such a name is still reached qualified (db.name()),
// and for some names also with a gap before "(" or quoted (gapShadowed,
// quotedShadowed below; lexeffects.go reports those calls RUNS_CODE). A
// test asks the local MariaDB again (the mysql package's
// TestBuiltinsAreTheServers).
//
// It is MariaDB 10.11's list. A MySQL 8 upstream lacks some of these
// names (decode, encode, password, lastval, nextval, setval, …): there
// they can only be stored or loadable functions, and a call of one of
// them is reported as a built-in (no RUNS_CODE). docs/mysql-listener.md
// says so. char_func, insert_func and default_func are
// the parser's names for CHAR(… USING …), INSERT(s, pos, len, new) and
// DEFAULT(col). A MariaDB built-in the parser does not name (json_detailed,
// sformat, …) reads as a stored function: RUNS_CODE, the safe side.
var builtins = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range builtinNames {
		m[n] = true
	}
	return m
}()

// BuiltinNames returns the names of builtins, sorted (for the oracle test).
func BuiltinNames() []string { return append([]string(nil), builtinNames...) }

var builtinNames = []string{
	"abs", "acos", "adddate", "addtime", "aes_decrypt", "aes_encrypt", "and", "ascii", "asin", "atan",
	"atan2", "avg", "benchmark", "bin", "bit_and", "bit_count", "bit_length", "bit_or", "bit_xor",
	"case", "cast", "ceil", "ceiling", "char_func", "char_length", "character_length", "charset",
	"coalesce", "coercibility", "collation", "compress", "concat", "concat_ws", "connection_id",
	"conv", "convert", "convert_tz", "cos", "cot", "count", "crc32", "cume_dist", "curdate",
	"current_date", "current_role", "current_time", "current_timestamp", "current_user", "curtime",
	"database", "date", "date_add", "date_format", "date_sub", "datediff", "day", "dayname",
	"dayofmonth", "dayofweek", "dayofyear", "decode", "default_func", "degrees", "dense_rank", "div",
	"elt", "encode", "exp", "export_set", "extract", "field", "find_in_set", "first_value", "floor",
	"format", "found_rows", "from_base64", "from_days", "from_unixtime", "get_format", "get_lock",
	"greatest", "group_concat", "hex", "hour", "if", "ifnull", "in", "inet6_aton", "inet6_ntoa",
	"inet_aton", "inet_ntoa", "insert_func", "instr", "interval", "is_free_lock", "is_ipv4",
	"is_ipv4_compat", "is_ipv4_mapped", "is_ipv6", "is_used_lock", "isnull", "json_array",
	"json_array_append", "json_array_insert", "json_arrayagg", "json_contains", "json_contains_path",
	"json_depth", "json_extract", "json_insert", "json_keys", "json_length", "json_merge",
	"json_merge_patch", "json_merge_preserve", "json_object", "json_objectagg", "json_overlaps",
	"json_pretty", "json_quote", "json_remove", "json_replace", "json_search", "json_set",
	"json_type", "json_unquote", "json_valid", "lag", "last_day", "last_insert_id", "last_value",
	"lastval", "lcase", "lead", "least", "left", "length", "like", "ln", "load_file", "localtime",
	"localtimestamp", "locate", "log", "log10", "log2", "lower", "lpad", "ltrim", "make_set",
	"makedate", "maketime", "max", "md5", "microsecond", "mid", "min", "minute", "mod", "month",
	"monthname", "name_const", "nextval", "not", "now", "nth_value", "ntile", "nullif", "oct",
	"octet_length", "or", "ord", "password", "percent_rank", "period_add", "period_diff", "pi",
	"position", "pow", "power", "quarter", "quote", "radians", "rand", "random_bytes", "rank",
	"regexp", "regexp_instr", "regexp_replace", "regexp_substr", "release_all_locks", "release_lock",
	"repeat", "replace", "reverse", "right", "round", "row", "row_count", "row_number", "rpad",
	"rtrim", "schema", "sec_to_time", "second", "session_user", "setval", "sha", "sha1", "sha2",
	"sign", "sin", "sleep", "soundex", "space", "sqrt", "stddev_pop", "stddev_samp", "str_to_date",
	"strcmp", "subdate", "substr", "substring", "substring_index", "subtime", "sum", "sysdate",
	"system_user", "tan", "time", "time_format", "time_to_sec", "timediff", "timestamp",
	"timestampadd", "timestampdiff", "to_base64", "to_days", "to_seconds", "trim", "truncate",
	"ucase", "uncompress", "uncompressed_length", "unhex", "unix_timestamp", "upper", "user",
	"utc_date", "utc_time", "utc_timestamp", "uuid", "uuid_short", "values", "var_pop", "var_samp",
	"version", "week", "weekday", "weekofyear", "weight_string", "xor", "year", "yearweek",
}

// gapShadowed are the built-ins MariaDB 10.11 reads as its own only when
// "(" follows the name at once: with a space or a comment between (and
// IGNORE_SPACE off), `count (1)`, `mid/**/(1)` call the stored function
// of that name in the current database (lexeffects.go: RUNS_CODE).
// quotedShadowed are those it reads as its own only unquoted: “ `now`() “
// calls a stored function. The rest of builtinNames are its native
// functions, which it finds by name however written. The mysql package's
// TestBuiltinsAreTheServers asks the local MariaDB again.
var gapShadowed = setOf(
	"adddate", "bit_and", "bit_or", "bit_xor", "cast", "count", "cume_dist", "curdate", "curtime", "date_add",
	"date_sub", "dense_rank", "extract", "first_value", "group_concat", "json_arrayagg", "json_objectagg", "lag",
	"lead", "max", "mid", "min", "now", "nth_value", "ntile", "percent_rank", "position", "rank", "session_user",
	"stddev_pop", "stddev_samp", "subdate", "substr", "substring", "sum", "system_user", "trim", "var_pop", "var_samp",
)

var quotedShadowed = setOf(
	"adddate", "and", "ascii", "avg", "bit_and", "bit_or", "bit_xor", "case", "cast", "charset", "convert", "count",
	"cume_dist", "curdate", "current_date", "current_role", "current_time", "current_timestamp", "current_user",
	"curtime", "date", "date_add", "date_sub", "day", "dense_rank", "div", "extract", "first_value", "get_format",
	"group_concat", "hour", "if", "in", "interval", "json_arrayagg", "json_objectagg", "lag", "last_value", "lastval",
	"lead", "left", "like", "localtime", "localtimestamp", "max", "mid", "min", "minute", "month", "nextval", "not",
	"now", "nth_value", "ntile", "or", "percent_rank", "position", "rank", "regexp", "repeat", "replace", "right",
	"row", "row_number", "second", "session_user", "setval", "stddev_pop", "stddev_samp", "subdate", "substr",
	"substring", "sum", "sysdate", "system_user", "time", "timestamp", "timestampadd", "timestampdiff", "trim",
	"truncate", "user", "utc_date", "utc_time", "utc_timestamp", "values", "var_pop", "var_samp", "weight_string",
	"xor", "year",
)

// GapShadowed and QuotedShadowed return those names, sorted (for the
// oracle test).
func GapShadowed() []string    { return sortedSet(gapShadowed) }
func QuotedShadowed() []string { return sortedSet(quotedShadowed) }

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
