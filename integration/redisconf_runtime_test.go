package integration_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// CONFIG SET masterauth reaches the replica's next connection: a replica refused with a wrong
// password links up once it is given the right one, without REPLICAOF again; bind-source-addr
// picks the address it dials from; DEBUG DIGEST agrees on both sides.
func TestReplicaRuntimeAuthAndSourceAddr(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	expect(t, pc, "OK", "SET", "a", "1")
	expect(t, pc, int64(3), "SADD", "s", "x", "y", "z")
	expect(t, pc, int64(2), "HSET", "h", "f", "v", "g", "w")
	expect(t, pc, "OK", "CONFIG", "SET", "requirepass", "abc")
	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always"})
	rc := r.Client(t, 0)
	expect(t, rc, "OK", "CONFIG", "SET", "masterauth", "wrong")
	expect(t, rc, "OK", "CONFIG", "SET", "bind-source-addr", "127.0.0.2")
	host, port, _ := strings.Cut(p.Addrs[0], ":")
	expect(t, rc, "OK", "REPLICAOF", host, port)
	waitFor(t, 10*time.Second, "the refusal in the log", func() bool { return strings.Contains(r.Output(), "Unable to AUTH to MASTER") })
	if linkUp(rc) {
		t.Fatal("linked with a wrong password")
	}
	expect(t, rc, "OK", "CONFIG", "SET", "masterauth", "abc")
	expect(t, rc, map[interface{}]interface{}{"masterauth": "abc"}, "CONFIG", "GET", "masterauth")
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	expect(t, rc, "1", "GET", "a")
	pc = p.Client(t, 0)
	expect(t, pc, "OK", "AUTH", "abc")
	info := value(t, pc, "INFO", "replication").(string)
	if !strings.Contains(info, "ip=127.0.0.2") {
		t.Errorf("the primary does not see the replica at 127.0.0.2:\n%s", info)
	}
	want := value(t, pc, "DEBUG", "DIGEST").(string)
	if len(want) != 40 || want == strings.Repeat("0", 40) {
		t.Fatalf("primary digest %q", want)
	}
	waitFor(t, 10*time.Second, "equal digests", func() bool { return value(t, rc, "DEBUG", "DIGEST") == want })

	// Killing the replica's link to its primary (Redis's master client) makes it reconnect and
	// resume: the primary counts one full synchronisation, then resumes.
	stats := func() string { return value(t, pc, "INFO", "stats").(string) }
	if st := stats(); !strings.Contains(st, "sync_full:1\r\n") || !strings.Contains(st, "sync_partial_ok:0\r\n") {
		t.Fatalf("after the first sync:\n%s", st)
	}
	expect(t, rc, "OK", "CLIENT", "KILL", p.Addrs[0])
	waitFor(t, 10*time.Second, "a resume", func() bool { return strings.Contains(stats(), "sync_partial_ok:1\r\n") })
	waitFor(t, 10*time.Second, "the link back up", func() bool { return linkUp(rc) })
	expect(t, rc, int64(1), "CLIENT", "KILL", "TYPE", "master")
	waitFor(t, 10*time.Second, "a second resume", func() bool { return strings.Contains(stats(), "sync_partial_ok:2\r\n") })
	expectErr(t, rc, "ERR No such client", "CLIENT", "KILL", "127.0.0.1:1")
	expect(t, pc, "OK", "SET", "b", "2")
	waitFor(t, 10*time.Second, "the write after resuming", func() bool { return value(t, rc, "GET", "b") == "2" })
	if st := stats(); !strings.Contains(st, "sync_full:1\r\n") {
		t.Errorf("a resume counted as a full sync:\n%s", st)
	}
}

// oom-score-adj writes the process's OOM score: relative to the score it found, the replica's
// value after REPLICAOF, absolute, and the old score back when turned off.
func TestOOMScoreAdj(t *testing.T) {
	path := "/proc/self/oom_score_adj"
	if _, err := os.Stat(path); err != nil {
		t.Skip("no /proc/self/oom_score_adj here")
	}
	s := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir()})
	c := s.Client(t, 0)
	score := func() int {
		t.Helper()
		b, err := os.ReadFile("/proc/" + strconv.Itoa(s.Pid()) + "/oom_score_adj")
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := score()
	expect(t, c, "OK", "CONFIG", "SET", "oom-score-adj-values", "10 20 30")
	if got := score(); got != base {
		t.Fatalf("changed while off: %d, want %d", got, base)
	}
	expect(t, c, "OK", "CONFIG", "SET", "oom-score-adj", "relative")
	expect(t, c, map[interface{}]interface{}{"oom-score-adj": "yes"}, "CONFIG", "GET", "oom-score-adj")
	if got := score(); got != base+10 {
		t.Fatalf("relative: %d, want %d", got, base+10)
	}
	expect(t, c, "OK", "REPLICAOF", "127.0.0.1", "1")
	if got := score(); got != base+20 {
		t.Errorf("replica: %d, want %d", got, base+20)
	}
	expect(t, c, "OK", "REPLICAOF", "NO", "ONE")
	expect(t, c, "OK", "CONFIG", "SET", "oom-score-adj", "absolute")
	if got := score(); got != 10 {
		t.Errorf("absolute: %d, want 10", got)
	}
	expect(t, c, "OK", "CONFIG", "SET", "oom-score-adj", "no")
	if got := score(); got != base {
		t.Errorf("off: %d, want the old %d", got, base)
	}
	expectErr(t, c, "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - Invalid oom-score-adj-values, elements must be between -2000 and 2000.",
		"CONFIG", "SET", "oom-score-adj-values", "-2001 0 0")
}

// acl-pubsub-default allchannels gives new users every channel; users made before keep theirs.
func TestACLPubsubDefault(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "ACL", "SETUSER", "before", "on", "nopass", "+@all", "~*")
	expect(t, c, "OK", "CONFIG", "SET", "acl-pubsub-default", "allchannels")
	expect(t, c, "OK", "ACL", "SETUSER", "after", "on", "nopass", "+@all", "~*")
	expect(t, c, "OK", "ACL", "DRYRUN", "after", "PUBLISH", "ch", "m")
	expect(t, c, "This user has no permissions to access the 'ch' channel", "ACL", "DRYRUN", "before", "PUBLISH", "ch", "m")
	expect(t, c, "OK", "CONFIG", "SET", "acl-pubsub-default", "resetchannels")
	expect(t, c, "OK", "ACL", "SETUSER", "after", "reset", "on", "nopass", "+@all")
	expect(t, c, "This user has no permissions to access the 'ch' channel", "ACL", "DRYRUN", "after", "PUBLISH", "ch", "m")
}

// A command blocked on a primary that becomes a replica ends with Redis's -UNBLOCKED error
// and its connection closes: served by the new primary's records, it would take from the
// replica what the primary keeps, and the two would diverge.
func TestBlockedClientsEndWhenPrimaryBecomesReplica(t *testing.T) {
	p := startPrimary(t, 1)
	b := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always"})
	blocked := dialRaw(t, b.Addrs[0])
	blocked.send("BLPOP", "foo", "0")
	bc := b.Client(t, 0)
	waitFor(t, 10*time.Second, "the client to block", func() bool {
		return strings.Contains(value(t, bc, "INFO", "clients").(string), "blocked_clients:1\r\n")
	})
	host, port, _ := strings.Cut(p.Addrs[0], ":")
	expect(t, bc, "OK", "REPLICAOF", host, port)
	if got := blocked.read(); got != "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)\r\n" {
		t.Fatalf("blocked client got %q", got)
	}
	blocked.expectClosed(5 * time.Second)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(bc) })
	pc := p.Client(t, 0)
	expect(t, pc, int64(3), "RPUSH", "foo", "a", "b", "c")
	waitFor(t, 10*time.Second, "the list on the replica", func() bool {
		v, err := bc.Do(ctxT(t), "LRANGE", "foo", "0", "-1").StringSlice()
		return err == nil && strings.Join(v, " ") == "a b c"
	})
}
