package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// bitRandomCmd is a random bitmap or HyperLogLog command (writes, and the
// reads that write: PFCOUNT caches its estimate) over a few keys, some of
// them with deadlines, some of another shape (plain strings, which the
// HyperLogLog commands refuse).
func bitRandomCmd(rng *rand.Rand) []string {
	key := func() string { return "k" + strconv.Itoa(rng.IntN(6)) }
	n := func(m int) string { return strconv.Itoa(rng.IntN(m)) }
	switch rng.IntN(14) {
	case 0, 1, 2:
		args := []string{"PFADD", key()}
		for i := rng.IntN(40); i > 0; i-- {
			args = append(args, "e"+n(3000))
		}
		return args
	case 3:
		return []string{"PFCOUNT", key()}
	case 4:
		return []string{"PFMERGE", key(), key(), key()}
	case 5:
		return []string{"PFDEBUG", []string{"TODENSE", "GETREG", "ENCODING"}[rng.IntN(3)], key()}
	case 6:
		return []string{"BITOP", []string{"AND", "OR", "XOR"}[rng.IntN(3)], key(), key(), key()}
	case 7:
		return []string{"BITOP", "NOT", key(), key()}
	case 8, 9:
		args := []string{"BITFIELD", key()}
		for i := 1 + rng.IntN(4); i > 0; i-- {
			switch rng.IntN(4) {
			case 0:
				args = append(args, "OVERFLOW", []string{"WRAP", "SAT", "FAIL"}[rng.IntN(3)])
			case 1:
				args = append(args, "GET", "u8", n(100))
			default:
				args = append(args, []string{"SET", "INCRBY"}[rng.IntN(2)], []string{"i", "u"}[rng.IntN(2)]+strconv.Itoa(1+rng.IntN(63)),
					"#"+n(12), strconv.Itoa(rng.IntN(2000)-1000))
			}
		}
		return args
	case 10:
		return []string{"SET", key(), "s" + n(100), "PX", strconv.Itoa(1 + rng.IntN(50))}
	case 11:
		return []string{"PEXPIRE", key(), strconv.Itoa(1 + rng.IntN(50))}
	case 12:
		return []string{"BITCOUNT", key()} // may expire the key lazily
	default:
		return []string{"SETBIT", key(), n(200), n(2)}
	}
}

// TestReplayBitopsAndHyperLogLog replays the log after every command of a
// random mix of bitmap and HyperLogLog commands into a mirror shard, and
// the whole log into a fresh one: both equal the source, byte for byte.
func TestReplayBitopsAndHyperLogLog(t *testing.T) {
	c := newDurReplayChecker(t)
	rng := rand.New(rand.NewPCG(14, 7))
	run(t, c.src, "CONFIG", "SET", "hll-sparse-max-bytes", "300") // promotions happen
	counts := map[persistence.Opcode]int{}
	for i := 0; i < 3000; i++ {
		if rng.IntN(30) == 0 {
			c.src.NowMs += int64(rng.IntN(30))
		}
		args := bitRandomCmd(rng)
		run(t, c.src, args...)
		recs := c.j.recs[c.done:]
		c.done = len(c.j.recs)
		for _, r := range recs {
			counts[r.Op]++
		}
		durApply(t, c.mirror, recs)
		durDiff(t, fmt.Sprintf("step %d %q", i, args), durState(c.mirror), durState(c.src))
		bitCheckMem(t, fmt.Sprintf("step %d %q", i, args), c.src)
	}
	bitCheckMem(t, "mirror", c.mirror)
	fresh := newTestShard(t)
	durApply(t, fresh, c.j.recs)
	durDiff(t, "full replay", durState(fresh), durState(c.src))
	durCheckIndex(t, c.mirror)
	// Each kind of record the commands write was exercised.
	for _, op := range []persistence.Opcode{persistence.OpSet, persistence.OpSetRange, persistence.OpDel} {
		if counts[op] < 20 {
			t.Errorf("only %d %s records in %v", counts[op], op, counts)
		}
	}
}

// bitCheckMem fails the test unless each database's memory figure equals
// the sizes of its entries: the commands grow strings in place, move them
// to bigger slots and rewrite them, and each path must keep it exact.
func bitCheckMem(t *testing.T, what string, sh *keyspace.Shard) {
	t.Helper()
	for _, db := range sh.DBs {
		var sum int64
		db.Each(func(e *keyspace.Entry) { sum += db.Size(e) })
		if sum != db.Mem {
			t.Fatalf("%s: db %d memory figure %d, entries add up to %d", what, db.ID, db.Mem, sum)
		}
	}
}

// TestBitopsEncodingRaw checks that the values the bitmap and HyperLogLog
// commands write report OBJECT ENCODING raw, as Redis's do, and that a
// BITFIELD growing a string past its slot keeps the bits and the TTL.
func TestBitopsEncodingRaw(t *testing.T) {
	sh := newTestShard(t)
	run(t, sh, "SET", "src", "abc")
	run(t, sh, "BITOP", "OR", "dst", "src")
	run(t, sh, "BITFIELD", "bf", "SET", "u8", "0", "1")
	run(t, sh, "SET", "s", "abc", "EX", "100")
	run(t, sh, "BITFIELD", "s", "SET", "u8", "0", "98")
	run(t, sh, "PFADD", "h", "x")
	for _, k := range []string{"dst", "bf", "s", "h"} {
		if got := run(t, sh, "OBJECT", "ENCODING", k); got != "$3\r\nraw\r\n" {
			t.Errorf("OBJECT ENCODING %s = %q, want raw", k, got)
		}
	}
	if got := run(t, sh, "OBJECT", "ENCODING", "src"); got != "$6\r\nembstr\r\n" {
		t.Errorf("OBJECT ENCODING src = %q, want embstr (a BITOP source is not written)", got)
	}
	// Grow s well past its slot: the bytes move, the TTL stays.
	run(t, sh, "BITFIELD", "s", "SET", "u8", "#40000", "7")
	if got := run(t, sh, "GETRANGE", "s", "0", "2"); got != "$3\r\nbbc\r\n" {
		t.Errorf("GETRANGE after growth = %q", got)
	}
	if got := run(t, sh, "TTL", "s"); got != ":100\r\n" {
		t.Errorf("TTL after growth = %q", got)
	}
	bitCheckMem(t, "after growth", sh)
}

// TestBitopsWALRecords checks the record each command writes: whole values
// for rewrites, ranges for changes in place, nothing for reads and no-ops.
func TestBitopsWALRecords(t *testing.T) {
	set, rng := persistence.OpSet, persistence.OpSetRange
	cases := []struct {
		name  string
		setup [][]string
		cmd   []string
		want  []persistence.Opcode
	}{
		{"pfadd creates", nil, []string{"PFADD", "h", "a"}, []persistence.Opcode{set}},
		{"pfadd sparse", [][]string{{"PFADD", "h", "a"}}, []string{"PFADD", "h", "b"}, []persistence.Opcode{set}},
		{"pfadd no change", [][]string{{"PFADD", "h", "a"}}, []string{"PFADD", "h", "a"}, nil},
		{"pfadd dense in place", [][]string{{"PFADD", "h", "a"}, {"PFDEBUG", "TODENSE", "h"}}, []string{"PFADD", "h", "b", "c"}, []persistence.Opcode{rng, rng}},
		{"pfcount caches", [][]string{{"PFADD", "h", "a"}}, []string{"PFCOUNT", "h"}, []persistence.Opcode{rng}},
		{"pfcount cached", [][]string{{"PFADD", "h", "a"}, {"PFCOUNT", "h"}}, []string{"PFCOUNT", "h"}, nil},
		{"pfcount several", [][]string{{"PFADD", "h", "a"}}, []string{"PFCOUNT", "h", "g"}, nil},
		{"pfmerge", [][]string{{"PFADD", "h", "a"}}, []string{"PFMERGE", "g", "h"}, []persistence.Opcode{set}},
		{"pfdebug todense", [][]string{{"PFADD", "h", "a"}}, []string{"PFDEBUG", "TODENSE", "h"}, []persistence.Opcode{set}},
		{"pfdebug encoding", [][]string{{"PFADD", "h", "a"}}, []string{"PFDEBUG", "ENCODING", "h"}, nil},
		{"bitop", [][]string{{"SET", "a", "x"}}, []string{"BITOP", "NOT", "d", "a"}, []persistence.Opcode{set}},
		{"bitop empty deletes", [][]string{{"SET", "d", "x"}}, []string{"BITOP", "AND", "d", "none"}, []persistence.Opcode{persistence.OpDel}},
		{"bitfield creates", nil, []string{"BITFIELD", "b", "SET", "u8", "8", "1"}, []persistence.Opcode{rng}},
		{"bitfield creates with two ranges", nil, []string{"BITFIELD", "b", "SET", "u8", "0", "1", "SET", "u8", "800", "1"}, []persistence.Opcode{persistence.OpBatch}},
		{"bitfield in place", [][]string{{"SET", "b", "abc"}}, []string{"BITFIELD", "b", "INCRBY", "u8", "8", "1"}, []persistence.Opcode{rng}},
		{"bitfield same value", [][]string{{"SET", "b", "abc"}}, []string{"BITFIELD", "b", "SET", "u8", "8", "98"}, nil},
		{"bitfield grows on fail", [][]string{{"SET", "b", "abc"}}, []string{"BITFIELD", "b", "OVERFLOW", "FAIL", "INCRBY", "u8", "40", "300"}, []persistence.Opcode{rng}},
		{"bitfield get", [][]string{{"SET", "b", "abc"}}, []string{"BITFIELD", "b", "GET", "u8", "8"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newDurReplayChecker(t)
			for _, s := range tc.setup {
				run(t, c.src, s...)
			}
			before := len(c.j.recs)
			reply := run(t, c.src, tc.cmd...)
			if strings.HasPrefix(reply, "-") {
				t.Fatalf("%q: %q", tc.cmd, reply)
			}
			var got []persistence.Opcode
			for _, r := range c.j.recs[before:] {
				got = append(got, r.Op)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%q logged %v, want %v", tc.cmd, got, tc.want)
			}
			fresh := newTestShard(t)
			durApply(t, fresh, c.j.recs)
			durDiff(t, "replay", durState(fresh), durState(c.src))
		})
	}
}

// TestSnapshotWhileBitopsWrite takes a snapshot while bitmap and
// HyperLogLog commands (PFCOUNT's cache writes included) run between its
// steps: the snapshot holds the state at its start, and the snapshot plus
// the WAL recovers the state at the end.
func TestSnapshotWhileBitopsWrite(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	rng := rand.New(rand.NewPCG(3, 14))
	for i := 0; i < 2000; i++ {
		k := "k" + strconv.Itoa(i)
		run(t, sh, "PFADD", k, "a"+strconv.Itoa(i), "b"+strconv.Itoa(i%7))
		if i%3 == 0 {
			run(t, sh, "PFDEBUG", "TODENSE", k)
		}
	}
	sh.Commit()
	d.do(sh, "PING")
	atStart := durState(sh)
	seqAtStart := sh.Journal.(*keyspace.WALJournal).WAL.LastSequence()
	if got := run(t, sh, "BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	writes := 0
	for steps := 0; sh.Snap != nil; steps++ {
		for i := rng.IntN(6); i > 0; i-- {
			k := "k" + strconv.Itoa(rng.IntN(2000))
			switch rng.IntN(4) {
			case 0:
				run(t, sh, "PFADD", k, "x"+strconv.Itoa(rng.IntN(1000)))
			case 1:
				run(t, sh, "PFCOUNT", k)
			case 2:
				run(t, sh, "PFMERGE", k, "k"+strconv.Itoa(rng.IntN(2000)))
			default:
				run(t, sh, "BITFIELD", k, "INCRBY", "u8", "#"+strconv.Itoa(rng.IntN(20)), "1")
			}
			writes++
		}
		if rng.IntN(10) == 0 {
			sh.Commit()
		}
		sh.SnapshotStep(1 + rng.IntN(4))
		if steps > 1_000_000 {
			t.Fatal("snapshot does not finish")
		}
	}
	sh.FinishSnapshotNow()
	sh.Commit()
	d.do(sh, "PING")
	if writes < 1000 {
		t.Fatalf("only %d writes during the snapshot", writes)
	}
	loaded, seq := durLoadSnapshot(t, mem)
	if seq != seqAtStart {
		t.Fatalf("snapshot at sequence %d, want %d", seq, seqAtStart)
	}
	durDiff(t, "snapshot", durState(loaded), atStart)
	final := durStateAt(sh, clock.ms.Load())
	c := durOpen(t, mem.CrashClone(), clock, 1, nil)
	durDiff(t, "recovery", durStateAt(c.shard(0), clock.ms.Load()), final)
}
