package scripting

import (
	"strings"
)

// Flags are the script flags a script declares in its shebang line or a
// function declares when it registers. Their meaning is enforced by the
// command layer; the engine only parses them.
type Flags uint32

const (
	// FlagNoWrites ("no-writes") declares a read-only script.
	FlagNoWrites Flags = 1 << iota
	// FlagAllowOOM ("allow-oom") lets a writing script run above maxmemory.
	FlagAllowOOM
	// FlagAllowStale ("allow-stale") lets the script run on a stale replica.
	FlagAllowStale
	// FlagNoCluster ("no-cluster") refuses the script in cluster mode.
	FlagNoCluster
	// FlagEvalCompat marks an EVAL script without a shebang line: it runs
	// with the flags of the command rather than declared ones, as before
	// shebangs existed.
	FlagEvalCompat
	// FlagAllowCrossSlot ("allow-cross-slot-keys") lets the script touch
	// keys of several slots.
	FlagAllowCrossSlot
)

var flagNames = [...]struct {
	flag Flags
	name string
}{
	{FlagNoWrites, "no-writes"},
	{FlagAllowOOM, "allow-oom"},
	{FlagAllowStale, "allow-stale"},
	{FlagNoCluster, "no-cluster"},
	{FlagAllowCrossSlot, "allow-cross-slot-keys"},
}

// Names lists the declared flags by their shebang names, in a fixed order
// (for FUNCTION LIST). FlagEvalCompat has no name and is left out.
func (f Flags) Names() []string {
	out := []string{}
	for _, fn := range flagNames {
		if f&fn.flag != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// flagByName finds a flag by name; fold selects case-insensitive matching
// (register_function) over exact matching (shebang lines).
func flagByName(name string, fold bool) (Flags, bool) {
	for _, fn := range flagNames {
		if name == fn.name || (fold && strings.EqualFold(name, fn.name)) {
			return fn.flag, true
		}
	}
	return 0, false
}

// ParseShebang reads the flags of an EVAL script body. A body that does not
// start with "#!" has FlagEvalCompat and shebangLen 0. Otherwise the first
// line must be "#!lua" followed by an optional "flags=a,b" word; shebangLen
// is the length of that line without its newline, which stays in the code
// so line numbers do not move. Errors carry the server's texts.
func ParseShebang(body []byte) (flags Flags, shebangLen int, err error) {
	if len(body) < 2 || body[0] != '#' || body[1] != '!' {
		return FlagEvalCompat, 0, nil
	}
	end := indexByte(body, '\n')
	if end < 0 {
		return 0, 0, errorf("ERR Invalid script shebang")
	}
	parts, ok := splitArgs(string(body[:end]))
	if !ok || len(parts) == 0 {
		return 0, 0, errorf("ERR Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, 0, errorf("ERR Unexpected engine in script shebang: %s", parts[0])
	}
	for _, p := range parts[1:] {
		list, isFlags := strings.CutPrefix(p, "flags=")
		if !isFlags {
			return 0, 0, errorf("ERR Unknown lua shebang option: %s", p)
		}
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			f, ok := flagByName(name, false)
			if !ok {
				return 0, 0, errorf("ERR Unexpected flag in script shebang: %s", name)
			}
			flags |= f
		}
	}
	return flags, end, nil
}

// LibraryMeta is what the first line of a FUNCTION LOAD payload declares.
type LibraryMeta struct {
	Engine string // the word after "#!", e.g. "lua"
	Name   string // the value of name=
	Code   string // the code after the first line, starting with its newline
}

// ParseLibraryMeta reads the "#!<engine> name=<library>" line of a
// FUNCTION LOAD payload. It checks the form only; the library name and the
// engine are checked by the caller (LoadLibrary does both).
func ParseLibraryMeta(payload []byte) (LibraryMeta, error) {
	if len(payload) < 2 || payload[0] != '#' || payload[1] != '!' {
		return LibraryMeta{}, errorf("ERR Missing library metadata")
	}
	end := indexByte(payload, '\n')
	if end < 0 {
		return LibraryMeta{}, errorf("ERR Invalid library metadata")
	}
	parts, ok := splitArgs(string(payload[:end]))
	if !ok || len(parts) == 0 {
		return LibraryMeta{}, errorf("ERR Invalid library metadata")
	}
	md := LibraryMeta{Engine: parts[0][min(2, len(parts[0])):]}
	named := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if named {
				return LibraryMeta{}, errorf("ERR Invalid metadata value, name argument was given multiple times")
			}
			md.Name, named = p[5:], true
			continue
		}
		return LibraryMeta{}, errorf("ERR Invalid metadata value given: %s", p)
	}
	if !named {
		return LibraryMeta{}, errorf("ERR Library name was not given")
	}
	md.Code = string(payload[end:])
	return md, nil
}

// ValidName reports whether s is a valid library or function name: at
// least one character, only letters, digits and underscores.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// splitArgs splits a line into words the way the server's own argument
// splitter does (spaces separate words; "double quotes" take \n \r \t \b
// \a \\ \" and \xHH escapes; 'single quotes' take \'; a closing quote must
// be followed by a space or the end). ok is false on unbalanced quotes.
func splitArgs(line string) (words []string, ok bool) {
	i := 0
	for {
		for i < len(line) && isSpaceArg(line[i]) {
			i++
		}
		if i >= len(line) {
			return words, true
		}
		var cur []byte
		inq, insq, done := false, false, false
		for !done {
			if inq {
				if i >= len(line) {
					return nil, false
				}
				switch {
				case line[i] == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, hexVal(line[i+2])<<4|hexVal(line[i+3]))
					i += 3
				case line[i] == '\\' && i+1 < len(line):
					i++
					c := line[i]
					switch c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					cur = append(cur, c)
				case line[i] == '"':
					if i+1 < len(line) && !isSpaceArg(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, line[i])
				}
			} else if insq {
				if i >= len(line) {
					return nil, false
				}
				switch {
				case line[i] == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case line[i] == '\'':
					if i+1 < len(line) && !isSpaceArg(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, line[i])
				}
			} else {
				if i >= len(line) {
					break
				}
				switch line[i] {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, line[i])
				}
			}
			if i < len(line) {
				i++
			}
		}
		words = append(words, string(cur))
	}
}

func isSpaceArg(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0 }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
