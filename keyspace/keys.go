package keyspace

// This file holds the generic key commands (DEL, EXISTS, TYPE, RENAME,
// COPY, MOVE, KEYS, SCAN, the expiry commands, OBJECT, ...) and the
// database commands of the server group (DBSIZE, FLUSHDB, FLUSHALL,
// SWAPDB). Every handler follows Redis 7.0: same replies, same error texts,
// same order of checks. Every mutation logs exactly one journal record.

// MultiShard reports whether the process runs more than one shard, which
// makes it look like a Redis Cluster: only database 0 exists.
func (sh *Shard) MultiShard() bool { return len(sh.Srv.ShardList) > 1 }

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
