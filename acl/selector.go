package acl

import "strings"

type selectorFlags uint8

const (
	selRoot selectorFlags = 1 << iota
	selAllKeys
	selAllCommands
	selAllChannels
)

type keyPattern struct {
	pattern string
	access  Access // Read, Write or both: the permissions the pattern grants
	m       pattern
}

// selector is one set of command, key and channel permissions: a user's root permissions
// or one "(…)" selector. A selector reachable from a published User is never changed;
// rules apply to a clone.
type selector struct {
	flags selectorFlags
	// allowed has a bit per CommandID.
	allowed []uint64
	// future records that the last all-or-nothing rule was +@all (not -@all): commands
	// added to the universe later count as allowed, and descriptions start with +@all.
	future bool
	// firstArgs, by CommandID, lists the first arguments allowed for a command whose bit
	// is clear (+select|0). nil until a first-arg rule is used.
	firstArgs [][]string
	keys      []keyPattern
	channels  []string
	// chanMatch[i] is channels[i] compiled.
	chanMatch []pattern
}

func newSelector(u *Universe, flags selectorFlags) *selector {
	return &selector{flags: flags, allowed: make([]uint64, (u.Len()+63)/64)}
}

func (s *selector) clone() *selector {
	c := *s
	c.allowed = append([]uint64(nil), s.allowed...)
	if s.firstArgs != nil {
		c.firstArgs = make([][]string, len(s.firstArgs))
		for i, a := range s.firstArgs {
			if a != nil {
				c.firstArgs[i] = append([]string(nil), a...)
			}
		}
	}
	c.keys = append([]keyPattern(nil), s.keys...)
	c.channels = append([]string(nil), s.channels...)
	c.chanMatch = append([]pattern(nil), s.chanMatch...)
	return &c
}

func (s *selector) bit(id CommandID) bool { return s.allowed[id>>6]&(1<<(id&63)) != 0 }

func (s *selector) setBit(id CommandID, v bool) {
	if v {
		s.allowed[id>>6] |= 1 << (id & 63)
	} else {
		s.allowed[id>>6] &^= 1 << (id & 63)
		s.flags &^= selAllCommands
	}
}

// changePerm allows or denies a command; for a container, all its subcommands too.
func (s *selector) changePerm(u *Universe, id CommandID, v bool) {
	s.setBit(id, v)
	if s.firstArgs != nil {
		s.firstArgs[id] = nil
	}
	for _, sub := range u.cmds[id].subs {
		s.setBit(sub, v)
	}
}

func (s *selector) setCategory(u *Universe, cat Category, v bool) {
	for i := range u.cmds {
		if u.cmds[i].cats&cat != 0 {
			s.changePerm(u, CommandID(i), v)
		}
	}
}

func (s *selector) setAll(v bool) {
	var w uint64
	if v {
		w = ^uint64(0)
		s.flags |= selAllCommands
	} else {
		s.flags &^= selAllCommands
	}
	for i := range s.allowed {
		s.allowed[i] = w
	}
	s.future = v
	s.firstArgs = nil
}

func (s *selector) addFirstArg(u *Universe, id CommandID, arg string) {
	if s.firstArgs == nil {
		s.firstArgs = make([][]string, u.Len())
	}
	for _, a := range s.firstArgs[id] {
		if strings.EqualFold(a, arg) {
			return
		}
	}
	s.firstArgs[id] = append(s.firstArgs[id], arg)
}

// hasSpaces reports a byte C's isspace accepts, or NUL: such patterns would not survive
// the space-separated ACL file and ACL LIST formats.
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// apply applies one selector rule (everything but the user-level rules).
func (s *selector) apply(u *Universe, op string) error {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.flags |= selAllKeys
		s.keys = nil
	case strings.EqualFold(op, "resetkeys"):
		s.flags &^= selAllKeys
		s.keys = nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.flags |= selAllChannels
		s.channels, s.chanMatch = nil, nil
	case strings.EqualFold(op, "resetchannels"):
		s.flags &^= selAllChannels
		s.channels, s.chanMatch = nil, nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.setAll(true)
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.setAll(false)
	case op != "" && (op[0] == '~' || op[0] == '%'):
		return s.addKeyPattern(op)
	case op != "" && op[0] == '&':
		if s.flags&selAllChannels != 0 {
			return ErrChannelPatternAfterAll
		}
		pat := op[1:]
		if hasSpaces(pat) {
			return ErrSyntax
		}
		for _, c := range s.channels {
			if c == pat {
				s.flags &^= selAllChannels
				return nil
			}
		}
		s.channels = append(s.channels, pat)
		s.chanMatch = append(s.chanMatch, compilePattern(pat))
		s.flags &^= selAllChannels
	case op != "" && op[0] == '+' && !strings.HasPrefix(op, "+@"):
		return s.allowCommand(u, op[1:])
	case op != "" && op[0] == '-' && !strings.HasPrefix(op, "-@"):
		id, ok := u.Lookup(op[1:])
		if !ok {
			return ErrUnknownCommand
		}
		s.changePerm(u, id, false)
	case strings.HasPrefix(op, "+@") || strings.HasPrefix(op, "-@"):
		cat, ok := ParseCategory(op[2:])
		if !ok {
			return ErrUnknownCommand
		}
		s.setCategory(u, cat, op[0] == '+')
	default:
		return ErrSyntax
	}
	return nil
}

func (s *selector) addKeyPattern(op string) error {
	if s.flags&selAllKeys != 0 {
		return ErrKeyPatternAfterAll
	}
	access, off := ReadWrite, 1
	if op[0] == '%' {
		access = 0
	flags:
		for ; off < len(op); off++ {
			switch {
			case (op[off] == 'R' || op[off] == 'r') && access&Read == 0:
				access |= Read
			case (op[off] == 'W' || op[off] == 'w') && access&Write == 0:
				access |= Write
			case op[off] == '~':
				off++
				break flags
			default:
				return ErrSyntax
			}
		}
		if access == 0 {
			// "%~x": a pattern granting nothing (Redis 7.0.15 builds reject it).
			return ErrSyntax
		}
	}
	pat := op[off:]
	if hasSpaces(pat) {
		return ErrSyntax
	}
	s.flags &^= selAllKeys
	for i := range s.keys {
		if s.keys[i].pattern == pat {
			s.keys[i].access |= access
			return nil
		}
	}
	s.keys = append(s.keys, keyPattern{pattern: pat, access: access, m: compilePattern(pat)})
	return nil
}

// allowCommand applies "+name", "+container|sub" or "+command|first-arg".
func (s *selector) allowCommand(u *Universe, name string) error {
	bar := strings.LastIndexByte(name, '|')
	if bar < 0 {
		id, ok := u.Lookup(name)
		if !ok {
			return ErrUnknownCommand
		}
		s.changePerm(u, id, true)
		return nil
	}
	id, ok := u.Lookup(name[:bar])
	if !ok {
		return ErrUnknownCommand
	}
	if u.cmds[id].parent >= 0 {
		return ErrFirstArgOfSubcommand
	}
	arg := name[bar+1:]
	if arg == "" {
		return ErrSyntax
	}
	if len(u.cmds[id].subs) > 0 {
		sub, ok := u.Lookup(name)
		if !ok {
			return ErrUnknownCommand
		}
		s.changePerm(u, sub, true)
		return nil
	}
	// A first argument of a command without subcommands (+select|0): deprecated in Redis,
	// kept for compatibility.
	s.addFirstArg(u, id, arg)
	return nil
}

// countCategory counts the commands of category cat that s allows and denies.
func (s *selector) countCategory(u *Universe, cat Category) (on, off int) {
	for i := range u.cmds {
		if u.cmds[i].cats&cat != 0 {
			if s.bit(CommandID(i)) {
				on++
			} else {
				off++
			}
		}
	}
	return on, off
}

// describeCommands returns the command rules that rebuild s's command permissions,
// computed as Redis 7.0 computes them: start from +@all or -@all, then greedily apply the
// category that fits the remaining differences best, then fix single commands (in universe
// order, where Redis follows its hash table order).
func (s *selector) describeCommands(u *Universe) string {
	var b strings.Builder
	fake := newSelector(u, 0)
	additive := !s.future
	if additive {
		b.WriteString("-@all ")
		fake.setAll(false)
	} else {
		b.WriteString("+@all ")
		fake.setAll(true)
	}
	temp := &selector{allowed: append([]uint64(nil), s.allowed...)}
	var applied [numCategories]bool
	for {
		best, minDiff, maxSame := -1, int(^uint(0)>>1), 0
		for j := range numCategories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(u, 1<<j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < minDiff || (diff == minDiff && same > maxSame)) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		cat := Category(1) << best
		fake.setCategory(u, cat, additive)
		temp.setCategory(u, cat, !additive)
		if additive {
			b.WriteString("+@")
		} else {
			b.WriteString("-@")
		}
		b.WriteString(categoryNames[best])
		b.WriteByte(' ')
		applied[best] = true
	}
	for _, id := range u.top {
		s.describeSingle(u, fake, id, &b)
	}
	out := b.String()
	return out[:len(out)-1]
}

func (s *selector) describeSingle(u *Universe, fake *selector, id CommandID, b *strings.Builder) {
	userBit := s.bit(id)
	if userBit != fake.bit(id) {
		if userBit {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		b.WriteString(u.cmds[id].name)
		b.WriteByte(' ')
		fake.changePerm(u, id, userBit)
	}
	for _, sub := range u.cmds[id].subs {
		s.describeSingle(u, fake, sub, b)
	}
	if !userBit && s.firstArgs != nil {
		for _, a := range s.firstArgs[id] {
			b.WriteByte('+')
			b.WriteString(u.cmds[id].name)
			b.WriteByte('|')
			b.WriteString(a)
			b.WriteByte(' ')
		}
	}
}

func (k keyPattern) String() string {
	switch k.access {
	case Read:
		return "%R~" + k.pattern
	case Write:
		return "%W~" + k.pattern
	default:
		return "~" + k.pattern
	}
}

// describeKeys is the "keys" field of ACL GETUSER.
func (s *selector) describeKeys() string {
	if s.flags&selAllKeys != 0 {
		return "~*"
	}
	parts := make([]string, len(s.keys))
	for i, k := range s.keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, " ")
}

// describeChannels is the "channels" field of ACL GETUSER.
func (s *selector) describeChannels() string {
	if s.flags&selAllChannels != 0 {
		return "&*"
	}
	parts := make([]string, len(s.channels))
	for i, c := range s.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// describe is the selector in ACL LIST form: keys, channels, then command rules.
func (s *selector) describe(u *Universe) string {
	var b strings.Builder
	if s.flags&selAllKeys != 0 {
		b.WriteString("~* ")
	} else {
		for _, k := range s.keys {
			b.WriteString(k.String())
			b.WriteByte(' ')
		}
	}
	if s.flags&selAllChannels != 0 {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteByte('&')
			b.WriteString(c)
			b.WriteByte(' ')
		}
	}
	b.WriteString(s.describeCommands(u))
	return b.String()
}

// sameCommands reports whether two selectors allow exactly the same commands.
func (s *selector) sameCommands(o *selector) bool {
	for i := range s.allowed {
		if s.allowed[i] != o.allowed[i] {
			return false
		}
	}
	return true
}
