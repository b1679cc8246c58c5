package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/set"
	"github.com/ruvio/ruvio/types/zset"
)

// setPayloads is one valid payload per set opcode.
func setPayloads() map[persistence.Opcode][]byte {
	b := func(s string) []byte { return persistence.AppendBytes(nil, []byte(s)) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	o := &keyspace.SetObj{}
	o.S.Add(set.DefaultConfig, []byte("1"))
	o.S.Add(set.DefaultConfig, []byte("2"))
	return map[persistence.Opcode][]byte{
		persistence.OpSetAdd:    cat(b("key"), persistence.AppendU64(nil, 2), b("a"), b("b")),
		persistence.OpSetRemove: cat(b("key"), persistence.AppendU64(nil, 1), b("a")),
		persistence.OpSetStore:  cat(b("key"), o.AppendSnapshot(nil)),
		persistence.OpSetMove:   cat(b("key"), b("dst"), b("b")),
	}
}

// TestSetEncodingMatchesGolden pins the set encoding that OpSetStore and
// snapshots carry to the bytes in persistence's golden set log.
func TestSetEncodingMatchesGolden(t *testing.T) {
	o := &keyspace.SetObj{}
	o.S.Add(set.DefaultConfig, []byte("2"))
	o.S.Add(set.DefaultConfig, []byte("1"))
	if got, want := o.AppendSnapshot(nil), []byte{1, 0, 2, 1, 0, 2, 0}; !bytes.Equal(got, want) {
		t.Fatalf("set encoding %v, want %v", got, want)
	}
}

// TestReplaySetRecords applies each set record and checks the state.
func TestReplaySetRecords(t *testing.T) {
	sh := newTestShard(t)
	p := setPayloads()
	db := sh.DBs[0]
	members := func(key string) string {
		e := db.Find([]byte(key))
		if e == nil {
			return "none"
		}
		o, ok := db.Obj(e).(*keyspace.SetObj)
		if !ok {
			return "not a set"
		}
		var out []string
		o.S.Each(func(m []byte) bool { out = append(out, string(m)); return true })
		return strconv.Quote(string(bytes.Join(toArgv(out...), []byte(","))))
	}
	steps := []struct {
		op        persistence.Opcode
		key, want string
	}{
		{persistence.OpSetAdd, "key", `"a,b"`},
		{persistence.OpSetRemove, "key", `"b"`},
		{persistence.OpSetMove, "key", "none"}, // the last member leaves: key deleted
		{persistence.OpSetMove, "dst", `"b"`},
		{persistence.OpSetStore, "key", `"1,2"`},
	}
	for i, s := range steps {
		if s.op == persistence.OpSetMove && s.key == "dst" {
			if got := members("dst"); got != s.want {
				t.Fatalf("step %d: dst = %s, want %s", i, got, s.want)
			}
			continue
		}
		durApply(t, sh, []persistence.Record{{Seq: uint64(i + 1), Op: s.op, Payload: p[s.op]}})
		if got := members(s.key); got != s.want {
			t.Fatalf("step %d (%s): %s = %s, want %s", i, s.op, s.key, got, s.want)
		}
	}
	durCheckIndex(t, sh)
}

// TestReplaySetRandomPayloads throws damaged set records at replay: errors
// are fine, panics are not.
func TestReplaySetRandomPayloads(t *testing.T) {
	sh := newTestShard(t)
	rng := rand.New(rand.NewPCG(5, 6))
	valid := setPayloads()
	ops := []persistence.Opcode{persistence.OpSetAdd, persistence.OpSetRemove, persistence.OpSetStore, persistence.OpSetMove}
	for i := 0; i < 20000; i++ {
		op := ops[rng.IntN(len(ops))]
		p := bytes.Clone(valid[op])
		if rng.IntN(2) == 0 {
			p = p[:rng.IntN(len(p)+1)]
		}
		for k := 0; k < rng.IntN(3) && len(p) > 0; k++ {
			p[rng.IntN(len(p))] ^= byte(1 + rng.IntN(255))
		}
		if rng.IntN(4) == 0 {
			sh.DBs[0].Add([]byte("key"), []byte("val"), nil, 0)
		}
		_ = durTryApply(t, sh, persistence.Record{Seq: uint64(i), Op: op, Payload: p})
		if i%1000 == 0 {
			durCheckIndex(t, sh)
			sh.DBs[0].Flush()
		}
	}
	durCheckIndex(t, sh)
}

// TestZSetEncodingMatchesGolden pins the sorted set encoding that
// OpZStore and snapshots carry to the bytes in persistence's golden log.
func TestZSetEncodingMatchesGolden(t *testing.T) {
	o := &keyspace.ZsetObj{}
	if _, _, err := o.Z.Add(zset.DefaultConfig, []byte("m"), 2, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := o.AppendSnapshot(nil), []byte{1, 0, 1, 0, 0, 0, 1, 'm', 2, 1, 2, 2}; !bytes.Equal(got, want) {
		t.Fatalf("sorted set encoding %v, want %v", got, want)
	}
}

// TestReplayZSetRandomPayloads throws damaged sorted set records at
// replay: errors are fine, panics are not.
func TestReplayZSetRandomPayloads(t *testing.T) {
	sh := newTestShard(t)
	rng := rand.New(rand.NewPCG(7, 8))
	b := func(s string) []byte { return persistence.AppendBytes(nil, []byte(s)) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	o := &keyspace.ZsetObj{}
	_, _, _ = o.Z.Add(zset.DefaultConfig, []byte("m"), 2, 0)
	valid := map[persistence.Opcode][]byte{
		persistence.OpZAdd:    cat(b("key"), persistence.AppendU64(nil, 1), persistence.AppendU64(nil, math.Float64bits(1.5)), b("a")),
		persistence.OpZRemove: cat(b("key"), persistence.AppendU64(nil, 1), b("a")),
		persistence.OpZStore:  cat(b("key"), o.AppendSnapshot(nil)),
	}
	// The valid ones first: add, store, remove.
	durApply(t, sh, []persistence.Record{{Seq: 1, Op: persistence.OpZAdd, Payload: valid[persistence.OpZAdd]}})
	if e := sh.DBs[0].Find([]byte("key")); e == nil {
		t.Fatal("OpZAdd created nothing")
	} else if s, ok := sh.DBs[0].Obj(e).(*keyspace.ZsetObj).Z.Score([]byte("a")); !ok || s != 1.5 {
		t.Fatalf("score after OpZAdd: %v %v", s, ok)
	}
	durApply(t, sh, []persistence.Record{{Seq: 2, Op: persistence.OpZRemove, Payload: valid[persistence.OpZRemove]}})
	if sh.DBs[0].Find([]byte("key")) != nil {
		t.Fatal("OpZRemove of the last member left the key")
	}
	durApply(t, sh, []persistence.Record{{Seq: 3, Op: persistence.OpZStore, Payload: valid[persistence.OpZStore]}})
	if e := sh.DBs[0].Find([]byte("key")); e == nil || sh.DBs[0].Obj(e).(*keyspace.ZsetObj).Z.Len() != 1 {
		t.Fatal("OpZStore did not store")
	}
	ops := []persistence.Opcode{persistence.OpZAdd, persistence.OpZRemove, persistence.OpZStore}
	for i := 0; i < 20000; i++ {
		op := ops[rng.IntN(len(ops))]
		p := bytes.Clone(valid[op])
		if rng.IntN(2) == 0 {
			p = p[:rng.IntN(len(p)+1)]
		}
		for k := 0; k < rng.IntN(3) && len(p) > 0; k++ {
			p[rng.IntN(len(p))] ^= byte(1 + rng.IntN(255))
		}
		if rng.IntN(4) == 0 {
			sh.DBs[0].Add([]byte("key"), []byte("val"), nil, 0)
		}
		_ = durTryApply(t, sh, persistence.Record{Seq: uint64(i), Op: op, Payload: p})
		if i%1000 == 0 {
			durCheckIndex(t, sh)
			sh.DBs[0].Flush()
		}
	}
	durCheckIndex(t, sh)
}

// TestReplayBloomRandomPayloads throws damaged OpBloomAdd records at
// replay: errors are fine, panics are not.
func TestReplayBloomRandomPayloads(t *testing.T) {
	sh := newTestShard(t)
	rng := rand.New(rand.NewPCG(9, 10))
	valid := cat3(appendStrT("key"), persistence.AppendU64(nil, math.Float64bits(0.01)), persistence.AppendU64(nil, 10),
		persistence.AppendU64(nil, 2), []byte{0}, persistence.AppendU64(nil, 1), appendStrT("item"))
	durApply(t, sh, []persistence.Record{{Seq: 1, Op: persistence.OpBloomAdd, Payload: valid}})
	if e := sh.DBs[0].Find([]byte("key")); e == nil || !sh.DBs[0].Obj(e).(*keyspace.BloomObj).F.Exists([]byte("item")) {
		t.Fatal("OpBloomAdd did not create and add")
	}
	for i := 0; i < 20000; i++ {
		p := bytes.Clone(valid)
		if rng.IntN(2) == 0 {
			p = p[:rng.IntN(len(p)+1)]
		}
		for k := 0; k < rng.IntN(3) && len(p) > 0; k++ {
			p[rng.IntN(len(p))] ^= byte(1 + rng.IntN(255))
		}
		_ = durTryApply(t, sh, persistence.Record{Seq: uint64(i), Op: persistence.OpBloomAdd, Payload: p})
		if i%1000 == 0 {
			durCheckIndex(t, sh)
			sh.DBs[0].Flush()
		}
	}
	durCheckIndex(t, sh)
}

func appendStrT(s string) []byte { return persistence.AppendBytes(nil, []byte(s)) }

func cat3(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
