package keyspace

import (
	"hash/maphash"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// The layout benchmark loads layoutKeys small strings (14-byte keys,
// 16-byte values, as bench/memory.sh) into the keyspace's arena and table
// and into the two obvious alternatives, and reports per key the bytes
// held (Go heap plus mapped arena pages), the time of one full garbage
// collection with the data live (the collector's cost per cycle), and a
// lookup:
//
//	go test ./keyspace -run '^$' -bench Layout -benchtime 2000000x
const layoutKeys = 1_000_000

// chainedEntry is the previous layout, kept here only to be measured: a
// Go struct per key in a chained table of pointers.
type chainedEntry struct {
	next     *chainedEntry
	key      string
	val      []byte
	obj      any
	expireAt int64
	expIdx   int32
	meta     uint32
}

type chainedDict struct {
	seed    maphash.Seed
	buckets []*chainedEntry
	count   int
}

func (d *chainedDict) insert(key, val []byte) {
	if d.count >= len(d.buckets) {
		nb := make([]*chainedEntry, max(16, 2*len(d.buckets)))
		for _, e := range d.buckets {
			for e != nil {
				next := e.next
				i := maphash.String(d.seed, e.key) & uint64(len(nb)-1)
				e.next, nb[i] = nb[i], e
				e = next
			}
		}
		d.buckets = nb
	}
	buf := make([]byte, len(key)+len(val))
	copy(buf, key)
	copy(buf[len(key):], val)
	e := &chainedEntry{key: string(buf[:len(key)]), val: buf[len(key):], obj: nil, expireAt: 0, expIdx: 0, meta: 0}
	i := maphash.Bytes(d.seed, key) & uint64(len(d.buckets)-1)
	e.next, d.buckets[i] = d.buckets[i], e
	d.count++
}

func (d *chainedDict) Find(key []byte) *chainedEntry {
	for e := d.buckets[maphash.Bytes(d.seed, key)&uint64(len(d.buckets)-1)]; e != nil; e = e.next {
		if e.key == string(key) {
			return e
		}
	}
	return nil
}

func layoutKey(dst []byte, i int) []byte {
	dst = append(dst[:0], "key:"...)
	s := strconv.Itoa(i)
	for n := len(s); n < 10; n++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func layoutVal(dst []byte, i int) []byte {
	dst = append(dst[:0], "value:"...)
	s := strconv.Itoa(i)
	for n := len(s); n < 10; n++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// benchLayout loads the keys with load, reports the figures, then runs
// b.N lookups with find.
func benchLayout(b *testing.B, load func(k, v []byte), extra func() uint64, find func(k []byte) bool) {
	before := heapInUse()
	var k, v []byte
	for i := 0; i < layoutKeys; i++ {
		k, v = layoutKey(k, i), layoutVal(v, i)
		load(k, v)
	}
	held := heapInUse() - before + extra()
	t0 := time.Now()
	runtime.GC()
	gc := time.Since(t0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k = layoutKey(k, (i*7919)%layoutKeys)
		if !find(k) {
			b.Fatalf("%s missing", k)
		}
	}
	b.ReportMetric(float64(held)/layoutKeys, "bytes/key")
	b.ReportMetric(float64(gc.Microseconds())/1000, "gc-ms")
}

func BenchmarkLayout(b *testing.B) {
	b.Run("arena", func(b *testing.B) {
		db := newDB(0)
		benchLayout(b, func(k, v []byte) { db.AddString(k, v, 0) },
			func() uint64 {
				n := uint64(db.A.Mapped)
				if db.T.mapped {
					n += uint64(len(db.T.Slots)) * 8
				}
				return n
			},
			func(k []byte) bool { return db.Find(k) != nil })
		runtime.KeepAlive(db)
	})
	b.Run("gomap", func(b *testing.B) {
		m := map[string][]byte{}
		benchLayout(b, func(k, v []byte) { m[string(k)] = append([]byte(nil), v...) },
			func() uint64 { return 0 },
			func(k []byte) bool { _, ok := m[string(k)]; return ok })
		runtime.KeepAlive(m)
	})
	b.Run("chained", func(b *testing.B) {
		d := &chainedDict{seed: maphash.MakeSeed()}
		benchLayout(b, d.insert, func() uint64 { return 0 },
			func(k []byte) bool { return d.Find(k) != nil })
		runtime.KeepAlive(d)
	})
}
