package keyspace

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
)

// Memory accounting, maxmemory and eviction.
//
// used_memory of a shard is an exact running figure kept by its
// databases, not a reading of the Go heap: the arena bytes of every entry
// (its size-class slot), the capacity of large values kept beside the
// arena, the heap of every object (collections and key-job values, as
// MEMORY USAGE measures them, kept current by memacct.go), plus the index
// structures (table slots, expiring lists, side tables). INFO memory on a
// shard reports that shard, as a node of a Redis Cluster reports itself;
// used_memory_rss is the process's resident set from the OS; the Go
// runtime's own figures (heap, collector) appear under go_* names.
//
// maxmemory is for the whole process and split evenly: each shard keeps
// its used_memory under maxmemory / shards. Before a write command (and at
// each background tick) a shard over its share evicts keys chosen by
// maxmemory-policy from maxmemory-samples random candidates per database,
// at most evictStepKeys per step so a step never stalls the shard; when
// the policy is noeviction, or no key is eligible (a volatile policy with
// no key carrying a deadline), a command flagged denyoom is refused with
// Redis's -OOM error and changes nothing. An eviction is logged as a
// deletion, so replay and replicas agree.

// evictStepKeys bounds the keys evicted before one command.
const evictStepKeys = 64

// lfuInitVal is the LFU counter of a new key, as Redis's LFU_INIT_VAL: a
// fresh key is not the first to go.
const lfuInitVal = 5

const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// memUsed is the shard's used_memory: data set plus overhead.
func (sh *Shard) memUsed() int64 {
	d, o := sh.memFigures()
	return d + o
}

// memFigures returns the shard's data set bytes and its overhead bytes.
func (sh *Shard) memFigures() (dataset, overhead int64) {
	sh.SettleMem()
	for _, db := range sh.DBs {
		dataset += db.Mem
		overhead += db.overhead()
	}
	return dataset, overhead + sh.Arena.overhead()
}

// publishMem makes the shard's used_memory readable by other shards.
func (sh *Shard) publishMem() {
	used := sh.memUsed()
	sh.MemPublished.Store(used)
	sh.ArenaMapped.Store(sh.Arena.Mapped)
	if used > sh.MemPeak.Load() {
		sh.MemPeak.Store(used)
	}
}

// maxMemoryShare is the shard's part of maxmemory; 0 means no limit.
func (sh *Shard) maxMemoryShare() int64 {
	m := sh.Srv.Opts.Live.MaxMemory()
	if m <= 0 {
		return 0
	}
	return max(m/int64(len(sh.Srv.ShardList)), 1)
}

// evictForWrite runs before a write command when maxmemory is set. It
// evicts keys while the shard is over its share, at most evictStepKeys of
// them, and reports false when the shard is over its share and nothing
// can be evicted: the caller refuses a denyoom command.
func (sh *Shard) evictForWrite() bool {
	limit := sh.maxMemoryShare()
	if limit == 0 {
		return true
	}
	if sh.memUsed() <= limit {
		return true
	}
	// Over the limit: an eviction cycle, which the latency monitor times.
	start := sh.latencyStart()
	defer sh.latencyEnd(LatencyEventEviction, start)
	for i := 0; i < evictStepKeys; i++ {
		if sh.memUsed() <= limit {
			return true
		}
		if !sh.evictOne() {
			return false
		}
	}
	// Still over after a full step: later commands and ticks go on
	// evicting, as Redis lets a command through while eviction is making
	// progress.
	return true
}

// evictCandidate is the best key seen by one sampling round.
type evictCandidate struct {
	db    *DB
	e     *Entry
	score uint64
}

// evictOne evicts one key chosen by the policy; false when none is
// eligible.
func (sh *Shard) evictOne() bool {
	live := sh.Srv.Opts.Live
	policy := live.MaxMemoryPolicy()
	if policy == "noeviction" {
		return false
	}
	volatile := strings.HasPrefix(policy, "volatile-")
	samples := live.MaxMemorySamples()
	var best evictCandidate
	for k := range sh.DBs {
		// Random policies take the first database with a candidate,
		// starting from a rotating one, as Redis does.
		db := sh.DBs[(sh.evictCursor+k)%len(sh.DBs)]
		n := db.Len()
		if volatile {
			n = len(db.Expiring)
		}
		if n == 0 {
			continue
		}
		for s := 0; s < samples; s++ {
			var e *Entry
			if volatile {
				e = db.EntryAt(db.Expiring[rand.IntN(len(db.Expiring))])
			} else {
				e = db.RandomEntry()
			}
			score := sh.evictScore(policy, e)
			if best.e == nil || score > best.score {
				best = evictCandidate{db: db, e: e, score: score}
			}
		}
		if strings.HasSuffix(policy, "-random") {
			break
		}
	}
	sh.evictCursor++
	if best.e == nil {
		return false
	}
	sh.Evict(best.db, best.e)
	return true
}

// evictScore ranks a candidate: the highest score goes first.
func (sh *Shard) evictScore(policy string, e *Entry) uint64 {
	switch policy {
	case "allkeys-lru", "volatile-lru":
		return uint64(sh.IdleSeconds(e))
	case "allkeys-lfu", "volatile-lfu":
		return 255 - uint64(sh.LFUDecayed(e))
	case "volatile-ttl":
		return math.MaxUint64 - uint64(e.ExpireAt)
	}
	return 0
}

// Evict deletes a key to free memory and logs the deletion; subscribers
// to "evicted" and clients tracking the key are told, as in Redis.
func (sh *Shard) Evict(db *DB, e *Entry) {
	if sh.Snap != nil {
		sh.SnapshotTouch(db, e.Key())
	}
	sh.LogDel(db.ID, e.KeyView())
	// The key lives in the entry's slot: announce it before the slot is freed.
	sh.Notify(evEvicted, "evicted", db.ID, e.Key())
	if sh.Trk != nil {
		sh.trackRemoved(e.KeyString())
	}
	db.Remove(e)
	sh.Stats.EvictedKeys.Add(1)
}

// evictInBackground is the tick's eviction step.
func (sh *Shard) evictInBackground() {
	limit := sh.maxMemoryShare()
	for i := 0; limit != 0 && i < evictStepKeys && sh.memUsed() > limit; i++ {
		if !sh.evictOne() {
			break
		}
	}
}

// LFUMinutes is the LFU clock: minutes modulo 2^16, as Redis's.
func LFUMinutes(ms int64) uint16 { return uint16(ms / 60000) }

// LFUState packs an LFU state into an entry's 24-bit clock: the last
// decrement time in minutes, then the counter, as Redis does.
func LFUState(minutes uint16, counter uint8) uint32 { return uint32(minutes)<<8 | uint32(counter) }

// LFUDecayed is e's LFU counter after the decay due since its last
// decrement (lfu-decay-time minutes per step), without storing it.
func (sh *Shard) LFUDecayed(e *Entry) uint8 {
	state := e.accessed()
	counter := uint8(state)
	decay := sh.Srv.Opts.Live.LFUDecayTime()
	if decay <= 0 {
		return counter
	}
	elapsed := int(LFUMinutes(sh.NowMs) - uint16(state>>8))
	if periods := elapsed / decay; periods < int(counter) {
		return counter - uint8(periods)
	}
	return 0
}

// lfuTouch records an access for LFU: decay, then a logarithmic
// increment that gets less likely as the counter grows (lfu-log-factor).
func (sh *Shard) lfuTouch(e *Entry) {
	counter := sh.LFUDecayed(e)
	if counter < 255 {
		base := float64(max(int(counter)-lfuInitVal, 0))
		if rand.Float64() < 1/(base*float64(sh.Srv.Opts.Live.LFULogFactor())+1) {
			counter++
		}
	}
	e.Touch(LFUState(LFUMinutes(sh.NowMs), counter))
}

// memoryTuner applies the Go runtime's soft memory limit derived from
// maxmemory. The limit covers only memory the Go runtime manages: buffers,
// objects and large values. The arena is mapped outside it, so the limit
// is maxmemory minus what the arenas map (at least 64 MiB): the process
// as a whole stays near maxmemory while the collector runs no more often
// than it needs to. Without maxmemory, or when GOMEMLIMIT is set, the
// runtime is left as started.
type memoryTuner struct {
	applied atomic.Int64 // last limit set; 0: none

	// The idle-heap check runs on shard 0's goroutine only.
	lastCheck int64 // server-clock ms of the last look at the heap
	cycles    uint64
	cyclesAt  int64 // when the collection count last changed
	samples   []metrics.Sample
	// The purge itself runs on a goroutine of its own (purge).
	Purging   atomic.Bool   // a purge is running
	HeapAfter atomic.Uint64 // heap bytes right after the last purge
	// dropped counts the bytes of large one-use buffers (the WAL buffer
	// of a big value) let go since the last purge; any shard adds to it.
	dropped atomic.Int64
}

// droppedBuffer notes that a buffer of n bytes, used once, is garbage now.
func (t *memoryTuner) droppedBuffer(n int) { t.dropped.Add(int64(n)) }

// Idle heap: a burst (a pipe of a million commands) leaves the Go heap
// with tens or hundreds of megabytes of dead buffers. While the server is
// idle nothing allocates, so no collection runs to free them, and the
// runtime returns memory to the OS only after a collection. With the data
// set outside the heap, a collection has little live memory to trace and
// costs milliseconds. So when no collection has run for idleHeapAfterMs
// and the heap has grown by more than idleHeapPurge since the last purge,
// the heap is collected (twice: pooled buffers survive one collection) and
// its free pages returned at once.
const (
	idleHeapPurge   = 64 << 20
	idleHeapAfterMs = 5_000
)

// PurgeIdleHeap returns a large idle heap to the OS; shard 0 calls it at
// its ticks, and it looks at the heap once a second.
func (t *memoryTuner) PurgeIdleHeap(nowMs int64) {
	if nowMs-t.lastCheck < 1000 || t.Purging.Load() {
		return
	}
	t.lastCheck = nowMs
	if t.samples == nil {
		t.samples = heapSamples()
	}
	cycles, heap := readHeap(t.samples)
	if t.dropped.Load() >= idleHeapPurge {
		// A big value's buffers went out of use: without a collection
		// they would stay resident beside the value, twice its size,
		// until the runtime's next one or the idle purge.
		t.dropped.Store(0)
		t.cycles, t.cyclesAt = cycles, nowMs
		t.Purging.Store(true)
		go t.purge()
		return
	}
	if cycles != t.cycles {
		t.cycles, t.cyclesAt = cycles, nowMs
		return
	}
	if nowMs-t.cyclesAt < idleHeapAfterMs || heap < t.HeapAfter.Load()+idleHeapPurge {
		return
	}
	t.Purging.Store(true)
	go t.purge()
}

// purge collects the heap twice (pooled buffers survive the first
// collection) and returns its free pages to the OS. It runs on a goroutine
// of its own: runtime.GC returns only when the whole heap has been traced,
// and collections keep their skiplists and large tables on the heap, so on
// shard 0's loop a purge after loading a big sorted set stalled that shard
// for tens of milliseconds. The collections it causes change the count
// shard 0 watches, which restarts the idle period.
func (t *memoryTuner) purge() {
	defer t.Purging.Store(false)
	runtime.GC()
	debug.FreeOSMemory()
	_, heap := readHeap(heapSamples())
	t.HeapAfter.Store(heap)
}

func heapSamples() []metrics.Sample {
	return []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
}

// readHeap reads samples (heapSamples) and returns the collection count
// and the heap bytes not yet returned to the OS (objects, free and unused
// span space).
func readHeap(samples []metrics.Sample) (cycles, heap uint64) {
	metrics.Read(samples)
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			continue
		}
		if i == 0 {
			cycles = s.Value.Uint64()
		} else {
			heap += s.Value.Uint64()
		}
	}
	return cycles, heap
}

const minGoMemoryLimit = 64 << 20

// tune recomputes and applies the limit; shard 0 calls it at its ticks.
func (t *memoryTuner) tune(s *Server) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	m := s.Opts.Live.MaxMemory()
	if m <= 0 {
		if t.applied.Load() != 0 {
			debug.SetMemoryLimit(math.MaxInt64)
			t.applied.Store(0)
		}
		return
	}
	var mapped int64
	for _, sh := range s.ShardList {
		mapped += sh.ArenaMapped.Load()
	}
	limit := max(m-mapped, minGoMemoryLimit)
	if old := t.applied.Load(); old == 0 || limit < old-old/64 || limit > old+old/64 {
		debug.SetMemoryLimit(limit)
		t.applied.Store(limit)
	}
}

// EvictedKeys is the number of keys evicted by every shard.
func (sh *Shard) EvictedKeys() int64 {
	var n int64
	for _, s := range sh.Srv.ShardList {
		n += s.Stats.EvictedKeys.Load()
	}
	return n
}

// memReport is the memory figures of a shard as INFO memory and MEMORY
// STATS report them.
type memReport struct {
	Used, Peak, Dataset, Overhead, Startup int64
	ProcessUsed                            int64 // every shard's used_memory
	Maxmemory                              int64 // the shard's share
	Policy                                 string
	Keys                                   int64
	M                                      memSample
}

// MemReport publishes the shard's memory figures and returns them, with
// the process's, for INFO memory and MEMORY STATS.
func (sh *Shard) MemReport() memReport {
	sh.publishMem()
	r := memReport{Peak: sh.MemPeak.Load(), Maxmemory: sh.maxMemoryShare(),
		Policy: sh.Srv.Opts.Live.MaxMemoryPolicy(), M: sh.Srv.memStats()}
	r.Dataset, r.Overhead = sh.memFigures()
	r.Used = r.Dataset + r.Overhead
	for _, s := range sh.Srv.ShardList {
		r.ProcessUsed += s.MemPublished.Load()
	}
	for _, db := range sh.DBs {
		r.Keys += int64(db.Len())
		r.Startup += int64(tableMinSlots) * 8
	}
	return r
}
