package integration_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// errScriptKeyPerm is the part of a script's error that says a
// redis.call named a key its user may not use.
const errScriptKeyPerm = "The user executing the script can't access at least one of the keys mentioned in the command"

// userNodeClient is a client that authenticates as user and talks to the
// shard owning key (every key of these tests shares the hash tag {x}, so
// one shard owns them all).
func userNodeClient(t *testing.T, s *testserver.Server, user, pass, key string) *redis.Client {
	t.Helper()
	if len(s.Addrs) == 1 {
		return userClient(t, s.Addr(), user, pass)
	}
	admin := s.ClusterClient(t)
	node, err := admin.MasterForKey(ctxT(t), key)
	if err != nil {
		t.Fatalf("owner of %s: %v", key, err)
	}
	return userClient(t, node.Options().Addr, user, pass)
}

// aclLogHead returns the newest ACL LOG entry of the shard c talks to.
func aclLogHead(t *testing.T, c cmdr) map[interface{}]interface{} {
	t.Helper()
	entries, _ := value(t, c, "ACL", "LOG", "1").([]interface{})
	if len(entries) != 1 {
		t.Fatalf("ACL LOG 1: %#v", entries)
	}
	m, _ := entries[0].(map[interface{}]interface{})
	return m
}

// TestACLStreamReadKeys: XREAD and XREADGROUP check the keys after
// STREAMS against the user's patterns, at top level, in MULTI and from
// scripts, log the denials, and a refused XREADGROUP neither moves the
// group nor creates its consumer; on 1 and 4 shards.
func TestACLStreamReadKeys(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			s := testserver.Start(t, testserver.Shards(shards))
			const own, other = "app:{x}s", "admin:{x}s"
			admin := userNodeClient(t, s, "default", "", own)
			for _, k := range []string{own, other} {
				expect(t, admin, "1-1", "XADD", k, "1-1", "f", "v")
				expect(t, admin, "OK", "XGROUP", "CREATE", k, "g", "0")
			}
			expect(t, admin, "OK", "ACL", "SETUSER", "app", "on", ">p", "~app:*", "+@all", "-@dangerous")
			expect(t, admin, "OK", "ACL", "SETUSER", "rw", "on", ">p", "%R~r:*", "%W~w:*", "+@all", "-@dangerous")
			c := userNodeClient(t, s, "app", "p", own)

			// COMMAND GETKEYS finds the keyword-located keys.
			expect(t, c, []interface{}{"s"}, "COMMAND", "GETKEYS", "XREAD", "STREAMS", "s", "0")
			expect(t, c, []interface{}{"a", "b"}, "COMMAND", "GETKEYS", "xread", "count", "1", "streams", "a", "b", "0", "0")
			expect(t, c, []interface{}{"s"}, "COMMAND", "GETKEYS", "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")

			// ACL DRYRUN sees the same keys.
			expect(t, admin, "This user has no permissions to access the '"+other+"' key", "ACL", "DRYRUN", "app", "XREAD", "STREAMS", own, other, "0", "0")
			expect(t, admin, "OK", "ACL", "DRYRUN", "app", "XREAD", "STREAMS", own, "0")

			// The user's own stream reads as before.
			if got, err := c.Do(ctxT(t), "XREAD", "STREAMS", own, "0").Result(); err != nil || got == nil {
				t.Errorf("XREAD own stream: %v %v", got, err)
			}
			expect(t, admin, "OK", "ACL", "LOG", "RESET")
			expectErr(t, c, errNoPermKeys, "XREAD", "STREAMS", other, "0")
			expectErr(t, c, errNoPermKeys, "XREAD", "COUNT", "5", "streams", own, other, "0", "0")
			expectErr(t, c, errNoPermKeys, "XREAD", "BLOCK", "100", "STREAMS", other, "$")
			head := aclLogHead(t, admin)
			if head["reason"] != "key" || head["object"] != other || head["username"] != "app" || head["context"] != "toplevel" {
				t.Errorf("ACL LOG after the refused XREAD: %#v", head)
			}
			if n, _ := value(t, admin, "ACL", "LOG").([]interface{}); len(n) != 1 || aclLogHead(t, admin)["count"] != int64(3) {
				t.Errorf("ACL LOG: %d entries, head %#v; want the three denials in one entry", len(n), aclLogHead(t, admin))
			}

			// XREADGROUP: refused, and the group and its consumers are untouched.
			expectErr(t, c, errNoPermKeys, "XREADGROUP", "GROUP", "g", "intruder", "STREAMS", other, ">")
			expectErr(t, c, errNoPermKeys, "XREADGROUP", "GROUP", "g", "intruder", "COUNT", "1", "NOACK", "STREAMS", own, other, ">", ">")
			expect(t, admin, []interface{}{}, "XINFO", "CONSUMERS", other, "g")
			groups, _ := value(t, admin, "XINFO", "GROUPS", other).([]interface{})
			if len(groups) != 1 {
				t.Fatalf("XINFO GROUPS: %#v", groups)
			}
			if g, _ := groups[0].(map[interface{}]interface{}); g["last-delivered-id"] != "0-0" || g["pending"] != int64(0) {
				t.Errorf("group of %s after refused XREADGROUPs: %#v", other, g)
			}

			// In a transaction: refused when queued, the EXEC aborts.
			conn := c.Conn() // c's only pooled connection, until closed
			expect(t, conn, "OK", "MULTI")
			expectErr(t, conn, errNoPermKeys, "XREAD", "STREAMS", other, "0")
			expectErr(t, conn, "EXECABORT Transaction discarded because of previous errors.", "EXEC")
			_ = conn.Close()
			if head := aclLogHead(t, admin); head["context"] != "multi" || head["object"] != other {
				t.Errorf("ACL LOG after the refused queued XREAD: %#v", head)
			}

			// From scripts and functions.
			for _, script := range [][]interface{}{
				{"EVAL", "return redis.call('XREAD', 'STREAMS', ARGV[1], '0')", "1", own, other},
				{"EVAL", "return redis.call('XREADGROUP', 'GROUP', 'g', 'intruder', 'STREAMS', ARGV[1], '>')", "1", own, other},
			} {
				_, err := c.Do(ctxT(t), script...).Result()
				if err == nil || !strings.Contains(err.Error(), errScriptKeyPerm) {
					t.Errorf("%s: %v, want the script ACL error", argv(script), err)
				}
			}
			if head := aclLogHead(t, admin); head["context"] != "lua" || head["object"] != other {
				t.Errorf("ACL LOG after the refused script call: %#v", head)
			}
			expect(t, c, "xr", "FUNCTION", "LOAD", "#!lua name=xr\nredis.register_function('xr', function(keys, args) return redis.call('XREADGROUP', 'GROUP', 'g', 'intruder', 'STREAMS', args[1], '>') end)")
			if _, err := c.Do(ctxT(t), "FCALL", "xr", "1", own, other).Result(); err == nil || !strings.Contains(err.Error(), errScriptKeyPerm) {
				t.Errorf("FCALL xr: %v, want the script ACL error", err)
			}
			expect(t, admin, []interface{}{}, "XINFO", "CONSUMERS", other, "g")

			// %R~ / %W~: XREAD reads, so it needs read permission.
			rw := userNodeClient(t, s, "rw", "p", own)
			expect(t, admin, "1-1", "XADD", "r:{x}s", "1-1", "f", "v")
			expect(t, admin, "1-1", "XADD", "w:{x}s", "1-1", "f", "v")
			if _, err := rw.Do(ctxT(t), "XREAD", "STREAMS", "r:{x}s", "0").Result(); err != nil {
				t.Errorf("XREAD of a readable stream: %v", err)
			}
			expectErr(t, rw, errNoPermKeys, "XREAD", "STREAMS", "w:{x}s", "0")
			expectErr(t, rw, errNoPermKeys, "XREAD", "STREAMS", "r:{x}s", "w:{x}s", "0", "0")
		})
	}
}

// TestACLGeoRadiusStoreKeys: the destination of GEORADIUS and
// GEORADIUSBYMEMBER STORE / STOREDIST needs write permission, so a
// restricted user cannot overwrite another's key with a sorted set.
func TestACLGeoRadiusStoreKeys(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			s := testserver.Start(t, testserver.Shards(shards))
			const geo, victim = "app:{x}geo", "admin:{x}str"
			admin := userNodeClient(t, s, "default", "", geo)
			expect(t, admin, "OK", "SET", victim, "precious")
			expect(t, admin, "OK", "ACL", "SETUSER", "app", "on", ">p", "~app:*", "+@all", "-@dangerous")
			expect(t, admin, "OK", "ACL", "SETUSER", "rw", "on", ">p", "%R~r:*", "%W~w:*", "+@all", "-@dangerous")
			c := userNodeClient(t, s, "app", "p", geo)
			expect(t, c, int64(2), "GEOADD", geo, "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")

			expect(t, c, []interface{}{"k", "d"}, "COMMAND", "GETKEYS", "GEORADIUS", "k", "15", "37", "200", "km", "STORE", "d")
			expect(t, c, []interface{}{"k", "d"}, "COMMAND", "GETKEYS", "GEORADIUSBYMEMBER", "k", "m", "200", "km", "storedist", "d")

			for _, call := range [][]interface{}{
				{"GEORADIUS", geo, "15", "37", "200", "km", "STORE", victim},
				{"GEORADIUS", geo, "15", "37", "200", "km", "STOREDIST", victim},
				{"GEORADIUS", geo, "15", "37", "200", "km", "store", "app:{x}ok", "STORE", victim},
				{"GEORADIUSBYMEMBER", geo, "Palermo", "200", "km", "STORE", victim},
				{"GEORADIUSBYMEMBER", geo, "Palermo", "200", "km", "COUNT", "1", "STOREDIST", victim},
			} {
				expectErr(t, c, errNoPermKeys, call...)
				_, err := c.Do(ctxT(t), append([]interface{}{"EVAL", "return redis.call(unpack(ARGV))", "1", geo}, call...)...).Result()
				if err == nil || !strings.Contains(err.Error(), errScriptKeyPerm) {
					t.Errorf("%s from EVAL: %v, want the script ACL error", argv(call), err)
				}
			}
			expect(t, admin, "string", "TYPE", victim)
			expect(t, admin, "precious", "GET", victim)
			if head := aclLogHead(t, admin); head["object"] != victim || head["reason"] != "key" {
				t.Errorf("ACL LOG after the refused STORE: %#v", head)
			}

			// The user's own destination works.
			expect(t, c, int64(2), "GEORADIUS", geo, "15", "37", "200", "km", "STORE", "app:{x}dst")
			expect(t, c, "zset", "TYPE", "app:{x}dst")

			// %R~ / %W~: the source is read, the destination written.
			rw := userNodeClient(t, s, "rw", "p", geo)
			expect(t, admin, int64(1), "GEOADD", "r:{x}geo", "15", "37", "m")
			expect(t, rw, int64(1), "GEORADIUS", "r:{x}geo", "15", "37", "10", "km", "STORE", "w:{x}dst")
			expectErr(t, rw, errNoPermKeys, "GEORADIUS", "r:{x}geo", "15", "37", "10", "km", "STORE", "r:{x}dst")
			expectErr(t, rw, errNoPermKeys, "GEORADIUS", "w:{x}geo", "15", "37", "10", "km", "STORE", "w:{x}dst")
			expect(t, rw, int64(1), "GEORADIUSBYMEMBER", "r:{x}geo", "m", "10", "km", "STOREDIST", "w:{x}dst2")
			expectErr(t, rw, errNoPermKeys, "GEORADIUSBYMEMBER", "r:{x}geo", "m", "10", "km", "STOREDIST", "r:{x}dst2")
		})
	}
}

// TestACLKeyAuditThroughServer runs a sample of every kind of key spec
// (index, range with step, keynum, keyword, two specs of different
// access) through a real server as "%R~r:* %W~w:* ~app:*": each key moved
// to r: is refused exactly when it is written and moved to w: exactly
// when it is read, at top level, in MULTI, from EVAL and from FCALL, and
// nothing refused ran.
func TestACLKeyAuditThroughServer(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "on", ">p", "+@all", "-@dangerous", "%R~r:*", "%W~w:*", "~app:*")
	c := userClient(t, s.Addr(), "u", "p")
	expect(t, admin, "audit", "FUNCTION", "LOAD", "#!lua name=audit\nredis.register_function('call', function(keys, args) return redis.call(unpack(args)) end)")
	calls := []struct {
		call   string
		access []string // per "app:" key: r (read), w (write), rw, or - (neither)
	}{
		{"GET app:k", []string{"r"}},
		{"SET app:k v", []string{"w"}},
		{"SET app:k v GET", []string{"rw"}},
		{"EXISTS app:a app:b", []string{"-", "-"}},
		{"MSET app:a 1 app:b 2", []string{"w", "w"}},
		{"LMPOP 2 app:a app:b LEFT", []string{"rw", "rw"}},
		{"ZUNIONSTORE app:d 2 app:a app:b", []string{"w", "r", "r"}},
		{"XREAD STREAMS app:s app:t 0 0", []string{"r", "r"}},
		{"GEORADIUS app:k 15 37 10 km STORE app:d", []string{"r", "w"}},
		{"GEORADIUSBYMEMBER app:k m 10 km STOREDIST app:d", []string{"r", "w"}},
		{"COPY app:a app:b", []string{"r", "w"}},
		{"BITFIELD app:k GET u8 0", []string{"r"}},
		{"BITFIELD app:k SET u8 0 1", []string{"rw"}},
		{"LEASE app:k 1000", []string{"rw"}},
		{"SETV app:k v", []string{"w"}},
		{"ONCE app:k 1000", []string{"w"}},
		{"TAKE app:k 1", []string{"rw"}},
	}
	for _, tc := range calls {
		args := strings.Fields(tc.call)
		n := 0
		for i, a := range args {
			if !strings.HasPrefix(a, "app:") {
				continue
			}
			acc := tc.access[n]
			n++
			for _, moved := range []struct {
				prefix string
				denied bool
			}{{"r:", strings.Contains(acc, "w")}, {"w:", strings.Contains(acc, "r")}} {
				if !moved.denied {
					continue
				}
				call := make([]interface{}, len(args))
				for j := range args {
					call[j] = args[j]
				}
				call[i] = moved.prefix + a[len("app:"):]
				expectErr(t, c, errNoPermKeys, call...)
				conn := c.Conn()
				expect(t, conn, "OK", "MULTI")
				expectErr(t, conn, errNoPermKeys, call...)
				expectErr(t, conn, "EXECABORT Transaction discarded because of previous errors.", "EXEC")
				_ = conn.Close()
				for _, script := range [][]interface{}{
					{"EVAL", "return redis.call(unpack(ARGV))", "0"},
					{"FCALL", "call", "0"},
				} {
					_, err := c.Do(ctxT(t), append(script, call...)...).Result()
					if err == nil || !strings.Contains(err.Error(), errScriptKeyPerm) {
						t.Errorf("%s %s: %v, want the script ACL error", script[0], argv(call), err)
					}
				}
			}
		}
		if n != len(tc.access) {
			t.Fatalf("%s: %d keys, %d access entries", tc.call, n, len(tc.access))
		}
	}
	expect(t, admin, int64(0), "DBSIZE")
}

// TestACLChangesFiltered: a user restricted to app:* keys reads from
// CHANGES only the notes of app:* keys, on every shard's feed; the
// default user still reads them all. On 1 and 4 shards.
func TestACLChangesFiltered(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			s := testserver.Start(t, testserver.Shards(shards))
			admin := s.UniversalClient(t)
			expect(t, s.Client(t), "OK", "ACL", "SETUSER", "app", "on", ">p", "~app:*", "+@all", "-@dangerous")
			users := make([]*redis.Client, shards)
			starts := make([]int64, shards)
			for i := range users {
				users[i] = userClient(t, s.Addrs[i], "app", "p")
				starts[i] = intValue(t, users[i], "CHANGES", "START")
			}
			for i := 0; i < 20; i++ {
				expect(t, admin, "OK", "SET", "app:"+strconv.Itoa(i), "v")
				expect(t, admin, "OK", "SET", "admin:"+strconv.Itoa(i), "v")
			}
			seen := map[string]bool{}
			all := 0
			for i, u := range users {
				notes, _ := value(t, u, "CHANGES", starts[i]).([]interface{})
				for _, n := range notes {
					key := n.([]interface{})[2].(string)
					if !strings.HasPrefix(key, "app:") || seen[key] {
						t.Errorf("shard %d: the restricted user read the note of %q", i, key)
					}
					seen[key] = true
				}
				full, _ := value(t, s.ClientOf(t, i), "CHANGES", starts[i]).([]interface{})
				all += len(full)
			}
			if len(seen) != 20 || all != 40 {
				t.Errorf("the restricted user read %d of 20 app: notes; the default user %d of 40 notes", len(seen), all)
			}
		})
	}
}
