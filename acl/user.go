package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
)

type sanitize uint8

const (
	sanitizeUnset sanitize = iota
	sanitizePayload
	sanitizeSkip
)

// User is one ACL user: an immutable value. Rules never change a User; Users.SetUser builds
// a new one, so a connection may keep using the User it authenticated as without locks.
type User struct {
	name      string
	enabled   bool
	nopass    bool
	sanitize  sanitize
	passwords []string // hex SHA-256, in the order added
	// selectors[0] is the root permissions (the rules given outside parentheses).
	selectors []*selector
	universe  *Universe
	// unrestricted: the root permissions allow every command, key and channel.
	unrestricted bool
}

// newUser is a user as Redis creates it: off, no passwords, no permissions, and channels
// as acl-pubsub-default says.
func newUser(name string, u *Universe, opts Options) *User {
	return &User{name: name, universe: u, selectors: []*selector{newSelector(u, selRoot|opts.selectorFlags())}}
}

func (u *User) clone() *User {
	c := *u
	c.passwords = append([]string(nil), u.passwords...)
	c.selectors = make([]*selector, len(u.selectors))
	for i, s := range u.selectors {
		c.selectors[i] = s.clone()
	}
	return &c
}

func (u *User) seal() *User {
	r := u.selectors[0]
	u.unrestricted = r.flags&(selAllCommands|selAllKeys|selAllChannels) == selAllCommands|selAllKeys|selAllChannels
	return u
}

// Name returns the user name.
func (u *User) Name() string { return u.name }

// Enabled reports whether the user may authenticate ("on").
func (u *User) Enabled() bool { return u.enabled }

// NoPass reports whether any password authenticates the user.
func (u *User) NoPass() bool { return u.nopass }

// Passwords returns the SHA-256 hashes (lowercase hex) of the user's passwords.
func (u *User) Passwords() []string { return append([]string(nil), u.passwords...) }

// Unrestricted reports whether the root permissions allow every command, key and channel,
// so that Check returns at once.
func (u *User) Unrestricted() bool { return u.unrestricted }

// HashPassword returns the lowercase hex SHA-256 of a password, the form ACL GETUSER shows
// and #hash rules take.
func HashPassword(password []byte) string {
	sum := sha256.Sum256(password)
	return hex.EncodeToString(sum[:])
}

// CheckPassword reports whether password authenticates u: u is enabled and either nopass
// or one of its password hashes matches (compared in constant time).
func (u *User) CheckPassword(password []byte) bool {
	if !u.enabled {
		return false
	}
	if u.nopass {
		return true
	}
	sum := sha256.Sum256(password)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	ok := 0
	for _, p := range u.passwords {
		ok |= subtle.ConstantTimeCompare(h[:], []byte(p))
	}
	return ok == 1
}

func validHash(h string) bool {
	if len(h) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// apply applies one merged rule to u (a private clone).
func (u *User) apply(op string, opts Options) error {
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		u.enabled = true
	case strings.EqualFold(op, "off"):
		u.enabled = false
	case strings.EqualFold(op, "skip-sanitize-payload"):
		u.sanitize = sanitizeSkip
	case strings.EqualFold(op, "sanitize-payload"):
		u.sanitize = sanitizePayload
	case strings.EqualFold(op, "nopass"):
		u.nopass = true
		u.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		u.nopass = false
		u.passwords = nil
	case op[0] == '>' || op[0] == '#':
		var h string
		if op[0] == '>' {
			h = HashPassword([]byte(op[1:]))
		} else {
			if !validHash(op[1:]) {
				return ErrBadHash
			}
			h = op[1:]
		}
		found := false
		for _, p := range u.passwords {
			found = found || p == h
		}
		if !found {
			u.passwords = append(u.passwords, h)
		}
		u.nopass = false
	case op[0] == '<' || op[0] == '!':
		var h string
		if op[0] == '<' {
			h = HashPassword([]byte(op[1:]))
		} else {
			if !validHash(op[1:]) {
				return ErrBadHash
			}
			h = op[1:]
		}
		for i, p := range u.passwords {
			if p == h {
				u.passwords = append(u.passwords[:i:i], u.passwords[i+1:]...)
				return nil
			}
		}
		return ErrNoSuchPassword
	case op[0] == '(' && op[len(op)-1] == ')':
		args, ok := splitArgs(op[1 : len(op)-1])
		if !ok {
			return ErrSyntax
		}
		s := newSelector(u.universe, opts.selectorFlags())
		for _, a := range args {
			if err := s.apply(u.universe, a); err != nil {
				return err
			}
		}
		u.selectors = append(u.selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		u.selectors = u.selectors[:1]
	case strings.EqualFold(op, "reset"):
		u.nopass, u.passwords = false, nil
		r := u.selectors[0]
		r.flags &^= selAllKeys | selAllChannels
		r.keys, r.channels, r.chanMatch = nil, nil, nil
		r.flags |= opts.selectorFlags()
		u.enabled = false
		u.sanitize = sanitizePayload
		u.selectors = u.selectors[:1]
		r.setAll(false)
	default:
		return u.selectors[0].apply(u.universe, op)
	}
	return nil
}

// mergeSelectors joins a selector written across several arguments ("(~a" "+get)") into
// one, as Redis does; ok is false, with the index of the opening argument, when a
// parenthesis is never closed.
func mergeSelectors(args []string) (merged []string, open int, ok bool) {
	merged = make([]string, 0, len(args))
	open = -1
	var cur strings.Builder
	for i, a := range args {
		// An opening argument starts a new selector even inside an open one, dropping what
		// was gathered, as Redis does.
		if a != "" && a[0] == '(' && a[len(a)-1] != ')' {
			open = i
			cur.Reset()
			cur.WriteString(a)
			continue
		}
		if open >= 0 {
			cur.WriteByte(' ')
			cur.WriteString(a)
			if a != "" && a[len(a)-1] == ')' {
				merged = append(merged, cur.String())
				open = -1
			}
			continue
		}
		merged = append(merged, a)
	}
	if open >= 0 {
		return nil, open, false
	}
	return merged, -1, true
}

// Describe returns the user's rules in ACL LIST form (without "user <name> "): flags,
// password hashes, root permissions, then each selector in parentheses.
func (u *User) Describe() string {
	var b strings.Builder
	for _, f := range u.Flags() {
		b.WriteString(f)
		b.WriteByte(' ')
	}
	for _, p := range u.passwords {
		b.WriteByte('#')
		b.WriteString(p)
		b.WriteByte(' ')
	}
	for i, s := range u.selectors {
		if i == 0 {
			b.WriteString(s.describe(u.universe))
		} else {
			b.WriteString(" (")
			b.WriteString(s.describe(u.universe))
			b.WriteByte(')')
		}
	}
	return b.String()
}

// Flags returns the user flags ACL GETUSER lists, in Redis's order: on or off, nopass,
// skip-sanitize-payload or sanitize-payload.
func (u *User) Flags() []string {
	f := make([]string, 0, 3)
	if u.enabled {
		f = append(f, "on")
	} else {
		f = append(f, "off")
	}
	if u.nopass {
		f = append(f, "nopass")
	}
	switch u.sanitize {
	case sanitizeSkip:
		f = append(f, "skip-sanitize-payload")
	case sanitizePayload:
		f = append(f, "sanitize-payload")
	}
	return f
}

// Permissions is one selector as ACL GETUSER shows it.
type Permissions struct {
	Commands string // e.g. "+@all -@dangerous +info"
	Keys     string // e.g. "~*" or "%R~a* ~b", "" for none
	Channels string // e.g. "&*" or "&news.*", "" for none
}

// UserInfo is the reply of ACL GETUSER.
type UserInfo struct {
	Flags     []string
	Passwords []string
	Root      Permissions // the "commands", "keys" and "channels" fields
	Selectors []Permissions
}

// Info returns the fields of ACL GETUSER.
func (u *User) Info() UserInfo {
	in := UserInfo{Flags: u.Flags(), Passwords: u.Passwords(), Selectors: []Permissions{}}
	for i, s := range u.selectors {
		p := Permissions{Commands: s.describeCommands(u.universe), Keys: s.describeKeys(), Channels: s.describeChannels()}
		if i == 0 {
			in.Root = p
		} else {
			in.Selectors = append(in.Selectors, p)
		}
	}
	return in
}

// splitArgs splits a selector's inside as Redis splits it (sdssplitargs): blanks separate
// arguments; "double quotes" take \n \r \t \b \a \xHH and \c escapes; 'single quotes'
// take \'; a closing quote must end the argument. ok is false for unbalanced quotes.
func splitArgs(line string) (args []string, ok bool) {
	isSpace := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
	}
	n, i := len(line), 0
	for {
		for i < n && isSpace(line[i]) {
			i++
		}
		if i >= n {
			return args, true
		}
		var cur []byte
		inq, insq := false, false
	token:
		for {
			switch {
			case inq:
				if i >= n {
					return nil, false // unterminated quotes
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < n && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 4
				case c == '\\' && i+1 < n:
					e := line[i+1]
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					cur = append(cur, e)
					i += 2
				case c == '"':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false // a closing quote must end the argument
					}
					i++
					break token
				default:
					cur = append(cur, c)
					i++
				}
			case insq:
				if i >= n {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < n && line[i+1] == '\'':
					cur = append(cur, '\'')
					i += 2
				case c == '\'':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false
					}
					i++
					break token
				default:
					cur = append(cur, c)
					i++
				}
			default:
				if i >= n {
					break token
				}
				c := line[i]
				i++
				switch {
				case isSpace(c):
					break token
				case c == '"':
					inq = true
				case c == '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
		}
		args = append(args, string(cur))
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
