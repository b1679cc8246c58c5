package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// clientListHas reports whether CLIENT LIST shows a client named name.
func clientListHas(t *testing.T, c *redis.Client, name string) bool {
	t.Helper()
	list, err := c.ClientList(ctxT(t)).Result()
	if err != nil {
		t.Fatalf("CLIENT LIST: %v", err)
	}
	return strings.Contains(list, " name="+name+" ")
}

// maxmemory-clients takes Redis's forms and refuses bad values with
// Redis's wording; CLIENT NO-EVICT sets the e flag.
func TestClientEvictionConfig(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, map[interface{}]interface{}{"maxmemory-clients": "0"}, "CONFIG", "GET", "maxmemory-clients")
	for in, want := range map[string]string{"1mb": "1048576", "5%": "5%", "0%": "0%", "200000": "200000", "0": "0"} {
		expect(t, c, "OK", "CONFIG", "SET", "maxmemory-clients", in)
		expect(t, c, map[interface{}]interface{}{"maxmemory-clients": want}, "CONFIG", "GET", "maxmemory-clients")
	}
	expectErr(t, c, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value",
		"CONFIG", "SET", "maxmemory-clients", "lots")
	expectErr(t, c, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - percentage argument must be less or equal to 100",
		"CONFIG", "SET", "maxmemory-clients", "101%")
	expect(t, c, "OK", "CLIENT", "NO-EVICT", "on")
	info := value(t, c, "CLIENT", "INFO").(string)
	if !strings.Contains(info, " flags=e ") {
		t.Errorf("CLIENT INFO after NO-EVICT on: %q", info)
	}
	expect(t, c, "OK", "CLIENT", "NO-EVICT", "off")
	info = value(t, c, "CLIENT", "INFO").(string)
	if !strings.Contains(info, " flags=N ") {
		t.Errorf("CLIENT INFO after NO-EVICT off: %q", info)
	}
	expectErr(t, c, errSyntax, "CLIENT", "NO-EVICT", "maybe")
}

// A client whose query buffer takes the total over maxmemory-clients is
// evicted; a no-evict client is spared; evicted_clients counts it.
func TestClientEvictionQueryBuffer(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	ctl := s.Client(t)
	expect(t, ctl, "OK", "CLIENT", "NO-EVICT", "on")
	expect(t, ctl, "OK", "CONFIG", "SET", "maxmemory-clients", "1mb")

	spared := dialRaw(t, s.Addr())
	spared.expect("+OK\r\n", "CLIENT", "SETNAME", "spared")
	spared.expect("+OK\r\n", "CLIENT", "NO-EVICT", "on")
	big := dialRaw(t, s.Addr())
	big.expect("+OK\r\n", "CLIENT", "SETNAME", "big")

	// An argument of 2 MB announced, 1.5 MB of it sent: over the limit.
	// The server may close it before every byte is written.
	_, _ = big.conn.Write([]byte("*2\r\n$3\r\nset\r\n$2000000\r\n" + strings.Repeat("v", 1500000)))
	big.expectClosed(10 * time.Second)
	if clientListHas(t, ctl, "big") {
		t.Error("the big client is still in CLIENT LIST")
	}
	if got := infoField(t, ctl, "stats", "evicted_clients"); got != "1" {
		t.Errorf("evicted_clients: %s, want 1", got)
	}
	spared.expect("+PONG\r\n", "PING")
}

// Lowering maxmemory-clients evicts at once, the largest clients first and
// only until the total is under the limit; when the NO-EVICT clients alone
// are over it every evictable client goes (as in Redis); flipping NO-EVICT
// off makes a large client evictable at once.
func TestClientEvictionOrderAndNoEvictOff(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	ctl := s.Client(t)
	expect(t, ctl, "OK", "CLIENT", "SETNAME", "control")
	expect(t, ctl, "OK", "CLIENT", "NO-EVICT", "on")
	sizes := map[string]int{"small": 100_000, "medium": 400_000, "large": 900_000}
	for name, n := range sizes {
		rc := dialRaw(t, s.Addr())
		rc.expect("+OK\r\n", "CLIENT", "SETNAME", name)
		rc.write("*2\r\n$" + strconv.Itoa(n) + "\r\n" + strings.Repeat("v", n))
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(value(t, ctl, "CLIENT", "LIST").(string), " qbuf=900000 ") {
		if time.Now().After(deadline) {
			t.Fatal("the large client's query buffer never filled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	normal, err := strconv.ParseInt(infoField(t, ctl, "memory", "mem_clients_normal"), 10, 64)
	if err != nil {
		t.Fatalf("mem_clients_normal: %v", err)
	}
	if normal < 1_400_000 {
		t.Fatalf("mem_clients_normal %d, want at least the 1.4 MB of query buffers", normal)
	}
	// Room for everything but the large client: only it goes.
	expect(t, ctl, "OK", "CONFIG", "SET", "maxmemory-clients", strconv.FormatInt(normal-500_000, 10))
	if clientListHas(t, ctl, "large") || !clientListHas(t, ctl, "medium") || !clientListHas(t, ctl, "small") {
		t.Errorf("after the first cut: %q", value(t, ctl, "CLIENT", "LIST"))
	}
	// A protected client alone over the limit: as in Redis, every
	// evictable client goes (evicting them cannot bring the total under
	// it), the protected ones stay.
	w := s.Client(t)
	expect(t, w, "OK", "CLIENT", "SETNAME", "watcher")
	expect(t, w, "OK", "CLIENT", "NO-EVICT", "on")
	expect(t, ctl, "OK", "CONFIG", "SET", "maxmemory-clients", "0")
	keys := []interface{}{"WATCH"}
	for i := 0; i < 20000; i++ {
		keys = append(keys, "watched-key-"+strconv.Itoa(i))
	}
	expect(t, w, "OK", keys...)
	expect(t, ctl, "OK", "CONFIG", "SET", "maxmemory-clients", "1mb")
	if !clientListHas(t, ctl, "watcher") || !clientListHas(t, ctl, "control") || clientListHas(t, ctl, "medium") || clientListHas(t, ctl, "small") {
		t.Errorf("after the second cut: %q", value(t, ctl, "CLIENT", "LIST"))
	}
	// NO-EVICT off makes the watcher evictable at once: it goes too.
	_, _ = w.Do(ctxT(t), "CLIENT", "NO-EVICT", "off").Result()
	if clientListHas(t, ctl, "watcher") {
		t.Errorf("after NO-EVICT off: %q", value(t, ctl, "CLIENT", "LIST"))
	}
	if got := infoField(t, ctl, "stats", "evicted_clients"); got != "4" {
		t.Errorf("evicted_clients: %s, want 4", got)
	}
}
