package integration_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestStreams runs the stream family through go-redis over RESP2 and
// RESP3, on one shard and, through the cluster client, on four.
func TestStreams(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 4} {
		s := testserver.Start(t, testserver.Shards(shards))
		for _, proto := range []int{2, 3} {
			t.Run("shards"+strconv.Itoa(shards)+"/resp"+strconv.Itoa(proto), func(t *testing.T) {
				var c redis.UniversalClient
				if shards == 1 {
					c = redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: proto, MaxRetries: -1, DisableIdentity: true}))
				} else {
					c = redis.NewClusterClient(clusterTimeouts(&redis.ClusterOptions{Addrs: []string{s.Addr()}, Protocol: proto, MaxRetries: -1, DisableIdentity: true}))
				}
				t.Cleanup(func() { _ = c.Close() })
				p := "{st" + strconv.Itoa(proto) + "}:"
				streamBasics(t, c, p)
				streamGroups(t, c, p)
				streamKeyCommands(t, c, p, shards)
			})
		}
	}
}

func msg(id string, kv ...string) redis.XMessage {
	m := redis.XMessage{ID: id, Values: map[string]interface{}{}}
	for i := 0; i < len(kv); i += 2 {
		m.Values[kv[i]] = kv[i+1]
	}
	return m
}

func check[T any](t *testing.T, what string, got T, err error, want T) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

func checkErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Fatalf("%s: error %v, want %q", what, err, want)
	}
}

func streamBasics(t *testing.T, c redis.UniversalClient, p string) {
	s := p + "s"
	id, err := c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, ID: "1-1", Values: []string{"a", "1", "b", "2"}}).Result()
	check(t, "XADD 1-1", id, err, "1-1")
	id, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, ID: "1-*", Values: []string{"a", "2"}}).Result()
	check(t, "XADD 1-*", id, err, "1-2")
	id, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, ID: "5", Values: []string{"c", "3"}}).Result()
	check(t, "XADD 5", id, err, "5-0")
	_, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, ID: "5-0", Values: []string{"c", "3"}}).Result()
	checkErr(t, "XADD equal id", err, "ERR The ID specified in XADD is equal or smaller than the target stream top item")
	_, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, ID: "0-0", Values: []string{"c", "3"}}).Result()
	checkErr(t, "XADD 0-0", err, "ERR The ID specified in XADD must be greater than 0-0")
	before := time.Now().UnixMilli()
	id, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, Values: map[string]interface{}{"d": "4"}}).Result()
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := strconv.ParseInt(strings.Split(id, "-")[0], 10, 64)
	if ms < before-5 || ms > time.Now().UnixMilli()+5 || !strings.HasSuffix(id, "-0") {
		t.Fatalf("XADD * gave %s at %d", id, before)
	}
	auto := id
	_, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: p + "none", NoMkStream: true, Values: []string{"a", "b"}}).Result()
	if err != redis.Nil {
		t.Fatalf("XADD NOMKSTREAM on a missing key: %v", err)
	}
	n, err := c.Exists(ctxT(t), p+"none").Result()
	check(t, "NOMKSTREAM leaves the key absent", n, err, int64(0))
	n, err = c.XLen(ctxT(t), s).Result()
	check(t, "XLEN", n, err, int64(4))
	all := []redis.XMessage{msg("1-1", "a", "1", "b", "2"), msg("1-2", "a", "2"), msg("5-0", "c", "3"), msg(auto, "d", "4")}
	r, err := c.XRange(ctxT(t), s, "-", "+").Result()
	check(t, "XRANGE", r, err, all)
	r, err = c.XRangeN(ctxT(t), s, "(1-1", "+", 2).Result()
	check(t, "XRANGE exclusive COUNT", r, err, all[1:3])
	r, err = c.XRange(ctxT(t), s, "1", "1").Result()
	check(t, "XRANGE incomplete ids", r, err, all[:2])
	r, err = c.XRevRange(ctxT(t), s, "+", "-").Result()
	check(t, "XREVRANGE", r, err, []redis.XMessage{all[3], all[2], all[1], all[0]})
	r, err = c.XRevRangeN(ctxT(t), s, "(5-0", "-", 1).Result()
	check(t, "XREVRANGE exclusive COUNT", r, err, all[1:2])
	r, err = c.XRange(ctxT(t), p+"nokey", "-", "+").Result()
	check(t, "XRANGE missing key", r, err, []redis.XMessage{})
	expectErr(t, c, "ERR Invalid stream ID specified as stream command argument", "XRANGE", s, "x", "+")
	expectErr(t, c, errSyntax, "XRANGE", s, "-", "+", "LIMIT", "1")
	// XREAD.
	xs, err := c.XRead(ctxT(t), &redis.XReadArgs{Streams: []string{s, "1-2"}, Count: 1, Block: -1}).Result()
	check(t, "XREAD COUNT", xs, err, []redis.XStream{{Stream: s, Messages: all[2:3]}})
	xs, err = c.XRead(ctxT(t), &redis.XReadArgs{Streams: []string{s, p + "other", "0", "0"}, Block: -1}).Result()
	check(t, "XREAD two streams", xs, err, []redis.XStream{{Stream: s, Messages: all}})
	_, err = c.XRead(ctxT(t), &redis.XReadArgs{Streams: []string{s, "$"}, Block: -1}).Result()
	if err != redis.Nil {
		t.Fatalf("XREAD $: %v", err)
	}
	// XDEL, XTRIM and the XADD trims (exact, with ~ too).
	n, err = c.XDel(ctxT(t), s, "1-2", "9-9").Result()
	check(t, "XDEL", n, err, int64(1))
	t2 := p + "t"
	for i := 1; i <= 10; i++ {
		c.XAdd(ctxT(t), &redis.XAddArgs{Stream: t2, ID: strconv.Itoa(i), Values: []string{"i", strconv.Itoa(i)}})
	}
	n, err = c.XTrimMaxLen(ctxT(t), t2, 8).Result()
	check(t, "XTRIM MAXLEN", n, err, int64(2))
	n, err = c.XTrimMaxLenApprox(ctxT(t), t2, 5, 2).Result()
	check(t, "XTRIM MAXLEN ~ LIMIT 2 (exact, capped)", n, err, int64(2))
	n, err = c.XTrimMaxLenApprox(ctxT(t), t2, 5, 0).Result()
	check(t, "XTRIM MAXLEN ~ (exact)", n, err, int64(1))
	n, err = c.XTrimMinID(ctxT(t), t2, "8").Result()
	check(t, "XTRIM MINID", n, err, int64(2))
	id, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: t2, ID: "11", MaxLen: 2, Approx: true, Values: []string{"i", "11"}}).Result()
	check(t, "XADD MAXLEN ~", id, err, "11-0")
	r, err = c.XRange(ctxT(t), t2, "-", "+").Result()
	check(t, "after XADD MAXLEN ~ 2", r, err, []redis.XMessage{msg("10-0", "i", "10"), msg("11-0", "i", "11")})
	id, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: t2, ID: "12", MinID: "12", Values: []string{"i", "12"}}).Result()
	check(t, "XADD MINID", id, err, "12-0")
	n, err = c.XLen(ctxT(t), t2).Result()
	check(t, "XLEN after MINID", n, err, int64(1))
	expectErr(t, c, "ERR syntax error, LIMIT cannot be used without the special ~ option", "XTRIM", t2, "MAXLEN", "1", "LIMIT", "1")
	expectErr(t, c, "ERR syntax error, XTRIM must be called with a trimming strategy", "XTRIM", t2, "LIMIT", "0")
	// XSETID moves the last id without storing an entry.
	expect(t, c, "OK", "XSETID", t2, "100-5", "ENTRIESADDED", "40", "MAXDELETEDID", "50-0")
	info, err := c.XInfoStream(ctxT(t), t2).Result()
	if err != nil || info.LastGeneratedID != "100-5" || info.EntriesAdded != 40 || info.MaxDeletedEntryID != "50-0" || info.Length != 1 {
		t.Fatalf("XINFO STREAM after XSETID: %+v %v", info, err)
	}
	id, err = c.XAdd(ctxT(t), &redis.XAddArgs{Stream: t2, ID: "100-*", Values: []string{"i", "x"}}).Result()
	check(t, "XADD after XSETID", id, err, "100-6")
	expectErr(t, c, "ERR The ID specified in XSETID is smaller than the target stream top item", "XSETID", t2, "1-0")
	expectErr(t, c, "ERR no such key", "XSETID", p+"nokey", "1-0")
}

func streamGroups(t *testing.T, c redis.UniversalClient, p string) {
	s := p + "g"
	for i := 1; i <= 4; i++ {
		c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, ID: strconv.Itoa(i), Values: []string{"n", strconv.Itoa(i)}})
	}
	check(t, "XGROUP CREATE", c.XGroupCreate(ctxT(t), s, "g", "0").Val(), c.XGroupCreate(ctxT(t), s, "g2", "$").Err(), "OK")
	checkErr(t, "XGROUP CREATE twice", c.XGroupCreate(ctxT(t), s, "g", "0").Err(), "BUSYGROUP Consumer Group name already exists")
	checkErr(t, "XGROUP CREATE missing key", c.XGroupCreate(ctxT(t), p+"nokey", "g", "0").Err(),
		"ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
	st, err := c.XGroupCreateMkStream(ctxT(t), p+"mk", "g", "$").Result()
	check(t, "XGROUP CREATE MKSTREAM", st, err, "OK")
	n, err := c.XGroupCreateConsumer(ctxT(t), s, "g", "idle").Result()
	check(t, "XGROUP CREATECONSUMER", n, err, int64(1))
	n, err = c.XGroupCreateConsumer(ctxT(t), s, "g", "idle").Result()
	check(t, "XGROUP CREATECONSUMER again", n, err, int64(0))
	xs, err := c.XReadGroup(ctxT(t), &redis.XReadGroupArgs{Group: "g", Consumer: "alice", Streams: []string{s, ">"}, Count: 2, Block: -1}).Result()
	check(t, "XREADGROUP >", xs, err, []redis.XStream{{Stream: s, Messages: []redis.XMessage{msg("1-0", "n", "1"), msg("2-0", "n", "2")}}})
	xs, err = c.XReadGroup(ctxT(t), &redis.XReadGroupArgs{Group: "g", Consumer: "bob", Streams: []string{s, ">"}, Block: -1}).Result()
	check(t, "XREADGROUP > bob", xs, err, []redis.XStream{{Stream: s, Messages: []redis.XMessage{msg("3-0", "n", "3"), msg("4-0", "n", "4")}}})
	_, err = c.XReadGroup(ctxT(t), &redis.XReadGroupArgs{Group: "g", Consumer: "bob", Streams: []string{s, ">"}, Block: -1}).Result()
	if err != redis.Nil {
		t.Fatalf("XREADGROUP with nothing new: %v", err)
	}
	xs, err = c.XReadGroup(ctxT(t), &redis.XReadGroupArgs{Group: "g", Consumer: "alice", Streams: []string{s, "0"}, Block: -1}).Result()
	check(t, "XREADGROUP history", xs, err, []redis.XStream{{Stream: s, Messages: []redis.XMessage{msg("1-0", "n", "1"), msg("2-0", "n", "2")}}})
	pend, err := c.XPending(ctxT(t), s, "g").Result()
	check(t, "XPENDING", pend, err, &redis.XPending{Count: 4, Lower: "1-0", Higher: "4-0", Consumers: map[string]int64{"alice": 2, "bob": 2}})
	ext, err := c.XPendingExt(ctxT(t), &redis.XPendingExtArgs{Stream: s, Group: "g", Start: "-", End: "+", Count: 10, Consumer: "alice"}).Result()
	if err != nil || len(ext) != 2 || ext[0].ID != "1-0" || ext[0].Consumer != "alice" || ext[0].RetryCount != 2 || ext[1].RetryCount != 2 {
		t.Fatalf("XPENDING extended: %+v %v", ext, err)
	}
	ext, err = c.XPendingExt(ctxT(t), &redis.XPendingExtArgs{Stream: s, Group: "g", Idle: time.Hour, Start: "-", End: "+", Count: 10}).Result()
	check(t, "XPENDING IDLE", ext, err, []redis.XPendingExt{})
	n, err = c.XAck(ctxT(t), s, "g", "1-0", "9-0").Result()
	check(t, "XACK", n, err, int64(1))
	msgs, err := c.XClaim(ctxT(t), &redis.XClaimArgs{Stream: s, Group: "g", Consumer: "carol", MinIdle: 0, Messages: []string{"2-0", "1-0"}}).Result()
	check(t, "XCLAIM", msgs, err, []redis.XMessage{msg("2-0", "n", "2")})
	ids, err := c.XClaimJustID(ctxT(t), &redis.XClaimArgs{Stream: s, Group: "g", Consumer: "carol", MinIdle: time.Hour, Messages: []string{"3-0"}}).Result()
	check(t, "XCLAIM JUSTID min-idle", ids, err, []string{})
	expect(t, c, []interface{}{"3-0"}, "XCLAIM", s, "g", "carol", "0", "3-0", "IDLE", "5000", "RETRYCOUNT", "9", "JUSTID")
	ext, err = c.XPendingExt(ctxT(t), &redis.XPendingExtArgs{Stream: s, Group: "g", Start: "3-0", End: "3-0", Count: 1}).Result()
	if err != nil || len(ext) != 1 || ext[0].Consumer != "carol" || ext[0].RetryCount != 9 || ext[0].Idle < 5*time.Second {
		t.Fatalf("XPENDING after XCLAIM IDLE RETRYCOUNT: %+v %v", ext, err)
	}
	expect(t, c, []interface{}{}, "XCLAIM", s, "g", "carol", "0", "1-0", "JUSTID")
	expect(t, c, []interface{}{"1-0"}, "XCLAIM", s, "g", "carol", "0", "1-0", "FORCE", "JUSTID", "LASTID", "4-0")
	expectErr(t, c, "ERR Unrecognized XCLAIM option 'BOGUS'", "XCLAIM", s, "g", "carol", "0", "1-0", "BOGUS")
	// XAUTOCLAIM, with a deleted entry in the PEL.
	c.XDel(ctxT(t), s, "4-0")
	expect(t, c, []interface{}{"0-0", []interface{}{"1-0", "2-0", "3-0"}, []interface{}{"4-0"}}, "XAUTOCLAIM", s, "g", "dave", "0", "0", "JUSTID")
	msgs, start, err := c.XAutoClaim(ctxT(t), &redis.XAutoClaimArgs{Stream: s, Group: "g", Consumer: "erin", MinIdle: 0, Start: "0", Count: 2}).Result()
	if err != nil || start != "3-0" || !reflect.DeepEqual(msgs, []redis.XMessage{msg("1-0", "n", "1"), msg("2-0", "n", "2")}) {
		t.Fatalf("XAUTOCLAIM COUNT 2: %v %s %v", msgs, start, err)
	}
	expectErr(t, c, "ERR COUNT must be > 0", "XAUTOCLAIM", s, "g", "erin", "0", "0", "COUNT", "0")
	groups, err := c.XInfoGroups(ctxT(t), s).Result()
	check(t, "XINFO GROUPS", groups, err, []redis.XInfoGroup{
		{Name: "g", Consumers: 6, Pending: 3, LastDeliveredID: "4-0", EntriesRead: 4, Lag: 0},
		{Name: "g2", Consumers: 0, Pending: 0, LastDeliveredID: "4-0", EntriesRead: 0, Lag: 0},
	})
	cons, err := c.XInfoConsumers(ctxT(t), s, "g").Result()
	var names []string
	var pendings []int64
	for _, c := range cons {
		names = append(names, c.Name)
		pendings = append(pendings, c.Pending)
	}
	check(t, "XINFO CONSUMERS names", names, err, []string{"alice", "bob", "carol", "dave", "erin", "idle"})
	check(t, "XINFO CONSUMERS pending", pendings, err, []int64{0, 0, 0, 1, 2, 0})
	full, err := c.XInfoStreamFull(ctxT(t), s, 0).Result()
	if err != nil || full.Length != 3 || len(full.Groups) != 2 || full.Groups[0].PelCount != 3 || len(full.Groups[0].Consumers) != 6 {
		t.Fatalf("XINFO STREAM FULL: %+v %v", full, err)
	}
	n, err = c.XGroupDelConsumer(ctxT(t), s, "g", "erin").Result()
	check(t, "XGROUP DELCONSUMER", n, err, int64(2))
	st, err = c.XGroupSetID(ctxT(t), s, "g", "0").Result()
	check(t, "XGROUP SETID", st, err, "OK")
	xs, err = c.XReadGroup(ctxT(t), &redis.XReadGroupArgs{Group: "g", Consumer: "frank", Streams: []string{s, ">"}, Block: -1}).Result()
	check(t, "XREADGROUP after SETID 0", xs, err, []redis.XStream{{Stream: s, Messages: []redis.XMessage{msg("1-0", "n", "1"), msg("2-0", "n", "2"), msg("3-0", "n", "3")}}})
	n, err = c.XGroupDestroy(ctxT(t), s, "g2").Result()
	check(t, "XGROUP DESTROY", n, err, int64(1))
	n, err = c.XGroupDestroy(ctxT(t), s, "g2").Result()
	check(t, "XGROUP DESTROY again", n, err, int64(0))
	checkErr(t, "XREADGROUP unknown group", c.XReadGroup(ctxT(t), &redis.XReadGroupArgs{Group: "nope", Consumer: "x", Streams: []string{s, ">"}, Block: -1}).Err(),
		"NOGROUP No such key '"+s+"' or consumer group 'nope' in XREADGROUP with GROUP option")
	checkErr(t, "XPENDING unknown group", c.XPending(ctxT(t), s, "nope").Err(), "NOGROUP No such key '"+s+"' or consumer group 'nope'")
	checkErr(t, "XGROUP SETID unknown group", c.XGroupSetID(ctxT(t), s, "nope", "0").Err(), "NOGROUP No such consumer group 'nope' for key name '"+s+"'")
	expectErr(t, c, "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.",
		"XREADGROUP", "GROUP", "g", "c", "STREAMS", s, "$")
}

func streamKeyCommands(t *testing.T, c redis.UniversalClient, p string, shards int) {
	s := p + "k"
	c.XAdd(ctxT(t), &redis.XAddArgs{Stream: s, ID: "1", Values: []string{"a", "b"}})
	check(t, "TYPE", c.Type(ctxT(t), s).Val(), nil, "stream")
	check(t, "OBJECT ENCODING", c.ObjectEncoding(ctxT(t), s).Val(), nil, "stream")
	if n, err := c.MemoryUsage(ctxT(t), s).Result(); err != nil || n <= 0 {
		t.Fatalf("MEMORY USAGE: %d %v", n, err)
	}
	n, err := c.Copy(ctxT(t), s, p+"copy", 0, false).Result()
	check(t, "COPY", n, err, int64(1))
	c.XAdd(ctxT(t), &redis.XAddArgs{Stream: p + "copy", ID: "2", Values: []string{"c", "d"}})
	n, err = c.XLen(ctxT(t), s).Result()
	check(t, "COPY is deep", n, err, int64(1))
	check(t, "RENAME", c.Rename(ctxT(t), p+"copy", p+"renamed").Val(), nil, "OK")
	n, err = c.XLen(ctxT(t), p+"renamed").Result()
	check(t, "XLEN after RENAME", n, err, int64(2))
	ok, err := c.PExpire(ctxT(t), p+"renamed", 50*time.Millisecond).Result()
	check(t, "PEXPIRE", ok, err, true)
	time.Sleep(80 * time.Millisecond)
	n, err = c.Exists(ctxT(t), p+"renamed").Result()
	check(t, "expired stream", n, err, int64(0))
	if shards == 1 {
		keys, _, err := c.Scan(ctxT(t), 0, p+"*", 1000).Result()
		if err != nil {
			t.Fatal(err)
		}
		var typed []string
		typedKeys, _, err := c.ScanType(ctxT(t), 0, p+"*", 1000, "stream").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if c.Type(ctxT(t), k).Val() == "stream" {
				typed = append(typed, k)
			}
		}
		if len(typed) == 0 || len(typed) != len(typedKeys) {
			t.Fatalf("SCAN TYPE stream: %v, streams among %v: %v", typedKeys, keys, typed)
		}
		moved, err := c.Move(ctxT(t), s, 3).Result()
		check(t, "MOVE", moved, err, true)
		c2 := c.(*redis.Client)
		conn := c2.Conn()
		defer conn.Close()
		conn.Select(ctxT(t), 3)
		check(t, "XLEN after MOVE", conn.XLen(ctxT(t), s).Val(), nil, int64(1))
		conn.Del(ctxT(t), s)
	} else {
		n, err = c.Del(ctxT(t), s).Result()
		check(t, "DEL", n, err, int64(1))
	}
	c.Set(ctxT(t), p+"str", "x", 0)
	checkErr(t, "XADD on a string", c.XAdd(ctxT(t), &redis.XAddArgs{Stream: p + "str", Values: []string{"a", "b"}}).Err(), errWrongType)
	checkErr(t, "XREAD on a string", c.XRead(ctxT(t), &redis.XReadArgs{Streams: []string{p + "str", "0"}, Block: -1}).Err(), errWrongType)
	checkErr(t, "XINFO on a string", c.XInfoStream(ctxT(t), p+"str").Err(), errWrongType)
	checkErr(t, "LPUSH on a stream", c.LPush(ctxT(t), p+"g", "x").Err(), errWrongType)
	expectErr(t, c, errArity("xadd"), "XADD", s, "*", "a")
}

// TestStreamRESP3Shapes checks the replies whose RESP3 form differs:
// XREAD's map of streams and XINFO's maps, and null array replies.
func TestStreamRESP3Shapes(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	rc.expect(bulk("1-1"), "XADD", "s", "1-1", "f", "v")
	entry := arr(bulk("1-1"), arr(bulk("f"), bulk("v")))
	rc.expect(arr(arr(bulk("s"), arr(entry))), "XREAD", "STREAMS", "s", "0")
	rc.expect("*-1\r\n", "XREAD", "STREAMS", "s", "$")
	rc.expect("*-1\r\n", "XRANGE", "s", "-", "+", "COUNT", "0")
	rc.do("HELLO", "3")
	rc.expect("%1\r\n"+bulk("s")+arr(entry), "XREAD", "STREAMS", "s", "0")
	rc.expect("_\r\n", "XREAD", "STREAMS", "s", "$")
	rc.expect("+OK\r\n", "XGROUP", "CREATE", "s", "g", "$")
	rc.expect("*1\r\n%6\r\n"+bulk("name")+bulk("g")+bulk("consumers")+":0\r\n"+bulk("pending")+":0\r\n"+
		bulk("last-delivered-id")+bulk("1-1")+bulk("entries-read")+"_\r\n"+bulk("lag")+":0\r\n", "XINFO", "GROUPS", "s")
	rc.expect("*4\r\n:0\r\n_\r\n_\r\n_\r\n", "XPENDING", "s", "g")
}
