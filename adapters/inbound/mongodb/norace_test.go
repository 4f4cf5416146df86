//go:build !race

package mongodb

const raceEnabled = false
