package httplistener

// OracleInPrefix is oracleInPrefix, for the external tests (the fuzz target
// over the real listener).
var OracleInPrefix = oracleInPrefix

// MaxFuzzTarget is maxFuzzTarget.
const MaxFuzzTarget = maxFuzzTarget
