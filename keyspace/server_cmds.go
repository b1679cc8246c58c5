package keyspace

import (
	"math"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/config"
)

// This file holds the server family: CONFIG, SHUTDOWN, DEBUG, RUVIO, WAIT
// and MEMORY, and registers them together with COMMAND (command_cmd.go)
// and INFO (info.go).

// serverExtras is per-server state of the introspection commands that the
// Server struct does not hold: the replication id, the memory statistics
// cache and the ops-per-second sample.
type serverExtras struct {
	mu sync.Mutex // guards every field

	memReadAt time.Time // when mem was last read; zero: never
	mem       memSample

	opsAt    time.Time // time of the last ops sample; zero: never
	opsCount int64     // commands processed at opsAt
	opsRate  int64     // commands per second between the last two samples
}

// memSample is what INFO memory reports of the process: its resident set
// as the OS counts it and the Go runtime's figures.
type memSample struct {
	rss                                    uint64
	heapAlloc, heapInuse, heapSys, heapRel uint64
	sys, numGC, lastPauseNs                uint64
	gcCPU                                  float64
}

// extras returns s's introspection state.
func (s *Server) extras() *serverExtras { return &s.introspection }

// memStats returns the memory statistics, reading runtime.MemStats at most
// once a second of the server clock: ReadMemStats stops the world.
func (s *Server) memStats() memSample {
	e := s.extras()
	now := s.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.memReadAt.IsZero() || now.Sub(e.memReadAt) >= time.Second || now.Before(e.memReadAt) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		e.mem = memSample{
			heapAlloc: ms.HeapAlloc, heapInuse: ms.HeapInuse, heapSys: ms.HeapSys, heapRel: ms.HeapReleased,
			sys: ms.Sys, numGC: uint64(ms.NumGC), gcCPU: ms.GCCPUFraction,
		}
		if ms.NumGC > 0 {
			e.mem.lastPauseNs = ms.PauseNs[(ms.NumGC+255)%256]
		}
		if rss, ok := residentBytes(); ok {
			e.mem.rss = rss
		} else {
			// No /proc: what the runtime holds from the OS and has not
			// returned, plus the arenas' mappings: an upper bound.
			e.mem.rss = ms.Sys - ms.HeapReleased
			for _, sh := range s.shards {
				e.mem.rss += uint64(sh.arenaMapped.Load())
			}
		}
		e.memReadAt = now
	}
	return e.mem
}

// opsPerSec is the command rate between the last two samples, a second or
// more apart; each call may take a new sample.
func (s *Server) opsPerSec() int64 {
	e := s.extras()
	now := s.now()
	count := s.commandsProcessed()
	e.mu.Lock()
	defer e.mu.Unlock()
	switch elapsed := now.Sub(e.opsAt); {
	case e.opsAt.IsZero() || elapsed < 0:
		e.opsAt, e.opsCount = now, count
	case elapsed >= time.Second:
		e.opsRate = int64(float64(count-e.opsCount) / elapsed.Seconds())
		e.opsAt, e.opsCount = now, count
	}
	return e.opsRate
}

// commandsProcessed is the number of commands every shard has run.
func (s *Server) commandsProcessed() int64 {
	var n int64
	for _, sh := range s.shards {
		n += sh.stats.commands.Load()
	}
	return n
}

// resetInfoStats zeroes the counters INFO stats reports (CONFIG
// RESETSTAT). The counters are atomics, so other shards' may be reset from
// any shard.
func (s *Server) resetInfoStats() {
	for _, c := range []*counter{
		&s.stats.connections, &s.stats.rejectedConns,
		&s.stats.expiredKeys, &s.stats.keyspaceHits, &s.stats.keyspaceMisses,
		&s.stats.netInputBytes, &s.stats.netOutputBytes, &s.stats.outputBufKilled,
		&s.stats.readPauses,
	} {
		c.Store(0)
	}
	for _, sh := range s.shards {
		sh.stats.commands.Store(0)
		sh.stats.expiredKeys.Store(0)
		sh.stats.evictedKeys.Store(0)
		sh.memPeak.Store(sh.memPublished.Load())
	}
	// Command counters belong to their shard goroutine; RESETSTAT clears
	// the caller's shard, the one INFO commandstats reports.
	e := s.extras()
	e.mu.Lock()
	e.opsAt, e.opsCount, e.opsRate = time.Time{}, 0, 0
	e.mu.Unlock()
}

// runSubcommand dispatches a container command (CONFIG, MEMORY, RUVIO) to
// its subcommand after the checks Redis's processCommand makes for it: an
// unknown subcommand, a wrong number of arguments, then (with several
// shards) the slot of the subcommand's keys.
func runSubcommand(x *Ctx, container string) {
	sub := x.Cmd.sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + truncArg(x.Args[1]) + "'. Try " + container + " HELP.")
		return
	}
	if !arityOK(sub.Arity, len(x.Args)) {
		x.W.Error(errWrongArgs(sub.FullName()))
		return
	}
	if sub.FirstKey > 0 && x.S.srv.Shards() > 1 && !x.S.checkSlots(x, sub, x.Args) {
		return
	}
	x.Cmd = sub
	sub.Handler(x)
}

// CONFIG <subcommand>
func configCommand(x *Ctx) { runSubcommand(x, "CONFIG") }

// CONFIG GET parameter [parameter ...]
func configGetCommand(x *Ctx) {
	patterns := make([]string, 0, len(x.Args)-2)
	for _, a := range x.Args[2:] {
		patterns = append(patterns, string(a))
	}
	pairs := x.S.srv.opts.Live.GetMulti(patterns)
	x.W.MapHeader(len(pairs))
	for _, p := range pairs {
		x.W.BulkString(p[0])
		x.W.BulkString(p[1])
	}
}

// CONFIG SET parameter value [parameter value ...]
func configSetCommand(x *Ctx) {
	if len(x.Args)%2 != 0 {
		x.W.Error(errSyntax)
		return
	}
	pairs := make([][2]string, 0, (len(x.Args)-2)/2)
	for i := 2; i+1 < len(x.Args); i += 2 {
		pairs = append(pairs, [2]string{string(x.Args[i]), string(x.Args[i+1])})
	}
	if err := x.S.srv.opts.Live.Set(pairs); err != nil {
		x.W.Error(err.Error())
		return
	}
	for _, p := range pairs {
		if strings.EqualFold(p[0], "requirepass") {
			// requirepass is the default user's password, as in Redis.
			pass := x.S.srv.opts.Live.RequirePass()
			_, _ = x.S.srv.acl.store.Update(func(u *acl.Users) (*acl.Users, error) { return u.WithRequirePass(pass), nil })
		}
	}
	x.W.OK()
}

// CONFIG RESETSTAT
func configResetStatCommand(x *Ctx) {
	x.S.srv.resetInfoStats()
	x.S.resetCommandStats()
	x.W.OK()
}

// CONFIG REWRITE: the TOML file is the operator's; the server never
// rewrites it.
func configRewriteCommand(x *Ctx) {
	file := x.S.srv.opts.Live.ConfigFile()
	if file == "" {
		x.W.Error("ERR The server is running without a config file")
		return
	}
	if x.S.srv.opts.Live.ConfigFileFormat() == config.FormatRedis {
		if err := x.S.srv.opts.Live.RewriteRedisConf(); err != nil {
			x.S.srv.log.Warn("CONFIG REWRITE failed", zap.Error(err))
			x.W.Error("ERR Rewriting config file: " + err.Error())
			return
		}
		x.S.srv.log.Info("CONFIG REWRITE executed with success")
		x.W.OK()
		return
	}
	x.W.Error("ERR CONFIG REWRITE is not supported: the configuration file " + file + " belongs to the operator; edit it and restart the server")
}

// CONFIG HELP
func configHelpCommand(x *Ctx) {
	writeHelp(x, "CONFIG",
		"GET <pattern>",
		"    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>",
		"    Set the configuration <directive> to <value>.",
		"RESETSTAT",
		"    Reset statistics reported by the INFO command.",
		"REWRITE",
		"    Rewrite the configuration file.",
	)
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. On success nothing is
// replied: the caller's connection is closed and the process stops.
func shutdownCommand(x *Ctx) {
	var save, nosave, other, abort bool
	for _, a := range x.Args[1:] {
		switch {
		case eqFold(a, "nosave"):
			nosave = true
		case eqFold(a, "save"):
			save = true
		case eqFold(a, "now"), eqFold(a, "force"):
			other = true
		case eqFold(a, "abort"):
			abort = true
		default:
			x.W.Error(errSyntax)
			return
		}
	}
	if abort && (save || nosave || other) || save && nosave {
		x.W.Error(errSyntax)
		return
	}
	if abort {
		// A shutdown, once requested, is not abortable.
		x.W.Error("ERR No shutdown in progress.")
		return
	}
	x.S.logger().Warn("user requested shutdown", zap.Int64("client", x.C.ID))
	x.S.srv.requestShutdown()
	if x.Batch != nil {
		x.Batch.CloseAfter = true
	}
}

// errDebugNotAllowed is the reply to DEBUG from a client that
// enable-debug-command does not admit.
const errDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// debugAllowed reports whether the enable-debug-command setting lets a
// client connected from remote (host:port) run DEBUG.
func debugAllowed(setting, remote string) bool {
	switch setting {
	case config.DebugYes:
		return true
	case config.DebugLocal:
		return isLoopbackAddr(remote)
	}
	return false
}

// isLoopbackAddr reports whether addr (host:port or a bare host) is a
// loopback IP address.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DEBUG subcommand [arg ...]
func debugCommand(x *Ctx) {
	sub, n := x.Args[1], len(x.Args)
	switch {
	case eqFold(sub, "help") && n == 2:
		debugHelp(x)
	case eqFold(sub, "sleep") && n == 3:
		// Like Redis's strtod, an unparsable duration is 0.
		secs, _ := parseFloat(x.Args[2])
		if secs > 0 && !math.IsInf(secs, 1) {
			time.Sleep(time.Duration(secs * float64(time.Second)))
			x.S.nowMs = x.S.srv.now().UnixMilli()
		}
		x.W.OK()
	case eqFold(sub, "set-active-expire") && n == 3:
		v, _ := parseInt(x.Args[2])
		x.S.activeExpireOn.Store(v != 0)
		x.W.OK()
	case eqFold(sub, "log") && n == 3:
		x.S.logger().Info("DEBUG LOG: " + string(x.Args[2]))
		x.W.OK()
	case eqFold(sub, "change-repl-id") && n == 2:
		// A new history id for this shard's log: its replicas resync in
		// full next time, as Redis's replicas do after a new replid.
		if err := x.S.setReplID(randomHex(40)); err != nil {
			x.W.Error("ERR " + err.Error())
			return
		}
		x.W.OK()
	case eqFold(sub, "object") && n == 3:
		debugObject(x)
	default:
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + truncArg(sub) + "'. Try DEBUG HELP.")
	}
}

// DEBUG OBJECT key
func debugObject(x *Ctx) {
	if !checkKeySlot(x, x.Args[2]) {
		return
	}
	e := x.S.lookupNoTouch(x.DB, x.Args[2])
	if e == nil {
		x.W.Error(errNoSuchKey)
		return
	}
	// Strings: the size of Redis's RDB encoding (rdblen.go). Native
	// types: the size of their snapshot encoding, this server's analog.
	serialized := rdbStringLen(x.DB.val(e))
	if sv, ok := x.DB.obj(e).(snapshotValue); ok {
		serialized = int64(len(sv.appendSnapshot(nil)))
	}
	b := make([]byte, 0, 128)
	b = append(b, "Value at:0x0 refcount:1 encoding:"...)
	b = append(b, encodingName(x.DB, e)...)
	b = append(b, " serializedlength:"...)
	b = strconv.AppendInt(b, max(serialized, 0), 10)
	b = append(b, " lru:0 lru_seconds_idle:"...)
	b = strconv.AppendInt(b, x.S.idleSeconds(e), 10)
	x.W.SimpleString(string(b))
}

func debugHelp(x *Ctx) {
	writeHelp(x, "DEBUG",
		"CHANGE-REPL-ID",
		"    Change the replication IDs of the instance.",
		"    Dangerous: should be used only for testing the replication subsystem.",
		"LOG <message>",
		"    Write <message> to the server log.",
		"OBJECT <key>",
		"    Show low level info about `key` and associated value.",
		"SET-ACTIVE-EXPIRE <0|1>",
		"    Setting it to 0 disables expiring keys in background when they are not",
		"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
		"    default.",
		"SLEEP <seconds>",
		"    Stop the server for <seconds>. Decimals allowed.",
	)
}

// checkKeySlot replies MOVED and returns false when key belongs to another
// shard, for subcommands whose key positions the dispatcher does not see.
func checkKeySlot(x *Ctx, key []byte) bool {
	if x.S.srv.Shards() == 1 {
		return true
	}
	topo := x.S.srv.opts.Topology
	slot, owner := topo.ShardOfKey(key)
	if owner == x.S.idx {
		return true
	}
	x.W.Error("MOVED " + strconv.Itoa(int(slot)) + " " + topo.Nodes[owner].Addr())
	return false
}

// RUVIO [OWNER key | HELP]: with no subcommand, the server's name, version
// and number of shards.
func ruvioCommand(x *Ctx) {
	if len(x.Args) == 1 {
		x.W.MapHeader(2)
		x.W.BulkString("ruvio")
		x.W.BulkString(Version)
		x.W.BulkString("shards")
		x.W.Int(int64(x.S.srv.Shards()))
		return
	}
	runSubcommand(x, "RUVIO")
}

// RUVIO OWNER key: the slot of key, the shard that owns it and the address
// that shard listens on. Any shard answers for any key.
func ruvioOwnerCommand(x *Ctx) {
	topo := x.S.srv.opts.Topology
	slot, owner := topo.ShardOfKey(x.Args[2])
	x.W.MapHeader(3)
	x.W.BulkString("slot")
	x.W.Int(int64(slot))
	x.W.BulkString("shard")
	x.W.Int(int64(owner))
	x.W.BulkString("address")
	x.W.BulkString(topo.Nodes[owner].Addr())
}

// RUVIO HELP
func ruvioHelpCommand(x *Ctx) {
	writeHelp(x, "RUVIO",
		"(no subcommand)",
		"    Return the server name, its version and the number of shards.",
		"OWNER <key>",
		"    Return the hash slot of <key>, the shard that owns it and its address.",
	)
}

// MEMORY <subcommand>
func memoryCommand(x *Ctx) { runSubcommand(x, "MEMORY") }

// memoryUsager is implemented by value types that can estimate the bytes
// they hold, looking at no more than samples elements of a collection
// (0: all of them).
type memoryUsager interface {
	memoryUsage(samples int64) int64
}

// entryMemoryUsage is the bytes e takes: its arena allocation (header,
// key and inline value, rounded up to its size class), a value kept
// beside it (a large string's capacity, an object's own estimate from
// samples elements), its index slot and, with a deadline, its place in the
// expiring index.
func entryMemoryUsage(db *DB, e *entry, samples int64) int64 {
	n := db.size(e) + 8
	if e.isObj() {
		// Measured afresh; between commands the same as the figure
		// used_memory holds for it.
		n += measureObject(db.obj(e), samples) - db.a.objAcct.accounted(e.vlen())
	}
	if e.expIdx != 0 {
		n += 4
	}
	return n
}

// MEMORY USAGE key [SAMPLES count]
func memoryUsageCommand(x *Ctx) {
	samples := int64(5)
	for i := 3; i < len(x.Args); i++ {
		if !eqFold(x.Args[i], "samples") || i+1 >= len(x.Args) {
			x.W.Error(errSyntax)
			return
		}
		n, ok := parseInt(x.Args[i+1])
		if !ok {
			x.W.Error(errNotInt)
			return
		}
		if n < 0 {
			x.W.Error(errSyntax)
			return
		}
		samples = n
		i++
	}
	e := x.S.lookup(x.DB, x.Args[2])
	if e == nil {
		x.W.Null()
		return
	}
	x.W.Int(entryMemoryUsage(x.DB, e, samples))
}

// MEMORY HELP
func memoryHelpCommand(x *Ctx) {
	writeHelp(x, "MEMORY",
		"MALLOC-STATS",
		"    Return the Go runtime allocator's statistics and the shards' arena sizes.",
		"PURGE",
		"    Return memory the Go runtime no longer uses to the operating system.",
		"STATS",
		"    Return information about the memory usage of the server.",
		"USAGE <key> [SAMPLES <count>]",
		"    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all).",
	)
}

// registerServerFamily adds the server commands to t.
func registerServerFamily(t commandTable) {
	const grp = "server"
	stale := FlagLoading | FlagStale
	admin := FlagAdmin | FlagNoScript | stale
	t.add(&Command{Name: "time", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, Group: "server", Since: "2.6.0", Summary: "Returns the server time.", Complexity: "O(1)", Handler: timeCommand})
	t.add(
		commandFamily(),
		aclFamily(),
		&Command{Name: "info", Arity: -1, Flags: stale, Group: grp, Categories: []string{"dangerous"}, Since: "1.0.0", Summary: "Returns information and statistics about the server.", Complexity: "O(1)", Handler: infoCommand},
		&Command{Name: "config", Arity: -2, Group: grp, Since: "2.0.0", Summary: "A container for server configuration commands.", Complexity: "Depends on subcommand.", Handler: configCommand,
			Subcommands: []*Command{
				{Name: "get", Arity: -3, Flags: admin, Group: grp, Since: "2.0.0", Summary: "Returns the effective values of configuration parameters.", Complexity: "O(N) when N is the number of configuration parameters provided", Handler: configGetCommand},
				{Name: "set", Arity: -4, Flags: admin | FlagMayReplicate, Group: grp, Since: "2.0.0", Summary: "Sets configuration parameters in-flight.", Complexity: "O(N) when N is the number of configuration parameters provided", Handler: configSetCommand},
				{Name: "resetstat", Arity: 2, Flags: admin, Group: grp, Since: "2.0.0", Summary: "Resets the server's statistics.", Complexity: "O(1)", Handler: configResetStatCommand},
				{Name: "rewrite", Arity: 2, Flags: admin, Group: grp, Since: "2.8.0", Summary: "Persists the effective configuration to file.", Complexity: "O(1)", Handler: configRewriteCommand},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "5.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: configHelpCommand},
			}},
		&Command{Name: "shutdown", Arity: -1, Flags: admin | FlagNoMulti | FlagAllowBusy, Group: grp, Since: "1.0.0", Summary: "Synchronously saves the database(s) to disk and shuts down the Redis server.", Complexity: "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)", Handler: shutdownCommand},
		&Command{Name: "debug", Arity: -2, Flags: admin, Group: grp, Since: "1.0.0", Summary: "A container for debugging commands.", Complexity: "Depends on subcommand.", Handler: debugCommand},
		&Command{Name: "ruvio", Arity: -1, Flags: FlagFast | stale, Group: grp, Since: Version, Summary: "Returns the server name, version and shard count, or which shard owns a key.", Complexity: "O(1)", Handler: ruvioCommand,
			Subcommands: []*Command{
				{Name: "owner", Arity: 3, Flags: FlagFast | stale, Group: grp, Since: Version, Summary: "Returns the hash slot of a key, the shard that owns it and that shard's address.", Complexity: "O(N) where N is the number of bytes in the key", Handler: ruvioOwnerCommand},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: Version, Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: ruvioHelpCommand},
			}},
		&Command{Name: "memory", Arity: -2, Group: grp, Since: "4.0.0", Summary: "A container for memory diagnostics commands.", Complexity: "Depends on subcommand.", Handler: memoryCommand,
			Subcommands: []*Command{
				{Name: "usage", Arity: -3, Flags: FlagReadOnly, FirstKey: 2, LastKey: 2, Step: 1, Group: grp, Since: "4.0.0", Summary: "Estimates the memory usage of a key.", Complexity: "O(N) where N is the number of samples.", Handler: memoryUsageCommand},
				{Name: "purge", Arity: 2, Group: grp, Since: "4.0.0", Summary: "Asks the allocator to release memory.", Complexity: "Depends on how much memory is allocated, could be slow", Handler: memoryPurgeCommand},
				{Name: "stats", Arity: 2, Group: grp, Since: "4.0.0", Summary: "Returns details about memory usage.", Complexity: "O(1)", Handler: memoryStatsCommand},
				{Name: "malloc-stats", Arity: 2, Group: grp, Since: "4.0.0", Summary: "Returns the Go runtime allocator's statistics and the shards' arena sizes.", Complexity: "O(1); the runtime briefly stops the world to read its statistics", Handler: memoryMallocStatsCommand},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "4.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: memoryHelpCommand},
			}},
	)
}
