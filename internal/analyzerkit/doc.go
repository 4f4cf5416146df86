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
//   - guard.go: Guard, which turns a panic in an analysis into an error the
//     analyzer reports as UNKNOWN: one client's text never ends the process.
//   - vocabulary.go: Vocabulary, the sorted, deduplicated action list behind
//     each analyzer's Actions and IsAction.
package analyzerkit
