package keyspace

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"slices"
)

// Hot keys (RUVIO HOTKEYS): one lookup of an existing key in
// HotKeySampleEvery, on average, is sampled into a small table kept by the
// space-saving algorithm, whatever the eviction policy. The table holds
// hotKeySlots keys; a key sampled while the table is full takes the place
// of the least counted one and inherits its count as its error bound, so
// a key's true count lies within [count-err, count] and every key sampled
// more than total/hotKeySlots times is in the table. Sampling costs a
// decrement per lookup; a sample compares against the slots and copies
// the key into a fixed buffer, with no allocation. The gap between two
// samples is drawn at random in [1, 2×HotKeySampleEvery-1], so that a
// periodic access pattern cannot hide a key. Shard goroutine only.

// HotKeySampleEvery is the sampling period, in lookups.
const HotKeySampleEvery = 64

// hotKeySlots is the size of the table.
const hotKeySlots = 64

// hotKeyPrefix is how many bytes of a key a slot keeps; longer keys are
// told apart by their length and hash and reported cut.
const hotKeyPrefix = 128

type hotKeySlot struct {
	hash       uint64
	n          int // the key's full length
	db         int
	count, err int64
	key        [hotKeyPrefix]byte
}

// hotKeys is a shard's table.
type hotKeys struct {
	countdown int
	used      int
	seed      maphash.Seed
	rng       uint64 // xorshift state, never 0
	slots     [hotKeySlots]hotKeySlot
}

// HotKey is one entry of a hot-key report.
type HotKey struct {
	DB  int
	Key string // cut at 128 bytes when longer; Len is the full length
	Len int
	// Count estimates the key's lookups (samples × HotKeySampleEvery);
	// the true figure is at least Count - Err.
	Count, Err int64
}

// sampleHotKey counts a sampled lookup of key in db; Lookup calls it
// when its countdown runs out.
func (sh *Shard) sampleHotKey(db *DB, key []byte) {
	hk := sh.hot
	hk.rng ^= hk.rng << 13
	hk.rng ^= hk.rng >> 7
	hk.rng ^= hk.rng << 17
	hk.countdown = int(hk.rng % (2*HotKeySampleEvery - 1))
	h := maphash.Bytes(hk.seed, key)
	prefix := key[:min(len(key), hotKeyPrefix)]
	for i := range hk.used {
		s := &hk.slots[i]
		if s.hash == h && s.n == len(key) && s.db == db.ID && bytes.Equal(s.key[:len(prefix)], prefix) {
			s.count++
			return
		}
	}
	var s *hotKeySlot
	var inherited int64
	if hk.used < hotKeySlots {
		s = &hk.slots[hk.used]
		hk.used++
	} else {
		s = &hk.slots[0]
		for i := 1; i < hotKeySlots; i++ {
			if hk.slots[i].count < s.count {
				s = &hk.slots[i]
			}
		}
		inherited = s.count
	}
	s.hash, s.n, s.db = h, len(key), db.ID
	s.count, s.err = inherited+1, inherited
	copy(s.key[:], prefix)
}

// initHotKeys seeds the shard's table.
func (sh *Shard) initHotKeys() {
	sh.hot = &hotKeys{}
	sh.hot.seed = maphash.MakeSeed()
	sh.hot.rng = maphash.String(sh.hot.seed, "hotkeys") | 1
	sh.hot.countdown = HotKeySampleEvery - 1
}

// HotKeys returns the shard's sampled hot keys, most counted first, at
// most n of them.
func (sh *Shard) HotKeys(n int) []HotKey {
	hk := sh.hot
	out := make([]HotKey, 0, hk.used)
	for i := range hk.used {
		s := &hk.slots[i]
		out = append(out, HotKey{DB: s.db, Key: string(s.key[:min(s.n, hotKeyPrefix)]), Len: s.n,
			Count: s.count * HotKeySampleEvery, Err: s.err * HotKeySampleEvery})
	}
	slices.SortStableFunc(out, func(a, b HotKey) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Err, b.Err))
	})
	return out[:min(n, len(out))]
}

// ResetHotKeys empties the shard's hot-key table.
func (sh *Shard) ResetHotKeys() {
	sh.hot.used = 0
	clear(sh.hot.slots[:])
}
