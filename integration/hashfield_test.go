package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Hash-field expiry (Redis 7.4's HEXPIRE family, Redis 8.0's HGETDEL,
// HGETEX and HSETEX) through go-redis's helpers, raw RESP2 and RESP3, the
// active expiry, notifications, DUMP/RESTORE, a replica and SIGKILL.

// inRange fails unless lo <= got <= hi.
func inRange(t *testing.T, what string, got, lo, hi int64) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s = %d, want in [%d, %d]", what, got, lo, hi)
	}
}

func TestHashFieldExpireGoRedis(t *testing.T) {
	c := testserver.Start(t).Client(t)
	expect(t, c, int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3")

	got, err := c.HExpire(ctxT(t), "h", 100*time.Second, "a", "b", "nope").Result()
	if err != nil || len(got) != 3 || got[0] != 1 || got[1] != 1 || got[2] != -2 {
		t.Fatalf("HEXPIRE: %v %v", got, err)
	}
	ttl, err := c.HTTL(ctxT(t), "h", "a", "c", "nope").Result()
	if err != nil || len(ttl) != 3 || ttl[1] != -1 || ttl[2] != -2 {
		t.Fatalf("HTTL: %v %v", ttl, err)
	}
	inRange(t, "HTTL a", ttl[0], 90, 100)
	pttl, err := c.HPTTL(ctxT(t), "h", "a").Result()
	if err != nil || len(pttl) != 1 {
		t.Fatalf("HPTTL: %v %v", pttl, err)
	}
	inRange(t, "HPTTL a", pttl[0], 90_000, 100_000)
	now := time.Now()
	et, err := c.HExpireTime(ctxT(t), "h", "a").Result()
	if err != nil || len(et) != 1 {
		t.Fatalf("HEXPIRETIME: %v %v", et, err)
	}
	inRange(t, "HEXPIRETIME a", et[0], now.Unix()+80, now.Unix()+101)
	pet, err := c.HPExpireTime(ctxT(t), "h", "a", "c").Result()
	if err != nil || len(pet) != 2 || pet[1] != -1 {
		t.Fatalf("HPEXPIRETIME: %v %v", pet, err)
	}
	inRange(t, "HPEXPIRETIME a", pet[0], now.UnixMilli()+80_000, now.UnixMilli()+101_000)

	// Conditions: NX only without a deadline, XX only with one, GT only
	// later than one, LT earlier (no deadline counts as infinite).
	cond := func(args redis.HExpireArgs, d time.Duration, want ...int64) {
		t.Helper()
		got, err := c.HExpireWithArgs(ctxT(t), "h", d, args, "a", "c").Result()
		if err != nil || len(got) != len(want) {
			t.Fatalf("HEXPIRE %+v: %v %v", args, got, err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("HEXPIRE %+v: %v, want %v", args, got, want)
				break
			}
		}
	}
	cond(redis.HExpireArgs{NX: true}, 200*time.Second, 0, 1)  // a has one, c not
	cond(redis.HExpireArgs{XX: true}, 300*time.Second, 1, 1)  // both have one now
	cond(redis.HExpireArgs{GT: true}, 250*time.Second, 0, 0)  // 250 < 300
	cond(redis.HExpireArgs{LT: true}, 250*time.Second, 1, 1)  // 250 < 300
	cond(redis.HExpireArgs{GT: true}, 1000*time.Second, 1, 1) // later
	expect(t, c, []interface{}{int64(1), int64(1), int64(-2)}, "HPERSIST", "h", "FIELDS", "3", "a", "b", "nope")
	expect(t, c, []interface{}{int64(-1)}, "HPERSIST", "h", "FIELDS", "1", "b")
	cond(redis.HExpireArgs{GT: true}, 5000*time.Second, 0, 1) // a: none (infinite); c: later
	cond(redis.HExpireArgs{LT: true}, 5000*time.Second, 1, 0) // a: none, so earlier

	// HEXPIREAT in the past, 0 seconds: the field goes (2).
	got, err = c.HExpireAt(ctxT(t), "h", time.Unix(1, 0), "b").Result()
	if err != nil || len(got) != 1 || got[0] != 2 {
		t.Fatalf("HEXPIREAT in the past: %v %v", got, err)
	}
	got, err = c.HPExpire(ctxT(t), "h", 0, "c", "b").Result()
	if err != nil || len(got) != 2 || got[0] != 2 || got[1] != -2 {
		t.Fatalf("HPEXPIRE 0: %v %v", got, err)
	}
	expect(t, c, map[interface{}]interface{}{"a": "1"}, "HGETALL", "h")
	got, err = c.HPExpireAt(ctxT(t), "h", time.Now().Add(time.Hour), "a").Result()
	if err != nil || len(got) != 1 || got[0] != 1 {
		t.Fatalf("HPEXPIREAT: %v %v", got, err)
	}
	got, err = c.HPersist(ctxT(t), "h", "a", "zz").Result()
	if err != nil || len(got) != 2 || got[0] != 1 || got[1] != -2 {
		t.Fatalf("HPERSIST: %v %v", got, err)
	}

	// Redis 8.0's HSETEX, HGETEX and HGETDEL.
	n, err := c.HSetEXWithArgs(ctxT(t), "x", &redis.HSetEXOptions{Condition: redis.HSetEXFNX, ExpirationType: redis.HSetEXExpirationEX, ExpirationVal: 100}, "f1", "v1", "f2", "v2").Result()
	if err != nil || n != 1 {
		t.Fatalf("HSETEX FNX EX: %v %v", n, err)
	}
	n, err = c.HSetEXWithArgs(ctxT(t), "x", &redis.HSetEXOptions{Condition: redis.HSetEXFNX}, "f1", "z", "f3", "z").Result()
	if err != nil || n != 0 {
		t.Fatalf("HSETEX FNX over an existing field: %v %v", n, err)
	}
	n, err = c.HSetEXWithArgs(ctxT(t), "x", &redis.HSetEXOptions{Condition: redis.HSetEXFXX}, "f1", "z", "f3", "z").Result()
	if err != nil || n != 0 {
		t.Fatalf("HSETEX FXX with a missing field: %v %v", n, err)
	}
	n, err = c.HSetEXWithArgs(ctxT(t), "x", &redis.HSetEXOptions{Condition: redis.HSetEXFXX, ExpirationType: redis.HSetEXExpirationKEEPTTL}, "f1", "k1").Result()
	if err != nil || n != 1 {
		t.Fatalf("HSETEX FXX KEEPTTL: %v %v", n, err)
	}
	inRange(t, "HTTL x f1 after KEEPTTL", c.HTTL(ctxT(t), "x", "f1").Val()[0], 90, 100)
	if n, err = c.HSetEX(ctxT(t), "x", "f1", "p1").Result(); err != nil || n != 1 {
		t.Fatalf("HSETEX: %v %v", n, err)
	}
	expect(t, c, []interface{}{int64(-1)}, "HTTL", "x", "FIELDS", "1", "f1")
	vals, err := c.HGetEXWithArgs(ctxT(t), "x", &redis.HGetEXOptions{ExpirationType: redis.HGetEXExpirationPX, ExpirationVal: 50_000}, "f1", "none").Result()
	if err != nil || len(vals) != 2 || vals[0] != "p1" || vals[1] != "" {
		t.Fatalf("HGETEX PX: %q %v", vals, err)
	}
	inRange(t, "HPTTL x f1 after HGETEX", c.HPTTL(ctxT(t), "x", "f1").Val()[0], 40_000, 50_000)
	vals, err = c.HGetEXWithArgs(ctxT(t), "x", &redis.HGetEXOptions{ExpirationType: redis.HGetEXExpirationPERSIST}, "f1").Result()
	if err != nil || len(vals) != 1 || vals[0] != "p1" {
		t.Fatalf("HGETEX PERSIST: %q %v", vals, err)
	}
	expect(t, c, []interface{}{int64(-1)}, "HTTL", "x", "FIELDS", "1", "f1")
	if vals, err = c.HGetEX(ctxT(t), "x", "f2").Result(); err != nil || len(vals) != 1 || vals[0] != "v2" {
		t.Fatalf("HGETEX: %q %v", vals, err)
	}
	if vals, err = c.HGetDel(ctxT(t), "x", "f1", "nope").Result(); err != nil || len(vals) != 2 || vals[0] != "p1" {
		t.Fatalf("HGETDEL: %q %v", vals, err)
	}
	if vals, err = c.HGetDel(ctxT(t), "x", "f2").Result(); err != nil || len(vals) != 1 || vals[0] != "v2" {
		t.Fatalf("HGETDEL: %q %v", vals, err)
	}
	expect(t, c, int64(0), "EXISTS", "x") // the key went with its last field
	// HGETEX with a deadline in the past deletes what it returns.
	expect(t, c, int64(2), "HSET", "y", "a", "1", "b", "2")
	expect(t, c, []interface{}{"1"}, "HGETEX", "y", "PXAT", "1", "FIELDS", "1", "a")
	expect(t, c, []interface{}{"b"}, "HKEYS", "y")
	expect(t, c, int64(1), "HSETEX", "y", "EXAT", "1", "FIELDS", "1", "b", "x")
	expect(t, c, int64(0), "EXISTS", "y")
	// HSET drops a field's deadline, HINCRBY keeps it.
	expect(t, c, int64(2), "HSET", "z", "n", "1", "s", "x")
	expect(t, c, []interface{}{int64(1), int64(1)}, "HEXPIRE", "z", "100", "FIELDS", "2", "n", "s")
	expect(t, c, int64(6), "HINCRBY", "z", "n", "5")
	expect(t, c, "6.5", "HINCRBYFLOAT", "z", "n", "0.5")
	expect(t, c, int64(0), "HSET", "z", "s", "y")
	ttl = c.HTTL(ctxT(t), "z", "n", "s").Val()
	if len(ttl) != 2 || ttl[0] < 90 || ttl[1] != -1 {
		t.Errorf("HTTL z n s after HINCRBY and HSET: %v, want [~100 -1]", ttl)
	}
	// A key that does not exist: -2 per field, nulls.
	expect(t, c, []interface{}{int64(-2), int64(-2)}, "HEXPIRE", "missing", "10", "FIELDS", "2", "a", "b")
	expect(t, c, []interface{}{int64(-2)}, "HTTL", "missing", "FIELDS", "1", "a")
	expect(t, c, []interface{}{int64(-2)}, "HPERSIST", "missing", "FIELDS", "1", "a")
	expect(t, c, []interface{}{nil, nil}, "HGETDEL", "missing", "FIELDS", "2", "a", "b")
	expect(t, c, []interface{}{nil}, "HGETEX", "missing", "EX", "10", "FIELDS", "1", "a")
}

// Every error, with Redis's words.
func TestHashFieldExpireErrors(t *testing.T) {
	c := testserver.Start(t).Client(t)
	expect(t, c, int64(1), "HSET", "h", "a", "1")
	expect(t, c, "OK", "SET", "s", "v")
	expectErr(t, c, errWrongType, "HEXPIRE", "s", "10", "FIELDS", "1", "a")
	expectErr(t, c, errWrongType, "HTTL", "s", "FIELDS", "1", "a")
	expectErr(t, c, errWrongType, "HPERSIST", "s", "FIELDS", "1", "a")
	expectErr(t, c, errWrongType, "HGETDEL", "s", "FIELDS", "1", "a")
	expectErr(t, c, errWrongType, "HGETEX", "s", "FIELDS", "1", "a")
	expectErr(t, c, errWrongType, "HSETEX", "s", "FIELDS", "1", "a", "b")
	for _, cmd := range []string{"hexpire", "hpexpire", "hexpireat", "hpexpireat", "hsetex"} {
		expectErr(t, c, errArity(cmd), strings.ToUpper(cmd), "h", "10", "FIELDS", "1")
	}
	for _, cmd := range []string{"httl", "hpttl", "hexpiretime", "hpexpiretime", "hpersist", "hgetdel", "hgetex"} {
		expectErr(t, c, errArity(cmd), strings.ToUpper(cmd), "h", "FIELDS", "1")
	}
	const (
		gt0      = "ERR Parameter `numFields` should be greater than 0"
		positive = "ERR Number of fields must be a positive integer"
		mismatch = "ERR The `numfields` parameter must match the number of arguments"
		missing  = "ERR Mandatory argument FIELDS is missing or not at the right position"
	)
	expectErr(t, c, gt0, "HEXPIRE", "h", "10", "FIELDS", "0", "a")
	expectErr(t, c, gt0, "HPEXPIRE", "h", "10", "NX", "FIELDS", "x", "a")
	expectErr(t, c, mismatch, "HEXPIRE", "h", "10", "FIELDS", "2", "a")
	expectErr(t, c, mismatch, "HEXPIRE", "h", "10", "GT", "FIELDS", "1", "a", "b")
	expectErr(t, c, missing, "HEXPIRE", "h", "10", "XY", "1", "a")
	expectErr(t, c, missing, "HEXPIRE", "h", "10", "NX", "XX", "1", "a")
	expectErr(t, c, "ERR invalid expire time, must be >= 0", "HEXPIRE", "h", "-1", "FIELDS", "1", "a")
	expectErr(t, c, "ERR value is not an integer or out of range", "HEXPIRE", "h", "x", "FIELDS", "1", "a")
	expectErr(t, c, "ERR invalid expire time in 'hexpire' command", "HEXPIRE", "h", "70368744177", "FIELDS", "1", "a")
	expectErr(t, c, "ERR invalid expire time in 'hpexpireat' command", "HPEXPIREAT", "h", "70368744177664", "FIELDS", "1", "a")
	expect(t, c, []interface{}{int64(1)}, "HPEXPIREAT", "h", "70368744177663", "FIELDS", "1", "a")
	for _, cmd := range []string{"HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME", "HPERSIST", "HGETDEL"} {
		expectErr(t, c, positive, cmd, "h", "FIELDS", "0", "a")
		expectErr(t, c, positive, cmd, "h", "FIELDS", "-1", "a")
		expectErr(t, c, mismatch, cmd, "h", "FIELDS", "2", "a")
		expectErr(t, c, missing, cmd, "h", "FIELD", "1", "a")
	}
	expectErr(t, c, positive, "HGETEX", "h", "EX", "10", "FIELDS", "0", "a")
	expectErr(t, c, mismatch, "HGETEX", "h", "PERSIST", "FIELDS", "2", "a")
	expectErr(t, c, missing, "HGETEX", "h", "EX", "10", "FIELD", "1", "a")
	expectErr(t, c, "ERR invalid expire time, must be >= 0", "HGETEX", "h", "PX", "-5", "FIELDS", "1", "a")
	expectErr(t, c, "ERR invalid expire time in 'hgetex' command", "HGETEX", "h", "EXAT", "99999999999999", "FIELDS", "1", "a")
	expectErr(t, c, "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified", "HSETEX", "h", "EX", "1", "KEEPTTL", "FIELDS", "1", "a", "b")
	expectErr(t, c, "ERR Only one of FXX or FNX arguments can be specified", "HSETEX", "h", "FNX", "FXX", "FIELDS", "1", "a", "b")
	expectErr(t, c, "ERR unknown argument: NOPE", "HSETEX", "h", "NOPE", "FIELDS", "1", "a", "b")
	expectErr(t, c, "ERR invalid number of fields", "HSETEX", "h", "FIELDS", "0", "a", "b")
	expectErr(t, c, errArity("hsetex"), "HSETEX", "h", "FIELDS", "2", "a", "b")
	expectErr(t, c, errArity("hsetex"), "HSETEX", "h", "FIELDS", "1", "a", "b", "c")
	expectErr(t, c, "ERR invalid expire time, must be >= 0", "HSETEX", "h", "EX", "-1", "FIELDS", "1", "a", "b")
}

// The exact bytes of every reply shape, in RESP2 and after HELLO 3.
func TestHashFieldExpireRawReplies(t *testing.T) {
	s := testserver.Start(t)
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			r := dialRaw(t, s.Addr())
			null := "$-1\r\n"
			if proto == "3" {
				null = "_\r\n"
				if got := r.do("HELLO", "3"); !strings.HasPrefix(got, "%") {
					t.Fatalf("HELLO 3: %q", got)
				}
			}
			ints := func(n ...string) string {
				return "*" + strconv.Itoa(len(n)) + "\r\n:" + strings.Join(n, "\r\n:") + "\r\n"
			}
			k := "raw" + proto
			r.expect(":2\r\n", "HSET", k, "a", "1", "b", "2")
			r.expect(ints("1", "-2"), "HEXPIRE", k, "1000", "FIELDS", "2", "a", "c")
			r.expect(ints("0"), "HEXPIRE", k, "1000", "NX", "FIELDS", "1", "a")
			r.expect(ints("-1", "-2"), "HTTL", k, "FIELDS", "2", "b", "c")
			r.expect(ints("1", "-1", "-2"), "HPERSIST", k, "FIELDS", "3", "a", "b", "c")
			r.expect(ints("2"), "HPEXPIREAT", k, "1", "FIELDS", "1", "b")
			r.expect("*2\r\n"+bulk("1")+null, "HGETEX", k, "EX", "100", "FIELDS", "2", "a", "b")
			r.expect(":1\r\n", "HSETEX", k, "PX", "100000", "FIELDS", "1", "c", "3")
			r.expect(":0\r\n", "HSETEX", k, "FNX", "FIELDS", "1", "c", "3")
			r.expect("*3\r\n"+bulk("1")+null+bulk("3"), "HGETDEL", k, "FIELDS", "3", "a", "b", "c")
			r.expect(":0\r\n", "EXISTS", k)
			r.expect("*1\r\n"+null, "HGETDEL", k, "FIELDS", "1", "a")
		})
	}
}

// The active expiry deletes fields without any command touching the hash,
// and the key with its last field; the notifications are Redis's.
func TestHashFieldExpireActiveAndNotify(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	sub := notifySub(t, s, c)
	expect(t, c, int64(2), "HSET", "h", "a", "1", "b", "2")
	expect(t, c, []interface{}{int64(1)}, "HEXPIRE", "h", "100", "FIELDS", "1", "a")
	expect(t, c, []interface{}{int64(1)}, "HPERSIST", "h", "FIELDS", "1", "a")
	expect(t, c, []interface{}{int64(2)}, "HEXPIRE", "h", "0", "FIELDS", "1", "a")
	expect(t, c, int64(1), "HSETEX", "h", "PX", "100000", "FIELDS", "1", "c", "3")
	expect(t, c, []interface{}{"3"}, "HGETDEL", "h", "FIELDS", "1", "c")
	expect(t, c, []interface{}{int64(1)}, "HPEXPIRE", "h", "1", "FIELDS", "1", "b")
	expectEvents(t, sub,
		"__keyevent@0__:hset h", "__keyevent@0__:hexpire h", "__keyevent@0__:hpersist h",
		"__keyevent@0__:hdel h", "__keyevent@0__:hset h", "__keyevent@0__:hexpire h",
		"__keyevent@0__:hdel h", "__keyevent@0__:hexpire h",
		// b expires by itself: the active expiry deletes it and the key.
		"__keyevent@0__:hexpired h", "__keyevent@0__:del h")
	expect(t, c, int64(0), "EXISTS", "h")

	// Many fields over many hashes, most expiring: the active expiry
	// takes them all, the others stay.
	for i := range 50 {
		k := "m" + strconv.Itoa(i)
		args := []interface{}{"HSET", k}
		fields := []interface{}{"HPEXPIRE", k, "1", "FIELDS", "40"}
		for j := range 41 {
			f := "f" + strconv.Itoa(j)
			args = append(args, f, "v")
			if j < 40 {
				fields = append(fields, f)
			}
		}
		expect(t, c, int64(41), args...)
		value(t, c, fields...)
	}
	expect(t, c, int64(1), "HSET", "gone", "only", "v")
	expect(t, c, []interface{}{int64(1)}, "HPEXPIRE", "gone", "1", "FIELDS", "1", "only")
	waitFor(t, 60*time.Second, "the active expiry of the fields", func() bool {
		for i := range 50 {
			if intValue(t, c, "HLEN", "m"+strconv.Itoa(i)) != 1 {
				return false
			}
		}
		return intValue(t, c, "EXISTS", "gone") == 0
	})
	expect(t, c, []interface{}{"f40"}, "HKEYS", "m7")
	info := value(t, c, "INFO", "stats").(string)
	if !strings.Contains(info, "expired_subkeys:") {
		t.Errorf("INFO stats lacks expired_subkeys")
	}

	// With the active expiry off, HLEN counts an expired field still
	// there and HGETALL skips it (as Redis); a command naming it deletes
	// it.
	expect(t, c, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	expect(t, c, int64(2), "HSET", "lazy", "a", "1", "b", "2")
	expect(t, c, []interface{}{int64(1)}, "HPEXPIRE", "lazy", "1", "FIELDS", "1", "a")
	time.Sleep(20 * time.Millisecond) // past the field's deadline
	expect(t, c, int64(2), "HLEN", "lazy")
	expect(t, c, map[interface{}]interface{}{"b": "2"}, "HGETALL", "lazy")
	expect(t, c, int64(2), "HLEN", "lazy")
	expect(t, c, []interface{}{"0", []interface{}{"b", "2"}}, "HSCAN", "lazy", "0")
	expect(t, c, int64(0), "HEXISTS", "lazy", "a")
	expect(t, c, int64(1), "HLEN", "lazy")
	expect(t, c, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
}

// DUMP carries the deadlines (RDB 12's hash with metadata), RESTORE
// restores them; COPY and RENAME keep them.
func TestHashFieldExpireDumpRestore(t *testing.T) {
	c := testserver.Start(t).Client(t)
	expect(t, c, int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3")
	expect(t, c, []interface{}{int64(1), int64(1)}, "HPEXPIRE", "h", "500000", "FIELDS", "2", "a", "b")
	payload := value(t, c, "DUMP", "h").(string)
	if payload[0] != 24 {
		t.Errorf("DUMP of a hash with field deadlines starts with type %d, want 24", payload[0])
	}
	expect(t, c, "OK", "RESTORE", "h2", "0", payload)
	pet := c.HPExpireTime(ctxT(t), "h", "a", "b", "c").Val()
	expect(t, c, []interface{}{pet[0], pet[1], int64(-1)}, "HPEXPIRETIME", "h2", "FIELDS", "3", "a", "b", "c")
	expect(t, c, map[interface{}]interface{}{"a": "1", "b": "2", "c": "3"}, "HGETALL", "h2")
	expect(t, c, int64(1), "COPY", "h2", "h3")
	expect(t, c, "OK", "RENAME", "h3", "h4")
	expect(t, c, []interface{}{pet[0], int64(-1)}, "HPEXPIRETIME", "h4", "FIELDS", "2", "a", "c")
	// A hash without deadlines dumps as before (a listpack, RDB 10).
	expect(t, c, int64(1), "HSET", "plain", "a", "1")
	p := value(t, c, "DUMP", "plain").(string)
	if p[0] != 16 || p[len(p)-10] != 10 {
		t.Errorf("DUMP of a plain hash: type %d version %d, want 16 and 10", p[0], p[len(p)-10])
	}
	// RENAME'd and COPY'd hashes keep expiring actively.
	expect(t, c, []interface{}{int64(1)}, "HPEXPIRE", "h4", "1", "FIELDS", "1", "c")
	waitFor(t, 30*time.Second, "the renamed hash's field to expire", func() bool {
		return intValue(t, c, "HLEN", "h4") == 2
	})
}

// A replica sees the deadlines and the deletions; the deadlines survive
// SIGKILL and a restart under fsync always, from the WAL and from a
// snapshot.
func TestHashFieldExpireReplicaAndCrash(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	r := startReplica(t, p, 1)
	rc := r.Client(t, 0)
	waitFor(t, 20*time.Second, "the replica's link", func() bool { return linkUp(rc) })

	expect(t, pc, int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3")
	expect(t, pc, []interface{}{int64(1)}, "HPEXPIRE", "h", "900000", "FIELDS", "1", "a")
	expect(t, pc, int64(1), "HSETEX", "h", "PXAT", strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10), "FIELDS", "1", "d", "4")
	expect(t, pc, int64(1), "HSET", "e", "x", "1")
	expect(t, pc, []interface{}{int64(1)}, "HPEXPIRE", "e", "1", "FIELDS", "1", "x")
	expect(t, pc, []interface{}{int64(1)}, "HPEXPIRE", "h", "1", "FIELDS", "1", "c")
	want := c2ints(t, pc, "HPEXPIRETIME", "h", "FIELDS", "3", "a", "b", "d")
	waitFor(t, 30*time.Second, "the replica to see the deadlines and the expiry", func() bool {
		got := c2ints(t, rc, "HPEXPIRETIME", "h", "FIELDS", "3", "a", "b", "d")
		return slicesEqual(got, want) && intValue(t, rc, "EXISTS", "e") == 0 && intValue(t, rc, "HLEN", "h") == 3
	})
	expect(t, rc, map[interface{}]interface{}{"a": "1", "b": "2", "d": "4"}, "HGETALL", "h")

	p.Kill(t)
	p = p.Restart(t)
	pc = p.Client(t, 0)
	expect(t, pc, []interface{}{want[0], want[1], want[2]}, "HPEXPIRETIME", "h", "FIELDS", "3", "a", "b", "d")
	expect(t, pc, int64(0), "EXISTS", "e")

	// Through a snapshot: SAVE, one more change, SIGKILL, restart.
	expect(t, pc, "OK", "SAVE")
	expect(t, pc, []interface{}{int64(1)}, "HPERSIST", "h", "FIELDS", "1", "d")
	p.Kill(t)
	p = p.Restart(t)
	pc = p.Client(t, 0)
	expect(t, pc, []interface{}{want[0], want[1], int64(-1)}, "HPEXPIRETIME", "h", "FIELDS", "3", "a", "b", "d")
}

// c2ints runs args and returns the integers of its array reply.
func c2ints(t *testing.T, c cmdr, args ...interface{}) []int64 {
	t.Helper()
	v, ok := value(t, c, args...).([]interface{})
	if !ok {
		t.Fatalf("%s: not an array", argv(args))
	}
	out := make([]int64, len(v))
	for i, x := range v {
		out[i], _ = x.(int64)
	}
	return out
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A client tracking a hash hears of a field the active expiry deleted,
// as of a key that expires.
func TestHashFieldExpireInvalidatesTracking(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, int64(2), "HSET", "tr", "a", "1", "b", "2")
	expect(t, c, []interface{}{int64(1)}, "HPEXPIRE", "tr", "1500", "FIELDS", "1", "a")
	tr := dialRaw(t, s.Addr())
	if got := tr.do("HELLO", "3"); !strings.HasPrefix(got, "%") {
		t.Fatalf("HELLO 3: %q", got)
	}
	tr.expect("+OK\r\n", "CLIENT", "TRACKING", "ON")
	tr.expect(bulk("2"), "HGET", "tr", "b")
	got, err := tr.tryRead(30 * time.Second)
	if err != nil || got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\ntr\r\n" {
		t.Fatalf("invalidation after the field expired: %q (%v)", got, err)
	}
	expect(t, c, int64(1), "HLEN", "tr")
}

// On one shard and on four behind a ClusterClient: each hash's field
// deadlines live and expire on its owner shard.
func TestHashFieldExpireTopologies(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	kjTopologies(t, func(t *testing.T, c cmdr) {
		for _, k := range keys {
			expect(t, c, int64(2), "HSET", "hfe:"+k, "x", "1", "y", "2")
			expect(t, c, []interface{}{int64(1), int64(-2)}, "HPEXPIRE", "hfe:"+k, "1", "FIELDS", "2", "x", "z")
			expect(t, c, int64(1), "HSETEX", "hfe:"+k, "EX", "100", "FIELDS", "1", "w", "3")
		}
		waitFor(t, 30*time.Second, "every shard's active expiry", func() bool {
			for _, k := range keys {
				if intValue(t, c, "HLEN", "hfe:"+k) != 2 {
					return false
				}
			}
			return true
		})
		for _, k := range keys {
			ttl := c2ints(t, c, "HTTL", "hfe:"+k, "FIELDS", "3", "x", "y", "w")
			if ttl[0] != -2 || ttl[1] != -1 || ttl[2] < 90 || ttl[2] > 100 {
				t.Errorf("HTTL hfe:%s: %v, want [-2 -1 ~100]", k, ttl)
			}
		}
	})
}
