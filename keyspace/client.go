package keyspace

import (
	"cmp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is the connection side a client needs: closing it from any goroutine.
type Conn interface {
	Close() error
}

// Client is the state of one connection. Fields without a comment are
// owned by the client's shard goroutine; the ones other goroutines read
// (CLIENT LIST, idle timeout) are atomics or guarded by mu.
type Client struct {
	ID         int64
	Shard      int
	RemoteAddr string
	LocalAddr  string
	Conn       Conn
	Created    time.Time

	DB            int
	Proto         int
	Authenticated bool

	// db mirrors DB for other goroutines.
	db atomic.Int32
	// lastActive is the unix nanosecond time of the last command.
	lastActive atomic.Int64
	// lastCmd is the name of the last command run.
	lastCmd atomic.Pointer[string]

	mu      sync.Mutex // guards the fields below
	name    string
	libName string
	libVer  string
	closed  bool
}

// NewClient returns the state of a fresh connection.
func NewClient(id int64, shard int, remote, local string, conn Conn, now time.Time) *Client {
	c := &Client{ID: id, Shard: shard, RemoteAddr: remote, LocalAddr: local, Conn: conn, Created: now, Proto: 2}
	c.lastActive.Store(now.UnixNano())
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

func (c *Client) setName(n string) {
	c.mu.Lock()
	c.name = n
	c.mu.Unlock()
}

func (c *Client) setLib(name, ver string) {
	c.mu.Lock()
	if name != "" {
		c.libName = name
	}
	if ver != "" {
		c.libVer = ver
	}
	c.mu.Unlock()
}

func (c *Client) selectDB(db int) {
	c.DB = db
	c.db.Store(int32(db))
}

// info formats the CLIENT LIST / CLIENT INFO line of the client.
func (c *Client) info(now time.Time) string {
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
	b = append(b, " flags=N db="...)
	b = strconv.AppendInt(b, int64(c.db.Load()), 10)
	b = append(b, " sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd="...)
	b = append(b, cmd...)
	b = append(b, " user=default redir=-1 resp="...)
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

func (r *clientRegistry) add(c *Client) {
	r.mu.Lock()
	r.clients[c.ID] = c
	r.mu.Unlock()
}

func (r *clientRegistry) remove(id int64) {
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
