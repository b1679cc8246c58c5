package keyspace

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"go.uber.org/zap"
)

// Per-item overheads of a client's memory accounting, in bytes, beside the
// bytes of the names and arguments themselves: what each entry costs in the
// structures that hold it (a slice header, a map entry and its pointers),
// rounded, as Redis counts list nodes and dict entries.
const (
	// clientFixedMem is the client's own structures.
	clientFixedMem = int64(unsafe.Sizeof(Client{})) + 512
	// ArgMem is one argument's slice header (argv-mem, multi-mem).
	ArgMem = 24
	// queuedCmdMem is one command queued by MULTI (queuedCmd and its
	// argument list).
	queuedCmdMem = int64(unsafe.Sizeof(queuedCmd{})) + 24
	// watchedKeyMem is one watched key (WatchedKey, its entries in the
	// client's list and the shard's table).
	watchedKeyMem = int64(unsafe.Sizeof(WatchedKey{})) + 48
	// subscriptionMem is one channel or pattern subscription (the
	// client's list and the shard's table).
	subscriptionMem = 64
	// trackPrefixMem is one CLIENT TRACKING BCAST prefix.
	trackPrefixMem = 64
	// outputBlockSize is the block size obl and oll describe pending
	// output in (Redis's PROTO_REPLY_CHUNK_BYTES). The first block is the
	// client's reply buffer, counted in tot-mem whether or not it holds
	// anything, as Redis counts a client's static reply buffer
	// (buf_usable_size; CLIENT LIST rbs): a reply that fits in it does
	// not change the client's memory, only output beyond it (omem) does.
	outputBlockSize = 16 * 1024
)

// clientMem is a client's memory accounting beside its query buffer and
// output meter: counters each written by the goroutine that changes what
// they count and read by any (CLIENT LIST, INFO, client eviction).
type clientMem struct {
	// argv is the bytes of batches handed to the shard and not run yet
	// (Batch.ArgvMem): added by the reactor, taken back by the shard
	// when it starts the batch. They count as query buffer bytes (where
	// Redis still holds a command it has read and not run), within the
	// buffer's room when they fit, beyond it when they do not.
	argv atomic.Int64
	// multi is the commands queued by MULTI; watch the watched keys;
	// subs the Pub/Sub subscriptions; track the tracking prefixes. Shard
	// goroutine.
	multi, watch, subs, track atomic.Int64
	// reported is the usage last added to Server's total (clientEvictor).
	reported atomic.Int64
	// noEvict is CLIENT NO-EVICT.
	noEvict atomic.Bool
}

// AddArgvMem records n bytes of arguments handed to the shard (negative:
// taken back). Any goroutine.
func (c *Client) AddArgvMem(n int64) { c.mem.argv.Add(n) }

// NoteWatchedKey records a key added to the client's watched keys (WATCH);
// shard goroutine.
func (c *Client) NoteWatchedKey(key string) { c.mem.watch.Add(int64(len(key)) + watchedKeyMem) }

// SetNoEvict is CLIENT NO-EVICT on|off.
func (c *Client) SetNoEvict(on bool) { c.mem.noEvict.Store(on) }

// NoEvict reports CLIENT NO-EVICT on.
func (c *Client) NoEvict() bool { return c.mem.noEvict.Load() }

// ClientMemory is a client's memory as CLIENT LIST shows it, in bytes.
type ClientMemory struct {
	Qbuf, QbufFree    int64 // query buffer: bytes waiting, and free room
	ArgvMem           int64 // arguments parsed and not run yet
	MultiMem          int64 // MULTI's queued commands and the watched keys
	Obl, Oll, Omem    int64 // output: first block's bytes, further blocks, their bytes
	Total             int64 // tot-mem: all of the above and the client's own structures
	PubsubAndTracking int64 // subscriptions and tracking prefixes (part of Total)
}

// Memory returns the client's memory accounting; running is the size of
// the request data of a batch of c being run when c is the caller (its
// bytes count in the query buffer and as arguments, as in Redis).
//
// As in Redis, bytes that fit in room the client holds anyway do not
// change its tot-mem: commands read and not run yet (batches on their way
// to the shard) sit in the query buffer's room, and pending replies up to
// outputBlockSize in the reply buffer, which is always counted. So a
// client's own small requests and replies do not move the total that
// maxmemory-clients is checked against while they pass through.
func (c *Client) Memory(running int) ClientMemory {
	var m ClientMemory
	used, free, _ := c.queryBuffer(running + int(c.mem.argv.Load()))
	m.Qbuf, m.QbufFree = int64(used), int64(free)
	m.ArgvMem = int64(running)
	m.MultiMem = c.mem.multi.Load() + c.mem.watch.Load()
	pending := c.Out.Pending()
	// Pending output as Redis lays it out: the reply buffer, then a list
	// of blocks whose bytes omem counts.
	m.Obl = min(pending, outputBlockSize)
	if rest := pending - m.Obl; rest > 0 {
		m.Oll = (rest + outputBlockSize - 1) / outputBlockSize
		m.Omem = rest
	}
	m.PubsubAndTracking = c.mem.subs.Load() + c.mem.track.Load()
	m.Total = clientFixedMem + m.Qbuf + m.QbufFree + m.ArgvMem + m.MultiMem + m.PubsubAndTracking + outputBlockSize + m.Omem
	return m
}

// MemUsage is the client's tot-mem outside its own commands.
func (c *Client) MemUsage() int64 { return c.Memory(0).Total }

// clientEvictor enforces maxmemory-clients: total is the sum of the last
// usage reported by every evictable-class client (Client.mem.reported),
// kept by deltas so that a change is checked in O(1); an eviction run
// recounts every client before it decides.
type clientEvictor struct {
	mu    sync.Mutex
	total atomic.Int64
	// warned is set once the over-the-limit warning is logged, until the
	// total is under the limit again.
	warned bool
}

// counted is the usage c contributes to the client total: normal and
// Pub/Sub clients count, a replica's stream does not (as in Redis).
func (c *Client) counted() int64 {
	if c.Replica.Load() {
		return 0
	}
	return c.MemUsage()
}

// syncMem folds c's current usage into the total and returns the total,
// and whether c's usage grew.
func (s *Server) syncMem(c *Client) (int64, bool) {
	m := c.counted()
	old := c.mem.reported.Swap(m)
	t := s.evictor.total.Add(m - old)
	if c.isClosed() {
		// Detached meanwhile: take back what this call added.
		return s.evictor.total.Add(-c.mem.reported.Swap(0)), false
	}
	return t, m > old
}

// forgetMem takes a detached client out of the total.
func (s *Server) forgetMem(c *Client) { s.evictor.total.Add(-c.mem.reported.Swap(0)) }

// NoteClientMemory is called where a client's memory may have grown (a
// read into its query buffer, replies or pushes queued for it, a batch of
// its commands run): with maxmemory-clients set, its usage is folded into
// the total and, when that growth leaves the total at or over the limit,
// clients are evicted. A client whose usage did not grow cannot be what
// brought the total there, so it does not start an eviction run (a run
// recounts every client): a total held over the limit by NO-EVICT clients
// costs a recount only when usage grows, and the cron's. With the limit
// off it costs one atomic load. Any goroutine.
func (s *Server) NoteClientMemory(c *Client) {
	limit := s.Opts.Live.MaxMemoryClients()
	if limit <= 0 {
		return
	}
	if t, grew := s.syncMem(c); grew && t >= limit {
		s.EvictClients()
	}
}

// EvictClients recounts every client's memory and, while the total of
// normal and Pub/Sub clients is at or over maxmemory-clients, disconnects
// the largest evictable one (not CLIENT NO-EVICT, not a replica), as CLIENT
// KILL does, logging each and counting it in INFO's evicted_clients. It
// returns the number evicted. As in Redis, when the CLIENT NO-EVICT
// clients alone hold more than the limit every evictable client goes (and
// one warning is logged); a closed client holds nothing, since its close
// takes it out of the total at once (detach). CONFIG SET of
// maxmemory-clients or maxmemory runs it at once; the cron and
// NoteClientMemory run it as memory grows.
func (s *Server) EvictClients() int {
	limit := s.Opts.Live.MaxMemoryClients()
	if limit <= 0 {
		return 0
	}
	e := &s.evictor
	e.mu.Lock()
	defer e.mu.Unlock()
	clients := s.Clients()
	type sized struct {
		c   *Client
		mem int64
	}
	var cands []sized
	total := int64(0)
	for _, c := range clients {
		total, _ = s.syncMem(c)
		if !c.NoEvict() && !c.Replica.Load() && !c.Killed() {
			cands = append(cands, sized{c, c.mem.reported.Load()})
		}
	}
	if total < limit {
		e.warned = false
		return 0
	}
	slices.SortStableFunc(cands, func(a, b sized) int { return cmp.Compare(b.mem, a.mem) })
	n := 0
	for _, k := range cands {
		if e.total.Load() < limit {
			break
		}
		if !k.c.Kill() {
			continue // cut off by another path (output limit, CLIENT KILL)
		}
		s.Stats.EvictedClients.Add(1)
		n++
		s.Log.Info("evicting client: maxmemory-clients reached",
			zap.Int64("id", k.c.ID), zap.String("remote", k.c.RemoteAddr), zap.String("name", k.c.Name()),
			zap.Int64("tot_mem", k.mem), zap.Int64("clients_mem", e.total.Load()), zap.Int64("limit", limit))
		s.detach(k.c)
		if k.c.Conn != nil {
			_ = k.c.Conn.Close()
		}
	}
	if e.total.Load() >= limit && !e.warned {
		e.warned = true
		s.Log.Warn("over maxmemory-clients after evicting every evictable client",
			zap.Int64("clients_mem", e.total.Load()), zap.Int64("limit", limit))
	}
	return n
}

// ClientsMemory is INFO memory's mem_clients_normal (normal and Pub/Sub
// clients) and mem_clients_slaves (replica streams).
func (s *Server) ClientsMemory() (normal, replicas int64) {
	for _, c := range s.Clients() {
		if c.Replica.Load() {
			replicas += c.MemUsage()
		} else {
			normal += c.MemUsage()
		}
	}
	return normal, replicas
}
