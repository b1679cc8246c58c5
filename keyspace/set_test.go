package keyspace

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/set"
)

// setPayloads is one valid payload per set opcode.
func setPayloads() map[persistence.Opcode][]byte {
	b := func(s string) []byte { return persistence.AppendBytes(nil, []byte(s)) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	o := &setObj{}
	o.s.Add(set.DefaultConfig, []byte("1"))
	o.s.Add(set.DefaultConfig, []byte("2"))
	return map[persistence.Opcode][]byte{
		persistence.OpSetAdd:    cat(b("key"), persistence.AppendU64(nil, 2), b("a"), b("b")),
		persistence.OpSetRemove: cat(b("key"), persistence.AppendU64(nil, 1), b("a")),
		persistence.OpSetStore:  cat(b("key"), o.appendSnapshot(nil)),
		persistence.OpSetMove:   cat(b("key"), b("dst"), b("b")),
	}
}

// TestSetEncodingMatchesGolden pins the set encoding that OpSetStore and
// snapshots carry to the bytes in persistence's golden set log.
func TestSetEncodingMatchesGolden(t *testing.T) {
	o := &setObj{}
	o.s.Add(set.DefaultConfig, []byte("2"))
	o.s.Add(set.DefaultConfig, []byte("1"))
	if got, want := o.appendSnapshot(nil), []byte{1, 0, 2, 1, 0, 2, 0}; !bytes.Equal(got, want) {
		t.Fatalf("set encoding %v, want %v", got, want)
	}
}

// TestReplaySetRecords applies each set record and checks the state.
func TestReplaySetRecords(t *testing.T) {
	sh := newTestShard(t)
	p := setPayloads()
	db := sh.dbs[0]
	members := func(key string) string {
		e := db.find([]byte(key))
		if e == nil {
			return "none"
		}
		o, ok := db.obj(e).(*setObj)
		if !ok {
			return "not a set"
		}
		var out []string
		o.s.Each(func(m []byte) bool { out = append(out, string(m)); return true })
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
			sh.dbs[0].add([]byte("key"), []byte("val"), nil, 0)
		}
		_ = durTryApply(t, sh, persistence.Record{Seq: uint64(i), Op: op, Payload: p})
		if i%1000 == 0 {
			durCheckIndex(t, sh)
			sh.dbs[0].flush()
		}
	}
	durCheckIndex(t, sh)
}
