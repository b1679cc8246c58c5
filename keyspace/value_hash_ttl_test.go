package keyspace

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/hash"
)

// ttlHash returns a hash of fields "f0".."f<n-1>", field i with deadline
// at[i] (0: none).
func ttlHash(at ...int64) *HashObj {
	o := &HashObj{}
	for i, a := range at {
		f := []byte{'f', byte('0' + i)}
		o.Set(hash.DefaultConfig, f, []byte("v"))
		o.SetFieldTTL(f, a)
	}
	return o
}

// The heap pops in deadline order, whatever the order of the pushes.
func TestDueHeapOrder(t *testing.T) {
	var h dueHeap
	r := rand.New(rand.NewPCG(1, 2))
	var want []int64
	for range 500 {
		at := r.Int64N(1000)
		want = append(want, at)
		h.push(due{at: at})
	}
	slices.Sort(want)
	for i, w := range want {
		if got := h.pop().at; got != w {
			t.Fatalf("pop %d: %d, want %d", i, got, w)
		}
	}
}

// Deadlines follow the fields: HSET drops one, HDEL removes one, the last
// one removed frees the side structure (the hash can be packed again).
func TestFieldTTLsFollowFields(t *testing.T) {
	o := ttlHash(100, 0, 50)
	if o.FieldTTLCount() != 2 || o.nextFieldDeadline() != 50 || o.compact() != nil {
		t.Fatalf("count %d next %d packable %v", o.FieldTTLCount(), o.nextFieldDeadline(), o.compact() != nil)
	}
	o.Set(hash.DefaultConfig, []byte("f2"), []byte("w"))
	if o.FieldTTL([]byte("f2")) != 0 || o.nextFieldDeadline() != 100 {
		t.Fatalf("HSET kept a deadline: next %d", o.nextFieldDeadline())
	}
	o.Delete([]byte("f0"))
	if o.HasFieldTTLs() || o.compact() == nil || o.Encoding() != "listpack" {
		t.Fatalf("the last deadline gone, the hash still carries %d (encoding %s)", o.FieldTTLCount(), o.Encoding())
	}
	// Many changes of one field's deadline leave the heap bounded.
	o = ttlHash(10)
	for i := range 10_000 {
		o.SetFieldTTL([]byte("f0"), int64(i+1))
	}
	if len(o.ttl.heap) > 2*len(o.ttl.at)+33 || o.nextFieldDeadline() != 10_000 {
		t.Fatalf("heap %d entries, next %d", len(o.ttl.heap), o.nextFieldDeadline())
	}
}

// popExpired takes the expired fields in deadline order, up to the limit.
func TestPopExpired(t *testing.T) {
	o := ttlHash(30, 0, 10, 20, 99)
	got, more := o.popExpired(30, 2, nil)
	if !more || len(got) != 2 || string(got[0]) != "f2" || string(got[1]) != "f3" {
		t.Fatalf("first step: %q more %v", got, more)
	}
	got, more = o.popExpired(30, -1, nil)
	if more || len(got) != 1 || string(got[0]) != "f0" || o.H.Len() != 2 || o.ExpiredFieldCount(30) != 0 {
		t.Fatalf("second step: %q more %v len %d", got, more, o.H.Len())
	}
	if c := o.liveCopy(99); c == nil || c.H.Len() != 1 || o.H.Len() != 2 {
		t.Fatalf("liveCopy changed the hash or kept f4")
	}
}

// The snapshot kind round-trips, independent of map order, and every
// damaged encoding is refused.
func TestHashTTLSnapshot(t *testing.T) {
	o := ttlHash(1_700_000_000_000, 0, 1_800_000_000_000)
	if o.SnapshotKind() != KindHashTTL {
		t.Fatalf("kind %d", o.SnapshotKind())
	}
	enc := o.AppendSnapshot(nil)
	for range 5 {
		if again := o.Clone().(*HashObj).AppendSnapshot(nil); !bytes.Equal(again, enc) {
			t.Fatalf("encodings differ: %x and %x", enc, again)
		}
	}
	cfg := DefaultValueConfig()
	_, v, err := DecodeSnapshotValue(cfg, KindHashTTL, enc)
	if err != nil {
		t.Fatal(err)
	}
	back := v.(*HashObj)
	if back.String() != o.String() || back.nextFieldDeadline() != 1_700_000_000_000 {
		t.Fatalf("round trip: %s, want %s", back, o)
	}
	for n := range len(enc) {
		if _, _, err := DecodeSnapshotValue(cfg, KindHashTTL, enc[:n]); err == nil {
			t.Errorf("a prefix of %d bytes decoded", n)
		}
	}
	if _, _, err := DecodeSnapshotValue(cfg, KindHashTTL, append(slices.Clone(enc), 0)); !errors.Is(err, persistence.ErrCorrupt) {
		t.Errorf("trailing byte: %v", err)
	}
	// A deadline naming a missing field, or a zero one.
	bad := ttlHash(5).appendHashTTLSnapshot(nil)
	bad[len(bad)-10] = 'x'
	if _, _, err := DecodeSnapshotValue(cfg, KindHashTTL, bad); err == nil {
		t.Error("a deadline of a missing field decoded")
	}
	zero := ttlHash(5).appendHashTTLSnapshot(nil)
	clear(zero[len(zero)-8:])
	if _, _, err := DecodeSnapshotValue(cfg, KindHashTTL, zero); err == nil {
		t.Error("a zero deadline decoded")
	}
	// A hash without deadlines keeps kind 60 and its encoding.
	plain := ttlHash(0, 0)
	if plain.SnapshotKind() != KindHash {
		t.Errorf("a hash without deadlines has kind %d", plain.SnapshotKind())
	}
}

// Every hash with deadlines waits in its database's queue, under its new
// key once renamed, and leaves the count with its last deadline.
func TestHashQueueFollowsKeys(t *testing.T) {
	db := newDB(0)
	for i := range 10 {
		db.Add([]byte{'h', byte('0' + i)}, nil, ttlHash(5, 7, 0), 0)
	}
	db.Add([]byte("plain"), nil, ttlHash(0, 0), 0)
	if n := db.HashesWithFieldTTLs(); n != 10 {
		t.Fatalf("%d hashes with deadlines, want 10", n)
	}
	e := db.Find([]byte("h3"))
	db.Transfer(e, db, []byte("renamed"))
	if n := db.HashesWithFieldTTLs(); n != 10 {
		t.Fatalf("after a rename %d hashes with deadlines, want 10", n)
	}
	if !slices.ContainsFunc(db.hashQueue, func(d due) bool { return d.name == "renamed" && d.at == 5 }) {
		t.Fatal("the renamed hash is not queued under its new key")
	}
	o := db.Obj(db.Find([]byte("h0"))).(*HashObj)
	o.SetFieldTTL([]byte("f0"), 0)
	o.SetFieldTTL([]byte("f1"), 0)
	if n := db.HashesWithFieldTTLs(); n != 9 {
		t.Fatalf("after HPERSIST of all fields %d hashes with deadlines, want 9", n)
	}
}

// Hashes with far deadlines created and deleted over and over leave the
// queue bounded: it drops its stale entries when it has doubled.
func TestHashQueueCompacts(t *testing.T) {
	db := newDB(0)
	for i := range 100_000 {
		key := []byte("k" + string(rune('a'+i%26)))
		if e := db.Find(key); e != nil {
			db.Remove(e)
		}
		db.Add(key, nil, ttlHash(int64(1_000_000+i)), 0)
	}
	if n := len(db.hashQueue); n > 2*512+1 {
		t.Fatalf("the queue holds %d entries for 26 hashes", n)
	}
	if n := db.HashesWithFieldTTLs(); n != 26 {
		t.Fatalf("%d hashes with deadlines, want 26", n)
	}
	// The heap order survives the compactions.
	prev := int64(0)
	for len(db.hashQueue) > 0 {
		d := db.hashQueue.pop()
		if d.at < prev {
			t.Fatalf("popped %d after %d", d.at, prev)
		}
		prev = d.at
	}
}
