package commands

import (
	"strings"
	"testing"
)

// MIGRATE's checks before any exchange, with Redis 7.0's replies. (The
// exchange itself is tested through the network in integration/.)
func TestMigrateArgumentErrors(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, "+OK\r\n", "SET", "k", "v")
	expect(t, sh, rErr("ERR wrong number of arguments for 'migrate' command"), "MIGRATE", "127.0.0.1", "1", "k", "0")
	expect(t, sh, rErr("ERR syntax error"), "MIGRATE", "127.0.0.1", "1", "k", "0", "10", "NOPE")
	expect(t, sh, rErr("ERR syntax error"), "MIGRATE", "127.0.0.1", "1", "k", "0", "10", "AUTH")
	expect(t, sh, rErr("ERR syntax error"), "MIGRATE", "127.0.0.1", "1", "k", "0", "10", "AUTH2", "user")
	expect(t, sh, rErr("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"),
		"MIGRATE", "127.0.0.1", "1", "k", "0", "10", "KEYS", "a")
	// Options first, then the timeout, then the database, as Redis checks.
	expect(t, sh, rErr("ERR syntax error"), "MIGRATE", "127.0.0.1", "1", "k", "x", "y", "NOPE")
	expect(t, sh, rErr("ERR value is not an integer or out of range"), "MIGRATE", "127.0.0.1", "1", "k", "0", "soon")
	expect(t, sh, rErr("ERR value is not an integer or out of range"), "MIGRATE", "127.0.0.1", "1", "k", "db", "10")
	// No key exists: +NOKEY, whatever the target (nothing is sent).
	expect(t, sh, "+NOKEY\r\n", "MIGRATE", "127.0.0.1", "1", "missing", "0", "10")
	expect(t, sh, "+NOKEY\r\n", "MIGRATE", "127.0.0.1", "1", "", "0", "10", "COPY", "REPLACE", "AUTH", "pw", "KEYS", "m1", "m2")
	expect(t, sh, "+NOKEY\r\n", "MIGRATE", "127.0.0.1", "1", "", "0", "10", "KEYS")
	// Keywords are case-insensitive, and a KEYS list ends the options.
	expect(t, sh, "+NOKEY\r\n", "MIGRATE", "127.0.0.1", "1", "", "0", "10", "keys", "copy", "replace")
}

// MIGRATE waits for the target off the shard; inside MULTI/EXEC (and
// scripts) it cannot, and is refused rather than stalling the shard.
func TestMigrateInsideTransaction(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, "+OK\r\n", "SET", "k", "v")
	expect(t, sh, "+OK\r\n", "MULTI")
	expect(t, sh, "+QUEUED\r\n", "MIGRATE", "127.0.0.1", "1", "k", "0", "10")
	expect(t, sh, "+QUEUED\r\n", "MIGRATE", "127.0.0.1", "1", "gone", "0", "10")
	expect(t, sh, rArr(rErr(errMigrateNoWait), "+NOKEY\r\n"), "EXEC")
	expect(t, sh, rBulk("v"), "GET", "k")
}

// COMMAND GETKEYS and the ACL check find MIGRATE's keys as Redis's
// migrateGetKeys does: the key argument, or the keys after KEYS.
func TestMigrateKeys(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rArr(rBulk("k")), "COMMAND", "GETKEYS", "MIGRATE", "h", "1", "k", "0", "10", "COPY", "AUTH", "KEYS")
	expect(t, sh, rArr(rBulk("a"), rBulk("b")), "COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "10", "REPLACE", "AUTH2", "u", "p", "KEYS", "a", "b")
	expect(t, sh, rArr(rArr(rBulk("a"), rArr("+RW\r\n", "+access\r\n", "+delete\r\n"))),
		"COMMAND", "GETKEYSANDFLAGS", "MIGRATE", "h", "1", "", "0", "10", "KEYS", "a")
	info := run(t, sh, "COMMAND", "INFO", "MIGRATE")
	if !strings.Contains(info, "+movablekeys\r\n") || !strings.Contains(info, "+incomplete\r\n") {
		t.Errorf("COMMAND INFO MIGRATE lacks movablekeys or the incomplete KEYS spec: %q", info)
	}

	// A user limited to app:* may not migrate other keys, named either way.
	expect(t, sh, "+OK\r\n", "ACL", "SETUSER", "mover", "on", "nopass", "+migrate", "~app:*")
	expect(t, sh, "+OK\r\n", "ACL", "DRYRUN", "mover", "MIGRATE", "h", "1", "", "0", "10", "KEYS", "app:a", "app:b")
	if got := run(t, sh, "ACL", "DRYRUN", "mover", "MIGRATE", "h", "1", "", "0", "10", "KEYS", "app:a", "other"); !strings.Contains(got, "no permissions to access the 'other' key") {
		t.Errorf("ACL DRYRUN of a KEYS list with a forbidden key: %q", got)
	}
	if got := run(t, sh, "ACL", "DRYRUN", "mover", "MIGRATE", "h", "1", "other", "0", "10"); !strings.Contains(got, "no permissions to access the 'other' key") {
		t.Errorf("ACL DRYRUN of a forbidden key: %q", got)
	}
}

// The slow log hides MIGRATE's AUTH password and AUTH2's user and password.
func TestMigrateRedactedInSlowlog(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, "+OK\r\n", "CONFIG", "SET", "slowlog-log-slower-than", "0")
	run(t, sh, "MIGRATE", "h", "1", "", "0", "10", "AUTH2", "someone", "secret", "AUTH", "pw", "KEYS", "auth", "x")
	got := run(t, sh, "SLOWLOG", "GET", "1")
	for _, hidden := range []string{"someone", "secret", "pw"} {
		if strings.Contains(got, hidden) {
			t.Errorf("SLOWLOG shows %q: %q", hidden, got)
		}
	}
	if strings.Count(got, "(redacted)") != 3 || !strings.Contains(got, rBulk("auth")) {
		t.Errorf("SLOWLOG entry: %q", got)
	}
}

// RESTORE-ASKING is RESTORE (for a slot being imported, which a client
// of Ruvio never sees).
func TestRestoreAsking(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rInt(2), "RPUSH", "l", "a", "b")
	payload := strings.TrimSuffix(strings.SplitN(run(t, sh, "DUMP", "l"), "\r\n", 2)[1], "\r\n")
	expect(t, sh, "+OK\r\n", "RESTORE-ASKING", "l2", "0", payload)
	expect(t, sh, rErr("BUSYKEY Target key name already exists."), "RESTORE-ASKING", "l2", "0", payload)
	expect(t, sh, "+OK\r\n", "RESTORE-ASKING", "l2", "0", payload, "REPLACE")
	expect(t, sh, rArr(rBulk("a"), rBulk("b")), "LRANGE", "l2", "0", "-1")
	if info := run(t, sh, "COMMAND", "INFO", "RESTORE-ASKING"); !strings.Contains(info, "+asking\r\n") {
		t.Errorf("COMMAND INFO RESTORE-ASKING lacks the asking flag: %q", info)
	}
}

// ASKING answers OK in cluster mode and sets a flag that, as in Redis,
// covers the next command (or the transaction it opens) and then ends.
func TestAsking(t *testing.T) {
	expect(t, newTestShard(t), rErr("ERR This instance has cluster support disabled"), "ASKING")
	sh := newTestServer(t, 2)
	c := sh.Ctx.C
	expect(t, sh, "+OK\r\n", "ASKING")
	if !c.Asking() {
		t.Fatal("ASKING did not set the flag")
	}
	run(t, sh, "PING") // the command it covers
	if !c.Asking() {
		t.Fatal("the flag ended before the command after ASKING")
	}
	run(t, sh, "PING")
	if c.Asking() {
		t.Fatal("the flag outlived the command after ASKING")
	}
	// Through a transaction: it lasts until EXEC.
	expect(t, sh, "+OK\r\n", "ASKING")
	expect(t, sh, "+OK\r\n", "MULTI")
	expect(t, sh, "+QUEUED\r\n", "PING")
	expect(t, sh, rArr("+PONG\r\n"), "EXEC")
	if !c.Asking() {
		t.Fatal("the flag ended inside the transaction")
	}
	run(t, sh, "PING")
	if c.Asking() {
		t.Fatal("the flag outlived the transaction")
	}
	// ASKING inside a transaction ends with its EXEC.
	expect(t, sh, "+OK\r\n", "MULTI")
	expect(t, sh, "+QUEUED\r\n", "ASKING")
	expect(t, sh, rArr("+OK\r\n"), "EXEC")
	run(t, sh, "PING")
	if c.Asking() {
		t.Fatal("an ASKING inside EXEC outlived it")
	}
}

// A key guard learns of every kind of change to its keys: writes,
// deletions, renames, flushes; other keys leave it alone.
func TestKeyGuard(t *testing.T) {
	sh := newTestShard(t)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		expect(t, sh, "+OK\r\n", "SET", k, "1")
	}
	g := sh.GuardKeys(0, toArgv("a", "b", "c", "d", "e", "a"))
	expect(t, sh, "+OK\r\n", "SET", "other", "1")
	expect(t, sh, "+OK\r\n", "SELECT", "1")
	expect(t, sh, "+OK\r\n", "SET", "a", "x") // another database
	expect(t, sh, "+OK\r\n", "SELECT", "0")
	expect(t, sh, rInt(2), "APPEND", "a", "2")
	expect(t, sh, rInt(1), "DEL", "b")
	expect(t, sh, "+OK\r\n", "RENAME", "c", "c2")
	expect(t, sh, rInt(1), "EXPIRE", "d", "100")
	want := []bool{true, true, true, true, false, true}
	for i, w := range want {
		if g.Changed(i) != w {
			t.Errorf("key %d: changed %v, want %v", i, g.Changed(i), w)
		}
	}
	expect(t, sh, "+OK\r\n", "FLUSHDB")
	if !g.Changed(4) {
		t.Error("FLUSHDB did not mark the guarded key")
	}
	g.Release()
	g2 := sh.GuardKeys(0, toArgv("a"))
	expect(t, sh, "+OK\r\n", "SET", "a", "1")
	if !g2.Changed(0) {
		t.Error("a second guard of a released key missed a write")
	}
	g2.Release()
}

// MIGRATE reads its port argument as Redis does (atoi).
func TestMigratePortAtoi(t *testing.T) {
	for in, want := range map[string]int{"6379": 6379, " 6379": 6379, "+80x": 80, "abc": 0, "": 0, "-1": -1} {
		if got := atoi(in); got != want {
			t.Errorf("atoi(%q) = %d, want %d", in, got, want)
		}
	}
}
