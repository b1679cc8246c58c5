package replication

import (
	"bufio"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCheckLoop: the link announces its run id and refuses a primary whose
// answer lists it (the primary is this server, or follows it); another
// chain is kept for the link's status, and a primary that does not know
// the option (an error) leaves the chain unknown.
func TestCheckLoop(t *testing.T) {
	cases := []struct {
		answer  string
		loop    bool
		wantErr string
		chain   []string
	}{
		{"+me\r\n", true, "is this server itself", []string{"me"}},
		{"+p1 me\r\n", true, "replicates from this server", []string{"p1", "me"}},
		{"+p1 p2\r\n", false, "", []string{"p1", "p2"}},
		{"-ERR Unrecognized REPLCONF option: ruvio-run-id\r\n", false, "", nil},
	}
	for _, c := range cases {
		f := &Follower{opts: FollowerOptions{RunID: "me"}}
		l := &link{f: f}
		client, server := net.Pipe()
		got := make(chan string, 1)
		go func() {
			defer server.Close()
			_ = server.SetDeadline(time.Now().Add(5 * time.Second))
			r := bufio.NewReader(server)
			var parts []string
			for i := 0; i < 7; i++ { // *3, then three $len / value pairs
				line, err := r.ReadString('\n')
				if err != nil {
					break
				}
				parts = append(parts, strings.TrimSpace(line))
			}
			got <- strings.Join(parts, " ")
			_, _ = server.Write([]byte(c.answer))
		}()
		_ = client.SetDeadline(time.Now().Add(5 * time.Second))
		err := l.checkLoop(client, bufio.NewReader(client), "127.0.0.1:7000")
		_ = client.Close()
		if req := <-got; req != "*3 $8 REPLCONF $12 ruvio-run-id $2 me" {
			t.Errorf("%q: request %q", c.answer, req)
		}
		if c.loop != errors.Is(err, ErrLoop) || (c.loop && !strings.Contains(err.Error(), c.wantErr)) || (!c.loop && err != nil) {
			t.Errorf("%q: err %v, want loop %v (%q)", c.answer, err, c.loop, c.wantErr)
		}
		if !slices.Equal(l.chain, c.chain) {
			t.Errorf("%q: chain %q, want %q", c.answer, l.chain, c.chain)
		}
	}
}
