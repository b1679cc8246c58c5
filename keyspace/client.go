package keyspace

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/codec"
)

// Conn is the connection side a client needs: closing it from any goroutine.
type Conn interface {
	Close() error
}

// Client is the state of one connection. ID to Created are set when the
// connection opens and never change; the other fields are owned by the
// client's shard goroutine unless their comment says otherwise: the ones
// other goroutines read (CLIENT LIST, idle timeout) are atomics or guarded
// by mu.
type Client struct {
	ID         int64     // CLIENT ID, unique in the process
	Shard      int       // index of the shard that runs the connection
	RemoteAddr string    // the peer's address (CLIENT LIST addr=)
	LocalAddr  string    // the local address (CLIENT LIST laddr=)
	Conn       Conn      // the connection, to close it
	Created    time.Time // when the connection opened
	TLS        bool      // the connection is over TLS (CLUSTER SLOTS answers with TLS ports)

	// DB is the selected database; SelectDB changes it.
	DB int
	// Proto is the RESP version the connection speaks: 2, or 3 after
	// HELLO 3.
	Proto int
	// ReadOnly is set by READONLY: in a cluster across hosts, a replica
	// serves the connection's reads of its group's slots.
	ReadOnly bool
	// asking is set by ASKING (SetAsking) and askingNext while ASKING was
	// the last top-level command: see Asking.
	asking, askingNext bool
	// Authenticated is set once the connection has authenticated, or
	// from the start when the server needs no authentication.
	Authenticated bool
	// ACLUser is the user the connection runs as, as found in the
	// snapshot ACLUsers; nil when that user was deleted or turned off.
	// checkACL finds it again whenever the snapshot changes.
	ACLUser *acl.User
	// ACLUsers is the ACL snapshot ACLUser was found in.
	ACLUsers *acl.Users
	// FamilyState is the state the command families keep for this
	// connection (package commands: what CHANGES remembers of the notes
	// its user may not read). The engine never reads it; shard goroutine
	// only.
	FamilyState any
	// ReplyMode holds the CLIENT REPLY flags (ReplyOff, ReplySkipNext,
	// replySkip); 0 is CLIENT REPLY ON.
	ReplyMode uint8

	// db mirrors DB for other goroutines.
	db atomic.Int32
	// lastActive is the unix nanosecond time of the last command.
	lastActive atomic.Int64
	// lastCmd is the name of the last command run.
	lastCmd atomic.Pointer[string]
	// userName is ACLUser's name, for CLIENT LIST and the ACL commands
	// of other shards.
	userName atomic.Pointer[string]
	// Monitor is set while the client is in MONITOR mode.
	Monitor atomic.Bool
	// killed is set once the client is cut off; see Kill.
	killed atomic.Bool

	// subs is the client's Pub/Sub subscriptions, nil until the first;
	// guarded by its shard's pubsub mutex. SubCount counts them all and
	// subN those of each kind (written by the shard goroutine).
	subs     *clientSubs
	SubCount atomic.Int32 // the number of subscriptions, every kind
	subN     [3]atomic.Int32
	// queued is the client's last batch added to its shard's commit group
	// numbered queuedGen: frames for the client go after its replies while
	// that group is still being built. Shard goroutine only.
	queued    *Batch
	queuedGen uint64
	// pushBuf collects frames for the client during a drain (Shard.deliver);
	// pushHint is the capacity to give it, from the last drain's frames.
	// Shard goroutine only.
	pushBuf  []byte
	pushHint int
	// Trk is the CLIENT TRACKING mode, nil when off; shard goroutine only.
	Trk *ClientTracking
	// trkFlags and trkRedir mirror trk for CLIENT LIST (trackFlag*).
	trkFlags atomic.Int32
	trkRedir atomic.Int64
	// undelivered counts the client's batches queued in commit groups
	// whose replies are not handed to the connection yet: a finished WAIT
	// may skip the commit group only when none is (replication.go).
	undelivered atomic.Int32
	// ReplPort is the port a replica announced (REPLCONF listening-port).
	ReplPort int
	// ReplIP is the address a replica announced (REPLCONF ip-address).
	ReplIP string
	// Replica is set once the connection streams a shard's log to a
	// replica (REPLSYNC): CLIENT KILL TYPE replica matches it, normal not.
	Replica atomic.Bool
	// ReplNodeID is the node id a replica announced (REPLCONF).
	ReplNodeID string
	// ReplRunID is the run id a replica announced (REPLCONF
	// ruvio-run-id), to refuse a replication loop.
	ReplRunID string
	// Blk is the client's wait while it is parked, by a blocking command,
	// WAIT or a CLIENT PAUSE (blocking.go); shard goroutine only. Blocked
	// mirrors it for CLIENT LIST and CLIENT UNBLOCK of other shards.
	Blk     *blockedClient
	Blocked atomic.Bool // Blk is set
	// blockTimed is set while the wait has a deadline (INFO
	// clients_in_timeout_table).
	blockTimed atomic.Bool
	// Postponed is set while the wait is a CLIENT PAUSE's (blocked is
	// set too), which CLIENT UNBLOCK does not end.
	Postponed atomic.Bool
	// OffLoop is set while the wait is for work off the shard goroutine
	// (offloop.go; blocked is set too), which CLIENT UNBLOCK does not end.
	OffLoop atomic.Bool

	// Out counts the reply bytes not in the socket yet.
	Out OutputMeter
	// Tx is the MULTI/WATCH state (multi.go).
	Tx txState
	// MultiCount is the number of queued commands in MULTI, -1 outside;
	// DirtyCAS mirrors Tx.DirtyCAS; both for CLIENT LIST.
	MultiCount atomic.Int32
	DirtyCAS   atomic.Bool // a watched key changed (mirror of Tx.DirtyCAS)

	mu      sync.Mutex // guards the fields below
	name    string
	libName string
	libVer  string
	// closed is set once the connection is gone or cut off (detach):
	// nothing registers the client again.
	closed bool

	// qmu guards the query buffer model below, written by the
	// connection's reactor and by the resize cron.
	qmu sync.Mutex
	qb  queryBuf

	// mem is the rest of the client's memory accounting (clientmem.go).
	mem clientMem
}

// CLIENT REPLY flags.
const (
	ReplyOff      uint8 = 1 << iota // CLIENT REPLY OFF: no replies at all
	ReplySkipNext                   // CLIENT REPLY SKIP: skip the next command's reply
	replySkip                       // the running command's reply is skipped
)

// ReachedHost is the host of the local address the client's connection
// reached ("" for a Unix socket or a client without a connection): where
// a client is told to find this process's shards when they listen on a
// wildcard address (cluster.Topology.HostFor).
func (c *Client) ReachedHost() string {
	if c == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(c.LocalAddr)
	if err != nil {
		return ""
	}
	return host
}

// startReply runs before a command of a client whose reply mode is not ON:
// a SKIP given by the previous command applies to this one.
func (c *Client) startReply() {
	if c.ReplyMode&ReplySkipNext != 0 {
		c.ReplyMode = c.ReplyMode&^ReplySkipNext | replySkip
	}
}

// afterReply drops the reply a command appended from before on when the
// client asked not to get it, and ends a one-command SKIP.
func (c *Client) afterReply(w *codec.Writer, before int) {
	if c.ReplyMode&(ReplyOff|replySkip) != 0 && len(w.Buf) > before {
		w.Buf = w.Buf[:before]
	}
	c.ReplyMode &^= replySkip
}

// Query buffer sizes of Redis's networking layer, which the query buffer
// model below follows so that CLIENT LIST's qbuf and qbuf-free mean what
// they mean in Redis.
const (
	// ProtoIOBufLen is how much room each read makes (PROTO_IOBUF_LEN).
	ProtoIOBufLen = 16 * 1024
	// protoResizeThreshold is the capacity above which an active client's
	// buffer shrinks to its recent peak (PROTO_RESIZE_THRESHOLD).
	protoResizeThreshold = 32 * 1024
)

// queryBuf models a Redis client's query buffer from what the reactor
// sees: the bytes waiting to be parsed (len, big arguments' bytes
// included), the room the buffer has for the rest (capacity: grown to fit
// every read, at least ProtoIOBufLen, shrunk by the resize cron), the
// largest size needed since the last cron run, and the buffers of big
// arguments in progress, allocated at their declared length (bigAlloc, of
// which bigRecv bytes have arrived), as Redis reads a big argument into a
// buffer of its final size.
type queryBuf struct {
	len, capacity, peak int
	bigAlloc, bigRecv   int
}

// NoteQueryBuffer records a read: buffered bytes (not counting those read
// into big argument buffers) were available to parse and pending bytes
// are left over (an incomplete command), bigRecv of them in big argument
// buffers that hold bigAlloc bytes; bigDone, when not 0, is the length of
// the largest big argument the read completed. Called by the connection's
// reactor.
func (c *Client) NoteQueryBuffer(buffered, pending, bigAlloc, bigRecv, bigDone int) {
	need := max(buffered, pending-bigRecv, ProtoIOBufLen)
	c.qmu.Lock()
	q := &c.qb
	q.capacity = max(q.capacity, need)
	if bigDone > 0 {
		// Redis hands a finished big argument's buffer to the command and
		// gives the client a new query buffer of the argument's size (and
		// its CRLF), which the resize cron shrinks to the recent peak
		// later; the peak is not raised.
		q.capacity = max(q.capacity, bigDone+2)
	}
	q.peak = max(q.peak, need)
	q.len = pending
	q.bigAlloc, q.bigRecv = bigAlloc, bigRecv
	c.qmu.Unlock()
}

// ResizeQueryBuffer is Redis's clientsCronResizeQueryBuffer: a buffer that
// wastes more than 4 KiB is freed when the client has been idle for more
// than two seconds, or shrunk to its recent peak when it is above the
// resize threshold and more than twice that peak. The peak then restarts
// from the bytes waiting. now is unix nanoseconds.
func (c *Client) ResizeQueryBuffer(now int64) {
	idle := (now - c.lastActive.Load()) / int64(time.Second)
	c.qmu.Lock()
	q := &c.qb
	if q.capacity-q.len > 4*1024 {
		switch {
		case idle > 2:
			q.capacity = q.len - q.bigRecv
		case q.capacity > protoResizeThreshold && q.capacity/2 > q.peak:
			q.capacity = max(q.len-q.bigRecv, q.peak)
		}
	}
	q.peak = q.len - q.bigRecv
	c.qmu.Unlock()
}

// QueryBuffer returns the query buffer's used and free bytes; running is
// the size of the request data of a batch of c being run (counted in the
// buffer, as Redis trims its buffer only after running what it read).
func (c *Client) QueryBuffer(running int) (used, free int) {
	used, free, _ = c.queryBuffer(running)
	return used, free
}

// queryBuffer is QueryBuffer and the bytes the buffer holds in all (its
// room for small requests and the big argument buffers).
func (c *Client) queryBuffer(running int) (used, free, alloc int) {
	c.qmu.Lock()
	q := c.qb
	c.qmu.Unlock()
	used = q.len + running
	alloc = max(q.capacity+q.bigAlloc, used)
	return used, alloc - used, alloc
}

// NewClient returns the state of a fresh connection.
func NewClient(id int64, shard int, remote, local string, conn Conn, now time.Time) *Client {
	c := &Client{ID: id, Shard: shard, RemoteAddr: remote, LocalAddr: local, Conn: conn, Created: now, Proto: 2}
	c.lastActive.Store(now.UnixNano())
	c.MultiCount.Store(-1)
	return c
}

// Touch records activity at now (unix nanoseconds).
func (c *Client) Touch(now int64) { c.lastActive.Store(now) }

// LastActive is the unix nanosecond time of the last activity.
func (c *Client) LastActive() int64 { return c.lastActive.Load() }

// Name returns the name set with CLIENT SETNAME or HELLO SETNAME.
func (c *Client) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// SetName sets the name CLIENT LIST shows (CLIENT SETNAME, HELLO SETNAME).
func (c *Client) SetName(n string) {
	c.mu.Lock()
	c.name = n
	c.mu.Unlock()
}

// SetLib sets the library name and version CLIENT LIST shows (CLIENT
// SETINFO); an empty argument leaves its field as it was.
func (c *Client) SetLib(name, ver string) {
	c.mu.Lock()
	if name != "" {
		c.libName = name
	}
	if ver != "" {
		c.libVer = ver
	}
	c.mu.Unlock()
}

// SelectDB makes db the selected database, and mirrors it for other
// goroutines (CLIENT LIST).
func (c *Client) SelectDB(db int) {
	c.DB = db
	c.db.Store(int32(db))
}

// Info formats the CLIENT LIST / CLIENT INFO line of the client. running
// is the size of the request data being run when c is the caller.
func (c *Client) Info(now time.Time, running int) string {
	c.mu.Lock()
	name, lib, ver := c.name, c.libName, c.libVer
	c.mu.Unlock()
	cmd := "NULL"
	if p := c.lastCmd.Load(); p != nil {
		cmd = *p
	}
	idle := (now.UnixNano() - c.lastActive.Load()) / int64(time.Second)
	if idle < 0 {
		idle = 0
	}
	b := make([]byte, 0, 256)
	b = append(b, "id="...)
	b = strconv.AppendInt(b, c.ID, 10)
	b = append(b, " addr="...)
	b = append(b, c.RemoteAddr...)
	b = append(b, " laddr="...)
	b = append(b, c.LocalAddr...)
	b = append(b, " fd=0 name="...)
	b = append(b, name...)
	b = append(b, " age="...)
	b = strconv.AppendInt(b, int64(now.Sub(c.Created)/time.Second), 10)
	b = append(b, " idle="...)
	b = strconv.AppendInt(b, idle, 10)
	b = append(b, " flags="...)
	multi := c.MultiCount.Load()
	n := len(b)
	if c.Monitor.Load() {
		b = append(b, 'O')
	}
	if c.SubCount.Load() != 0 {
		b = append(b, 'P')
	}
	if multi >= 0 {
		b = append(b, 'x')
	}
	if c.Blocked.Load() {
		b = append(b, 'b')
	}
	tf := c.trkFlags.Load()
	if tf&trackFlagOn != 0 {
		b = append(b, 't')
	}
	if tf&trackFlagBrokenRedir != 0 {
		b = append(b, 'R')
	}
	if tf&trackFlagBcast != 0 {
		b = append(b, 'B')
	}
	if c.DirtyCAS.Load() {
		b = append(b, 'd')
	}
	if c.NoEvict() {
		b = append(b, 'e')
	}
	if len(b) == n {
		b = append(b, 'N')
	}
	b = append(b, " db="...)
	b = strconv.AppendInt(b, int64(c.db.Load()), 10)
	mem := c.Memory(running)
	b = append(b, " sub="...)
	b = strconv.AppendInt(b, int64(c.subN[SubChannel].Load()), 10)
	b = append(b, " psub="...)
	b = strconv.AppendInt(b, int64(c.subN[SubPattern].Load()), 10)
	b = append(b, " ssub="...)
	b = strconv.AppendInt(b, int64(c.subN[SubShard].Load()), 10)
	b = append(b, " multi="...)
	b = strconv.AppendInt(b, int64(multi), 10)
	b = append(b, " qbuf="...)
	b = strconv.AppendInt(b, mem.Qbuf, 10)
	b = append(b, " qbuf-free="...)
	b = strconv.AppendInt(b, mem.QbufFree, 10)
	b = append(b, " argv-mem="...)
	b = strconv.AppendInt(b, mem.ArgvMem, 10)
	b = append(b, " multi-mem="...)
	b = strconv.AppendInt(b, mem.MultiMem, 10)
	b = append(b, " rbs="...)
	b = strconv.AppendInt(b, outputBlockSize, 10)
	b = append(b, " rbp="...)
	b = strconv.AppendInt(b, min(c.Out.RecentPeak(), outputBlockSize), 10)
	b = append(b, " obl="...)
	b = strconv.AppendInt(b, mem.Obl, 10)
	b = append(b, " oll="...)
	b = strconv.AppendInt(b, mem.Oll, 10)
	b = append(b, " omem="...)
	b = strconv.AppendInt(b, mem.Omem, 10)
	b = append(b, " tot-mem="...)
	b = strconv.AppendInt(b, mem.Total, 10)
	b = append(b, " events=r cmd="...)
	b = append(b, cmd...)
	b = append(b, " user="...)
	b = append(b, c.UserName()...)
	b = append(b, " redir="...)
	if tf&trackFlagOn != 0 {
		b = strconv.AppendInt(b, c.trkRedir.Load(), 10)
	} else {
		b = append(b, "-1"...)
	}
	b = append(b, " resp="...)
	b = strconv.AppendInt(b, int64(c.Proto), 10)
	b = append(b, " lib-name="...)
	b = append(b, lib...)
	b = append(b, " lib-ver="...)
	b = append(b, ver...)
	return string(b)
}

// clientRegistry knows every open connection, for CLIENT LIST/KILL, INFO
// clients and the idle timeout. It is not on the command path.
type clientRegistry struct {
	mu      sync.Mutex
	clients map[int64]*Client
	nextID  atomic.Int64
}

func newClientRegistry() *clientRegistry {
	return &clientRegistry{clients: make(map[int64]*Client)}
}

func (r *clientRegistry) Add(c *Client) {
	r.mu.Lock()
	r.clients[c.ID] = c
	r.mu.Unlock()
}

func (r *clientRegistry) Remove(id int64) {
	r.mu.Lock()
	delete(r.clients, id)
	r.mu.Unlock()
}

func (r *clientRegistry) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.clients)
}

// snapshot returns the clients ordered by id.
func (r *clientRegistry) snapshot() []*Client {
	r.mu.Lock()
	out := make([]*Client, 0, len(r.clients))
	for _, c := range r.clients {
		out = append(out, c)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *Client) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// KillType is the client's type as CLIENT KILL TYPE matches it, as Redis
// 7.0 classes clients: a replica's stream is "replica", a subscriber
// (not a MONITOR) "pubsub", anything else "normal".
func (c *Client) KillType() string {
	switch {
	case c.Replica.Load():
		return "replica"
	case c.SubCount.Load() != 0 && !c.Monitor.Load():
		return "pubsub"
	}
	return "normal"
}

// KillClient ends c for every command that runs after this one (it is
// gone from CLIENT LIST, its subscriptions and wait are released, its
// queued commands are dropped) and closes its connection; when c is the
// caller its replies so far are written first.
func (x *Ctx) KillClient(c *Client) {
	x.EndClient(c)
	if c == x.C {
		x.Batch.CloseAfter = true
		return
	}
	if c.Conn != nil {
		_ = c.Conn.Close()
	}
}
