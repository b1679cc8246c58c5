package keyspace

import (
	"strings"

	"github.com/ruvio/ruvio/codec"
)

// Flag describes a command's behaviour; the names match Redis's COMMAND
// flags.
type Flag uint32

// Command flags. Each is Redis's flag of the same name; what Ruvio does
// with it is said beside it. Flags also give a command its ACL categories
// (ACLCategories) and are reported by COMMAND.
const (
	// FlagWrite: the command may change data. It is refused on a replica
	// and under CLIENT PAUSE WRITE, counts as a write for the log's
	// failure handling and snapshots, and invalidates tracked keys.
	FlagWrite Flag = 1 << iota
	// FlagReadOnly: the command only reads data; its reads are tracked
	// (CLIENT TRACKING) and its memory accounting skips the write path.
	FlagReadOnly
	// FlagDenyOOM: the command may grow memory, so it is refused with
	// -OOM when the shard is over its maxmemory share and eviction cannot
	// make room (also inside scripts without allow-oom).
	FlagDenyOOM
	// FlagAdmin: an administrative command (@admin, @dangerous); MONITOR
	// never shows it.
	FlagAdmin
	// FlagPubSub: a Pub/Sub command (@pubsub), checked against the user's
	// channel permissions; it does not count as a read for tracking.
	FlagPubSub
	// FlagNoScript: refused inside EVAL and FCALL.
	FlagNoScript
	// FlagBlocking: the command may park the client (BLPOP, XREAD BLOCK,
	// WAIT …); CLIENT UNBLOCK applies to it.
	FlagBlocking
	// FlagLoading: reported by COMMAND as Redis does; a shard loads its
	// data before it serves, so nothing waits on it here.
	FlagLoading
	// FlagStale: allowed on a replica whose link is down while
	// replica-serve-stale-data is off, and on a shard whose log failed.
	FlagStale
	// FlagSkipMonitor: MONITOR does not show the call (scripts show the
	// commands they run instead).
	FlagSkipMonitor
	// FlagSkipSlowlog: the slow log does not record the call (EXEC records
	// the queued commands instead).
	FlagSkipSlowlog
	// FlagFast: O(1) or O(log N) (@fast); without it a command is @slow.
	FlagFast
	// FlagNoAuth: allowed before authentication (AUTH, HELLO, …).
	FlagNoAuth
	// FlagMayReplicate: the command may write the log though it is not a
	// write (EVAL, PUBLISH …): refused in read-only scripts and held by
	// CLIENT PAUSE WRITE. Like Redis, COMMAND does not report it.
	FlagMayReplicate
	// FlagNoMulti: refused inside MULTI (queued commands never include it).
	FlagNoMulti
	// FlagAllowBusy: allowed while a script runs past busy-reply-threshold
	// (SCRIPT KILL, FUNCTION KILL, SHUTDOWN NOSAVE …).
	FlagAllowBusy
	// FlagKeyless marks commands that name no key even though they take
	// arguments; used for documentation only.
	FlagKeyless
	// FlagNoAsyncLoading: reported by COMMAND as Redis does; every
	// shard loads before it serves, so it changes nothing here.
	FlagNoAsyncLoading
	// FlagNoMandatoryKeys: the command may name no key at all (EVAL with
	// numkeys 0, FCALL …), reported by COMMAND.
	FlagNoMandatoryKeys
	// FlagMovableKeys is derived from the key specs (commands.deriveMovableKeys):
	// the legacy first/last/step triple does not find every key.
	FlagMovableKeys
	// FlagAsking: reported by COMMAND as Redis does (RESTORE-ASKING: a
	// command that may reach a slot being imported without ASKING); no
	// slot is ever importing as clients see it, so it changes nothing.
	FlagAsking
)

// flagNames lists the flags COMMAND reports, in Redis's order. Like Redis,
// it leaves out may_replicate, an internal flag.
var flagNames = [...]struct {
	f    Flag
	name string
}{
	{FlagWrite, "write"}, {FlagReadOnly, "readonly"}, {FlagDenyOOM, "denyoom"},
	{FlagAdmin, "admin"}, {FlagPubSub, "pubsub"}, {FlagNoScript, "noscript"},
	{FlagBlocking, "blocking"}, {FlagLoading, "loading"}, {FlagStale, "stale"},
	{FlagSkipMonitor, "skip_monitor"}, {FlagSkipSlowlog, "skip_slowlog"},
	{FlagAsking, "asking"}, {FlagFast, "fast"}, {FlagNoAuth, "no_auth"}, {FlagNoMandatoryKeys, "no_mandatory_keys"},
	{FlagNoAsyncLoading, "no_async_loading"}, {FlagNoMulti, "no_multi"},
	{FlagMovableKeys, "movablekeys"}, {FlagAllowBusy, "allow_busy"},
}

// Names lists the flag names in COMMAND order.
func (f Flag) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// HandlerFunc runs one command on its shard.
type HandlerFunc func(x *Ctx)

// Command is one entry of the command table: everything the dispatcher,
// COMMAND, ACLs and docs/compatibility-matrix.json know about a command.
type Command struct {
	Name  string // lower case
	Arity int    // Redis convention: -N means at least N
	Flags Flag   // how the command behaves (write, readonly, noscript, ...)
	// FirstKey, LastKey and Step give the key positions (LastKey -1: the
	// last argument; 0,0,0: no keys).
	FirstKey, LastKey, Step int
	// NumKeysAt, when > 0, is the position of a numkeys argument whose
	// keys follow it (LMPOP, ZMPOP and kin, whose legacy key fields are
	// 0 as in Redis); KeyIndexes finds them for routing and snapshots.
	NumKeysAt int
	// Categories are the ACL categories beyond those derived from Flags
	// and Group, without the leading '@'.
	Categories []string
	// Group is the command's group as COMMAND DOCS reports it ("string",
	// "generic", ...); ACLCategories derives a category from it.
	Group      string
	Since      string // COMMAND DOCS since: the Redis version that added it
	Summary    string // COMMAND DOCS summary: what the command does
	Complexity string // COMMAND DOCS complexity: its time complexity
	// KeySpecs and Tips are Redis 7's key specifications and command tips,
	// written in the command's registration record beside the legacy key
	// triple above (which must agree with them, as in Redis).
	KeySpecs []KeySpec
	Tips     []string // command tips, as COMMAND INFO reports them
	// Subcommands, for container commands such as CLIENT and CONFIG.
	Subcommands []*Command
	// Handler runs the command; a container's finds and runs the
	// subcommand named by the call.
	Handler HandlerFunc
	// parent is set for subcommands.
	parent *Command
	// fullName is FullName, computed once by CommandTable.Add, for CLIENT
	// LIST's cmd= field.
	fullName string
	// ID indexes per-shard counters (assignIDs).
	ID int
	// MovableKeys finds the keys of a call whose keys the legacy triple
	// cannot name (Redis's movablekeys: a numkeys argument).
	MovableKeys func(args [][]byte, dst []int) []int
	// GetKeys finds the keys and their flags of a call whose key specs
	// cannot (SORT's are "unknown"), as Redis's getkeys procedures do.
	GetKeys func(args [][]byte, dst []KeyRef) []KeyRef
}

// FullName is "container|sub" for a subcommand, else the name.
func (c *Command) FullName() string { return c.fullName }

// ACLCategories returns the categories derived from the flags the way Redis
// derives them, plus the explicit ones. A command without explicit
// categories also gets its group's data-type category (Redis lists those
// explicitly); a container gets none, as in Redis.
func (c *Command) ACLCategories() []string {
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	if c.Flags&FlagWrite != 0 {
		add("write")
	}
	if c.Flags&FlagReadOnly != 0 && c.Group != "scripting" {
		add("read")
	}
	if c.Flags&FlagAdmin != 0 {
		add("admin")
		add("dangerous")
	}
	if c.Flags&FlagPubSub != 0 {
		add("pubsub")
	}
	if c.Flags&FlagFast != 0 {
		add("fast")
	}
	if c.Flags&FlagBlocking != 0 {
		add("blocking")
	}
	if c.Flags&FlagFast == 0 {
		add("slow")
	}
	if len(c.Categories) > 0 || len(c.Subcommands) > 0 {
		for _, s := range c.Categories {
			add(s)
		}
		return out
	}
	switch c.Group {
	case "string", "list", "set", "sorted-set", "hash", "stream", "bitmap", "hyperloglog", "geo":
		add(strings.ReplaceAll(c.Group, "-", ""))
	case "generic":
		add("keyspace")
	case "connection":
		add("connection")
	case "transactions":
		add("transaction")
	case "scripting":
		add("scripting")
	}
	for _, s := range c.Categories {
		add(s)
	}
	return out
}

// CommandTable maps lower-case names to commands. It is built once at start
// and never changed.
type CommandTable map[string]*Command

// Add registers cmds under their names, links their subcommands to them
// and sets their full names.
func (t CommandTable) Add(cmds ...*Command) {
	for _, c := range cmds {
		c.fullName = c.Name
		for _, sc := range c.Subcommands {
			sc.parent = c
			sc.fullName = c.Name + "|" + sc.Name
		}
		t[c.Name] = c
	}
}

// maxCommandName bounds the names Lookup looks for: no command's is longer.
const maxCommandName = 32

// Lookup finds a command by name, case-insensitively, without allocating.
func (t CommandTable) Lookup(name []byte) *Command {
	var buf [maxCommandName]byte
	if len(name) > len(buf) {
		return nil
	}
	for i, ch := range name {
		if ch >= 'A' && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		buf[i] = ch
	}
	return t[string(buf[:len(name)])]
}

// lookup is Srv.Cmds.Lookup with the last name found remembered as sent: a
// pipelined batch mostly repeats one command, and comparing a few bytes
// costs less than the map's hash and probe. Before any find, lastName is
// empty and lastCmd nil, which is also what Lookup gives an empty name.
// Only the goroutine that owns the shard calls it.
func (sh *Shard) lookup(name []byte) *Command {
	if string(name) == string(sh.lastName[:sh.lastNameLen]) {
		return sh.lastCmd
	}
	cmd := sh.Srv.Cmds.Lookup(name)
	if cmd != nil {
		sh.lastNameLen = copy(sh.lastName[:], name)
		sh.lastCmd = cmd
	}
	return cmd
}

// Called is the command a call of c with args runs, for statistics and
// CLIENT LIST: the subcommand named by args[1] when c is a container, else c.
func (c *Command) Called(args [][]byte) *Command {
	if len(c.Subcommands) > 0 && len(args) > 1 {
		if sc := c.Sub(args[1]); sc != nil {
			return sc
		}
	}
	return c
}

// Sub finds a subcommand of c by name.
func (c *Command) Sub(name []byte) *Command {
	for _, sc := range c.Subcommands {
		if EqFold(name, sc.Name) {
			return sc
		}
	}
	return nil
}

// BuildCommandTable builds a command table from registrations, run in
// order. The engine registers no command: the families package hands its
// registrations here and the table to NewServer (Options.Commands).
func BuildCommandTable(registrations ...func(CommandTable)) CommandTable {
	t := CommandTable{}
	for _, register := range registrations {
		register(t)
	}
	return t
}

// Ctx is what a handler sees: its shard, client, database, arguments and
// the reply writer. One Ctx per shard is reused for every command.
type Ctx struct {
	S    *Shard        // the shard running the command
	C    *Client       // the calling client
	DB   *DB           // the client's selected database
	Args [][]byte      // the call, command name first
	W    *codec.Writer // where the reply goes
	Cmd  *Command      // the command run (a container, not its subcommand)
	// Batch is the batch being run, for commands that close the
	// connection after replying.
	Batch *Batch
	// NoBlock is set inside EXEC: a blocking command must behave as its
	// non-blocking form (reply at once as if its timeout had passed)
	// instead of parking the connection.
	NoBlock bool
}

// ArityOK reports whether n arguments satisfy arity.
func ArityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}

// KeyIndexes appends the argument indexes of the keys of a command call.
func (c *Command) KeyIndexes(args [][]byte, dst []int) []int {
	if c.MovableKeys != nil {
		return c.MovableKeys(args, dst)
	}
	if c.NumKeysAt > 0 && c.NumKeysAt < len(args) {
		n, ok := ParseInt(args[c.NumKeysAt])
		if !ok || n < 1 {
			return dst
		}
		for i := c.NumKeysAt + 1; int64(i-c.NumKeysAt) <= n && i < len(args); i++ {
			dst = append(dst, i)
		}
		return dst
	}
	if c.FirstKey <= 0 {
		return dst
	}
	last := c.LastKey
	if last < 0 {
		last = len(args) + last
	}
	step := c.Step
	if step <= 0 {
		step = 1
	}
	for i := c.FirstKey; i <= last && i < len(args); i += step {
		dst = append(dst, i)
	}
	return dst
}

// TruncArg returns an argument for an error message, cut to 128 bytes as
// Redis's %.128s does.
func TruncArg(b []byte) string {
	return string(AppendTruncated(nil, b, 128))
}
