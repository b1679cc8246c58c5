package commands

import (
	"bufio"
	"errors"
	"math"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/types/rdb"
)

// MIGRATE, RESTORE-ASKING and ASKING: Redis 7.0's way of moving keys
// between servers, between Ruvio nodes and from or to redis-server.
//
// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
// [AUTH password | AUTH2 username password] [KEYS key ...] does what
// Redis's does, in three steps, so that the shard never waits on the
// network:
//
//  1. On the shard: parse, look the keys up (+NOKEY when none exists),
//     serialize each one in DUMP's format (Redis 7.0's, as DUMP writes it)
//     into the pipelined RESTORE (RESTORE-ASKING in cluster mode) commands
//     Redis sends, with the remaining TTL in milliseconds and REPLACE when
//     asked; guard the keys (keyspace.KeyGuard) and park the client
//     (keyspace.ParkOffLoop).
//  2. On a goroutine: the exchange with the target. A connection cached
//     for host:port (or a new one, connected within the timeout), then in
//     one write AUTH or AUTH2 when given, SELECT when the connection's
//     database is not destination-db, and the RESTOREs; then one reply
//     line each, every read and every 64 KB write within the timeout (in
//     milliseconds; 0 or less means 1000). As in Redis: a failure to
//     write, or to read before the first RESTORE reply, that is not a
//     timeout is retried once on a new connection (a cached connection
//     the target closed); a connection that failed is closed (with the
//     other idle ones to that target), one that worked goes back to the
//     cache, which keeps at most 64 idle
//     connections and closes each after 10 s unused (INFO's
//     migrate_cached_sockets counts them).
//  3. Back on the shard (OffLoop.Finish): unless COPY, delete each key
//     whose RESTORE the target acknowledged, then reply: +OK, or the
//     first error: -ERR Target instance replied with error: <its error>
//     (BUSYKEY, NOAUTH, WRONGPASS ... as the target worded it; the keys it
//     did acknowledge are deleted all the same, as in Redis), -IOERR error
//     or timeout connecting to the client (Redis's words when the
//     connection cannot be made in time or the host is unknown), -IOERR
//     error or timeout writing|reading to target instance (a refused
//     connection is a write error, as Redis, connecting without blocking,
//     finds it).
//
// Other clients run while the exchange is under way. A key that one of
// them changes (writes, deletes, renames, expires, flushes) between the
// serialization and the deletion is not deleted: the target has the value
// as it was when MIGRATE serialized it, and this server keeps the newer
// one, so no acknowledged write is lost; the reply is still the one Redis
// gives for keys it moved (+OK). A key that nothing touched is deleted as
// Redis deletes it. The guard is exact and cheap: the key-modified hook
// every logged change passes marks it, at the cost of a map entry per
// guarded key while MIGRATE waits.
//
// Inside MULTI/EXEC or a script MIGRATE cannot wait off the shard, and a
// shard never waits on the network: it is refused there with an error.

// errMigrateNoWait is MIGRATE's reply where its client cannot wait.
const errMigrateNoWait = "ERR MIGRATE cannot run inside MULTI/EXEC or a script: the exchange with the target instance runs off the shard"

// Redis's MIGRATE errors.
const (
	errMigrateKeysArg  = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	errMigrateConnect  = "IOERR error or timeout connecting to the client"
	errMigrateWriting  = "IOERR error or timeout writing to target instance"
	errMigrateReading  = "IOERR error or timeout reading to target instance"
	migrateTargetError = "ERR Target instance replied with error: "
)

const (
	// migrateCacheMax bounds the idle connections of one server's cache;
	// a new one past it closes one at random, as Redis's cache does.
	migrateCacheMax = 64
	// migrateIdleTTL is how long an unused cached connection lives.
	migrateIdleTTL = 10 * time.Second
	// migrateChunk is the most written within one timeout.
	migrateChunk = 64 * 1024
)

// migrateCaches maps the migrate command of each command table (each
// server has its own) to its connection cache, for INFO.
var migrateCaches sync.Map // *keyspace.Command → *migrateSockets

// migrateCachedSockets is INFO's migrate_cached_sockets: the idle cached
// connections of the server's MIGRATE.
func migrateCachedSockets(srv *keyspace.Server) int64 {
	c := srv.Cmds.Lookup([]byte("migrate"))
	if c == nil {
		return 0
	}
	if m, ok := migrateCaches.Load(c); ok {
		return m.(*migrateSockets).n.Load()
	}
	return 0
}

// migrateSockets is a server's cache of connections to MIGRATE targets,
// by "host:port" as the command named them. A connection in use is out of
// the cache, so two MIGRATEs to one target at once use two connections.
type migrateSockets struct {
	mu   sync.Mutex
	idle map[string][]*migrateConn
	n    atomic.Int64 // idle connections, for INFO
}

// migrateConn is one connection to a target.
type migrateConn struct {
	name string
	conn net.Conn
	br   *bufio.Reader
	// db is the database the connection has selected, -1 when unknown.
	db    int64
	timer *time.Timer // closes it once idle for migrateIdleTTL
}

// take returns an idle connection to name, or nil.
func (m *migrateSockets) take(name string) *migrateConn {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.idle[name]
	if len(list) == 0 {
		return nil
	}
	mc := list[len(list)-1]
	list[len(list)-1] = nil
	if len(list) == 1 {
		delete(m.idle, name)
	} else {
		m.idle[name] = list[:len(list)-1]
	}
	m.n.Add(-1)
	mc.timer.Stop() // a timer that already fired finds it gone
	return mc
}

// put caches mc, idle.
func (m *migrateSockets) put(mc *migrateConn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.idle == nil {
		m.idle = make(map[string][]*migrateConn)
	}
	if m.n.Load() >= migrateCacheMax {
		for name, list := range m.idle { // a random one
			m.removeLocked(name, list[0])
			list[0].conn.Close()
			break
		}
	}
	m.idle[mc.name] = append(m.idle[mc.name], mc)
	m.n.Add(1)
	if mc.timer == nil {
		mc.timer = time.AfterFunc(migrateIdleTTL, func() { m.expire(mc) })
	} else {
		mc.timer.Reset(migrateIdleTTL)
	}
}

// drop closes the idle connections to name.
func (m *migrateSockets) drop(name string) {
	m.mu.Lock()
	list := m.idle[name]
	delete(m.idle, name)
	m.n.Add(-int64(len(list)))
	m.mu.Unlock()
	for _, mc := range list {
		mc.timer.Stop()
		mc.conn.Close()
	}
}

// expire closes mc if it is still idle in the cache.
func (m *migrateSockets) expire(mc *migrateConn) {
	m.mu.Lock()
	found := m.removeLocked(mc.name, mc)
	m.mu.Unlock()
	if found {
		mc.conn.Close()
	}
}

// removeLocked takes mc out of the idle lists; it reports whether it was
// there.
func (m *migrateSockets) removeLocked(name string, mc *migrateConn) bool {
	list := m.idle[name]
	for i, o := range list {
		if o != mc {
			continue
		}
		list = append(list[:i], list[i+1:]...)
		if len(list) == 0 {
			delete(m.idle, name)
		} else {
			m.idle[name] = list
		}
		m.n.Add(-1)
		return true
	}
	return false
}

// migrateJob is what the exchange needs, copied off the shard.
type migrateJob struct {
	host, port string
	db         int64
	timeout    time.Duration
	// auth is the AUTH command to send first (AUTH or AUTH2), nil for
	// none.
	auth []byte
	// restores are the pipelined RESTORE commands, n of them.
	restores []byte
	n        int
}

// migrateResult is the outcome of the exchange: which RESTOREs the target
// acknowledged, and the error to reply ("" for +OK).
type migrateResult struct {
	acked []bool
	err   string
}

// run does the exchange, retrying once as Redis does.
func (m *migrateSockets) run(j *migrateJob) migrateResult {
	res, retry := m.try(j, true)
	if retry {
		res, _ = m.try(j, false)
	}
	if res.acked == nil {
		res.acked = make([]bool, j.n) // nothing reached the target
	}
	return res
}

// isTimeout reports whether err is a deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// try is one attempt; retry is set when the attempt failed in a way that
// a new connection may fix and mayRetry allowed it.
func (m *migrateSockets) try(j *migrateJob, mayRetry bool) (res migrateResult, retry bool) {
	name := j.host + ":" + j.port
	var mc *migrateConn
	if mayRetry {
		// The first attempt may use a cached connection; the retry
		// connects anew, as Redis's does.
		mc = m.take(name)
	}
	if mc == nil {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(j.host, strconv.Itoa(atoi(j.port))), j.timeout)
		if errors.Is(err, syscall.ECONNREFUSED) {
			// Redis connects without blocking and learns of the refusal
			// when it writes: it retries once, then reports a write error.
			return migrateResult{err: errMigrateWriting}, mayRetry
		}
		if err != nil {
			return migrateResult{err: errMigrateConnect}, false
		}
		mc = &migrateConn{name: name, conn: conn, br: bufio.NewReader(conn), db: -1}
	}
	// failed closes the connection and says what to reply, unless a new
	// connection may do better.
	failed := func(writing bool, err error) (migrateResult, bool) {
		mc.conn.Close()
		// The other idle connections to the target likely went the same
		// way (it restarted, or closed its clients).
		m.drop(name)
		if mayRetry && !isTimeout(err) {
			return migrateResult{}, true
		}
		if writing {
			return migrateResult{err: errMigrateWriting}, false
		}
		return migrateResult{err: errMigrateReading}, false
	}
	selectDB := mc.db != j.db
	head := append([]byte(nil), j.auth...)
	if selectDB {
		head = appendRESPCommand(head, []byte("SELECT"), strconv.AppendInt(nil, j.db, 10))
	}
	for _, buf := range [][]byte{head, j.restores} {
		for pos := 0; pos < len(buf); {
			end := min(pos+migrateChunk, len(buf))
			mc.conn.SetWriteDeadline(time.Now().Add(j.timeout))
			n, err := mc.conn.Write(buf[pos:end])
			if err != nil {
				return failed(true, err)
			}
			pos += n
		}
	}
	readLine := func() (string, error) {
		mc.conn.SetReadDeadline(time.Now().Add(j.timeout))
		line, err := mc.br.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = line[:len(line)-1]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		return line, nil
	}
	var authReply, selectReply string
	var err error
	if j.auth != nil {
		if authReply, err = readLine(); err != nil {
			return failed(false, err)
		}
	}
	if selectDB {
		if selectReply, err = readLine(); err != nil {
			return failed(false, err)
		}
	}
	res.acked = make([]bool, j.n)
	targetErr, socketErr := false, error(nil)
	i := 0
	for ; i < j.n; i++ {
		line, err := readLine()
		if err != nil {
			socketErr = err
			break
		}
		isErr := func(s string) bool { return len(s) > 0 && s[0] == '-' }
		switch {
		case isErr(authReply), isErr(selectReply), isErr(line):
			if !targetErr {
				targetErr = true
				mc.db = -1 // as Redis: SELECT again next time
				e := line
				if isErr(authReply) {
					e = authReply
				} else if isErr(selectReply) {
					e = selectReply
				}
				res.err = migrateTargetError + e[1:]
			}
		default:
			res.acked[i] = true
		}
	}
	if socketErr != nil {
		if !targetErr && i == 0 {
			// Nothing was acknowledged: the same as failing earlier.
			return failed(false, socketErr)
		}
		mc.conn.Close()
		if !targetErr {
			res.err = errMigrateReading
		}
		return res, false
	}
	if !targetErr {
		mc.db = j.db
	}
	m.put(mc)
	return res, false
}

// atoi reads a port as C's atoi does: leading blanks and a sign, then the
// digits up to the first other byte; 0 when there are none.
func atoi(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	n := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<20; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// appendRESPCommand appends one command in RESP.
func appendRESPCommand(b []byte, args ...[]byte) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// migrateKeyRefs finds MIGRATE's keys as Redis's migrateGetKeys does: the
// key argument, or, with KEYS (the options before it skipped with their
// arguments), the keys after it; none when KEYS comes with a key argument
// (a syntax error the command reports).
func migrateKeyRefs(args [][]byte, dst []keyspace.KeyRef) []keyspace.KeyRef {
	const flags = keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete
	first, num := 3, 1
	if len(args) < 4 {
		return dst
	}
	for i := 6; i < len(args); i++ {
		switch {
		case keyspace.EqFold(args[i], "keys"):
			if len(args[3]) > 0 {
				num = 0
			} else {
				first, num = i+1, len(args)-i-1
			}
			i = len(args)
		case keyspace.EqFold(args[i], "auth"):
			i++
		case keyspace.EqFold(args[i], "auth2"):
			i += 2
		}
	}
	for k := first; k < first+num; k++ {
		dst = append(dst, keyspace.KeyRef{Pos: k, Flags: flags})
	}
	return dst
}

// migrateCommand is MIGRATE with the server's connection cache m.
func migrateCommand(x *keyspace.Ctx, m *migrateSockets) {
	args := x.Args
	copyOpt, replace := false, false
	var auth []byte
	first, num := 3, 1
parse:
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case keyspace.EqFold(args[j], "copy"):
			copyOpt = true
		case keyspace.EqFold(args[j], "replace"):
			replace = true
		case keyspace.EqFold(args[j], "auth"):
			if more < 1 {
				x.W.Error(keyspace.ErrSyntax)
				return
			}
			auth = appendRESPCommand(nil, []byte("AUTH"), args[j+1])
			j++
		case keyspace.EqFold(args[j], "auth2"):
			if more < 2 {
				x.W.Error(keyspace.ErrSyntax)
				return
			}
			auth = appendRESPCommand(nil, []byte("AUTH"), args[j+1], args[j+2])
			j += 2
		case keyspace.EqFold(args[j], "keys"):
			if len(args[3]) != 0 {
				x.W.Error(errMigrateKeysArg)
				return
			}
			first, num = j+1, len(args)-j-1
			break parse
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	timeout, ok := keyspace.ParseInt(args[5])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	dbid, ok := keyspace.ParseInt(args[4])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if timeout <= 0 {
		timeout = 1000
	}
	sh, db := x.S, x.DB
	restore := []byte("RESTORE")
	if serverClusterEnabled(sh.Srv) {
		restore = []byte("RESTORE-ASKING")
	}
	job := &migrateJob{host: string(args[1]), port: string(args[2]), db: dbid, auth: auth,
		timeout: time.Duration(min(timeout, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond}
	// Each key is serialized as soon as it is found: nothing else runs on
	// the shard meanwhile, and no entry is held across another lookup.
	var moved [][]byte
	var ttlBuf [20]byte
	for _, k := range args[first : first+num] {
		e := sh.LookupRead(db, k)
		if e == nil {
			continue
		}
		ttl := int64(0)
		if e.ExpireAt != 0 {
			ttl = max(e.ExpireAt-sh.NowMs, 1) // a live key has time left
		}
		v, msg := rdbValueOf(db, e, sh.NowMs)
		if msg != "" {
			x.W.Error(msg)
			return
		}
		payload := rdb.AppendDump(nil, &v)
		ttlArg := strconv.AppendInt(ttlBuf[:0], ttl, 10)
		if replace {
			job.restores = appendRESPCommand(job.restores, restore, k, ttlArg, payload, []byte("REPLACE"))
		} else {
			job.restores = appendRESPCommand(job.restores, restore, k, ttlArg, payload)
		}
		moved = append(moved, append([]byte(nil), k...))
	}
	if len(moved) == 0 {
		x.W.SimpleString("NOKEY")
		return
	}
	job.n = len(moved)
	o, ok := x.ParkOffLoop()
	if !ok {
		x.W.Error(errMigrateNoWait)
		return
	}
	guard := sh.GuardKeys(db.ID, moved)
	go func() {
		res := m.run(job)
		o.Finish(func(x *keyspace.Ctx) {
			defer guard.Release()
			if msg := x.S.WritesRefused(); msg != "" && !copyOpt {
				// The shard may no longer write (its log failed, or it
				// became a replica meanwhile): the keys stay, copied.
				x.W.Error(msg)
				return
			}
			if !copyOpt {
				for i, k := range moved {
					// A key changed meanwhile keeps its newer value.
					if res.acked[i] && !guard.Changed(i) && x.S.DeleteKey(x.DB, k) {
						x.Notify(keyspace.EvGeneric, "del", k)
					}
				}
			}
			if res.err != "" {
				x.W.Error(res.err)
				return
			}
			x.W.OK()
		})
	}()
}

// ASKING: in cluster mode, sets the flag that lets the connection's next
// command reach a slot being imported (keyspace.Ctx.SetAsking), and
// answers OK; on a standalone server, Redis's error. Ruvio moves a slot in
// one step, so no slot is ever importing as clients see it and the flag
// changes nothing; like Redis's it ends after the next command.
func askingCommand(x *keyspace.Ctx) {
	if !serverClusterEnabled(x.S.Srv) {
		x.W.Error(errClusterDisabled)
		return
	}
	x.SetAsking()
	x.W.OK()
}

func registerMigrateFamily(t keyspace.CommandTable) {
	m := &migrateSockets{}
	const keyFlags = keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete
	migrate := &keyspace.Command{Name: "migrate", Arity: -6, Flags: keyspace.FlagWrite | keyspace.FlagParksOffLoop, FirstKey: 3, LastKey: 3, Step: 1,
		Categories: []string{"keyspace", "dangerous"}, Group: "generic", Since: "2.6.0",
		Summary:    "Atomically transfer a key from a Redis instance to another one.",
		Complexity: "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.",
		Handler:    func(x *keyspace.Ctx) { migrateCommand(x, m) },
		KeySpecs: []keyspace.KeySpec{
			rangeSpec(keyFlags, 3, 0, 1),
			{Flags: keyFlags | keyspace.KeyIncomplete, Keyword: "KEYS", StartFrom: -2, Find: keyspace.FindRange, LastKey: -1, KeyStep: 1},
		},
		Tips:    []string{tipNondeterministic},
		GetKeys: migrateKeyRefs,
	}
	migrate.MovableKeys = keyPositions(migrateKeyRefs)
	migrateCaches.Store(migrate, m)
	t.Add(migrate,
		&keyspace.Command{Name: "restore-asking", Arity: -4, Flags: keyspace.FlagWrite | keyspace.FlagDenyOOM | keyspace.FlagAsking, FirstKey: 1, LastKey: 1, Step: 1,
			Categories: []string{"keyspace", "dangerous"}, Group: "server", Since: "3.0.0",
			Summary:    "An internal command for migrating keys in a cluster",
			Complexity: "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
			Handler:    restoreCommand,
			KeySpecs:   []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "asking", Arity: 1, Flags: keyspace.FlagFast, Group: "cluster", Categories: []string{"connection"}, Since: "3.0.0",
			Summary: "Sent by cluster clients after an -ASK redirect", Complexity: "O(1)", Handler: askingCommand},
	)
}
