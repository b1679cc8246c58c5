package keyspace

import (
	"fmt"

	"github.com/ruvio/ruvio/persistence"
)

// SORT and SORT_RO (Redis's sort.c): the elements of a list, set or sorted
// set, ordered numerically or (ALPHA) as strings, by themselves or by the
// values of keys named after them (BY pattern, a '*' in the pattern
// standing for the element, "key->field" for a hash field), optionally
// replaced by such values (GET pattern, '#' for the element), a window
// of the result kept (LIMIT), and the result returned or stored as a
// list (STORE). A STORE writes one OpListStore record holding the whole
// list, so replay needs neither the patterns nor the keys they read.
//
// With several shards the server is a cluster, and BY and GET patterns
// could name keys of any slot: as a Redis 7.0 cluster node does, SORT
// refuses GET and any BY pattern with a '*' there. A BY pattern without
// '*' (BY nosort) only turns sorting off and is always accepted.
//
// Where Redis's result depends on its internals rather than on the data,
// this differs: elements that compare equal under ALPHA with a BY pattern
// keep their load order (stable sort), which for a set or sorted set is
// not Redis's hash-table order, nor, with LIMIT, its partial quicksort's;
// and a weight that overflows a double fails only that SORT, where Redis,
// which tests a stale errno, may go on failing later numeric sorts.

// LogListStore writes the whole list stored at key.
func (sh *Shard) LogListStore(db int, key []byte, o *ListObj) {
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = o.AppendSnapshot(p)
	sh.recordScratch(db, persistence.OpListStore, p)
}

// applyListStore replays an OpListStore record.
func (sh *Shard) applyListStore(db *DB, p *persistence.PayloadReader) error {
	key, err := p.Bytes()
	if err != nil {
		return err
	}
	v, err := decodeListValue(sh.ListFill(), p.Rest())
	if err != nil {
		return fmt.Errorf("%s: %w", persistence.OpListStore, err)
	}
	StoreObj(db, db.Find(key), key, v)
	return nil
}
