package acl

// KeyRef is a key a command touches: the index of its argument and what the command does
// with it.
type KeyRef struct {
	Pos    int // index into Request.Args
	Access Access
}

// ChannelRef is a Pub/Sub channel a command publishes or subscribes to. Only publish and
// subscribe arguments need checking (not unsubscribes), as in Redis.
type ChannelRef struct {
	Pos int // index into Request.Args
	// Pattern marks a PSUBSCRIBE pattern: it is allowed only by an identical channel rule
	// (compared literally), never by glob matching.
	Pattern bool
}

// Request is one command call to check. Args is the whole call, command name first; Keys
// and Channels point into it. The caller owns every slice and may reuse them after Check
// returns.
type Request struct {
	Cmd      CommandID
	Args     [][]byte
	Keys     []KeyRef
	Channels []ChannelRef
}

// Reason is why a call was denied. The values order denials as Redis does when several
// selectors deny a call for different reasons (a channel beats a key beats a command).
type Reason uint8

// Reasons. ReasonAuth only appears in ACL LOG entries.
const (
	Allowed Reason = iota
	ReasonCommand
	ReasonKey
	ReasonAuth
	ReasonChannel
)

// String is the reason as ACL LOG shows it.
func (r Reason) String() string {
	switch r {
	case ReasonCommand:
		return "command"
	case ReasonKey:
		return "key"
	case ReasonChannel:
		return "channel"
	case ReasonAuth:
		return "auth"
	case Allowed:
		return "allowed"
	}
	return "unknown"
}

// Denial is the outcome of a check: the zero value allows the call.
type Denial struct {
	Reason Reason
	// Pos is the argument index of the denied key or channel (0 for a command denial).
	Pos int
}

// OK reports whether the call is allowed.
func (d Denial) OK() bool { return d.Reason == Allowed }

// Object is what was denied, as ACL LOG and ACL DRYRUN name it: the command's full name,
// or the key or channel argument.
func (d Denial) Object(u *Universe, req *Request) string {
	switch d.Reason {
	case ReasonCommand:
		return u.FullName(req.Cmd)
	case ReasonKey, ReasonChannel:
		return string(req.Args[d.Pos])
	}
	return ""
}

// Error is the NOPERM error a denied call gets, without the leading '-'.
func (d Denial) Error(u *Universe, req *Request) string {
	switch d.Reason {
	case ReasonCommand:
		return "NOPERM this user has no permissions to run the '" + u.FullName(req.Cmd) + "' command"
	case ReasonKey:
		return "NOPERM this user has no permissions to access one of the keys used as arguments"
	case ReasonChannel:
		return "NOPERM this user has no permissions to access one of the channels used as arguments"
	}
	return "no permission"
}

// DryRunMessage is ACL DRYRUN's reply for a denied call.
func (d Denial) DryRunMessage(u *Universe, req *Request) string {
	switch d.Reason {
	case ReasonCommand:
		return "This user has no permissions to run the '" + u.FullName(req.Cmd) + "' command"
	case ReasonKey:
		return "This user has no permissions to access the '" + string(req.Args[d.Pos]) + "' key"
	case ReasonChannel:
		return "This user has no permissions to access the '" + string(req.Args[d.Pos]) + "' channel"
	}
	return "OK"
}

// ScriptMessage is the text a script's redis.call error carries for a denial.
func (r Reason) ScriptMessage() string {
	switch r {
	case ReasonCommand:
		return "can't run this command or subcommand"
	case ReasonKey:
		return "can't access at least one of the keys mentioned in the command arguments"
	case ReasonChannel:
		return "can't publish to the channel mentioned in the command"
	}
	return "lacking the permissions for the command"
}

// Check decides whether u may run req. The root permissions are tried first, then each
// selector in order; the first that allows the whole call allows it. When none does, the
// denial reported is the one Redis reports: a command denial only if every selector denied
// the command, otherwise the key or channel denial of the greatest reason and, among
// those, of the last argument.
//
// Check does not allocate. For a user whose root permissions allow every command, key and
// channel (the default user's +@all ~* &*) it returns at once.
func (u *User) Check(req *Request) Denial {
	if u.unrestricted {
		return Denial{}
	}
	worst := Denial{Reason: ReasonCommand}
	for _, s := range u.selectors {
		d := s.check(u.universe, req)
		if d.Reason == Allowed {
			return d
		}
		if d.Reason > worst.Reason || (d.Reason == worst.Reason && d.Pos > worst.Pos) {
			worst = d
		}
	}
	return worst
}

func (s *selector) check(u *Universe, req *Request) Denial {
	if s.flags&selAllCommands == 0 && !u.cmds[req.Cmd].noAuth && !s.bit(req.Cmd) {
		if !s.firstArgAllowed(req) {
			return Denial{Reason: ReasonCommand}
		}
	}
	if s.flags&selAllKeys == 0 {
		for _, k := range req.Keys {
			if !s.keyAllowed(req.Args[k.Pos], k.Access) {
				return Denial{Reason: ReasonKey, Pos: k.Pos}
			}
		}
	}
	if s.flags&selAllChannels == 0 {
		for _, c := range req.Channels {
			if !s.channelAllowed(req.Args[c.Pos], c.Pattern) {
				return Denial{Reason: ReasonChannel, Pos: c.Pos}
			}
		}
	}
	return Denial{}
}

func (s *selector) firstArgAllowed(req *Request) bool {
	if len(req.Args) < 2 || s.firstArgs == nil {
		return false
	}
	for _, a := range s.firstArgs[req.Cmd] {
		if equalFold(req.Args[1], a) {
			return true
		}
	}
	return false
}

func (s *selector) keyAllowed(key []byte, access Access) bool {
	if s.flags&selAllKeys != 0 {
		return true
	}
	for i := range s.keys {
		p := &s.keys[i]
		if p.access&access == access && p.m.match(key) {
			return true
		}
	}
	return false
}

func (s *selector) channelAllowed(ch []byte, pattern bool) bool {
	if s.flags&selAllChannels != 0 {
		return true
	}
	for i := range s.chanMatch {
		p := &s.chanMatch[i]
		if pattern {
			if p.glob == string(ch) {
				return true
			}
		} else if p.match(ch) {
			return true
		}
	}
	return false
}

// CheckKey reports whether any of u's selectors grants access to key (Redis's
// ACLUserCheckKeyPerm, used where keys are checked outside a command call).
func (u *User) CheckKey(key []byte, access Access) bool {
	for _, s := range u.selectors {
		if s.keyAllowed(key, access) {
			return true
		}
	}
	return false
}

// CheckChannel reports whether any of u's selectors grants the channel (pattern: a
// PSUBSCRIBE pattern, compared literally). The owner of Pub/Sub uses it to find the
// subscriptions a changed user lost.
func (u *User) CheckChannel(ch []byte, pattern bool) bool {
	for _, s := range u.selectors {
		if s.channelAllowed(ch, pattern) {
			return true
		}
	}
	return false
}

// CheckUnrestrictedKeys reports whether one selector both allows req and grants access to
// every key ("~*", allkeys, or a "*" pattern with the access), as SORT's BY and GET options
// require in Redis.
func (u *User) CheckUnrestrictedKeys(req *Request, access Access) bool {
	for _, s := range u.selectors {
		if s.check(u.universe, req).Reason != Allowed {
			continue
		}
		if s.flags&selAllKeys != 0 {
			return true
		}
		for _, k := range s.keys {
			if k.access&access == access && k.pattern == "*" {
				return true
			}
		}
	}
	return false
}

// KeepsChannels reports that u (a new version of old) still grants every channel old did,
// so no subscriber of old needs checking: u has an allchannels selector, or old had none
// and every channel rule of old is among u's. When it returns false, the caller checks each
// subscription with CheckChannel and disconnects clients that lost one, as Redis does.
func (u *User) KeepsChannels(old *User) bool {
	for _, s := range u.selectors {
		if s.flags&selAllChannels != 0 {
			return true
		}
	}
	for _, os := range old.selectors {
		if os.flags&selAllChannels != 0 {
			return false
		}
		for _, c := range os.channels {
			if !u.hasChannelRule(c) {
				return false
			}
		}
	}
	return true
}

func (u *User) hasChannelRule(c string) bool {
	for _, s := range u.selectors {
		for _, x := range s.channels {
			if x == c {
				return true
			}
		}
	}
	return false
}
