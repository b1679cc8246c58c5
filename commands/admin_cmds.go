package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"fmt"
	"runtime"
	"strings"

	"go.uber.org/zap"
)

// This file holds server commands clients and tools send that have no
// subject of their own here: BGREWRITEAOF (the WAL's compaction), MODULE
// (no module is ever loaded), LOLWUT and MEMORY MALLOC-STATS.

// errModuleLoad is Redis's reply to a MODULE LOAD or LOADEX that did not
// load; clients match it. Why it failed goes to the server log, as in
// Redis.
const errModuleLoad = "ERR Error loading the extension. Please check the server logs."

// BGREWRITEAOF: Redis rewrites its append-only file so that it holds the
// data set and no history. The WAL's equivalent is a snapshot of the
// shard, after which the segments it covers are deleted; this starts one,
// as BGSAVE does. While a snapshot is already running the rewrite is
// scheduled: the next one starts once it ends, so that the log written
// meanwhile is compacted too.
func bgrewriteaofCommand(x *keyspace.Ctx) {
	sh := x.S
	j, ok := sh.Journal.(*keyspace.WALJournal)
	if !ok {
		x.W.Error("ERR persistence is disabled (persistence.wal = false)")
		return
	}
	if sh.Snap != nil || sh.SnapFinishing {
		j.RewriteScheduled = true
		x.W.SimpleString("Background append only file rewriting scheduled")
		return
	}
	if err := sh.StartSnapshot(); err != nil {
		sh.Logger().Warn("BGREWRITEAOF: cannot start the snapshot that compacts the WAL", zap.Error(err))
		x.W.Error("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
		return
	}
	x.W.SimpleString("Background append only file rewriting started")
}

// MODULE <subcommand>
func moduleCommand(x *keyspace.Ctx) { runSubcommand(x, "MODULE") }

// MODULE LIST: no module is loaded (the Bloom filter commands are built
// in), so the list is empty.
func moduleListCommand(x *keyspace.Ctx) { x.W.ArrayHeader(0) }

// MODULE LOAD path [arg ...] and MODULE LOADEX path [CONFIG name value
// ...] [ARGS arg ...]: this server cannot load Redis modules (they are
// shared objects written against Redis's C API). The reply is Redis's for
// a load that failed; the log says why.
func moduleLoadCommand(x *keyspace.Ctx) {
	x.S.Logger().Warn("MODULE "+strings.ToUpper(x.Cmd.Name)+" refused: this server does not load Redis modules (the BF.* commands are built in)",
		zap.String("path", keyspace.TruncArg(x.Args[2])))
	x.W.Error(errModuleLoad)
}

// MODULE UNLOAD name: with no module loaded, no name matches; Redis's
// reply for an unknown name.
func moduleUnloadCommand(x *keyspace.Ctx) {
	x.W.Error("ERR Error unloading module: no such module with that name")
}

// MODULE HELP
func moduleHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "MODULE",
		"LIST",
		"    Return a list of loaded modules (always empty: this server loads none).",
		"LOAD <path> [<arg> ...]",
		"    Refused: this server does not load Redis modules.",
		"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
		"    Refused: this server does not load Redis modules.",
		"UNLOAD <name>",
		"    Unload a module (none is ever loaded).",
	)
}

// LOLWUT [VERSION version] [...]: Redis 7.0 answers its version line,
// drawing art first when asked for version 5 or 6. Ruvio draws none; its
// line names Ruvio and the Redis version it speaks, keeping Redis's
// "<name> ver. <version>" shape.
func lolwutCommand(x *keyspace.Ctx) {
	if len(x.Args) >= 3 && keyspace.EqFold(x.Args[1], "version") {
		if _, ok := keyspace.ParseInt(x.Args[2]); !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
	}
	x.W.Verbatim("txt", lolwutText())
}

// lolwutText is LOLWUT's reply.
func lolwutText() string {
	return "Ruvio ver. " + keyspace.Version + " (Redis ver. " + keyspace.RedisVersion + " compatible)\n"
}

// MEMORY MALLOC-STATS: Redis prints its allocator's own report (jemalloc's
// statistics). The allocator here is Go's runtime, plus the arenas the
// shards map for keys and values; the report is theirs.
func memoryMallocStatsCommand(x *keyspace.Ctx) {
	var arenas int64
	for _, sh := range x.S.Srv.ShardList {
		arenas += sh.ArenaMapped.Load()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	x.W.Verbatim("txt", mallocStatsText(&ms, arenas))
}

// mallocStatsText formats ms and the shards' mapped arena bytes as
// MEMORY MALLOC-STATS's report.
func mallocStatsText(ms *runtime.MemStats, arenas int64) string {
	var b strings.Builder
	line := func(name string, v uint64, what string) {
		fmt.Fprintf(&b, "%-22s %16d  %s\n", name+":", v, what)
	}
	fmt.Fprintf(&b, "___ Begin Go runtime allocator statistics (%s, %s/%s) ___\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	b.WriteString("Values are bytes unless named otherwise; from runtime.ReadMemStats.\n")
	b.WriteString("\nHeap\n")
	line("heap_alloc", ms.HeapAlloc, "bytes of allocated heap objects (live and not yet swept)")
	line("heap_inuse", ms.HeapInuse, "bytes in in-use spans")
	line("heap_idle", ms.HeapIdle, "bytes in idle spans")
	line("heap_released", ms.HeapReleased, "bytes of idle spans returned to the OS")
	line("heap_sys", ms.HeapSys, "bytes of heap memory obtained from the OS")
	line("heap_objects", ms.HeapObjects, "allocated heap objects")
	line("next_gc", ms.NextGC, "heap size goal of the next GC cycle")
	b.WriteString("\nRuntime structures\n")
	line("stack_inuse", ms.StackInuse, "bytes in stack spans")
	line("stack_sys", ms.StackSys, "stack memory obtained from the OS")
	line("mspan_inuse", ms.MSpanInuse, "bytes of allocated mspan structures")
	line("mspan_sys", ms.MSpanSys, "memory obtained from the OS for mspans")
	line("mcache_inuse", ms.MCacheInuse, "bytes of allocated mcache structures")
	line("mcache_sys", ms.MCacheSys, "memory obtained from the OS for mcaches")
	line("buck_hash_sys", ms.BuckHashSys, "profiling bucket hash tables")
	line("gc_sys", ms.GCSys, "garbage collection metadata")
	line("other_sys", ms.OtherSys, "other runtime allocations")
	line("sys", ms.Sys, "total obtained from the OS by the runtime")
	b.WriteString("\nTotals since start\n")
	line("total_alloc", ms.TotalAlloc, "cumulative bytes allocated for heap objects")
	line("mallocs", ms.Mallocs, "cumulative heap objects allocated")
	line("frees", ms.Frees, "cumulative heap objects freed")
	line("num_gc", uint64(ms.NumGC), "completed GC cycles")
	line("num_forced_gc", uint64(ms.NumForcedGC), "GC cycles forced (MEMORY PURGE among them)")
	line("pause_total_ns", ms.PauseTotalNs, "nanoseconds of stop-the-world pauses")
	if ms.NumGC > 0 {
		line("last_pause_ns", ms.PauseNs[(ms.NumGC+255)%256], "nanoseconds of the last pause")
	}
	fmt.Fprintf(&b, "%-22s %16.6f  %s\n", "gc_cpu_fraction:", ms.GCCPUFraction, "share of CPU time spent in GC since start")
	b.WriteString("\nShard arenas (mapped outside the Go heap)\n")
	line("arenas_mapped", uint64(max(arenas, 0)), "bytes the shards' key and value arenas map")
	b.WriteString("\nSize classes with allocations (size: mallocs frees)\n")
	for _, c := range ms.BySize {
		if c.Mallocs == 0 && c.Frees == 0 {
			continue
		}
		fmt.Fprintf(&b, "%8d: %14d %14d\n", c.Size, c.Mallocs, c.Frees)
	}
	b.WriteString("___ End Go runtime allocator statistics ___\n")
	return b.String()
}

// registerAdminFamily adds BGREWRITEAOF, MODULE and LOLWUT to t.
func registerAdminFamily(t keyspace.CommandTable) {
	const grp = "server"
	noload := keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagNoAsyncLoading
	t.Add(
		&keyspace.Command{Name: "bgrewriteaof", Arity: 1, Flags: noload, Group: grp, Since: "1.0.0", Summary: "Compacts the shard's write-ahead log: a background snapshot, after which the log segments it covers are deleted.", Complexity: "O(1) to start; the snapshot runs between commands", Handler: bgrewriteaofCommand},
		&keyspace.Command{Name: "lolwut", Arity: -1, Flags: keyspace.FlagReadOnly | keyspace.FlagFast, Group: grp, Since: "5.0.0", Summary: "Displays the server's name and version, and the Redis version it speaks.", Complexity: "O(1)", Handler: lolwutCommand},
		&keyspace.Command{Name: "module", Arity: -2, Group: grp, Since: "4.0.0", Summary: "A container for module commands.", Complexity: "Depends on subcommand.", Handler: moduleCommand,
			Subcommands: []*keyspace.Command{
				{Name: "list", Arity: 2, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript, Group: grp, Since: "4.0.0", Summary: "Returns the loaded modules: none, this server loads no modules.", Complexity: "O(1)", Handler: moduleListCommand, Tips: []string{tipNondeterministicOrder}},
				{Name: "load", Arity: -3, Flags: noload, Group: grp, Since: "4.0.0", Summary: "Refused: this server does not load Redis modules.", Complexity: "O(1)", Handler: moduleLoadCommand},
				{Name: "loadex", Arity: -3, Flags: noload, Group: grp, Since: "7.0.0", Summary: "Refused: this server does not load Redis modules.", Complexity: "O(1)", Handler: moduleLoadCommand},
				{Name: "unload", Arity: 3, Flags: noload, Group: grp, Since: "4.0.0", Summary: "Unloads a module; none is ever loaded.", Complexity: "O(1)", Handler: moduleUnloadCommand},
				{Name: "help", Arity: 2, Flags: keyspace.FlagLoading | keyspace.FlagStale, Group: grp, Since: "5.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: moduleHelpCommand},
			}},
	)
}
