//go:build race

package mongodb

// raceEnabled: the race detector slows the long tests tenfold; they skip.
const raceEnabled = true
