package keyspace

// This file is where the value types plug into the engine: the only place
// that names them all. The engine files (value.go and the snapshot, DUMP,
// packed-entry and replay code that consults its tables) name none, so a new
// value type is added here and in its own value_<type>.go file. Commands are
// registered by package commands, never here.
//
// Both lists are functions returning a fresh slice, not package variables
// the types append to from init(): nothing can change them at run time, and
// the order stays the one written here rather than the order of file
// names, which init() would give.

// valueTypeList is every value type other than plain strings.
func valueTypeList() []*valueType {
	return []*valueType{
		&hashValueType,
		&listValueType,
		&setValueType,
		&zsetValueType,
		&bloomValueType,
		&streamValueType,
		&keyJobValueType,
	}
}

// replayRouteList is every family's WAL opcode routes. They are apart
// from valueTypeList because the decoders reach the packed-entry table
// (through DB.obj), which is built from valueTypeList: in one list the
// tables would depend on themselves.
func replayRouteList() [][]replayRoute {
	return [][]replayRoute{
		keyJobReplayRoutes,
		hashReplayRoutes,
		listReplayRoutes,
		setReplayRoutes,
		zsetReplayRoutes,
		bloomReplayRoutes,
		streamReplayRoutes,
	}
}
