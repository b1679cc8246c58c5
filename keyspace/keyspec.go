package keyspace

import (
	"strconv"
)

// Key specifications: the types of Redis 7's key specs and the routine that
// finds a call's keys and their flags from them, which routing, the ACL
// check, COMMAND GETKEYS and ACL DRYRUN share. Each command's own specs and
// tips are in its registration record (package commands).

// KeyFlag is a key-spec flag; the names are those COMMAND reports.
type KeyFlag uint16

// Key-spec flags.
const (
	KeyRO            KeyFlag = 1 << iota // read only
	KeyRW                                // read and write
	KeyOW                                // overwrite: written without being read
	KeyRM                                // removed without being read
	KeyAccess                            // the command returns or uses the value
	KeyUpdate                            // the value is updated
	KeyInsert                            // data is added, never modified or deleted
	KeyDelete                            // data or the key is deleted
	KeyNotKey                            // looks like a key but is not one
	KeyIncomplete                        // the spec may miss keys
	KeyVariableFlags                     // the flags depend on the arguments
)

var keyFlagNames = [...]struct {
	f    KeyFlag
	name string
}{
	{KeyRO, "RO"}, {KeyRW, "RW"}, {KeyOW, "OW"}, {KeyRM, "RM"},
	{KeyAccess, "access"}, {KeyUpdate, "update"}, {KeyInsert, "insert"},
	{KeyDelete, "delete"}, {KeyNotKey, "not_key"}, {KeyIncomplete, "incomplete"},
	{KeyVariableFlags, "variable_flags"},
}

// Names lists the flag names in COMMAND order.
func (f KeyFlag) Names() []string {
	out := []string{}
	for _, fn := range keyFlagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// FindKind tells how a key spec finds its keys once the search began.
type FindKind uint8

// Find-keys kinds.
const (
	FindUnknown FindKind = iota
	FindRange            // LastKey, KeyStep, Limit
	FindKeyNum           // KeyNumIdx, FirstKey, KeyStep
)

// KeySpec is one Redis 7 key specification: where the search for keys
// begins and how the keys are found from there.
type KeySpec struct {
	Flags KeyFlag // the flags of every key the spec finds
	// Begin search: Index > 0 is an argument position; otherwise a
	// non-empty Keyword is searched for from StartFrom (negative: from the
	// end, backwards); neither means unknown.
	Index     int
	Keyword   string // the keyword the keys follow, when Index is 0
	StartFrom int    // where the search for Keyword starts
	// Find keys. Range: LastKey relative to the first key (negative: from
	// the end), every KeyStep, Limit as Redis's. KeyNum: the key count is
	// at KeyNumIdx and the keys start at FirstKey, both relative to the
	// begin-search position.
	Find      FindKind
	LastKey   int // range: the last key, relative to the first
	KeyStep   int // range and keynum: the distance between keys
	Limit     int // range, LastKey negative: keys in 1/Limit of the rest (0: all)
	KeyNumIdx int // keynum: where the key count is
	FirstKey  int // keynum: where the first key is
}

// KeyRef is one key a call names: its argument index and flags.
type KeyRef struct {
	Pos   int     // index of the key in the call's arguments
	Flags KeyFlag // the key's flags, from its spec
}

// CallKeys appends the keys of a call of c (args[0] is the command name) as
// its key specs find them, with each key's flags; ok is false when the
// arguments do not fit the specs. Specs of fake keys (not_key) are skipped.
func (c *Command) CallKeys(args [][]byte, dst []KeyRef) (_ []KeyRef, ok bool) {
	argc := len(args)
	base := len(dst)
	for _, s := range c.KeySpecs {
		if s.Flags&KeyNotKey != 0 {
			continue
		}
		first := 0
		switch {
		case s.Index > 0:
			first = s.Index
		case s.Keyword != "":
			first = keywordKeys(args, s.Keyword, s.StartFrom)
			if first == 0 {
				continue // keyword absent: no keys from this spec
			}
			if s.Flags&KeyIncomplete != 0 && c.GetKeys != nil {
				// The spec may miss keys (MIGRATE's KEYS): as in
				// Redis, the command's own key finder decides.
				return c.GetKeys(args, dst[:base]), true
			}
		default:
			if c.GetKeys != nil {
				// An unknown spec: the command's own key finder decides.
				return c.GetKeys(args, dst[:base]), true
			}
			return dst, false
		}
		var last, step int
		switch s.Find {
		case FindRange:
			step = s.KeyStep
			switch {
			case s.LastKey >= 0:
				last = first + s.LastKey
			case s.Limit == 0:
				last = argc + s.LastKey
			default:
				last = first + (argc-first)/s.Limit + s.LastKey
			}
		case FindKeyNum:
			step = s.KeyStep
			if first+s.KeyNumIdx >= argc {
				return dst, false
			}
			n, err := strconv.ParseInt(string(args[first+s.KeyNumIdx]), 10, 32)
			if err != nil || n < 0 {
				return dst, false
			}
			first += s.FirstKey
			last = first + int(n) - 1
		default:
			return dst, false
		}
		if last >= argc || last < first || first >= argc {
			return dst, false
		}
		for i := first; i <= last; i += max(step, 1) {
			dst = append(dst, KeyRef{Pos: i, Flags: s.Flags})
		}
	}
	return dst, true
}

// keywordKeys is the begin-search step of a keyword key spec: the
// position after the first argument equal to keyword (ASCII case
// ignored), searched from startFrom towards the end, or, when startFrom
// is negative, from that far before the end towards the start; 0 when
// absent. As in Redis, the search stops before the last argument (going
// forward) or before argument 1 (going backward), so a keyword with no
// argument after it, or the command's first argument, is never found.
func keywordKeys(args [][]byte, keyword string, startFrom int) int {
	argc := len(args)
	start, end, step := startFrom, argc-1, 1
	if startFrom <= 0 {
		start, end, step = argc+startFrom, 1, -1
	}
	for i := start; i != end && i >= 1 && i < argc; i += step {
		if equalFoldASCII(args[i], keyword) {
			return i + 1
		}
	}
	return 0
}

// equalFoldASCII compares b and s ignoring ASCII case in both (EqFold
// wants s in lower case; key-spec keywords are upper case, as COMMAND
// shows them).
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// CallKeyFlags returns the flags of the key at position pos of a call of
// c, resolving variable flags from the arguments as Redis does: SET
// overwrites its key without reading it unless GET asks for the old value
// or IFEQ compares it;
// BITFIELD only reads when every operation is a GET (OVERFLOW aside), and
// is taken to write when an operation is malformed.
func (c *Command) CallKeyFlags(args [][]byte, k KeyRef) KeyFlag {
	if k.Flags&KeyVariableFlags == 0 {
		return k.Flags
	}
	switch c.FullName() {
	case "set":
		for _, a := range args[3:] {
			if EqFold(a, "get") || EqFold(a, "ifeq") {
				return KeyRW | KeyAccess | KeyUpdate
			}
		}
		return KeyOW | KeyUpdate
	case "bitfield":
		for i := 2; i < len(args); i++ {
			left := len(args) - i - 1
			switch {
			case EqFold(args[i], "get") && left >= 2:
				i += 2
			case EqFold(args[i], "overflow") && left >= 1:
				i++
			default:
				return KeyRW | KeyAccess | KeyUpdate
			}
		}
		return KeyRO | KeyAccess
	}
	return k.Flags
}
