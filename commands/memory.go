package commands

import (
	"fmt"
	"github.com/ruvio/ruvio/keyspace"

	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

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
func memoryInfo(sh *keyspace.Shard) []infoField {
	r := sh.MemReport()
	frag := 0.0
	if r.ProcessUsed > 0 {
		frag = float64(r.M.Rss) / float64(r.ProcessUsed)
	}
	al := readAllocatorStats()
	var mapped uint64
	for _, s := range sh.Srv.ShardList {
		mapped += uint64(s.ArenaMapped.Load())
	}
	al.allocated += mapped
	al.active += mapped
	al.resident += mapped
	u := func(n int64) string { return strconv.FormatInt(n, 10) }
	// Every connection's tot-mem (CLIENT LIST), replica streams apart.
	clientsNormal, clientsReplicas := sh.Srv.ClientsMemory()
	uu := func(n uint64) string { return strconv.FormatUint(n, 10) }
	f := []infoField{
		{"used_memory", u(r.Used)},
		{"used_memory_human", bytesToHuman(uint64(r.Used))},
		{"used_memory_rss", uu(r.M.Rss)},
		{"used_memory_rss_human", bytesToHuman(r.M.Rss)},
		{"used_memory_peak", u(r.Peak)},
		{"used_memory_peak_human", bytesToHuman(uint64(r.Peak))},
		{"used_memory_peak_perc", pct(r.Used, r.Peak)},
		{"used_memory_overhead", u(r.Overhead)},
		{"used_memory_startup", u(r.Startup)},
		{"used_memory_dataset", u(r.Dataset)},
		{"used_memory_dataset_perc", pct(r.Dataset, r.Used-r.Startup)},
		{"allocator_allocated", uu(al.allocated)},
		{"allocator_active", uu(al.active)},
		{"allocator_resident", uu(al.resident)},
	}
	if total := totalSystemMemory(); total > 0 {
		f = append(f, infoField{"total_system_memory", uu(total)},
			infoField{"total_system_memory_human", bytesToHuman(total)})
	}
	scripts, scriptBytes, libs, funcs, funcBytes := sh.Srv.ScriptMemory()
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
		{"maxmemory", u(r.Maxmemory)},
		{"maxmemory_human", bytesToHuman(uint64(r.Maxmemory))},
		{"maxmemory_policy", r.Policy},
		{"allocator_frag_ratio", ratio(al.active, al.allocated)},
		{"allocator_frag_bytes", u(int64(al.active) - int64(al.allocated))},
		{"allocator_rss_ratio", ratio(al.resident, al.active)},
		{"allocator_rss_bytes", u(int64(al.resident) - int64(al.active))},
		{"rss_overhead_ratio", ratio(r.M.Rss, al.resident)},
		{"rss_overhead_bytes", u(int64(r.M.Rss) - int64(al.resident))},
		{"mem_fragmentation_ratio", strconv.FormatFloat(frag, 'f', 2, 64)},
		{"mem_fragmentation_bytes", u(int64(r.M.Rss) - r.ProcessUsed)},
		// No replication backlog, cluster bus or AOF buffer: these hold nothing.
		{"mem_not_counted_for_evict", "0"},
		{"mem_replication_backlog", "0"},
		{"mem_total_replication_buffers", "0"},
		{"mem_clients_slaves", u(clientsReplicas)},
		{"mem_clients_normal", u(clientsNormal)},
		{"mem_cluster_links", "0"},
		{"mem_aof_buffer", "0"},
		{"mem_allocator", "ruvio-arena"},
		{"active_defrag_running", "0"},
		{"lazyfree_pending_objects", "0"},
		{"lazyfreed_objects", "0"}, // nothing is freed in the background
		{"keyspace_arena_mapped", u(sh.Arena.Mapped)},
		{"keyspace_arena_used", u(sh.Arena.Used)},
		{"keyspace_side_bytes", u(sh.Arena.ExtBytes)},
		{"go_heap_alloc", uu(r.M.HeapAlloc)},
		{"go_heap_inuse", uu(r.M.HeapInuse)},
		{"go_heap_sys", uu(r.M.HeapSys)},
		{"go_heap_released", uu(r.M.HeapRel)},
		{"go_sys", uu(r.M.Sys)},
		{"go_gc_count", uu(r.M.NumGC)},
		{"go_gc_cpu_fraction", strconv.FormatFloat(r.M.GcCPU, 'f', 4, 64)},
		{"go_gc_last_pause_ns", uu(r.M.LastPauseNs)},
		{"go_memory_limit", u(debug.SetMemoryLimit(-1))},
	}...)
	return f
}

// MEMORY STATS: Redis's fields that have a meaning here, as a map.
func memoryStatsCommand(x *keyspace.Ctx) {
	sh := x.S
	r := sh.MemReport()
	type kv struct {
		k string
		v func()
	}
	i := func(n int64) func() { return func() { x.W.Int(n) } }
	f := func(v float64) func() { return func() { x.W.Double(v) } }
	var dbs []kv
	for _, db := range sh.DBs {
		if db.Len() == 0 {
			continue
		}
		d := db
		dbs = append(dbs, kv{"db." + strconv.Itoa(d.ID), func() {
			x.W.MapHeader(2)
			x.W.BulkString("overhead.hashtable.main")
			x.W.Int(int64(len(d.T.Slots)) * 8)
			x.W.BulkString("overhead.hashtable.expires")
			x.W.Int(int64(cap(d.Expiring)) * 4)
		}})
	}
	perKey := int64(0)
	if r.Keys > 0 {
		perKey = (r.Used - r.Startup) / r.Keys
	}
	frag := 0.0
	if r.ProcessUsed > 0 {
		frag = float64(r.M.Rss) / float64(r.ProcessUsed)
	}
	_, scriptBytes, _, _, funcBytes := x.S.Srv.ScriptMemory()
	fields := []kv{
		{"peak.allocated", i(r.Peak)},
		{"total.allocated", i(r.Used)},
		{"startup.allocated", i(r.Startup)},
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
		kv{"overhead.total", i(r.Overhead)},
		kv{"keys.count", i(r.Keys)},
		kv{"keys.bytes-per-key", i(perKey)},
		kv{"dataset.bytes", i(r.Dataset)},
		kv{"dataset.percentage", f(100 * float64(r.Dataset) / float64(max(r.Used-r.Startup, 1)))},
		kv{"peak.percentage", f(100 * float64(r.Used) / float64(max(r.Peak, 1)))},
		kv{"allocator.allocated", i(sh.Arena.Used + int64(r.M.HeapAlloc))},
		kv{"allocator.active", i(sh.Arena.Mapped + int64(r.M.HeapInuse))},
		kv{"allocator.resident", i(int64(r.M.Rss))},
		kv{"fragmentation", f(frag)},
		kv{"fragmentation.bytes", i(int64(r.M.Rss) - r.ProcessUsed)},
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
func memoryPurgeCommand(x *keyspace.Ctx) {
	runtime.GC()
	debug.FreeOSMemory()
	x.W.OK()
}

// doctorMinUsed is the used memory below which MEMORY DOCTOR has too little to judge.
const doctorMinUsed = 5 << 20

// MEMORY DOCTOR: a report, in words, of the memory problems the shard's figures show: a peak
// far above today's use, fragmentation of the process's resident memory, and a dataset close to
// the shard's share of maxmemory.
func memoryDoctorCommand(x *keyspace.Ctx) {
	r := x.S.MemReport()
	x.W.Verbatim("txt", memoryDiagnosis(r.Used, r.Peak, r.ProcessUsed, int64(r.M.Rss), r.Maxmemory))
}

// memoryDiagnosis writes MEMORY DOCTOR's report from the shard's used and peak memory, the
// process's used and resident memory, and the shard's share of maxmemory (0: none).
func memoryDiagnosis(used, peak, processUsed, rss, maxmemory int64) string {
	if used < doctorMinUsed {
		return "This instance is empty or uses very little memory (under 5 MB): there is not enough for a diagnosis yet.\n"
	}
	var found []string
	if peak > used*3/2 {
		found = append(found, fmt.Sprintf(" * Peak memory: at its peak this shard used %d bytes, more than 150%% of the %d it uses now. "+
			"Memory freed since then may still be held by the process; MEMORY PURGE returns what the runtime can.", peak, used))
	}
	if processUsed > 0 && rss > 10<<20 && float64(rss)/float64(processUsed) > 1.4 {
		found = append(found, fmt.Sprintf(" * High fragmentation: the process's resident memory (%d bytes) is %.2f times what its data and structures use (%d bytes). "+
			"MEMORY PURGE returns freed pages to the operating system.", rss, float64(rss)/float64(processUsed), processUsed))
	}
	if maxmemory > 0 && used > maxmemory*9/10 {
		found = append(found, fmt.Sprintf(" * Near maxmemory: this shard uses %d bytes of its %d byte share of maxmemory; "+
			"writes will evict keys or be refused, as maxmemory-policy says.", used, maxmemory))
	}
	if len(found) == 0 {
		return "No memory problem found in this shard's figures.\n"
	}
	return "Memory problems found in this shard's figures:\n\n" + strings.Join(found, "\n\n") + "\n"
}
