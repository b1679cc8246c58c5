package keyspace

import (
	"fmt"

	"github.com/ruvio/ruvio/types/rdb"
)

// Value types other than plain strings are described to the engine by a
// valueType each, defined in the type's value_<type>.go file beside the
// code it points to. The engine files (snapshot, DUMP and RESTORE, packed
// entries, replay) consult the tables built from them and name no type's
// functions, so a new value type touches its value file and the list in
// valueTypeList (value_types.go), not the rest of the engine.
//
// The tables are package-level but immutable: they are built once, when
// the package is initialized, from valueTypeList, and nothing
// writes them afterwards. A table held by each Server would have to be
// threaded into code that runs without one (snapshot and WAL decoding in
// tests and tools) and would buy nothing, since the set of types is fixed
// at build time.

// valueType is what the engine knows of one value type.
type valueType struct {
	// name is the type's name in errors.
	name string
	// kinds are the snapshot value kinds the type writes (its values'
	// SnapshotKind): one for most types, several for the key-job values.
	kinds []uint8
	// decodeSnapshot rebuilds a value of the given kind from its
	// snapshot encoding, in the encodings cfg's thresholds give. val
	// aliases the reader's buffer and must be copied when kept.
	decodeSnapshot func(cfg valueConfig, kind uint8, val []byte) (any, error)
	// fromRDB, nil for types without a Redis serialization, builds a
	// value from the plain contents of a DUMP payload of kind rdbKind,
	// in the encodings cfg's thresholds give. The type's values then
	// implement rdbValuer for DUMP itself.
	fromRDB func(cfg valueConfig, v *rdb.Value) any
	rdbKind rdb.Kind
	// unpack, nil for types never packed into their entry, rebuilds a
	// collection from the compact encoding after a packed entry's tag
	// packTag, reusing a spare wrapper when there is one (packed.go).
	// Its values then implement packable.
	unpack  func(spare *spareObjs, b []byte) any
	packTag byte
}

// valueTables are the lookups the engine makes by type.
type valueTables struct {
	// bySnapshotKind maps a snapshot value kind to its type.
	bySnapshotKind [256]*valueType
	// byRDBKind maps a Redis serialization kind to its type.
	byRDBKind [256]*valueType
	// byPackTag maps a packed entry's type tag to its type.
	byPackTag [256]*valueType
}

// values is built once at package initialization and never written after.
var values = buildValueTables(valueTypeList())

// buildValueTables indexes types; two types claiming the same kind is a
// programming error and panics at startup.
func buildValueTables(types []*valueType) *valueTables {
	t := &valueTables{}
	for _, vt := range types {
		for _, k := range vt.kinds {
			if k == KindString {
				panic(fmt.Sprintf("keyspace: value type %s claims the string snapshot kind", vt.name))
			}
			if prev := t.bySnapshotKind[k]; prev != nil {
				panic(fmt.Sprintf("keyspace: snapshot kind %d claimed by both %s and %s", k, prev.name, vt.name))
			}
			t.bySnapshotKind[k] = vt
		}
		if vt.fromRDB != nil {
			if vt.rdbKind == rdb.KindString {
				panic(fmt.Sprintf("keyspace: value type %s claims the string DUMP kind", vt.name))
			}
			if prev := t.byRDBKind[vt.rdbKind]; prev != nil {
				panic(fmt.Sprintf("keyspace: DUMP kind %d claimed by both %s and %s", vt.rdbKind, prev.name, vt.name))
			}
			t.byRDBKind[vt.rdbKind] = vt
		}
		if vt.unpack != nil {
			if vt.packTag == 0 || vt.packTag >= packedTags {
				panic(fmt.Sprintf("keyspace: value type %s has packed tag %d, outside 1..%d", vt.name, vt.packTag, packedTags-1))
			}
			if prev := t.byPackTag[vt.packTag]; prev != nil {
				panic(fmt.Sprintf("keyspace: packed tag %d claimed by both %s and %s", vt.packTag, prev.name, vt.name))
			}
			t.byPackTag[vt.packTag] = vt
		}
	}
	return t
}

// MultiShard reports whether the process runs more than one shard, which
// makes it look like a Redis Cluster: only database 0 exists.
func (sh *Shard) MultiShard() bool { return sh.Srv.RoutesSlots() }

// CloneValue deep-copies the value of e for COPY. ok is false when the
// value's type cannot be copied.
func CloneValue(db *DB, e *Entry) (val []byte, obj any, ok bool) {
	o := db.Obj(e)
	if o == nil {
		return db.Val(e), nil, true
	}
	c, ok := o.(interface{ Clone() any })
	if !ok {
		return nil, nil, false
	}
	return nil, c.Clone(), true
}
