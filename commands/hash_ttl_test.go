package commands

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// HPEXPIREAT and HSETEX write exactly the records of the golden log
// persistence/testdata/golden-hashttl-v1.wal.
func TestHashFieldRecordsMatchGolden(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rOK, "SELECT", "3")
	expect(t, sh, rInt(2), "HSET", "h", "f", "1", "g", "2")
	j.take()
	expect(t, sh, rArr(rInt(1), rInt(1)), "HPEXPIREAT", "h", "1700000100000", "FIELDS", "2", "f", "g")
	expect(t, sh, rInt(1), "HSETEX", "h", "PXAT", "1700000200000", "FIELDS", "1", "f", "v")
	expect(t, sh, rInt(1), "HSETEX", "h", "KEEPTTL", "FIELDS", "1", "g", "w")
	data, err := os.ReadFile("../persistence/testdata/golden-hashttl-v1.wal")
	if err != nil {
		t.Fatal(err)
	}
	var golden []persistence.Record
	for len(data) > 0 {
		r, n, err := persistence.DecodeRecord(data)
		if err != nil {
			t.Fatal(err)
		}
		golden = append(golden, r)
		data = data[n:]
	}
	if len(j.recs) != len(golden) {
		t.Fatalf("%d records, the golden log has %d", len(j.recs), len(golden))
	}
	for i, r := range j.recs {
		g := golden[i]
		if r.DB != g.DB || r.Op != g.Op || !bytes.Equal(r.Payload, g.Payload) {
			t.Errorf("record %d: %s db%d %x, golden %s db%d %x", i, r.Op, r.DB, r.Payload, g.Op, g.DB, g.Payload)
		}
	}
}

// One cron step deletes at most its quota of expired fields, the next
// ones the rest; each hash's fields go as HashDel records, and a hash
// left empty goes with its key.
func TestHashFieldActiveExpiryIsBounded(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	const hashes, per = 30, 100 // 3000 fields to expire
	for i := range hashes {
		k := "h" + strconv.Itoa(i)
		args := []string{"HSET", k, "keep", "v"}
		exp := []string{"HPEXPIRE", k, "10", "FIELDS", strconv.Itoa(per)}
		for f := range per {
			args = append(args, "f"+strconv.Itoa(f), "v")
			exp = append(exp, "f"+strconv.Itoa(f))
		}
		run(t, sh, args...)
		run(t, sh, exp...)
	}
	expect(t, sh, rInt(1), "HSET", "solo", "f", "v")
	expect(t, sh, rArr(rInt(1)), "HPEXPIRE", "solo", "10", "FIELDS", "1", "f")
	j.take()
	sh.NowMs += 20
	left := func() int {
		n := 0
		for i := range hashes {
			v, _ := strconv.Atoi(strings.TrimSuffix(run(t, sh, "HLEN", "h"+strconv.Itoa(i))[1:], "\r\n"))
			n += v
		}
		return n
	}
	before := left()
	sh.ActiveExpireCycle()
	deleted := before - left()
	if deleted == 0 || deleted > 1000 {
		t.Fatalf("one step deleted %d fields, want 1..1000", deleted)
	}
	for range 10 {
		sh.ActiveExpireCycle()
	}
	if n := left(); n != hashes {
		t.Fatalf("%d fields left, want %d (the fields without deadline)", n, hashes)
	}
	expect(t, sh, rInt(0), "EXISTS", "solo")
	for _, r := range j.recs {
		if r.Op != persistence.OpHashDel {
			t.Fatalf("the active expiry wrote a %s record", r.Op)
		}
	}
}
