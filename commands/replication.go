package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/config"
	"go.uber.org/zap"
)

// REPLSYNC shards shard after-sequence history-id: a replica's shard asks
// for the records after its last one (see the replication package); a
// history id other than the shard's means a full resync.
func replsyncCommand(x *keyspace.Ctx) {
	sh := x.S
	shards, ok1 := keyspace.ParseInt(x.Args[1])
	shard, ok2 := keyspace.ParseInt(x.Args[2])
	after, err := strconv.ParseUint(string(x.Args[3]), 10, 64)
	if !ok1 || !ok2 || err != nil {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if n := len(sh.Srv.ShardList); shards != int64(n) {
		x.W.Error(fmt.Sprintf("ERR shard count mismatch: the replica has %d shards and this primary %d; a replica must have as many shards as its primary", shards, n))
		return
	}
	if shard != int64(sh.Idx) {
		x.W.Error(fmt.Sprintf("ERR replica shard %d connected to the port of shard %d", shard, sh.Idx))
		return
	}
	if _, ok := sh.Journal.(*keyspace.WALJournal); !ok || sh.Srv.Opts.Replication == nil {
		x.W.Error("ERR replication needs the write-ahead log (persistence.wal = true)")
		return
	}
	if id := x.C.ReplRunID; id != "" && slices.Contains(sh.RunChain(), id) {
		sh.Logger().Warn("replication: refused a replica that this server replicates from (a replication loop)", zap.String("replica", x.C.RemoteAddr))
		x.W.Error("ERR replication loop: this server is a replica of the server asking to replicate from it")
		return
	}
	if sh.Srv.IsReplica() && !sh.Srv.Link(sh.Idx).Up {
		// As Redis refuses SYNC: a replica serves replicas of its own only
		// while it follows its primary. A server told to replicate from
		// itself, or two replicating from each other, so never come up.
		x.W.Error("NOMASTERLINK Can't SYNC while not connected with my master")
		return
	}
	for _, r := range sh.Repl.Replicas {
		if r.C == x.C {
			x.W.Error("ERR the connection is already a replica link")
			return
		}
	}
	x.C.SetOutputClass(config.OutputReplica)
	x.C.Replica.Store(true)
	sh.Repl.Replicas = append(sh.Repl.Replicas, &keyspace.ReplicaLink{C: x.C, Addr: x.C.RemoteAddr, ListenPort: x.C.ReplPort, AnnounceIP: x.C.ReplIP, NodeID: x.C.ReplNodeID, AckAtMs: sh.NowMs, SinceMs: sh.NowMs})
	sh.PublishReplicas()
	j := sh.Journal.(*keyspace.WALJournal)
	if string(x.Args[4]) != j.ReplID {
		after = fullResync
	}
	sh.Srv.Opts.Replication.Serve(sh.Idx, after, keyspace.ClientStream{C: x.C})
	// No reply: the stream's frames follow on the connection.
}

// fullResync as the sequence a replica resumes after asks for a snapshot.
const fullResync = ^uint64(0)

// REPLCONF option value [option value ...]: ACK <sequence> from a
// replica (no reply), LISTENING-PORT and CAPA (+OK).
func replconfCommand(x *keyspace.Ctx) {
	if len(x.Args)%2 == 0 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	sh := x.S
	answer := false
	for i := 1; i < len(x.Args); i += 2 {
		opt, val := strings.ToLower(string(x.Args[i])), x.Args[i+1]
		switch opt {
		case "ack":
			seq, err := strconv.ParseUint(string(val), 10, 64)
			if err != nil {
				return
			}
			for _, r := range sh.Repl.Replicas {
				if r.C == x.C {
					if seq > r.Ack {
						r.Ack = seq
					}
					r.AckAtMs = sh.NowMs
					if len(sh.Repl.Waits) > 0 {
						sh.Repl.Due.Store(true)
						// Run inline by a reactor, the ACK must still wake the
						// loop that finishes the WAITs.
						sh.Ring.Signal()
					}
					sh.PublishReplicas()
				}
			}
			return // ACK never replies
		case "getack":
			return
		case "listening-port":
			p, ok := keyspace.ParseInt(val)
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			x.C.ReplPort = int(p)
			for _, r := range sh.Repl.Replicas {
				if r.C == x.C {
					r.ListenPort = int(p)
				}
			}
		case "ip-address":
			x.C.ReplIP = string(val)
			for _, r := range sh.Repl.Replicas {
				if r.C == x.C {
					r.AnnounceIP = string(val)
				}
			}
		case "ruvio-node-id":
			// The replica shard's node id, for CLUSTER SHARDS and NODES.
			x.C.ReplNodeID = string(val)
		case "ruvio-run-id":
			// The replica's run id; the answer is this shard's chain
			// (replication package), which the replica checks for itself.
			x.C.ReplRunID = string(val)
			answer = true
		case "capa", "rdb-only":
		default:
			x.W.Error("ERR Unrecognized REPLCONF option: " + string(x.Args[i]))
			return
		}
	}
	if answer {
		x.W.SimpleString(strings.Join(sh.RunChain(), " "))
		return
	}
	x.W.OK()
}

// waitTimeout parses the millisecond timeout of WAIT and WAITAOF,
// replying Redis's error when it is not a non-negative integer.
func waitTimeout(x *keyspace.Ctx, arg []byte) (int64, bool) {
	timeout, ok := keyspace.ParseInt(arg)
	if !ok {
		x.W.Error("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if timeout < 0 {
		x.W.Error(keyspace.ErrNegTimeout)
		return 0, false
	}
	return timeout, true
}

// WAIT numreplicas timeout: parks the calling client until numreplicas
// replicas of the shard acknowledged the shard's last sequence as durable,
// or timeout milliseconds passed (0: forever); replies how many did.
//
// WAIT parks with the blocking facility (blocking.go) rather than a
// mechanism of its own: a WAIT is a blocked client with no keys, so it
// gets the same resume point in its batch, the same holding of the
// client's later batches, deadlines on the shard timer, CLIENT UNBLOCK
// (TIMEOUT replies the count so far, ERROR the UNBLOCKED error, as Redis
// 7.0), disconnect handling, INFO blocked_clients and CLIENT LIST's flag
// b. What differs is only what wakes it: no key is ever ready for it;
// an acknowledgement sets repl.due and resumeWaits checks the parked
// WAITs, unblocking those whose count is reached.
func waitCommand(x *keyspace.Ctx) {
	want, ok := keyspace.ParseInt(x.Args[1])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	timeout, ok := waitTimeout(x, x.Args[2])
	if !ok {
		return
	}
	sh := x.S
	if sh.Srv.IsReplica() {
		x.W.Int(0)
		return
	}
	target := sh.ReplOffset()
	n := sh.AckedAtLeast(target)
	if int64(n) >= want || x.NoBlock || x.Batch == nil {
		x.W.Int(int64(n))
		return
	}
	deadline := int64(0)
	if timeout > 0 {
		deadline = sh.NowMs + timeout
		if deadline < sh.NowMs {
			deadline = math.MaxInt64
		}
	}
	x.Block(keyspace.BlockSpec{
		DeadlineMs: deadline,
		// Timeout (and CLIENT UNBLOCK TIMEOUT) replies the count so far.
		Timeout: func(x *keyspace.Ctx) { keyspace.WaitReply(x, x.S.AckedAtLeast(target)) },
		// No key is ever ready for a WAIT: resumeWaits wakes it.
		Serve:    func(*keyspace.Ctx, []byte) bool { return false },
		HandOver: func(b *keyspace.Batch) bool { return sh.DeliverNow(b, target) },
	})
	if x.C.Blk == nil {
		return // a closed client: Block replied at once
	}
	// Entries of WAITs that ended otherwise go first: without ACKs
	// (no replica) resumeWaits would never drop them.
	sh.Repl.Waits = sh.LiveWaits()
	sh.Repl.Waits = append(sh.Repl.Waits, keyspace.WaitReq{Bc: x.C.Blk, Want: int(want), Target: target})
}

// WAITAOF numlocal numreplicas timeout (Redis 7.2): parks the calling
// client until this shard's log is fsynced through the shard's last
// sequence (numlocal 1) and numreplicas replicas acknowledged it on their
// disks, or timeout milliseconds passed (0: forever); replies [local,
// replicas]. The last sequence covers the client's last write (and any
// written after it by others). WAIT's parking serves it; a WAITAOF waiting
// for the local fsync is looked at again on each tick of the shard.
// Under fsync no the server never fsyncs the log by itself, so numlocal 1
// gets Redis's error for appendonly no.
func waitaofCommand(x *keyspace.Ctx) {
	numLocal, ok := keyspace.ParseInt(x.Args[1])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if numLocal < 0 || numLocal > 1 {
		x.W.Error("ERR value is out of range, value must between 0 and 1")
		return
	}
	want, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if want < 0 {
		x.W.Error("ERR value is out of range, must be positive")
		return
	}
	timeout, ok := waitTimeout(x, x.Args[3])
	if !ok {
		return
	}
	sh := x.S
	if sh.Srv.IsReplica() {
		x.W.Error("ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.")
		return
	}
	if numLocal > 0 && sh.LocalFsyncOff() {
		x.W.Error("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")
		return
	}
	target := sh.ReplOffset()
	local, n := sh.LocalSynced(target), sh.AckedAtLeast(target)
	if (int64(n) >= want && (local || numLocal == 0)) || x.NoBlock || x.Batch == nil {
		keyspace.WaitAOFReply(x, local, n)
		return
	}
	deadline := int64(0)
	if timeout > 0 {
		deadline = sh.NowMs + timeout
		if deadline < sh.NowMs {
			deadline = math.MaxInt64
		}
	}
	x.Block(keyspace.BlockSpec{
		DeadlineMs: deadline,
		Timeout: func(x *keyspace.Ctx) {
			keyspace.WaitAOFReply(x, x.S.LocalSynced(target), x.S.AckedAtLeast(target))
		},
		Serve:    func(*keyspace.Ctx, []byte) bool { return false },
		HandOver: func(b *keyspace.Batch) bool { return sh.DeliverNow(b, target) },
	})
	if x.C.Blk == nil {
		return
	}
	sh.Repl.Waits = sh.LiveWaits()
	sh.Repl.Waits = append(sh.Repl.Waits, keyspace.WaitReq{Bc: x.C.Blk, Want: int(want), Target: target, AOF: true, Local: numLocal > 0})
}

// REPLICAOF host port | REPLICAOF NO ONE (and SLAVEOF).
func replicaofCommand(x *keyspace.Ctx) {
	sh := x.S
	srv := sh.Srv
	if srv.ClusterAcrossHosts() {
		// The control plane decides who follows whom.
		x.W.Error("ERR REPLICAOF not allowed in cluster mode.")
		return
	}
	host, portArg := string(x.Args[1]), string(x.Args[2])
	if strings.EqualFold(host, "no") && strings.EqualFold(portArg, "one") {
		if srv.BecomePrimary(true) {
			sh.Logger().Info("REPLICAOF NO ONE: this process is a primary now")
		}
		x.W.OK()
		return
	}
	port, ok := keyspace.ParseInt(x.Args[2])
	if !ok || port < 0 || port > 65535 {
		x.W.Error("ERR Invalid master port")
		return
	}
	// Shard i of a replica follows shard i of the primary, which listens
	// on the primary's shard 0 port + i: sent to shard i, the port named
	// is the primary's shard i, so every shard follows its counterpart
	// whichever port the operator reached.
	base := int(port) - sh.Idx
	if base < 0 {
		x.W.Error(fmt.Sprintf("ERR Invalid master port: this is shard %d, so %d must be the port of the primary's shard %d, and its shard 0 would be at %d", sh.Idx, port, sh.Idx, base))
		return
	}
	if srv.Opts.Replication == nil {
		x.W.Error("ERR replication needs the write-ahead log (persistence.wal = true)")
		return
	}
	// As Redis does on a new primary, the replicas of this process are
	// disconnected: they reconnect and learn the new chain of primaries
	// (and a loop back to them is refused at their handshake).
	changed, err := srv.BecomeReplica(host, base)
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	if !changed {
		x.W.SimpleString("OK Already connected to specified master")
		return
	}
	sh.Logger().Info("REPLICAOF: following a primary", zap.String("primary", net.JoinHostPort(host, portArg)),
		zap.Int("shard", sh.Idx), zap.String("primary_shard_0", net.JoinHostPort(host, strconv.Itoa(base))))
	x.W.OK()
}

// ROLE: a primary shard reports its sequence and its replicas; a replica
// the primary's address, its link state and its own sequence.
func roleCommand(x *keyspace.Ctx) {
	sh := x.S
	if sh.Srv.IsReplica() {
		host, port := sh.Srv.PrimaryAddr()
		x.W.ArrayHeader(5)
		x.W.BulkString("slave")
		x.W.BulkString(host)
		x.W.Int(int64(port + sh.Idx))
		x.W.BulkString(linkState(sh.Srv.Link(sh.Idx)))
		x.W.Int(int64(sh.ReplOffset()))
		return
	}
	rs := sh.LiveReplicas()
	x.W.ArrayHeader(3)
	x.W.BulkString("master")
	x.W.Int(int64(sh.ReplOffset()))
	x.W.ArrayHeader(len(rs))
	for _, r := range rs {
		host, port := r.HostPort()
		x.W.ArrayHeader(3)
		x.W.BulkString(host)
		x.W.BulkString(port)
		x.W.BulkString(strconv.FormatUint(r.Ack, 10))
	}
}

func linkState(l keyspace.LinkStatus) string {
	switch {
	case l.Up:
		return "connected"
	case l.Syncing:
		return "sync"
	}
	return "connect"
}

func infoReplication(x *keyspace.Ctx, ib *infoBuilder) {
	sh := x.S
	backlog, _ := sh.Srv.Opts.Live.Value("repl-backlog-size")
	off := sh.ReplOffset()
	if sh.Srv.IsReplica() {
		host, port := sh.Srv.PrimaryAddr()
		l := sh.Srv.Link(sh.Idx)
		ib.str("role", "slave")
		ib.str("master_host", host)
		ib.int("master_port", int64(port+sh.Idx))
		if l.Up {
			ib.str("master_link_status", "up")
		} else {
			ib.str("master_link_status", "down")
		}
		lastIO := int64(-1)
		if !l.LastIO.IsZero() {
			lastIO = int64(sh.Srv.Now().Sub(l.LastIO) / time.Second)
		}
		ib.int("master_last_io_seconds_ago", lastIO)
		ib.int("master_sync_in_progress", int64(boolInt(l.Syncing)))
		ib.int("slave_read_repl_offset", int64(off))
		ib.int("slave_repl_offset", int64(off))
		ib.int("ruvio_master_durable_sequence", int64(l.PrimarySequence))
		ib.int("ruvio_durable_sequence", int64(sh.Srv.DurableSequence(sh.Idx)))
		if !l.Up && !l.DownSince.IsZero() {
			ib.int("master_link_down_since_seconds", int64(sh.Srv.Now().Sub(l.DownSince)/time.Second))
		}
		ib.int("slave_priority", sh.Srv.Opts.Live.ReplicaPriority())
		ib.int("slave_read_only", int64(boolInt(sh.Srv.Opts.Live.ReplicaReadOnly())))
		ib.int("replica_announced", int64(boolInt(sh.Srv.Opts.Live.ReplicaAnnounced())))
		ib.int("connected_slaves", int64(len(sh.LiveReplicas())))
	} else {
		ib.str("role", "master")
		rs := sh.LiveReplicas()
		ib.int("connected_slaves", int64(len(rs)))
		if min := sh.Srv.Opts.Live.MinReplicasToWrite(); min > 0 {
			ib.int("min_slaves_good_slaves", sh.GoodReplicas())
		}
		for i, r := range rs {
			host, port := r.HostPort()
			ib.str("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%s,state=online,offset=%d,lag=%d,ruvio_seq_lag=%d",
				host, port, r.Ack, (sh.NowMs-r.AckAtMs)/1000, off-min(off, r.Ack)))
		}
	}
	// Synchronous replication: the replicas each reply waits for, the
	// replies waiting now, and those dropped at sync_timeout_ms.
	ib.int("sync_replicas", int64(sh.Srv.Opts.Live.SyncReplicas()))
	ib.int("sync_held_replies", sh.SyncHeldReplies())
	ib.int("sync_timeouts", sh.SyncTimeouts())
	ib.str("master_failover_state", "no-failover")
	ib.str("master_replid", sh.Srv.ReplID(sh.Idx))
	ib.str("master_replid2", strings.Repeat("0", 40))
	ib.int("master_repl_offset", int64(off))
	ib.int("second_repl_offset", -1)
	ib.int("repl_backlog_active", 0)
	ib.str("repl_backlog_size", backlog)
	ib.int("repl_backlog_first_byte_offset", 0)
	ib.int("repl_backlog_histlen", 0)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// registerReplicationCommands registers ROLE, WAIT, REPLICAOF, SLAVEOF,
// REPLCONF and REPLSYNC.
func registerReplicationCommands(t keyspace.CommandTable) {
	t.Add(
		&keyspace.Command{Name: "role", Arity: 1, Flags: keyspace.FlagNoScript | keyspace.FlagLoading | keyspace.FlagStale | keyspace.FlagFast, Group: "server", Categories: []string{"admin", "dangerous"}, Since: "2.8.12", Summary: "Returns the replication role.", Complexity: "O(1)", Handler: roleCommand},
		&keyspace.Command{Name: "waitaof", Arity: 4, Flags: keyspace.FlagNoScript, Group: "generic", Categories: []string{"connection"}, Since: "7.2.0", Summary: "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.", Complexity: "O(1)", Handler: waitaofCommand, Tips: []string{tipAllShards, tipAggMin}},
		&keyspace.Command{Name: "wait", Arity: 3, Flags: keyspace.FlagNoScript, Group: "generic", Categories: []string{"connection"}, Since: "3.0.0", Summary: "Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed.", Complexity: "O(1)", Handler: waitCommand, Tips: []string{tipAllShards, tipAggMin}},
		&keyspace.Command{Name: "replicaof", Arity: 3, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagStale | keyspace.FlagNoAsyncLoading, Group: "server", Since: "5.0.0", Summary: "Configures a server as replica of another, or promotes it to a master.", Complexity: "O(1)", Handler: replicaofCommand},
		&keyspace.Command{Name: "slaveof", Arity: 3, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagStale | keyspace.FlagNoAsyncLoading, Group: "server", Since: "1.0.0", Summary: "Sets a Redis server as a replica of another, or promotes it to being a master.", Complexity: "O(1)", Handler: replicaofCommand},
		&keyspace.Command{Name: "replconf", Arity: -1, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagLoading | keyspace.FlagStale | keyspace.FlagAllowBusy, Group: "server", Since: "3.0.0", Summary: "An internal command for configuring the replication stream.", Complexity: "O(1)", Handler: replconfCommand},
		&keyspace.Command{Name: "replsync", Arity: 5, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagNoMulti | keyspace.FlagStale, Group: "server", Since: "0.1.0", Summary: "Starts the replication stream of a shard for a replica (the replication package's protocol).", Complexity: "O(1)", Handler: replsyncCommand},
	)
}
