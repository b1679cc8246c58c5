package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"go.uber.org/zap"
)

// This file holds the server family: CONFIG, SHUTDOWN, DEBUG, RUVIO, WAIT
// and MEMORY, and registers them together with COMMAND (command_cmd.go)
// and INFO (info.go).

// serverOpsPerSec is the command rate between the last two samples, a second or
// more apart; each call may take a new sample.
func serverOpsPerSec(s *keyspace.Server) int64 {
	e := s.Extras()
	now := s.Now()
	count := serverCommandsProcessed(s)
	e.Mu.Lock()
	defer e.Mu.Unlock()
	switch elapsed := now.Sub(e.OpsAt); {
	case e.OpsAt.IsZero() || elapsed < 0:
		e.OpsAt, e.OpsCount = now, count
	case elapsed >= time.Second:
		e.OpsRate = int64(float64(count-e.OpsCount) / elapsed.Seconds())
		e.OpsAt, e.OpsCount = now, count
	}
	return e.OpsRate
}

// serverCommandsProcessed is the number of commands every shard has run.
func serverCommandsProcessed(s *keyspace.Server) int64 {
	var n int64
	for _, sh := range s.ShardList {
		n += sh.Stats.Commands.Load()
	}
	return n
}

// serverResetInfoStats zeroes the counters INFO stats reports (CONFIG
// RESETSTAT). The counters are atomics, so other shards' may be reset from
// any shard.
func serverResetInfoStats(s *keyspace.Server) {
	for _, c := range []*keyspace.Counter{
		&s.Stats.Connections, &s.Stats.RejectedConns,
		&s.Stats.ExpiredKeys, &s.Stats.ExpiredFields, &s.Stats.KeyspaceHits, &s.Stats.KeyspaceMisses,
		&s.Stats.NetInputBytes, &s.Stats.NetOutputBytes, &s.Stats.OutputBufKilled,
		&s.Stats.ReadPauses, &s.Stats.EvictedClients,
	} {
		c.Store(0)
	}
	for _, sh := range s.ShardList {
		sh.Stats.Commands.Store(0)
		sh.Stats.ExpiredKeys.Store(0)
		sh.Stats.EvictedKeys.Store(0)
		sh.MemPeak.Store(sh.MemPublished.Load())
	}
	// Command counters belong to their shard goroutine; RESETSTAT clears
	// the caller's shard, the one INFO commandstats reports.
	e := s.Extras()
	e.Mu.Lock()
	e.OpsAt, e.OpsCount, e.OpsRate = time.Time{}, 0, 0
	e.Mu.Unlock()
}

// runSubcommand dispatches a container command (CONFIG, MEMORY, RUVIO) to
// its subcommand after the checks Redis's processCommand makes for it: an
// unknown subcommand, a wrong number of arguments, then (with several
// shards) the slot of the subcommand's keys.
func runSubcommand(x *keyspace.Ctx, container string) {
	sub := x.Cmd.Sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + keyspace.TruncArg(x.Args[1]) + "'. Try " + container + " HELP.")
		return
	}
	if !keyspace.ArityOK(sub.Arity, len(x.Args)) {
		x.W.Error(keyspace.ErrWrongArgs(sub.FullName()))
		return
	}
	if sub.FirstKey > 0 && x.S.Srv.Shards() > 1 && !x.S.CheckSlotsOrReply(x, sub, x.Args) {
		return
	}
	x.Cmd = sub
	sub.Handler(x)
}

// CONFIG <subcommand>
func configCommand(x *keyspace.Ctx) { runSubcommand(x, "CONFIG") }

// CONFIG GET parameter [parameter ...]
func configGetCommand(x *keyspace.Ctx) {
	patterns := make([]string, 0, len(x.Args)-2)
	for _, a := range x.Args[2:] {
		patterns = append(patterns, string(a))
	}
	pairs := x.S.Srv.Opts.Live.GetMulti(patterns)
	x.W.MapHeader(len(pairs))
	for _, p := range pairs {
		x.W.BulkString(p[0])
		x.W.BulkString(p[1])
	}
}

// CONFIG SET parameter value [parameter value ...]
func configSetCommand(x *keyspace.Ctx) {
	if len(x.Args)%2 != 0 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	pairs := make([][2]string, 0, (len(x.Args)-2)/2)
	for i := 2; i+1 < len(x.Args); i += 2 {
		pairs = append(pairs, [2]string{string(x.Args[i]), string(x.Args[i+1])})
	}
	if err := x.S.Srv.Opts.Live.Set(pairs); err != nil {
		x.W.Error(err.Error())
		return
	}
	evict := false
	for _, p := range pairs {
		if strings.EqualFold(p[0], "requirepass") {
			// requirepass is the default user's password, as in Redis.
			pass := x.S.Srv.Opts.Live.RequirePass()
			_, _ = x.S.Srv.ACL.Store.Update(func(u *acl.Users) (*acl.Users, error) { return u.WithRequirePass(pass), nil })
		}
		evict = evict || strings.EqualFold(p[0], "maxmemory-clients") || strings.EqualFold(p[0], "maxmemory")
	}
	x.W.OK()
	if evict {
		// A lower limit evicts at once, before the next command runs.
		x.S.Srv.EvictClients()
	}
}

// CONFIG RESETSTAT
func configResetStatCommand(x *keyspace.Ctx) {
	serverResetInfoStats(x.S.Srv)
	x.S.ResetCommandStats()
	x.W.OK()
}

// CONFIG REWRITE: the TOML file is the operator's; the server never
// rewrites it.
func configRewriteCommand(x *keyspace.Ctx) {
	file := x.S.Srv.Opts.Live.ConfigFile()
	if file == "" {
		x.W.Error("ERR The server is running without a config file")
		return
	}
	if x.S.Srv.Opts.Live.ConfigFileFormat() == config.FormatRedis {
		if err := x.S.Srv.Opts.Live.RewriteRedisConf(); err != nil {
			x.S.Srv.Log.Warn("CONFIG REWRITE failed", zap.Error(err))
			x.W.Error("ERR Rewriting config file: " + err.Error())
			return
		}
		x.S.Srv.Log.Info("CONFIG REWRITE executed with success")
		x.W.OK()
		return
	}
	x.W.Error("ERR CONFIG REWRITE is not supported: the configuration file " + file + " belongs to the operator; edit it and restart the server")
}

// CONFIG HELP
func configHelpCommand(x *keyspace.Ctx) {
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
func shutdownCommand(x *keyspace.Ctx) {
	var save, nosave, other, abort bool
	for _, a := range x.Args[1:] {
		switch {
		case keyspace.EqFold(a, "nosave"):
			nosave = true
		case keyspace.EqFold(a, "save"):
			save = true
		case keyspace.EqFold(a, "now"), keyspace.EqFold(a, "force"):
			other = true
		case keyspace.EqFold(a, "abort"):
			abort = true
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	if abort && (save || nosave || other) || save && nosave {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	if abort {
		// A shutdown, once requested, is not abortable.
		x.W.Error("ERR No shutdown in progress.")
		return
	}
	x.S.Logger().Warn("user requested shutdown", zap.Int64("client", x.C.ID))
	x.S.Srv.RequestShutdown()
	if x.Batch != nil {
		x.Batch.CloseAfter = true
	}
}

// DEBUG subcommand [arg ...]
func debugCommand(x *keyspace.Ctx) {
	sub, n := x.Args[1], len(x.Args)
	switch {
	case keyspace.EqFold(sub, "help") && n == 2:
		debugHelp(x)
	case keyspace.EqFold(sub, "sleep") && n == 3:
		// Like Redis's strtod, an unparsable duration is 0.
		secs, _ := parseFloat(x.Args[2])
		if secs > 0 && !math.IsInf(secs, 1) {
			time.Sleep(time.Duration(secs * float64(time.Second)))
			x.S.NowMs = x.S.Srv.Now().UnixMilli()
		}
		x.W.OK()
	case keyspace.EqFold(sub, "set-active-expire") && n == 3:
		v, _ := keyspace.ParseInt(x.Args[2])
		x.S.ActiveExpireOn.Store(v != 0)
		x.W.OK()
	case keyspace.EqFold(sub, "pause-cron") && n == 3:
		// Pauses the clients' cron: query buffer resizing and the
		// periodic maxmemory-clients check (the checks made as a
		// client's memory grows go on, as in Redis).
		v, _ := keyspace.ParseInt(x.Args[2])
		x.S.Srv.ClientsCronPaused.Store(v != 0)
		x.W.OK()
	case keyspace.EqFold(sub, "replybuffer") && n == 4 && (keyspace.EqFold(x.Args[2], "resizing") || keyspace.EqFold(x.Args[2], "peak-reset-time")):
		// Connections have no reply buffer of their own to resize
		// (replies are built in pooled batches; CLIENT LIST shows a
		// fixed rbs): the settings are accepted and change nothing.
		x.W.OK()
	case keyspace.EqFold(sub, "log") && n == 3:
		x.S.Logger().Info("DEBUG LOG: " + string(x.Args[2]))
		x.W.OK()
	case keyspace.EqFold(sub, "change-repl-id") && n == 2:
		// A new history id for this shard's log: its replicas resync in
		// full next time, as Redis's replicas do after a new replid.
		if err := x.S.SetReplID(keyspace.RandomHex(40)); err != nil {
			x.W.Error("ERR " + err.Error())
			return
		}
		x.W.OK()
	case keyspace.EqFold(sub, "object") && n == 3:
		debugObject(x)
	case keyspace.EqFold(sub, "populate") && n >= 3 && n <= 5:
		debugPopulate(x)
	case keyspace.EqFold(sub, "digest") && n == 2:
		debugDigest(x)
	case keyspace.EqFold(sub, "digest-value") && n >= 2:
		debugDigestValue(x)
	default:
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + keyspace.TruncArg(sub) + "'. Try DEBUG HELP.")
	}
}

// DEBUG OBJECT key
func debugObject(x *keyspace.Ctx) {
	if !checkKeySlotOrReply(x, x.Args[2]) {
		return
	}
	// The entry as stored, as Redis's DEBUG OBJECT finds it: a logically expired key a
	// replica still holds (only its primary's deletion removes it) is shown too.
	e := x.DB.Find(x.Args[2])
	if e == nil {
		x.W.Error(keyspace.ErrNoSuchKey)
		return
	}
	// Strings: the size of Redis's RDB encoding (rdblen.go). Native
	// types: the size of their snapshot encoding, this server's analog.
	serialized := rdbStringLen(x.DB.Val(e))
	if sv, ok := x.DB.Obj(e).(keyspace.SnapshotValue); ok {
		serialized = int64(len(sv.AppendSnapshot(nil)))
	}
	b := make([]byte, 0, 128)
	b = append(b, "Value at:0x0 refcount:1 encoding:"...)
	b = append(b, encodingName(x.DB, e)...)
	b = append(b, " serializedlength:"...)
	b = strconv.AppendInt(b, max(serialized, 0), 10)
	b = append(b, " lru:0 lru_seconds_idle:"...)
	b = strconv.AppendInt(b, x.S.IdleSeconds(e), 10)
	x.W.SimpleString(string(b))
}

func debugHelp(x *keyspace.Ctx) {
	writeHelp(x, "DEBUG",
		"CHANGE-REPL-ID",
		"    Change the replication IDs of the instance.",
		"    Dangerous: should be used only for testing the replication subsystem.",
		"DIGEST",
		"    Output a hex signature representing the current DB content.",
		"DIGEST-VALUE <key> [<key> ...]",
		"    Output a hex signature of the values of all the specified keys.",
		"LOG <message>",
		"    Write <message> to the server log.",
		"OBJECT <key>",
		"    Show low level info about `key` and associated value.",
		"POPULATE <count> [<prefix>] [<size>]",
		"    Create <count> string keys <prefix>:<num> (prefix 'key') holding value:<num>,",
		"    padded or cut to <size> bytes; existing keys stay. Written like SET (logged",
		"    and replicated); keys of other shards' slots are left out.",
		"SET-ACTIVE-EXPIRE <0|1>",
		"    Setting it to 0 disables expiring keys in background when they are not",
		"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
		"    default.",
		"SLEEP <seconds>",
		"    Stop the server for <seconds>. Decimals allowed.",
	)
}

// checkKeySlotOrReply replies MOVED and returns false when key belongs to another
// shard, for subcommands whose key positions the dispatcher does not see.
func checkKeySlotOrReply(x *keyspace.Ctx, key []byte) bool {
	if msg := keySlotRefusal(x, key, x.Cmd.Flags&keyspace.FlagWrite != 0); msg != "" {
		x.W.Error(msg)
		return false
	}
	return true
}

// keySlotRefusal is the redirection (MOVED, ...) a command reading or
// writing key on this shard gets, or "" when the shard serves the key.
func keySlotRefusal(x *keyspace.Ctx, key []byte, write bool) string {
	if !x.S.Srv.RoutesSlots() {
		return ""
	}
	return x.S.Srv.SlotRefusal(x.S.Srv.Topology(), cluster.KeySlot(key), x.S.Idx, write, x.C)
}

// RUVIO [OWNER key | HELP]: with no subcommand, the server's name, version
// and number of shards.
func ruvioCommand(x *keyspace.Ctx) {
	if len(x.Args) == 1 {
		x.W.MapHeader(2)
		x.W.BulkString("ruvio")
		x.W.BulkString(keyspace.Version)
		x.W.BulkString("shards")
		x.W.Int(int64(x.S.Srv.Shards()))
		return
	}
	runSubcommand(x, "RUVIO")
}

// RUVIO OWNER key: the slot of key, the shard that owns it and the address
// that shard listens on. Any shard answers for any key.
func ruvioOwnerCommand(x *keyspace.Ctx) {
	topo := x.S.Srv.Topology()
	slot := cluster.KeySlot(x.Args[2])
	n, ok := topo.Owner(slot)
	x.W.MapHeader(3)
	x.W.BulkString("slot")
	x.W.Int(int64(slot))
	x.W.BulkString("shard")
	if ok {
		x.W.Int(int64(n.Shard))
	} else {
		x.W.Int(-1)
	}
	x.W.BulkString("address")
	if ok {
		x.W.BulkString(topo.AddrFor(n, x.C.ReachedHost()))
	} else {
		x.W.Null()
	}
}

// RUVIO HELP
func ruvioHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "RUVIO",
		"(no subcommand)",
		"    Return the server name, its version and the number of shards.",
		"OWNER <key>",
		"    Return the hash slot of <key>, the shard that owns it and its address.",
		"HOTKEYS [<count>|RESET]",
		"    Return the shard's most looked-up keys (default 16), from one lookup in 64:",
		"    key, db, estimated lookups and the estimate's error bound. RESET empties the sample.",
	)
}

// RUVIO HOTKEYS [count|RESET]: the shard's sampled hot keys
// (keyspace/hotkeys.go), most looked up first, each a map of key, db,
// count (estimated lookups) and error (the bound below which the true
// count may lie); any eviction policy.
func ruvioHotkeysCommand(x *keyspace.Ctx) {
	n := 16
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	if len(x.Args) == 3 {
		if keyspace.EqFold(x.Args[2], "reset") {
			x.S.ResetHotKeys()
			x.W.OK()
			return
		}
		c, ok := keyspace.ParseInt(x.Args[2])
		if !ok || c < 1 {
			x.W.Error("ERR count should be a positive integer")
			return
		}
		n = int(min(c, 1<<20))
	}
	hot := x.S.HotKeys(n)
	x.W.ArrayHeader(len(hot))
	for _, h := range hot {
		x.W.MapHeader(4)
		x.W.BulkString("key")
		x.W.BulkString(h.Key)
		x.W.BulkString("db")
		x.W.Int(int64(h.DB))
		x.W.BulkString("count")
		x.W.Int(h.Count)
		x.W.BulkString("error")
		x.W.Int(h.Err)
	}
}

// MEMORY <subcommand>
func memoryCommand(x *keyspace.Ctx) { runSubcommand(x, "MEMORY") }

// entryMemoryUsage is the bytes e takes: its arena allocation (header,
// key and inline value, rounded up to its size class), a value kept
// beside it (a large string's capacity, an object's own estimate from
// samples elements), its index slot and, with a deadline, its place in the
// expiring index.
func entryMemoryUsage(db *keyspace.DB, e *keyspace.Entry, samples int64) int64 {
	n := db.Size(e) + 8
	if e.IsObj() {
		// Measured afresh; between commands the same as the figure
		// used_memory holds for it.
		n += keyspace.MeasureObject(db.Obj(e), samples) - db.A.ObjAcct.Accounted(e.Vlen())
	}
	if e.ExpIdx != 0 {
		n += 4
	}
	return n
}

// MEMORY USAGE key [SAMPLES count]
func memoryUsageCommand(x *keyspace.Ctx) {
	samples := int64(5)
	for i := 3; i < len(x.Args); i++ {
		if !keyspace.EqFold(x.Args[i], "samples") || i+1 >= len(x.Args) {
			x.W.Error(keyspace.ErrSyntax)
			return
		}
		n, ok := keyspace.ParseInt(x.Args[i+1])
		if !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		if n < 0 {
			x.W.Error(keyspace.ErrSyntax)
			return
		}
		samples = n
		i++
	}
	e := x.S.Lookup(x.DB, x.Args[2])
	if e == nil {
		x.W.Null()
		return
	}
	x.W.Int(entryMemoryUsage(x.DB, e, samples))
}

// MEMORY HELP
func memoryHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "MEMORY",
		"DOCTOR",
		"    Return a report of the memory problems this shard's figures show.",
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
func registerServerFamily(t keyspace.CommandTable) {
	const grp = "server"
	stale := keyspace.FlagLoading | keyspace.FlagStale
	admin := keyspace.FlagAdmin | keyspace.FlagNoScript | stale
	t.Add(&keyspace.Command{Name: "time", Arity: 1, Flags: keyspace.FlagLoading | keyspace.FlagStale | keyspace.FlagFast, Group: "server", Since: "2.6.0", Summary: "Returns the server time.", Complexity: "O(1)", Handler: timeCommand, Tips: []string{tipNondeterministic}})
	t.Add(
		commandFamily(),
		aclFamily(),
		&keyspace.Command{Name: "info", Arity: -1, Flags: stale, Group: grp, Categories: []string{"dangerous"}, Since: "1.0.0", Summary: "Returns information and statistics about the server.", Complexity: "O(1)", Handler: infoCommand, Tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
		&keyspace.Command{Name: "config", Arity: -2, Group: grp, Since: "2.0.0", Summary: "A container for server configuration commands.", Complexity: "Depends on subcommand.", Handler: configCommand,
			Subcommands: []*keyspace.Command{
				{Name: "get", Arity: -3, Flags: admin, Group: grp, Since: "2.0.0", Summary: "Returns the effective values of configuration parameters.", Complexity: "O(N) when N is the number of configuration parameters provided", Handler: configGetCommand},
				{Name: "set", Arity: -4, Flags: admin | keyspace.FlagMayReplicate, Group: grp, Since: "2.0.0", Summary: "Sets configuration parameters in-flight.", Complexity: "O(N) when N is the number of configuration parameters provided", Handler: configSetCommand, Tips: []string{tipAllNodes, tipAllSucceeded}},
				{Name: "resetstat", Arity: 2, Flags: admin, Group: grp, Since: "2.0.0", Summary: "Resets the server's statistics.", Complexity: "O(1)", Handler: configResetStatCommand},
				{Name: "rewrite", Arity: 2, Flags: admin, Group: grp, Since: "2.8.0", Summary: "Persists the effective configuration to file.", Complexity: "O(1)", Handler: configRewriteCommand},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "5.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: configHelpCommand},
			}},
		&keyspace.Command{Name: "shutdown", Arity: -1, Flags: admin | keyspace.FlagNoMulti | keyspace.FlagAllowBusy, Group: grp, Since: "1.0.0", Summary: "Synchronously saves the database(s) to disk and shuts down the Redis server.", Complexity: "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)", Handler: shutdownCommand},
		&keyspace.Command{Name: "debug", Arity: -2, Flags: admin, Group: grp, Since: "1.0.0", Summary: "A container for debugging commands.", Complexity: "Depends on subcommand.", Handler: debugCommand},
		&keyspace.Command{Name: "ruvio", Arity: -1, Flags: keyspace.FlagFast | stale, Group: grp, Since: keyspace.Version, Summary: "Returns the server name, version and shard count, or which shard owns a key.", Complexity: "O(1)", Handler: ruvioCommand,
			Subcommands: []*keyspace.Command{
				{Name: "owner", Arity: 3, Flags: keyspace.FlagFast | stale, Group: grp, Since: keyspace.Version, Summary: "Returns the hash slot of a key, the shard that owns it and that shard's address.", Complexity: "O(N) where N is the number of bytes in the key", Handler: ruvioOwnerCommand},
				{Name: "hotkeys", Arity: -2, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | stale, Group: grp, Since: keyspace.Version, Summary: "Returns the shard's most looked-up keys, sampled, or resets the sample.", Complexity: "O(1): the sample holds at most 64 keys", Handler: ruvioHotkeysCommand,
					Tips: []string{tipNondeterministic, tipAllNodes, tipSpecialResponse}},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: keyspace.Version, Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: ruvioHelpCommand},
			}},
		&keyspace.Command{Name: "memory", Arity: -2, Group: grp, Since: "4.0.0", Summary: "A container for memory diagnostics commands.", Complexity: "Depends on subcommand.", Handler: memoryCommand,
			Subcommands: []*keyspace.Command{
				{Name: "usage", Arity: -3, Flags: keyspace.FlagReadOnly, FirstKey: 2, LastKey: 2, Step: 1, Group: grp, Since: "4.0.0", Summary: "Estimates the memory usage of a key.", Complexity: "O(N) where N is the number of samples.", Handler: memoryUsageCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}},
				{Name: "purge", Arity: 2, Group: grp, Since: "4.0.0", Summary: "Asks the allocator to release memory.", Complexity: "Depends on how much memory is allocated, could be slow", Handler: memoryPurgeCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
				{Name: "stats", Arity: 2, Group: grp, Since: "4.0.0", Summary: "Returns details about memory usage.", Complexity: "O(1)", Handler: memoryStatsCommand, Tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
				{Name: "malloc-stats", Arity: 2, Group: grp, Since: "4.0.0", Summary: "Returns the Go runtime allocator's statistics and the shards' arena sizes.", Complexity: "O(1); the runtime briefly stops the world to read its statistics", Handler: memoryMallocStatsCommand, Tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
				{Name: "doctor", Arity: 2, Group: grp, Since: "4.0.0", Summary: "Outputs a memory problems report.", Complexity: "O(1)", Handler: memoryDoctorCommand, Tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "4.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: memoryHelpCommand},
			}},
	)
}
