package keyspace

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
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
	sh.settleMem()
	for _, db := range sh.dbs {
		dataset += db.mem
		overhead += db.overhead()
	}
	return dataset, overhead + sh.arena.overhead()
}

// publishMem makes the shard's used_memory readable by other shards.
func (sh *Shard) publishMem() {
	used := sh.memUsed()
	sh.memPublished.Store(used)
	sh.arenaMapped.Store(sh.arena.mapped)
	if used > sh.memPeak.Load() {
		sh.memPeak.Store(used)
	}
}

// maxMemoryShare is the shard's part of maxmemory; 0 means no limit.
func (sh *Shard) maxMemoryShare() int64 {
	m := sh.srv.opts.Live.MaxMemory()
	if m <= 0 {
		return 0
	}
	return max(m/int64(len(sh.srv.shards)), 1)
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
	e     *entry
	score uint64
}

// evictOne evicts one key chosen by the policy; false when none is
// eligible.
func (sh *Shard) evictOne() bool {
	live := sh.srv.opts.Live
	policy := live.MaxMemoryPolicy()
	if policy == "noeviction" {
		return false
	}
	volatile := strings.HasPrefix(policy, "volatile-")
	samples := live.MaxMemorySamples()
	var best evictCandidate
	for k := range sh.dbs {
		// Random policies take the first database with a candidate,
		// starting from a rotating one, as Redis does.
		db := sh.dbs[(sh.evictCursor+k)%len(sh.dbs)]
		n := db.Len()
		if volatile {
			n = len(db.expiring)
		}
		if n == 0 {
			continue
		}
		for s := 0; s < samples; s++ {
			var e *entry
			if volatile {
				e = db.entryAt(db.expiring[rand.IntN(len(db.expiring))])
			} else {
				e = db.randomEntry()
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
	sh.evict(best.db, best.e)
	return true
}

// evictScore ranks a candidate: the highest score goes first.
func (sh *Shard) evictScore(policy string, e *entry) uint64 {
	switch policy {
	case "allkeys-lru", "volatile-lru":
		return uint64(sh.idleSeconds(e))
	case "allkeys-lfu", "volatile-lfu":
		return 255 - uint64(sh.lfuDecayed(e))
	case "volatile-ttl":
		return math.MaxUint64 - uint64(e.expireAt)
	}
	return 0
}

// evict deletes a key to free memory and logs the deletion; subscribers
// to "evicted" and clients tracking the key are told, as in Redis.
func (sh *Shard) evict(db *DB, e *entry) {
	if sh.snap != nil {
		sh.snapshotTouch(db, e.key())
	}
	sh.logDel(db.id, e.keyView())
	// The key lives in the entry's slot: announce it before the slot is freed.
	sh.notify(evEvicted, "evicted", db.id, e.key())
	if sh.trk != nil {
		sh.trackRemoved(e.keyString())
	}
	db.remove(e)
	sh.stats.evictedKeys.Add(1)
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

// lfuMinutes is the LFU clock: minutes modulo 2^16, as Redis's.
func lfuMinutes(ms int64) uint16 { return uint16(ms / 60000) }

// lfuState packs an LFU state into an entry's 24-bit clock: the last
// decrement time in minutes, then the counter, as Redis does.
func lfuState(minutes uint16, counter uint8) uint32 { return uint32(minutes)<<8 | uint32(counter) }

// lfuDecayed is e's LFU counter after the decay due since its last
// decrement (lfu-decay-time minutes per step), without storing it.
func (sh *Shard) lfuDecayed(e *entry) uint8 {
	state := e.accessed()
	counter := uint8(state)
	decay := sh.srv.opts.Live.LFUDecayTime()
	if decay <= 0 {
		return counter
	}
	elapsed := int(lfuMinutes(sh.nowMs) - uint16(state>>8))
	if periods := elapsed / decay; periods < int(counter) {
		return counter - uint8(periods)
	}
	return 0
}

// lfuTouch records an access for LFU: decay, then a logarithmic
// increment that gets less likely as the counter grows (lfu-log-factor).
func (sh *Shard) lfuTouch(e *entry) {
	counter := sh.lfuDecayed(e)
	if counter < 255 {
		base := float64(max(int(counter)-lfuInitVal, 0))
		if rand.Float64() < 1/(base*float64(sh.srv.opts.Live.LFULogFactor())+1) {
			counter++
		}
	}
	e.touch(lfuState(lfuMinutes(sh.nowMs), counter))
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
	purging   atomic.Bool   // a purge is running
	heapAfter atomic.Uint64 // heap bytes right after the last purge
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

// purgeIdleHeap returns a large idle heap to the OS; shard 0 calls it at
// its ticks, and it looks at the heap once a second.
func (t *memoryTuner) purgeIdleHeap(nowMs int64) {
	if nowMs-t.lastCheck < 1000 || t.purging.Load() {
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
		t.purging.Store(true)
		go t.purge()
		return
	}
	if cycles != t.cycles {
		t.cycles, t.cyclesAt = cycles, nowMs
		return
	}
	if nowMs-t.cyclesAt < idleHeapAfterMs || heap < t.heapAfter.Load()+idleHeapPurge {
		return
	}
	t.purging.Store(true)
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
	defer t.purging.Store(false)
	runtime.GC()
	debug.FreeOSMemory()
	_, heap := readHeap(heapSamples())
	t.heapAfter.Store(heap)
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
	m := s.opts.Live.MaxMemory()
	if m <= 0 {
		if t.applied.Load() != 0 {
			debug.SetMemoryLimit(math.MaxInt64)
			t.applied.Store(0)
		}
		return
	}
	var mapped int64
	for _, sh := range s.shards {
		mapped += sh.arenaMapped.Load()
	}
	limit := max(m-mapped, minGoMemoryLimit)
	if old := t.applied.Load(); old == 0 || limit < old-old/64 || limit > old+old/64 {
		debug.SetMemoryLimit(limit)
		t.applied.Store(limit)
	}
}

// evictedKeys is the number of keys evicted by every shard.
func (sh *Shard) evictedKeys() int64 {
	var n int64
	for _, s := range sh.srv.shards {
		n += s.stats.evictedKeys.Load()
	}
	return n
}

// memReport is the memory figures of a shard as INFO memory and MEMORY
// STATS report them.
type memReport struct {
	used, peak, dataset, overhead, startup int64
	processUsed                            int64 // every shard's used_memory
	maxmemory                              int64 // the shard's share
	policy                                 string
	keys                                   int64
	m                                      memSample
}

func (sh *Shard) memReport() memReport {
	sh.publishMem()
	r := memReport{peak: sh.memPeak.Load(), maxmemory: sh.maxMemoryShare(),
		policy: sh.srv.opts.Live.MaxMemoryPolicy(), m: sh.srv.memStats()}
	r.dataset, r.overhead = sh.memFigures()
	r.used = r.dataset + r.overhead
	for _, s := range sh.srv.shards {
		r.processUsed += s.memPublished.Load()
	}
	for _, db := range sh.dbs {
		r.keys += int64(db.Len())
		r.startup += int64(tableMinSlots) * 8
	}
	return r
}

func pct(a, b int64) string {
	if b <= 0 {
		return "0.00%"
	}
	return strconv.FormatFloat(100*float64(a)/float64(b), 'f', 2, 64) + "%"
}

// memoryInfo is the INFO memory section: Redis's fields in Redis's order,
// then the keyspace arena's and the Go runtime's under names of their own.
// used_memory and its parts are the shard's own exact accounting; rss and
// the allocator_* figures are the process's (Go heap plus every arena's
// mapped pages, which the arenas hold resident once touched).
func memoryInfo(sh *Shard) []infoField {
	r := sh.memReport()
	frag := 0.0
	if r.processUsed > 0 {
		frag = float64(r.m.rss) / float64(r.processUsed)
	}
	al := readAllocatorStats()
	var mapped uint64
	for _, s := range sh.srv.shards {
		mapped += uint64(s.arenaMapped.Load())
	}
	al.allocated += mapped
	al.active += mapped
	al.resident += mapped
	u := func(n int64) string { return strconv.FormatInt(n, 10) }
	uu := func(n uint64) string { return strconv.FormatUint(n, 10) }
	f := []infoField{
		{"used_memory", u(r.used)},
		{"used_memory_human", bytesToHuman(uint64(r.used))},
		{"used_memory_rss", uu(r.m.rss)},
		{"used_memory_rss_human", bytesToHuman(r.m.rss)},
		{"used_memory_peak", u(r.peak)},
		{"used_memory_peak_human", bytesToHuman(uint64(r.peak))},
		{"used_memory_peak_perc", pct(r.used, r.peak)},
		{"used_memory_overhead", u(r.overhead)},
		{"used_memory_startup", u(r.startup)},
		{"used_memory_dataset", u(r.dataset)},
		{"used_memory_dataset_perc", pct(r.dataset, r.used-r.startup)},
		{"allocator_allocated", uu(al.allocated)},
		{"allocator_active", uu(al.active)},
		{"allocator_resident", uu(al.resident)},
	}
	if total := totalSystemMemory(); total > 0 {
		f = append(f, infoField{"total_system_memory", uu(total)},
			infoField{"total_system_memory_human", bytesToHuman(total)})
	}
	scripts, scriptBytes, libs, funcs, funcBytes := sh.srv.scriptMemory()
	f = append(f, []infoField{
		// The Lua VMs' heaps are Go memory the interpreter does not account
		// for: the used_memory_vm_* figures stay 0. The script and function
		// figures are the bytes of bodies, codes and names held, all shards.
		{"used_memory_lua", "0"},
		{"used_memory_vm_eval", "0"},
		{"used_memory_lua_human", "0B"},
		{"used_memory_scripts_eval", u(scriptBytes)},
		{"number_of_cached_scripts", u(scripts)},
		{"number_of_functions", u(funcs)},
		{"number_of_libraries", u(libs)},
		{"used_memory_vm_functions", "0"},
		{"used_memory_vm_total", "0"},
		{"used_memory_vm_total_human", "0B"},
		{"used_memory_functions", u(funcBytes)},
		{"used_memory_scripts", u(scriptBytes + funcBytes)},
		{"used_memory_scripts_human", bytesToHuman(uint64(scriptBytes + funcBytes))},
		{"maxmemory", u(r.maxmemory)},
		{"maxmemory_human", bytesToHuman(uint64(r.maxmemory))},
		{"maxmemory_policy", r.policy},
		{"allocator_frag_ratio", ratio(al.active, al.allocated)},
		{"allocator_frag_bytes", u(int64(al.active) - int64(al.allocated))},
		{"allocator_rss_ratio", ratio(al.resident, al.active)},
		{"allocator_rss_bytes", u(int64(al.resident) - int64(al.active))},
		{"rss_overhead_ratio", ratio(r.m.rss, al.resident)},
		{"rss_overhead_bytes", u(int64(r.m.rss) - int64(al.resident))},
		{"mem_fragmentation_ratio", strconv.FormatFloat(frag, 'f', 2, 64)},
		{"mem_fragmentation_bytes", u(int64(r.m.rss) - r.processUsed)},
		// No replication, cluster bus or replicas: these hold nothing.
		{"mem_not_counted_for_evict", "0"},
		{"mem_replication_backlog", "0"},
		{"mem_total_replication_buffers", "0"},
		{"mem_clients_slaves", "0"},
		{"mem_clients_normal", "0"},
		{"mem_cluster_links", "0"},
		{"mem_aof_buffer", "0"},
		{"mem_allocator", "ruvio-arena"},
		{"active_defrag_running", "0"},
		{"lazyfree_pending_objects", "0"},
		{"lazyfreed_objects", "0"}, // nothing is freed in the background
		{"keyspace_arena_mapped", u(sh.arena.mapped)},
		{"keyspace_arena_used", u(sh.arena.used)},
		{"keyspace_side_bytes", u(sh.arena.extBytes)},
		{"go_heap_alloc", uu(r.m.heapAlloc)},
		{"go_heap_inuse", uu(r.m.heapInuse)},
		{"go_heap_sys", uu(r.m.heapSys)},
		{"go_heap_released", uu(r.m.heapRel)},
		{"go_sys", uu(r.m.sys)},
		{"go_gc_count", uu(r.m.numGC)},
		{"go_gc_cpu_fraction", strconv.FormatFloat(r.m.gcCPU, 'f', 4, 64)},
		{"go_gc_last_pause_ns", uu(r.m.lastPauseNs)},
		{"go_memory_limit", u(debug.SetMemoryLimit(-1))},
	}...)
	return f
}

// MEMORY STATS: Redis's fields that have a meaning here, as a map.
func memoryStatsCommand(x *Ctx) {
	sh := x.S
	r := sh.memReport()
	type kv struct {
		k string
		v func()
	}
	i := func(n int64) func() { return func() { x.W.Int(n) } }
	f := func(v float64) func() { return func() { x.W.Double(v) } }
	var dbs []kv
	for _, db := range sh.dbs {
		if db.Len() == 0 {
			continue
		}
		d := db
		dbs = append(dbs, kv{"db." + strconv.Itoa(d.id), func() {
			x.W.MapHeader(2)
			x.W.BulkString("overhead.hashtable.main")
			x.W.Int(int64(len(d.t.slots)) * 8)
			x.W.BulkString("overhead.hashtable.expires")
			x.W.Int(int64(cap(d.expiring)) * 4)
		}})
	}
	perKey := int64(0)
	if r.keys > 0 {
		perKey = (r.used - r.startup) / r.keys
	}
	frag := 0.0
	if r.processUsed > 0 {
		frag = float64(r.m.rss) / float64(r.processUsed)
	}
	_, scriptBytes, _, _, funcBytes := x.S.srv.scriptMemory()
	fields := []kv{
		{"peak.allocated", i(r.peak)},
		{"total.allocated", i(r.used)},
		{"startup.allocated", i(r.startup)},
		{"replication.backlog", i(0)},
		{"clients.slaves", i(0)},
		{"clients.normal", i(0)},
		{"cluster.links", i(0)},
		{"aof.buffer", i(0)},
		{"lua.caches", i(scriptBytes)},
		{"functions.caches", i(funcBytes)},
	}
	fields = append(fields, dbs...)
	fields = append(fields,
		kv{"overhead.total", i(r.overhead)},
		kv{"keys.count", i(r.keys)},
		kv{"keys.bytes-per-key", i(perKey)},
		kv{"dataset.bytes", i(r.dataset)},
		kv{"dataset.percentage", f(100 * float64(r.dataset) / float64(max(r.used-r.startup, 1)))},
		kv{"peak.percentage", f(100 * float64(r.used) / float64(max(r.peak, 1)))},
		kv{"allocator.allocated", i(sh.arena.used + int64(r.m.heapAlloc))},
		kv{"allocator.active", i(sh.arena.mapped + int64(r.m.heapInuse))},
		kv{"allocator.resident", i(int64(r.m.rss))},
		kv{"fragmentation", f(frag)},
		kv{"fragmentation.bytes", i(int64(r.m.rss) - r.processUsed)},
	)
	x.W.MapHeader(len(fields))
	for _, kv := range fields {
		x.W.BulkString(kv.k)
		kv.v()
	}
}

// MEMORY PURGE: two collections (pooled buffers survive the first) and
// every free page of the Go heap back to the OS, as Redis asks jemalloc
// to purge. The keyspace arena keeps its pages: freed slots are reused.
func memoryPurgeCommand(x *Ctx) {
	runtime.GC()
	debug.FreeOSMemory()
	x.W.OK()
}
