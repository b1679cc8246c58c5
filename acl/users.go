package acl

import (
	"sort"
	"sync/atomic"
)

// DefaultUserName is the user every connection starts as.
const DefaultUserName = "default"

// Options are the server settings the rules depend on.
type Options struct {
	// PubSubAllChannels is Redis's acl-pubsub-default=allchannels: new users, "reset" and
	// new selectors start with &* instead of no channels (the Redis 7 default).
	PubSubAllChannels bool
}

func (o Options) selectorFlags() selectorFlags {
	if o.PubSubAllChannels {
		return selAllChannels
	}
	return 0
}

// Users is an immutable snapshot of every user. Changes return a new snapshot (copy on
// write); whoever owns the users publishes each one with an atomic pointer (see Store), so
// that checks on every shard read a consistent set without locks.
type Users struct {
	universe *Universe
	opts     Options
	byName   map[string]*User
	names    []string // sorted bytewise, the order of ACL LIST and ACL USERS
}

// NewUsers returns the initial snapshot: only the default user, "on nopass ~* &* +@all".
func NewUsers(u *Universe, opts Options) *Users {
	s := &Users{universe: u, opts: opts}
	return s.with(defaultUser(u, opts))
}

func defaultUser(u *Universe, opts Options) *User {
	d := newUser(DefaultUserName, u, opts)
	for _, r := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		if err := d.apply(r, opts); err != nil {
			panic("acl: default user rule " + r + ": " + err.Error())
		}
	}
	return d.seal()
}

// with returns a copy of s with user added or replaced.
func (s *Users) with(user *User) *Users {
	n := &Users{universe: s.universe, opts: s.opts, byName: make(map[string]*User, len(s.byName)+1)}
	for k, v := range s.byName {
		n.byName[k] = v
	}
	if _, ok := n.byName[user.name]; !ok {
		n.names = make([]string, 0, len(s.names)+1)
		n.names = append(n.names, s.names...)
		n.names = append(n.names, user.name)
		sortStrings(n.names)
	} else {
		n.names = s.names
	}
	n.byName[user.name] = user
	return n
}

// Universe returns the command universe the users' rules refer to.
func (s *Users) Universe() *Universe { return s.universe }

// Options returns the settings the snapshot was built with.
func (s *Users) Options() Options { return s.opts }

// Get returns the named user, or nil.
func (s *Users) Get(name string) *User { return s.byName[name] }

// GetBytes is Get for a name held in bytes; it does not allocate.
func (s *Users) GetBytes(name []byte) *User { return s.byName[string(name)] }

// Default returns the default user.
func (s *Users) Default() *User { return s.byName[DefaultUserName] }

// Names returns the user names in ACL USERS order.
func (s *Users) Names() []string { return append([]string(nil), s.names...) }

// Len returns the number of users.
func (s *Users) Len() int { return len(s.names) }

// Authenticate returns the user that name and password authenticate, or false when the
// user does not exist, is off, or the password is wrong (Redis does not tell these apart).
func (s *Users) Authenticate(name, password []byte) (*User, bool) {
	u := s.byName[string(name)]
	if u == nil || !u.CheckPassword(password) {
		return nil, false
	}
	return u, true
}

// SetUser applies ACL SETUSER name rules…: it creates the user if needed, joins selectors
// written over several arguments, and applies every rule to a copy, so that on error
// nothing changes. The error is a *RuleError or, for an unclosed selector, an error with
// Redis's text.
func (s *Users) SetUser(name string, rules ...string) (*Users, error) {
	if hasSpaces(name) {
		return s, ErrUsernameSpaces
	}
	merged, open, ok := mergeSelectors(rules)
	if !ok {
		return s, redisError("Unmatched parenthesis in acl selector starting at '" + rules[open] + "'.")
	}
	var u *User
	if old := s.byName[name]; old != nil {
		u = old.clone()
	} else {
		u = newUser(name, s.universe, s.opts)
	}
	for _, r := range merged {
		if err := u.apply(r, s.opts); err != nil {
			return s, &RuleError{Rule: r, Err: err}
		}
	}
	return s.with(u.seal()), nil
}

// DelUsers removes the named users (ACL DELUSER) and returns the new snapshot with the
// users it removed, whose connections the caller closes. The default user cannot be
// removed: naming it is an error and removes nothing.
func (s *Users) DelUsers(names ...string) (*Users, []*User, error) {
	for _, n := range names {
		if n == DefaultUserName {
			return s, nil, ErrDeleteDefault
		}
	}
	var gone []*User
	n := &Users{universe: s.universe, opts: s.opts, byName: make(map[string]*User, len(s.byName))}
	for k, v := range s.byName {
		n.byName[k] = v
	}
	for _, name := range names {
		if u := n.byName[name]; u != nil {
			gone = append(gone, u)
			delete(n.byName, name)
		}
	}
	if len(gone) == 0 {
		return s, nil, nil
	}
	for _, name := range s.names {
		if n.byName[name] != nil {
			n.names = append(n.names, name)
		}
	}
	return n, gone, nil
}

// WithOptions returns s whose later new users and resets follow o; the users it holds are
// unchanged.
func (s *Users) WithOptions(o Options) *Users {
	if s.opts == o {
		return s
	}
	n := *s
	n.opts = o
	return &n
}

// WithRequirePass sets the default user's password as requirepass does: a non-empty
// password replaces the default user's passwords, an empty one makes it nopass.
func (s *Users) WithRequirePass(password string) *Users {
	rules := []string{"resetpass", "nopass"}
	if password != "" {
		rules = []string{"resetpass", ">" + password}
	}
	n, err := s.SetUser(DefaultUserName, rules...)
	if err != nil {
		panic("acl: requirepass rules cannot fail: " + err.Error())
	}
	return n
}

// List returns ACL LIST: one "user <name> <rules>" line per user, in name order.
func (s *Users) List() []string {
	out := make([]string, len(s.names))
	for i, name := range s.names {
		out[i] = "user " + name + " " + s.byName[name].Describe()
	}
	return out
}

// Store holds the current snapshot for concurrent readers and serialises changes.
type Store struct {
	p atomic.Pointer[Users]
}

// NewStore returns a Store holding users.
func NewStore(users *Users) *Store {
	s := &Store{}
	s.p.Store(users)
	return s
}

// Load returns the current snapshot.
func (s *Store) Load() *Users { return s.p.Load() }

// Update applies change to the current snapshot and publishes its result, retrying if
// another update won the race; change must have no side effects. On error nothing is
// published.
func (s *Store) Update(change func(*Users) (*Users, error)) (*Users, error) {
	for {
		old := s.p.Load()
		n, err := change(old)
		if err != nil {
			return old, err
		}
		if s.p.CompareAndSwap(old, n) {
			return n, nil
		}
	}
}

func sortStrings(s []string) { sort.Strings(s) }
