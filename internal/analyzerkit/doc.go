// Package analyzerkit holds what the SQL analyzers (adapters/inbound/
// postgres, mysql and mssql's analyzer packages) need alike and nothing
// protocol-specific:
//
//   - cache.go: Cache, an LRU of analysis results bounded in bytes (an
//     entry costs its key's and its result's estimated size, Size), so the
//     listeners' caches count in the documented memory bound
//     (docs/config.md, "Memory bound").
//   - budget.go: Budget, a weighted semaphore in bytes over the texts the
//     parsers work on at once; a wait ends with the caller's context, so a
//     large text does not wait on after its client has left.
//   - parsecost.go: Parse and ParseTrees, the Budget in bytes of
//     estimated parse tree (tokens × an analyzer's cost per token) that
//     the Go parsers (MySQL's, SQL Server's) share for large texts; Parse
//     refuses a text whose estimate alone is over it.
//   - guard.go: Guard, which turns a panic in an analysis into an error the
//     analyzer reports as UNKNOWN: one client's text never ends the process.
//   - memo.go: Memo, each analyzer's cache of results by exact text and by
//     shape; the analyzer supplies its key, how to shape and how a shared
//     result becomes a text's own. NewListenerMemo bounds it at
//     ListenerCacheBytes, the bound of every listener's.
//   - statement.go: Statement, the Text and Analysis every analyzer's
//     Statement embeds, and Whole, that of a text read as one.
//   - client.go: WhileConnected, the context of a wait (parse budget,
//     held-payload budget) that ends when the client hangs up.
//   - found.go: Found, the actions, targets and functions a walker collects.
//   - limits.go: CheckSize, CheckDepth and Depth (the bracket-level depth
//     bound each analyzer counts from its own tokens), and NodeActions.
//   - vocabulary.go: Vocabulary, the sorted, deduplicated action list behind
//     each analyzer's Actions and IsAction.
package analyzerkit
