package keyspace

// The engine's own test helpers. Tests that run commands need the command
// table and live in package commands with its harness; the tests here
// exercise the engine's structures directly.

// newDB returns a database with an arena of its own.
func newDB(id int) *DB { return newDBIn(id, newArena()) }

// strLikeObj is a side-table object that reads as a string, standing in
// for any value type the arena tests store.
type strLikeObj struct{ b []byte }

// StringBytes is the object's bytes.
func (s *strLikeObj) StringBytes(*Entry) []byte { return s.b }
