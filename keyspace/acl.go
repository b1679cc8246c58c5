package keyspace

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/config"
)

// This file connects the acl package to the shards: one users snapshot
// shared by every shard (acl.Store, an atomic pointer), the command
// universe built from the command table, the ACL log, and the check a
// command goes through before it runs (checkACL).

// aclState is the server's access control.
type aclState struct {
	Store    *acl.Store
	Universe *acl.Universe
	// File is acl.file: where ACL SAVE writes and ACL LOAD reads ("": none).
	File string

	LogMu sync.Mutex // guards log
	Log   *acl.Log
	// FileMu serialises ACL SAVE and ACL LOAD, which shards may run at once.
	FileMu sync.Mutex
}

// newACLState builds the command universe from t (whose ids assignIDs has
// set) and the start-up users: the ACL file or the [[acl.user]] tables,
// then requirepass for the default user.
func newACLState(t CommandTable, cfg config.Config, live *config.Live, now func() time.Time) (*aclState, error) {
	u, err := acl.NewUniverse(aclSpecs(t))
	if err != nil {
		return nil, fmt.Errorf("keyspace: acl command universe: %w", err)
	}
	users := acl.NewUsers(u, acl.Options{PubSubAllChannels: live != nil && live.ACLPubsubAllChannels()})
	if cfg.ACL.File != "" {
		data, err := os.ReadFile(cfg.ACL.File)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// ACL SAVE creates it.
		case err != nil:
			return nil, fmt.Errorf("keyspace: acl.file: %w", err)
		default:
			if users, err = users.LoadFile(cfg.ACL.File, data); err != nil {
				return nil, fmt.Errorf("keyspace: acl.file: %w", err)
			}
		}
	}
	if len(cfg.ACL.Users) > 0 {
		specs := make([]acl.Spec, len(cfg.ACL.Users))
		for i, cu := range cfg.ACL.Users {
			specs[i] = acl.Spec{Name: cu.Name, Passwords: cu.Passwords, NoPass: cu.NoPass,
				Commands: cu.Commands, Keys: cu.Keys, Channels: cu.Channels, Enabled: cu.IsEnabled()}
		}
		if users, err = users.ApplySpecs(specs); err != nil {
			return nil, fmt.Errorf("config: acl.user: %w", err)
		}
	}
	if cfg.Server.RequirePass != "" {
		users = users.WithRequirePass(cfg.Server.RequirePass)
	}
	return &aclState{
		Store:    acl.NewStore(users),
		Universe: u,
		File:     cfg.ACL.File,
		Log:      acl.NewLog(acl.DefaultLogMaxLen, now),
	}, nil
}

// aclSpecs describes the command table to the acl package, in the order
// of the command ids (assignIDs), so that a command's id is its
// acl.CommandID.
func aclSpecs(t CommandTable) []acl.CommandSpec {
	cmds := make([]*Command, 0, len(t))
	for _, c := range t {
		cmds = append(cmds, c)
	}
	slices.SortFunc(cmds, func(a, b *Command) int { return cmp.Compare(a.ID, b.ID) })
	specs := make([]acl.CommandSpec, 0, len(cmds))
	for _, c := range cmds {
		sp := aclSpec(c)
		for _, sc := range c.Subcommands {
			sp.Subcommands = append(sp.Subcommands, aclSpec(sc))
		}
		specs = append(specs, sp)
	}
	return specs
}

func aclSpec(c *Command) acl.CommandSpec {
	return acl.CommandSpec{Name: c.Name, Categories: c.ACLCategories(), NoAuth: c.Flags&FlagNoAuth != 0}
}

// Users returns the current users snapshot.
func (s *Server) Users() *acl.Users { return s.ACL.Store.Load() }

// AuthRequired reports whether a connection that has not authenticated
// must do so before running commands: the default user has passwords or
// is off (Redis's authRequired).
func (s *Server) AuthRequired() bool {
	d := s.Users().Default()
	return !d.NoPass() || !d.Enabled()
}

// AddACLLog records a denial in the ACL log.
func (s *Server) AddACLLog(ev acl.LogEvent) {
	s.ACL.LogMu.Lock()
	s.ACL.Log.SetMaxLen(int(min(s.Opts.Live.ACLLogMaxLen(), 1<<30)))
	s.ACL.Log.Add(ev)
	s.ACL.LogMu.Unlock()
}

// SetUser makes c run as u, taken from snapshot users.
func (c *Client) SetUser(users *acl.Users, u *acl.User) {
	c.ACLUsers = users
	c.ACLUser = u
	name := u.Name()
	c.userName.Store(&name)
}

// UserName is the name of the user the connection runs as.
func (c *Client) UserName() string {
	if p := c.userName.Load(); p != nil {
		return *p
	}
	return acl.DefaultUserName
}

// resolveUser finds the connection's user again in a newer snapshot, so
// that a changed user's permissions apply to its open connections at
// once. A user that was deleted leaves ACLUser nil: every command is
// refused until the connection is closed. A user turned off keeps its
// open connections and their permissions, as in Redis 7.0.
func (c *Client) resolveUser(users *acl.Users) {
	c.ACLUsers = users
	c.ACLUser = users.Get(c.UserName())
}

// checkACL is the permission check of a call of cmd, run before it
// executes (after arity and authentication, before slot ownership, as in
// Redis). It replies NOPERM, logs the denial and returns false when the
// connection's user may not run the call. A user allowed everything (the
// default user's "+@all ~* &*") costs an atomic load and a flag test.
func (sh *Shard) checkACL(x *Ctx, cmd *Command, args [][]byte) bool {
	c := x.C
	if users := sh.Srv.ACL.Store.Load(); c.ACLUsers != users {
		c.resolveUser(users)
	}
	if u := c.ACLUser; u != nil && u.Unrestricted() {
		return true
	}
	if c.Tx.Multi {
		// Refused while being queued: logged in the transaction's
		// context, as Redis does.
		return sh.checkACLIn(x, cmd, args, acl.ContextMulti)
	}
	return sh.checkACLIn(x, cmd, args, acl.ContextTopLevel)
}

// CheckACLQueued is checkACL for a queued command run by EXEC, logged in
// the transaction's context.
func (sh *Shard) CheckACLQueued(x *Ctx, cmd *Command, args [][]byte) bool {
	c := x.C
	if users := sh.Srv.ACL.Store.Load(); c.ACLUsers != users {
		c.resolveUser(users)
	}
	if u := c.ACLUser; u != nil && u.Unrestricted() {
		return true
	}
	return sh.checkACLIn(x, cmd, args, acl.ContextMulti)
}

// checkACLIn is checkACL for a call in context ctx (acl.ContextMulti for
// commands of a transaction, checked when queued and again by EXEC, as in
// Redis).
func (sh *Shard) checkACLIn(x *Ctx, cmd *Command, args [][]byte, ctx acl.Context) bool {
	c := x.C
	if users := sh.Srv.ACL.Store.Load(); c.ACLUsers != users {
		c.resolveUser(users)
	}
	u := c.ACLUser
	if cmd.Flags&FlagNoAuth != 0 {
		// AUTH and HELLO: no command rule applies, and they name no key.
		return true
	}
	if u == nil {
		// The user was deleted or turned off; its connections are being
		// closed by the ACL command that did it.
		x.W.Error("NOPERM this user has no permissions to run the '" + cmd.Called(args).FullName() + "' command")
		if x.Batch != nil {
			x.Batch.CloseAfter = true
		}
		return false
	}
	req := sh.ACLRequest(cmd, args)
	d := u.Check(req)
	if d.OK() {
		req.Args = nil
		return true
	}
	univ := sh.Srv.ACL.Universe
	// The log's client-info names the refused command, as Redis's does.
	if name := &cmd.Called(args).fullName; c.lastCmd.Load() != name {
		c.lastCmd.Store(name)
	}
	sh.Srv.AddACLLog(acl.LogEvent{Reason: d.Reason, Context: ctx, Object: d.Object(univ, req),
		Username: u.Name(), ClientInfo: c.Info(sh.Srv.Now(), 0)})
	x.W.Error(d.Error(univ, req))
	req.Args = nil
	return false
}

// ACLRequest describes a call of cmd to the acl package, in the shard's
// reusable request: the command or subcommand run, its keys with the
// access their key specs give (SET's resolved from its arguments), and
// the channels it publishes or subscribes to.
//
// The keys are those COMMAND GETKEYS reports (CallKeys, from the key
// specs). A command whose handler finds its keys with its own parser
// (movable keys) may, on unusual arguments, act on a key the specs do
// not name: GEORADIUS … STORE a STORE b writes b, while the STORE spec
// finds the first STORE only, and arguments that do not fit the specs
// name no key at all. Those keys (the ones routing and the handler use)
// are checked too, with every access the command's specs ask for, so no
// argument list reaches a key the user may not touch.
func (sh *Shard) ACLRequest(cmd *Command, args [][]byte) *acl.Request {
	called := cmd.Called(args)
	req := &sh.aclReq
	req.Cmd = acl.CommandID(called.ID)
	req.Args = args
	req.Keys = req.Keys[:0]
	req.Channels = req.Channels[:0]
	if len(called.KeySpecs) > 0 {
		refs, ok := called.CallKeys(args, sh.aclKeyRefs[:0])
		sh.aclKeyRefs = refs
		if ok {
			for _, k := range refs {
				req.Keys = append(req.Keys, acl.KeyRef{Pos: k.Pos, Access: keyAccess(called.CallKeyFlags(args, k))})
			}
		}
		if called.MovableKeys != nil || called.NumKeysAt > 0 {
			req.Keys = sh.aclRoutedKeys(called, args, req.Keys)
		}
	}
	if called.Flags&FlagPubSub != 0 {
		req.Channels = CommandChannels(called.FullName(), args, req.Channels)
	}
	return req
}

// aclRoutedKeys appends to keys the keys of a call of c that its handler
// and routing find (KeyIndexes) and the key specs did not, each with the
// union of the access of c's key specs.
func (sh *Shard) aclRoutedKeys(c *Command, args [][]byte, keys []acl.KeyRef) []acl.KeyRef {
	sh.aclKeyIdx = c.KeyIndexes(args, sh.aclKeyIdx[:0])
	var all acl.Access
	for i := range c.KeySpecs {
		if c.KeySpecs[i].Flags&KeyNotKey == 0 {
			all |= keyAccess(c.KeySpecs[i].Flags)
		}
	}
	n := len(keys)
outer:
	for _, pos := range sh.aclKeyIdx {
		for _, k := range keys[:n] {
			if k.Pos == pos {
				continue outer
			}
		}
		keys = append(keys, acl.KeyRef{Pos: pos, Access: all})
	}
	return keys
}

// keyAccess is what ACL key permissions a key of these flags needs, as
// Redis decides it: reading the value (access) needs read permission;
// inserting, updating or deleting needs write permission; neither (an
// existence test, TYPE) is granted by any pattern.
func keyAccess(f KeyFlag) acl.Access {
	var a acl.Access
	if f&KeyAccess != 0 {
		a |= acl.Read
	}
	if f&(KeyInsert|KeyUpdate|KeyDelete) != 0 {
		a |= acl.Write
	}
	return a
}

// CommandChannels appends the Pub/Sub channels a call publishes or
// subscribes to, which channel rules ("&pattern") govern. Unsubscribing
// needs no permission, as in Redis.
func CommandChannels(name string, args [][]byte, dst []acl.ChannelRef) []acl.ChannelRef {
	switch name {
	case "publish", "spublish":
		if len(args) > 1 {
			dst = append(dst, acl.ChannelRef{Pos: 1})
		}
	case "subscribe", "ssubscribe":
		for i := 1; i < len(args); i++ {
			dst = append(dst, acl.ChannelRef{Pos: i})
		}
	case "psubscribe":
		for i := 1; i < len(args); i++ {
			dst = append(dst, acl.ChannelRef{Pos: i, Pattern: true})
		}
	}
	return dst
}

// ACLChanged closes the connections that a change of the users (old to
// users) took away: those of deleted users, after ACL LOAD (all) those of
// every user but the default one, as Redis does, and, as Redis 7.0 does,
// subscribers whose user no longer grants one of their channels or
// patterns. A user turned off keeps its open connections, as in Redis 7.0:
// "off" refuses new authentications only. The caller's own connection is
// closed after its reply.
func (x *Ctx) ACLChanged(old, users *acl.Users, all bool) {
	for _, c := range x.S.Srv.Clients() {
		name := c.UserName()
		u := users.Get(name)
		if u != nil && !(all && name != acl.DefaultUserName) && !x.S.Srv.lostChannels(c, old.Get(name), u) {
			continue
		}
		x.KillClient(c)
	}
}

// lostChannels reports whether c, a client of a user changed from old to
// u, is subscribed to a channel or pattern that u does not grant.
func (s *Server) lostChannels(c *Client, old, u *acl.User) bool {
	if c.SubCount.Load() == 0 || old == nil || u.KeepsChannels(old) {
		return false
	}
	channels, patterns, shardChannels := s.Subscriptions(c)
	for _, list := range [][]string{channels, shardChannels} {
		for _, ch := range list {
			if !u.CheckChannel([]byte(ch), false) {
				return true
			}
		}
	}
	for _, p := range patterns {
		if !u.CheckChannel([]byte(p), true) {
			return true
		}
	}
	return false
}
