package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"strings"

	"github.com/ruvio/ruvio/acl"
)

// PING [message]
func pingCommand(x *keyspace.Ctx) {
	if len(x.Args) > 2 {
		x.W.Error(keyspace.ErrWrongArgs("ping"))
		return
	}
	if x.C.Proto == 2 && x.C.SubCount.Load() != 0 {
		// Subscribed mode: a frame like a message's, ["pong", arg].
		x.W.ArrayHeader(2)
		x.W.BulkString("pong")
		if len(x.Args) == 2 {
			x.W.Bulk(x.Args[1])
		} else {
			x.W.BulkString("")
		}
		return
	}
	if len(x.Args) == 2 {
		x.W.Bulk(x.Args[1])
		return
	}
	x.W.SimpleString("PONG")
}

// ECHO message
func echoCommand(x *keyspace.Ctx) { x.W.Bulk(x.Args[1]) }

// QUIT
func quitCommand(x *keyspace.Ctx) {
	x.W.OK()
	x.Batch.CloseAfter = true
	// Gone for every later command at once, not when the close is seen.
	x.EndClient(x.C)
}

// SELECT index
func selectCommand(x *keyspace.Ctx) {
	n, ok := keyspace.ParseInt(x.Args[1])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if x.S.Srv.Shards() > 1 && n != 0 {
		x.W.Error(keyspace.ErrSelectShard)
		return
	}
	if n < 0 || n >= int64(len(x.S.DBs)) {
		x.W.Error(keyspace.ErrDBIndex)
		return
	}
	x.C.SelectDB(int(n))
	x.W.OK()
}

// authenticate checks a user name and password (AUTH, HELLO AUTH) and,
// when they match, makes the connection run as that user. A failure is
// logged in the ACL log, as in Redis.
func authenticate(x *keyspace.Ctx, user, pass []byte) bool {
	users := x.S.Srv.Users()
	u, ok := users.Authenticate(user, pass)
	if !ok {
		x.S.Srv.AddACLLog(acl.LogEvent{Reason: acl.ReasonAuth, Context: acl.ContextTopLevel,
			Object: "AUTH", Username: string(user), ClientInfo: x.C.Info(x.S.Srv.Now(), 0)})
		return false
	}
	x.C.SetUser(users, u)
	x.C.Authenticated = true
	return true
}

// AUTH [username] password
func authCommand(x *keyspace.Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	user := []byte(acl.DefaultUserName)
	pass := x.Args[1]
	if len(x.Args) == 3 {
		user, pass = x.Args[1], x.Args[2]
	} else if x.S.Srv.Users().Default().NoPass() {
		x.W.Error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		return
	}
	if !authenticate(x, user, pass) {
		x.W.Error(keyspace.ErrWrongPass)
		return
	}
	x.W.OK()
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
func helloCommand(x *keyspace.Ctx) {
	args := x.Args
	proto := x.C.Proto
	if len(args) >= 2 {
		v, ok := keyspace.ParseInt(args[1])
		if !ok {
			x.W.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			x.W.Error("NOPROTO unsupported protocol version")
			return
		}
		proto = int(v)
	}
	var name []byte
	setName := false
	for i := 2; i < len(args); i++ {
		switch {
		case keyspace.EqFold(args[i], "auth") && i+2 < len(args):
			if !authenticate(x, args[i+1], args[i+2]) {
				x.W.Error(keyspace.ErrWrongPass)
				return
			}
			x.C.Authenticated = true
			i += 2
		case keyspace.EqFold(args[i], "setname") && i+1 < len(args):
			if !validClientName(args[i+1]) {
				x.W.Error("ERR Client names cannot contain spaces, newlines or special characters.")
				return
			}
			name, setName = args[i+1], true
			i++
		default:
			x.W.Error("ERR Syntax error in HELLO option '" + string(args[i]) + "'")
			return
		}
	}
	if !x.C.Authenticated {
		x.W.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if setName {
		x.C.SetName(string(name))
	}
	x.C.Proto = proto
	x.W.Proto = proto
	mode := "standalone"
	if serverClusterEnabled(x.S.Srv) {
		mode = "cluster"
	}
	x.W.MapHeader(7)
	x.W.BulkString("server")
	x.W.BulkString("redis")
	x.W.BulkString("version")
	x.W.BulkString(keyspace.RedisVersion)
	x.W.BulkString("proto")
	x.W.Int(int64(proto))
	x.W.BulkString("id")
	x.W.Int(x.C.ID)
	x.W.BulkString("mode")
	x.W.BulkString(mode)
	x.W.BulkString("role")
	x.W.BulkString("master")
	x.W.BulkString("modules")
	x.W.ArrayHeader(0)
}

// RESET
func resetCommand(x *keyspace.Ctx) {
	x.S.DiscardTx(x.C)
	x.C.SelectDB(0)
	x.C.Proto = 2
	x.W.Proto = 2
	x.C.SetName("")
	x.C.ReplyMode = 0
	x.S.Srv.StopMonitor(x.C)
	x.S.ResetPubSub(x.C)
	x.S.TrackOff(x.C)
	users := x.S.Srv.Users()
	x.C.SetUser(users, users.Default())
	x.C.Authenticated = !x.S.Srv.AuthRequired()
	x.W.SimpleString("RESET")
}

// validClientName reports whether a name has only printable characters
// other than space, as Redis requires.
func validClientName(b []byte) bool {
	for _, c := range b {
		if c < '!' || c > '~' {
			return false
		}
	}
	return true
}

// CLIENT <subcommand>
func clientCommand(x *keyspace.Ctx) {
	sub := x.Cmd.Sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + string(x.Args[1]) + "'. Try CLIENT HELP.")
		return
	}
	if !keyspace.ArityOK(sub.Arity, len(x.Args)) {
		x.W.Error(keyspace.ErrWrongArgs("client|" + sub.Name))
		return
	}
	sub.Handler(x)
}

func clientIDCommand(x *keyspace.Ctx) { x.W.Int(x.C.ID) }

func clientGetnameCommand(x *keyspace.Ctx) {
	if n := x.C.Name(); n != "" {
		x.W.BulkString(n)
		return
	}
	x.W.Null()
}

func clientSetnameCommand(x *keyspace.Ctx) {
	if !validClientName(x.Args[2]) {
		x.W.Error("ERR Client names cannot contain spaces, newlines or special characters.")
		return
	}
	x.C.SetName(string(x.Args[2]))
	x.W.OK()
}

// CLIENT SETINFO LIB-NAME name | LIB-VER version
func clientSetinfoCommand(x *keyspace.Ctx) {
	attr, val := x.Args[2], x.Args[3]
	if !validClientName(val) {
		x.W.Error("ERR " + strings.ToUpper(string(attr)) + " cannot contain spaces, newlines or special characters.")
		return
	}
	switch {
	case keyspace.EqFold(attr, "lib-name"):
		x.C.SetLib(string(val), "")
	case keyspace.EqFold(attr, "lib-ver"):
		x.C.SetLib("", string(val))
	default:
		x.W.Error("ERR Unrecognized option '" + string(attr) + "'")
		return
	}
	x.W.OK()
}

func clientInfoCommand(x *keyspace.Ctx) {
	x.W.Verbatim("txt", x.C.Info(x.S.Srv.Now(), ctxRunning(x))+"\n")
}

// ctxRunning is the size of the request data of the batch being run: the
// caller's share of its query buffer in CLIENT LIST and CLIENT INFO.
func ctxRunning(x *keyspace.Ctx) int {
	if x.Batch == nil {
		return 0
	}
	return len(x.Batch.Data)
}

// CLIENT REPLY ON|OFF|SKIP. OFF and SKIP reply nothing themselves.
func clientReplyCommand(x *keyspace.Ctx) {
	switch a := x.Args[2]; {
	case keyspace.EqFold(a, "on"):
		x.C.ReplyMode = 0
		x.W.OK()
	case keyspace.EqFold(a, "off"):
		x.C.ReplyMode |= keyspace.ReplyOff
	case keyspace.EqFold(a, "skip"):
		if x.C.ReplyMode&keyspace.ReplyOff == 0 {
			x.C.ReplyMode |= keyspace.ReplySkipNext
		}
	default:
		x.W.Error(keyspace.ErrSyntax)
	}
}

// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id [id ...]]
func clientListCommand(x *keyspace.Ctx) {
	var ids map[int64]bool
	typ := "" // "": every type; otherwise killType's classes ("master": a primary's link, never a listed client here)
	args := x.Args[2:]
	for len(args) > 0 {
		switch {
		case keyspace.EqFold(args[0], "type") && len(args) >= 2:
			t := strings.ToLower(string(args[1]))
			if t != "normal" && t != "master" && t != "replica" && t != "slave" && t != "pubsub" {
				x.W.Error("ERR Unknown client type '" + string(args[1]) + "'")
				return
			}
			if t == "slave" {
				t = "replica"
			}
			typ = t
			args = args[2:]
		case keyspace.EqFold(args[0], "id") && len(args) >= 2:
			if ids == nil {
				ids = map[int64]bool{}
			}
			for _, a := range args[1:] {
				n, ok := keyspace.ParseInt(a)
				if !ok || n <= 0 {
					x.W.Error("ERR Invalid client ID")
					return
				}
				ids[n] = true
			}
			args = nil
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	now := x.S.Srv.Now()
	var sb strings.Builder
	for _, c := range x.S.Srv.Clients() {
		// Each shard's port is one cluster node: it lists its own
		// connections (shard_clients.go).
		if ids != nil && !ids[c.ID] || c.Shard != x.S.Idx || typ != "" && c.KillType() != typ {
			continue
		}
		running := 0
		if c == x.C {
			running = ctxRunning(x)
		}
		sb.WriteString(c.Info(now, running))
		sb.WriteByte('\n')
	}
	x.W.Verbatim("txt", sb.String())
}

// CLIENT KILL ip:port | CLIENT KILL [ID id] [ADDR ip:port] [LADDR ip:port] [SKIPME yes|no] [TYPE t] [USER u]
func clientKillCommand(x *keyspace.Ctx) {
	args := x.Args[2:]
	if len(args) == 1 {
		for _, c := range x.S.Srv.Clients() {
			if c.RemoteAddr == string(args[0]) {
				x.KillClient(c)
				x.W.OK()
				return
			}
		}
		// A replica's link to its primary is Redis's master client.
		if a := x.S.Srv.PrimaryAddrOf(x.S.Idx); a != "" && a == string(args[0]) && x.S.Srv.DropPrimaryLink(x.S.Idx) {
			x.W.OK()
			return
		}
		x.W.Error("ERR No such client")
		return
	}
	if len(args)%2 != 0 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	var id int64
	var addr, laddr, user string
	typ := ""
	skipMe := true
	for i := 0; i < len(args); i += 2 {
		v := args[i+1]
		switch {
		case keyspace.EqFold(args[i], "id"):
			n, ok := keyspace.ParseInt(v)
			if !ok || n <= 0 {
				x.W.Error("ERR client-id should be greater than 0")
				return
			}
			id = n
		case keyspace.EqFold(args[i], "addr"):
			addr = string(v)
		case keyspace.EqFold(args[i], "laddr"):
			laddr = string(v)
		case keyspace.EqFold(args[i], "user"):
			if x.S.Srv.Users().GetBytes(v) == nil {
				x.W.Error("ERR No such user '" + string(v) + "'")
				return
			}
			user = string(v)
		case keyspace.EqFold(args[i], "type"):
			typ = strings.ToLower(string(v))
			if typ == "slave" {
				typ = "replica"
			}
			if typ != "normal" && typ != "master" && typ != "replica" && typ != "slave" && typ != "pubsub" {
				x.W.Error("ERR Unknown client type '" + string(v) + "'")
				return
			}
		case keyspace.EqFold(args[i], "skipme"):
			switch {
			case keyspace.EqFold(v, "yes"):
				skipMe = true
			case keyspace.EqFold(v, "no"):
				skipMe = false
			default:
				x.W.Error(keyspace.ErrSyntax)
				return
			}
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	killed := 0
	for _, c := range x.S.Srv.Clients() {
		if id != 0 && c.ID != id || addr != "" && c.RemoteAddr != addr || laddr != "" && c.LocalAddr != laddr {
			continue
		}
		if user != "" && user != c.UserName() || typ != "" && typ != c.KillType() {
			continue
		}
		if skipMe && c == x.C {
			continue
		}
		x.KillClient(c)
		killed++
	}
	// A replica's link to its primary is Redis's master client.
	if id == 0 && laddr == "" && user == "" && (typ == "" || typ == "master") {
		if a := x.S.Srv.PrimaryAddrOf(x.S.Idx); a != "" && (addr == "" && typ == "master" || addr == a) && x.S.Srv.DropPrimaryLink(x.S.Idx) {
			killed++
		}
	}
	x.W.Int(int64(killed))
}

// CLIENT NO-TOUCH on|off: accepted, as the server has no LRU clock for it
// to change.
func clientOnOffCommand(x *keyspace.Ctx) {
	if !keyspace.EqFold(x.Args[2], "on") && !keyspace.EqFold(x.Args[2], "off") {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	x.W.OK()
}

// CLIENT NO-EVICT on|off: with on, maxmemory-clients never evicts the
// connection (its memory still counts); off makes it evictable again, and a
// total over the limit evicts at once, possibly the caller.
func clientNoEvictCommand(x *keyspace.Ctx) {
	switch {
	case keyspace.EqFold(x.Args[2], "on"):
		x.C.SetNoEvict(true)
	case keyspace.EqFold(x.Args[2], "off"):
		x.C.SetNoEvict(false)
	default:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	x.W.OK()
	if !x.C.NoEvict() {
		x.S.Srv.EvictClients()
	}
}

func clientHelpCommand(x *keyspace.Ctx) {
	lines := []string{
		"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GETNAME", "    Return the name of the current connection.",
		"ID", "    Return the ID of the current connection.",
		"INFO", "    Return information about the current client connection.",
		"KILL <ip:port>", "    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are: ID, ADDR, LADDR, SKIPME, TYPE, USER.",
		"LIST [TYPE <type>] [ID <id> [<id> ...]]", "    Return information about client connections.",
		"SETNAME <name>", "    Assign the name <name> to the current connection.",
		"SETINFO <LIB-NAME|LIB-VER> <value>", "    Set client library name or version.",
		"NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
		"REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
		"PAUSE <timeout> [WRITE|ALL]", "    Suspend all, or just write, clients for <timeout> milliseconds.",
		"UNPAUSE", "    Stop the current client pause, resuming traffic.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]", "         [OPTIN] [OPTOUT] [NOLOOP]", "    Control server assisted client side caching.",
		"CACHING (YES|NO)", "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
		"TRACKINGINFO", "    Report tracking status for the current connection.",
		"HELP", "    Prints this help.",
	}
	x.W.ArrayHeader(len(lines))
	for _, l := range lines {
		x.W.SimpleString(l)
	}
}

func registerConnectionFamily(t keyspace.CommandTable) {
	const conn = "connection"
	stale := keyspace.FlagLoading | keyspace.FlagStale
	t.Add(
		&keyspace.Command{Name: "ping", Arity: -1, Flags: keyspace.FlagFast, Group: conn, Since: "1.0.0", Summary: "Returns the server's liveliness response.", Complexity: "O(1)", Handler: pingCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
		&keyspace.Command{Name: "echo", Arity: 2, Flags: keyspace.FlagFast | stale, Group: conn, Since: "1.0.0", Summary: "Returns the given string.", Complexity: "O(1)", Handler: echoCommand},
		&keyspace.Command{Name: "quit", Arity: -1, Flags: keyspace.FlagNoAuth | keyspace.FlagFast | stale | keyspace.FlagNoScript | keyspace.FlagAllowBusy, Group: conn, Since: "1.0.0", Summary: "Closes the connection.", Complexity: "O(1)", Handler: quitCommand},
		&keyspace.Command{Name: "select", Arity: 2, Flags: keyspace.FlagFast | stale, Group: conn, Since: "1.0.0", Summary: "Changes the selected database.", Complexity: "O(1)", Handler: selectCommand},
		&keyspace.Command{Name: "auth", Arity: -2, Flags: keyspace.FlagNoAuth | keyspace.FlagFast | stale | keyspace.FlagNoScript | keyspace.FlagAllowBusy, Group: conn, Since: "1.0.0", Summary: "Authenticates the connection.", Complexity: "O(N) where N is the number of passwords defined for the user", Handler: authCommand},
		&keyspace.Command{Name: "hello", Arity: -1, Flags: keyspace.FlagNoAuth | keyspace.FlagFast | stale | keyspace.FlagNoScript | keyspace.FlagAllowBusy, Group: conn, Since: "6.0.0", Summary: "Handshakes with the Redis server.", Complexity: "O(1)", Handler: helloCommand},
		&keyspace.Command{Name: "monitor", Arity: 1, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | stale, Group: "server", Since: "1.0.0", Summary: "Listens for all requests received by the server in real-time.", Complexity: "", Handler: monitorCommand},
		&keyspace.Command{Name: "reset", Arity: 1, Flags: keyspace.FlagNoAuth | keyspace.FlagFast | stale | keyspace.FlagNoScript | keyspace.FlagAllowBusy, Group: conn, Since: "6.2.0", Summary: "Resets the connection.", Complexity: "O(1)", Handler: resetCommand},
		&keyspace.Command{Name: "client", Arity: -2, Flags: 0, Group: conn, Since: "2.4.0", Summary: "A container for client connection commands.", Complexity: "Depends on subcommand.", Handler: clientCommand,
			Subcommands: []*keyspace.Command{
				{Name: "id", Arity: 2, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "5.0.0", Summary: "Returns the unique client ID of the connection.", Complexity: "O(1)", Handler: clientIDCommand},
				{Name: "getname", Arity: 2, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "2.6.9", Summary: "Returns the name of the connection.", Complexity: "O(1)", Handler: clientGetnameCommand},
				{Name: "setname", Arity: 3, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "2.6.9", Summary: "Sets the connection name.", Complexity: "O(1)", Handler: clientSetnameCommand},
				{Name: "setinfo", Arity: 4, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "7.2.0", Summary: "Sets information specific to the client or connection.", Complexity: "O(1)", Handler: clientSetinfoCommand},
				{Name: "info", Arity: 2, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "6.2.0", Summary: "Returns information about the connection.", Complexity: "O(1)", Handler: clientInfoCommand, Tips: []string{tipNondeterministic}},
				{Name: "list", Arity: -2, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoScript, Group: conn, Since: "2.4.0", Summary: "Lists open connections.", Complexity: "O(N) where N is the number of client connections", Handler: clientListCommand, Tips: []string{tipNondeterministic}},
				{Name: "unblock", Arity: -3, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoScript, Group: conn, Since: "5.0.0", Summary: "Unblocks a client blocked by a blocking command from a different connection.", Complexity: "O(log N) where N is the number of client connections", Handler: clientUnblockCommand},
				{Name: "kill", Arity: -3, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoScript, Group: conn, Since: "2.4.0", Summary: "Terminates open connections.", Complexity: "O(N) where N is the number of client connections", Handler: clientKillCommand},
				{Name: "no-evict", Arity: 3, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoScript, Group: conn, Since: "7.0.0", Summary: "Sets the client eviction mode of the connection.", Complexity: "O(1)", Handler: clientNoEvictCommand},
				{Name: "no-touch", Arity: 3, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "7.2.0", Summary: "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", Complexity: "O(1)", Handler: clientOnOffCommand},
				{Name: "reply", Arity: 3, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "3.2.0", Summary: "Instructs the server whether to reply to commands.", Complexity: "O(1)", Handler: clientReplyCommand},
				{Name: "help", Arity: 2, Flags: stale, Group: conn, Since: "5.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: clientHelpCommand},
				{Name: "tracking", Arity: -3, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "6.0.0", Summary: "Controls server-assisted client-side caching for the connection.", Complexity: "O(1). Some options may introduce additional complexity.", Handler: clientTrackingCommand},
				{Name: "pause", Arity: -3, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoScript, Group: conn, Since: "2.9.50", Summary: "Suspends commands processing.", Complexity: "O(1)", Handler: clientPauseCommand},
				{Name: "unpause", Arity: 2, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoScript, Group: conn, Since: "6.2.0", Summary: "Resumes processing commands from paused clients.", Complexity: "O(N) Where N is the number of paused clients", Handler: clientUnpauseCommand},
				{Name: "caching", Arity: 3, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "6.0.0", Summary: "Instructs the server whether to track the keys in the next request.", Complexity: "O(1)", Handler: clientCachingCommand},
				{Name: "getredir", Arity: 2, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "6.0.0", Summary: "Returns the client ID to which the connection's tracking notifications are redirected.", Complexity: "O(1)", Handler: clientGetredirCommand},
				{Name: "trackinginfo", Arity: 2, Flags: stale | keyspace.FlagNoScript, Group: conn, Since: "6.2.0", Summary: "Returns information about server-assisted client-side caching for the connection.", Complexity: "O(1)", Handler: clientTrackinginfoCommand},
			}},
	)
}

// itoa is strconv.Itoa, kept short for reply building.
func itoa(n int) string { return strconv.Itoa(n) }
