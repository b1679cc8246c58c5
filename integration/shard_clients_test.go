package integration_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestShardClientViews checks, on four shards, that each shard's port
// reports its own connections as a Redis Cluster node does: CLIENT LIST
// (with and without ID), INFO connected_clients and MONITOR; INFO's
// ruvio_process_connected_clients counts the whole process.
func TestShardClientViews(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(4))
	// Shard i gets i+1 named connections.
	conns := make([][]*rawConn, 4)
	for i := range conns {
		for j := 0; j <= i; j++ {
			rc := dialRaw(t, s.Addrs[i])
			rc.expect("+OK\r\n", "CLIENT", "SETNAME", "s"+strconv.Itoa(i)+"c"+strconv.Itoa(j))
			conns[i] = append(conns[i], rc)
		}
	}
	ids := make([]string, 4) // one client id per shard
	for i := range conns {
		ids[i] = strings.TrimSuffix(strings.TrimPrefix(conns[i][0].do("CLIENT", "ID"), ":"), "\r\n")
	}
	port := func(i int) string { return strconv.Itoa(s.Port() + i) }
	for i := range conns {
		rc := conns[i][0]
		list := rc.do("CLIENT", "LIST")
		_, body, _ := strings.Cut(list, "\r\n") // the bulk string's length line
		lines := strings.Split(strings.TrimSuffix(body, "\n\r\n"), "\n")
		if len(lines) != i+1 {
			t.Errorf("shard %d: CLIENT LIST has %d lines, want %d:\n%s", i, len(lines), i+1, body)
		}
		for _, l := range lines {
			if !strings.Contains(l, " laddr=127.0.0.1:"+port(i)+" ") || !strings.Contains(l, " name=s"+strconv.Itoa(i)+"c") {
				t.Errorf("shard %d: CLIENT LIST shows a connection of another port: %s", i, l)
			}
		}
		other := ids[(i+1)%4]
		if got := rc.do("CLIENT", "LIST", "ID", other); got != "$0\r\n\r\n" {
			t.Errorf("shard %d: CLIENT LIST ID %s (another shard's client): %q, want empty", i, other, got)
		}
		info := rc.do("INFO", "clients")
		if !strings.Contains(info, "\r\nconnected_clients:"+strconv.Itoa(i+1)+"\r\n") {
			t.Errorf("shard %d: INFO clients, want connected_clients:%d:\n%s", i, i+1, info)
		}
		if !strings.Contains(info, "\r\nruvio_process_connected_clients:10\r\n") {
			t.Errorf("shard %d: INFO clients, want ruvio_process_connected_clients:10:\n%s", i, info)
		}
	}

	// MONITOR on shard 0 sees shard 0's commands, not shard 1's: shard
	// 1's ECHO finishes before shard 0's is sent, so its line would come
	// first.
	mon := dialRaw(t, s.Addrs[0])
	mon.expect("+OK\r\n", "MONITOR")
	conns[1][0].expect("$5\r\nother\r\n", "ECHO", "other")
	conns[0][0].expect("$4\r\nmine\r\n", "ECHO", "mine")
	for {
		line := mon.read()
		if strings.Contains(line, `"other"`) {
			t.Fatalf("MONITOR on shard 0 shows shard 1's command: %q", line)
		}
		if strings.Contains(line, `"mine"`) {
			break
		}
	}
	// A monitor on shard 1 sees shard 1's commands.
	mon1 := dialRaw(t, s.Addrs[1])
	mon1.expect("+OK\r\n", "MONITOR")
	conns[1][0].expect("$6\r\nshard1\r\n", "ECHO", "shard1")
	if line := mon1.read(); !strings.Contains(line, `"ECHO" "shard1"`) {
		t.Errorf("MONITOR on shard 1: %q", line)
	}
}
