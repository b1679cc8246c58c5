package acl

import (
	"fmt"
	"strings"
)

// Category is a set of ACL command categories, one bit per category of Redis 7.0.
type Category uint32

// The categories, in Redis's order (ACL CAT lists them in this order, and rule descriptions
// try them in this order).
const (
	CatKeyspace Category = 1 << iota
	CatRead
	CatWrite
	CatSet
	CatSortedSet
	CatList
	CatHash
	CatString
	CatBitmap
	CatHyperLogLog
	CatGeo
	CatStream
	CatPubSub
	CatAdmin
	CatFast
	CatSlow
	CatBlocking
	CatDangerous
	CatConnection
	CatTransaction
	CatScripting
	numCategories = iota
)

var categoryNames = [numCategories]string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
	"hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
	"connection", "transaction", "scripting",
}

// CategoryNames returns the category names without '@', in ACL CAT order.
func CategoryNames() []string {
	out := make([]string, numCategories)
	copy(out, categoryNames[:])
	return out
}

// ParseCategory returns the category named name (case-insensitive, without '@').
func ParseCategory(name string) (Category, bool) {
	for i, n := range categoryNames {
		if strings.EqualFold(n, name) {
			return 1 << i, true
		}
	}
	return 0, false
}

// Names returns the names of the categories in c, in ACL CAT order.
func (c Category) Names() []string {
	var out []string
	for i, n := range categoryNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Access is what a command does with a key, from its key spec: Read when it reads the
// value (Redis's ACCESS flag), Write when it inserts, updates or deletes. Zero means
// neither (existence tests, TYPE, cardinalities): any key pattern grants it, whether %R, %W
// or both, as in Redis.
type Access uint8

// Access bits.
const (
	Read Access = 1 << iota
	Write
	ReadWrite = Read | Write
)

// KeySpec says where a command's keys are and what it does with them, as a Redis 7.0 key
// spec: a begin search (an index, or the argument after a keyword) followed by a find-keys
// rule (a range, or a count argument followed by that many keys).
type KeySpec struct {
	Access Access
	// NotKey marks arguments that look like keys but are not (skipped, as Redis skips them).
	NotKey bool

	// Begin search: Keyword == "" means the first key is at argument Index; otherwise the
	// keys begin after Keyword, searched from argument StartFrom (negative: from the end,
	// backwards).
	Index     int
	Keyword   string
	StartFrom int

	// Find keys. Range (KeyNum false): LastKey is the last key relative to the first (-1:
	// the last argument, -2 the one before), keys every KeyStep arguments, and Limit > 0
	// divides the remaining arguments (with LastKey -1). KeyNum: the argument KeyNumIdx
	// after the begin holds the count, and the keys start FirstKey after the begin.
	KeyNum    bool
	LastKey   int
	KeyStep   int
	Limit     int
	KeyNumIdx int
	FirstKey  int
}

// CommandSpec describes one command (or subcommand) to the ACL rules: the command universe
// is injected by the command table, so this package knows no command by itself.
type CommandSpec struct {
	// Name is the command's name, or the subcommand's own name (without "container|").
	Name string
	// Categories are category names without '@'; each must be one of CategoryNames.
	Categories []string
	// NoAuth marks commands every connection may run (AUTH, HELLO): command rules do not
	// apply to them, as Redis's no_auth flag exempts them.
	NoAuth bool
	// Keys are the command's key specs, used by Universe.AppendKeys.
	Keys        []KeySpec
	Subcommands []CommandSpec
}

// CommandID identifies a command or subcommand of a Universe. IDs are dense, in the order
// of the specs given to NewUniverse (a container before its subcommands).
type CommandID int32

type command struct {
	name     string // full name, lower case: "get", "config|get"
	parent   CommandID
	subs     []CommandID
	cats     Category
	noAuth   bool
	keySpecs []KeySpec
}

// Universe is the immutable set of commands that ACL rules refer to.
type Universe struct {
	cmds   []command
	byName map[string]CommandID
	top    []CommandID // top-level commands, in spec order
}

// NewUniverse builds the command universe from specs. Names are matched case-insensitively;
// a duplicate name, a name with '|' or a space, or an unknown category is an error.
func NewUniverse(specs []CommandSpec) (*Universe, error) {
	u := &Universe{byName: make(map[string]CommandID)}
	var add func(s CommandSpec, parent CommandID) (CommandID, error)
	add = func(s CommandSpec, parent CommandID) (CommandID, error) {
		name := strings.ToLower(s.Name)
		if name == "" || strings.ContainsAny(name, "| \t\r\n") {
			return 0, fmt.Errorf("acl: invalid command name %q", s.Name)
		}
		if parent >= 0 {
			if len(s.Subcommands) > 0 {
				return 0, fmt.Errorf("acl: subcommand %q has subcommands", s.Name)
			}
			name = u.cmds[parent].name + "|" + name
		}
		if _, dup := u.byName[name]; dup {
			return 0, fmt.Errorf("acl: duplicate command %q", name)
		}
		var cats Category
		for _, c := range s.Categories {
			bit, ok := ParseCategory(strings.TrimPrefix(c, "@"))
			if !ok {
				return 0, fmt.Errorf("acl: command %q: unknown category %q", name, c)
			}
			cats |= bit
		}
		id := CommandID(len(u.cmds))
		u.cmds = append(u.cmds, command{name: name, parent: parent, cats: cats, noAuth: s.NoAuth,
			keySpecs: append([]KeySpec(nil), s.Keys...)})
		u.byName[name] = id
		for _, sub := range s.Subcommands {
			sid, err := add(sub, id)
			if err != nil {
				return 0, err
			}
			u.cmds[id].subs = append(u.cmds[id].subs, sid)
		}
		return id, nil
	}
	for _, s := range specs {
		id, err := add(s, -1)
		if err != nil {
			return nil, err
		}
		u.top = append(u.top, id)
	}
	return u, nil
}

// Len returns the number of commands and subcommands.
func (u *Universe) Len() int { return len(u.cmds) }

// Lookup finds a command by name, case-insensitively: "get" or "config|get". It returns
// false for unknown names, for "x|y" when x has no subcommand y (or no subcommands), and for
// more than one '|', as Redis's ACL command lookup does.
func (u *Universe) Lookup(name string) (CommandID, bool) {
	id, ok := u.byName[name]
	if !ok {
		id, ok = u.byName[strings.ToLower(name)]
	}
	return id, ok
}

// FullName returns "name" or "container|sub".
func (u *Universe) FullName(id CommandID) string { return u.cmds[id].name }

// Parent returns the container of a subcommand, or -1.
func (u *Universe) Parent(id CommandID) CommandID { return u.cmds[id].parent }

// Subcommands returns the subcommands of a container.
func (u *Universe) Subcommands(id CommandID) []CommandID { return u.cmds[id].subs }

// Categories returns a command's categories.
func (u *Universe) Categories(id CommandID) Category { return u.cmds[id].cats }

// InCategory returns the full names of the commands and subcommands in category c, in
// universe order (ACL CAT <category>).
func (u *Universe) InCategory(c Category) []string {
	var out []string
	for i := range u.cmds {
		if u.cmds[i].cats&c != 0 {
			out = append(out, u.cmds[i].name)
		}
	}
	return out
}

// AppendKeys appends to dst the keys of a call of command id with arguments args (args[0]
// is the command name), found with the command's key specs, and returns the extended
// slice. As in Redis, a spec whose positions do not fit the arguments (a syntax error the
// command itself will report) makes the whole call report no keys. It does not allocate
// when dst has room.
func (u *Universe) AppendKeys(dst []KeyRef, id CommandID, args [][]byte) []KeyRef {
	start := len(dst)
	argc := len(args)
	for i := range u.cmds[id].keySpecs {
		ks := &u.cmds[id].keySpecs[i]
		if ks.NotKey {
			continue
		}
		first := 0
		if ks.Keyword == "" {
			first = ks.Index
		} else {
			from, end := ks.StartFrom, argc-1
			if from <= 0 {
				from, end = argc+ks.StartFrom, 1
			}
			for j := from; j != end; {
				if j >= argc || j < 1 {
					break
				}
				if equalFold(args[j], ks.Keyword) {
					first = j + 1
					break
				}
				if from <= end {
					j++
				} else {
					j--
				}
			}
			if first == 0 {
				continue
			}
		}
		var last, step int
		if !ks.KeyNum {
			step = ks.KeyStep
			switch {
			case ks.LastKey >= 0:
				last = first + ks.LastKey
			case ks.Limit == 0:
				last = argc + ks.LastKey
			default:
				last = first + ((argc-first)/ks.Limit + ks.LastKey)
			}
		} else {
			step = ks.KeyStep
			at := first + ks.KeyNumIdx
			if at >= argc {
				return dst[:start]
			}
			n, ok := parseCount(args[at])
			if !ok {
				return dst[:start]
			}
			first += ks.FirstKey
			last = first + int(n) - 1
		}
		if last >= argc || last < first || first >= argc {
			return dst[:start]
		}
		if step < 1 {
			step = 1
		}
		for j := first; j <= last; j += step {
			dst = append(dst, KeyRef{Pos: j, Access: ks.Access})
		}
	}
	return dst
}

// equalFold compares b and s ignoring ASCII case, without allocating.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if foldByte(b[i]) != foldByte(s[i]) {
			return false
		}
	}
	return true
}

// parseCount parses a non-negative decimal count that fits an int32.
func parseCount(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 1<<31-1
}

// Resolve finds the command a call runs, as Redis's lookup does: args[0] names the command,
// case-insensitively; for a container with at least two arguments, args[1] names the
// subcommand, and an unknown subcommand is not found. A container called alone resolves to
// itself. Resolve does not allocate.
func (u *Universe) Resolve(args [][]byte) (CommandID, bool) {
	if len(args) == 0 {
		return 0, false
	}
	var buf [64]byte
	id, ok := u.lookupFold(buf[:0], args[0])
	if !ok || len(args) < 2 || len(u.cmds[id].subs) == 0 {
		return id, ok
	}
	name := append(append(buf[:0], u.cmds[id].name...), '|')
	return u.lookupFold(name, args[1])
}

// lookupFold looks up prefix+lower(name) using buf's storage when it is large enough.
func (u *Universe) lookupFold(prefix []byte, name []byte) (CommandID, bool) {
	b := prefix
	for _, c := range name {
		b = append(b, foldByte(c))
	}
	id, ok := u.byName[string(b)]
	return id, ok
}
