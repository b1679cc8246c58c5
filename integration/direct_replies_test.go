package integration_test

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// direct lets shards write replies into sockets themselves.
func direct(c *config.Config) { c.Server.DirectReplies = true }

// directCases are the servers the direct-reply tests run against: replies
// written by the shard when the connection allows it, with one and two
// shards and shared reactors, and through the reactor only (the default).
var directCases = []struct {
	name string
	opts []testserver.Option
}{
	{"direct-1shard", []testserver.Option{testserver.Config(direct)}},
	{"direct-2shards", []testserver.Option{testserver.Config(direct), testserver.Shards(2)}},
	{"direct-always", []testserver.Option{testserver.Config(direct), testserver.Fsync("always")}},
	{"direct-shared-reactors", []testserver.Option{testserver.Config(func(c *config.Config) {
		direct(c)
		c.Server.ReactorPerShard = false
		c.Server.Reactors = 2
	})}},
	{"reactor-1shard", nil},
}

// eachDirectCase runs fn, in parallel subtests, against a server of each
// of directCases.
func eachDirectCase(t *testing.T, fn func(t *testing.T, s *testserver.Server)) {
	for _, tc := range directCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fn(t, testserver.Start(t, tc.opts...))
		})
	}
}

// shard0Tag returns a hash tag ("{…}") whose keys live on the shard
// behind s.Addr().
func shard0Tag(t *testing.T, s *testserver.Server) string {
	t.Helper()
	if len(s.Addrs) == 1 {
		return "{d}"
	}
	return "{" + tagsPerShard(t, s.Client(t), len(s.Addrs))[0] + "}"
}

// replyField returns one field of a raw INFO or CLIENT INFO reply.
func replyField(t *testing.T, reply, field string) string {
	t.Helper()
	m := regexp.MustCompile(`(?:^|[\s\n])` + regexp.QuoteMeta(field) + `[:=]([^\s\r\n]*)`).FindStringSubmatch(reply)
	if m == nil {
		t.Fatalf("no %s in %q", field, reply)
	}
	return m[1]
}

// TestDirectRepliesFullSocket has a client pipeline more replies than its
// socket holds and read none for a while: the replies the socket does not
// take wait at the reactor, later replies queue behind them, and all arrive
// whole and in order; the connection's output is counted back to zero and
// INFO counts every byte sent.
func TestDirectRepliesFullSocket(t *testing.T) {
	t.Parallel()
	eachDirectCase(t, func(t *testing.T, s *testserver.Server) {
		admin := dialRaw(t, s.Addr())
		tag := shard0Tag(t, s)
		big := strings.Repeat("v", 256<<10)
		if got := admin.do("SET", tag+"big", big); got != "+OK\r\n" {
			t.Fatalf("SET: %q", got)
		}
		before, _ := strconv.ParseInt(replyField(t, admin.do("INFO", "stats"), "total_net_output_bytes"), 10, 64)

		c := dialRaw(t, s.Addr())
		const gets = 64 // 16 MiB of replies
		var in strings.Builder
		for range gets {
			in.WriteString(multibulk("GET", tag+"big"))
		}
		c.write(in.String())
		time.Sleep(100 * time.Millisecond) // the socket fills
		for i := range 50 {
			c.write(multibulk("INCR", tag+"n") + multibulk("ECHO", strconv.Itoa(i)))
		}
		read := 0
		wantBig := bulk(big)
		buf := make([]byte, len(wantBig))
		for i := range gets {
			// Read as bytes: the reply parser is slow on 16 MiB under -race.
			_ = c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.ReadFull(c.r, buf); err != nil {
				t.Fatalf("GET %d: %v", i, err)
			}
			if string(buf) != wantBig {
				t.Fatalf("GET %d: not the value (%q…)", i, buf[:32])
			}
			read += len(wantBig)
		}
		for i := range 50 {
			want := ":" + strconv.Itoa(i+1) + "\r\n"
			if got := c.read(); got != want {
				t.Fatalf("INCR %d: %q, want %q", i, got, want)
			}
			if got, want := c.read(), bulk(strconv.Itoa(i)); got != want {
				t.Fatalf("ECHO %d: %q, want %q", i, got, want)
			}
			read += len(want) + len(bulk(strconv.Itoa(i)))
		}
		info := c.do("CLIENT", "INFO")
		if omem := replyField(t, info, "omem"); omem != "0" {
			t.Fatalf("omem after reading everything: %s (%q)", omem, info)
		}
		after, _ := strconv.ParseInt(replyField(t, admin.do("INFO", "stats"), "total_net_output_bytes"), 10, 64)
		if after-before < int64(read) {
			t.Fatalf("total_net_output_bytes grew by %d; the client read %d", after-before, read)
		}
	})
}

// TestDirectRepliesLongPipeline sends pipelines long enough that the
// reactor stops reading while batches are in flight (and resumes when one
// is written, by whichever goroutine writes it): every reply arrives, in
// order, round after round.
func TestDirectRepliesLongPipeline(t *testing.T) {
	t.Parallel()
	eachDirectCase(t, func(t *testing.T, s *testserver.Server) {
		tag := shard0Tag(t, s)
		const clients, rounds, depth = 4, 5, 5000
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for w := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := dialRaw(t, s.Addr())
				key := fmt.Sprintf("%sn%d", tag, w)
				n := 0
				for r := range rounds {
					var in strings.Builder
					for range depth {
						in.WriteString(multibulk("INCR", key))
					}
					c.write(in.String())
					for i := range depth {
						n++
						got, err := c.tryRead(10 * time.Second)
						if want := ":" + strconv.Itoa(n) + "\r\n"; err != nil || got != want {
							errs <- fmt.Errorf("client %d round %d reply %d: %q (%v), want %q", w, r, i, got, err, want)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// TestDirectRepliesAmongPushes has a subscriber send PINGs while messages
// are published to it from other connections (and, with two shards, from
// the other shard): replies written straight into the socket and pushes
// written by the reactor never cut into each other, every message arrives
// once and in order, and every PING gets its reply.
func TestDirectRepliesAmongPushes(t *testing.T) {
	t.Parallel()
	eachDirectCase(t, func(t *testing.T, s *testserver.Server) {
		sub := dialRaw(t, s.Addr())
		if got := sub.do("SUBSCRIBE", "ch"); got != arr(bulk("subscribe"), bulk("ch"), ":1\r\n") {
			t.Fatalf("SUBSCRIBE: %q", got)
		}
		const messages, pings = 3000, 300
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			pub := dialRaw(t, s.Addr())
			for i := range messages {
				pub.write(multibulk("PUBLISH", "ch", strconv.Itoa(i)))
				if i%100 == 99 {
					for range 100 {
						if _, err := pub.tryRead(10 * time.Second); err != nil {
							t.Errorf("PUBLISH reply: %v", err)
							return
						}
					}
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := range pings {
				sub.write(multibulk("PING", "p"+strconv.Itoa(i)))
				if i%10 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		next, pongs := 0, 0
		for next < messages || pongs < pings {
			got, err := sub.tryRead(10 * time.Second)
			if err != nil {
				t.Fatalf("after %d messages and %d pongs: %v (%q)", next, pongs, err, got)
			}
			switch {
			case got == arr(bulk("message"), bulk("ch"), bulk(strconv.Itoa(next))):
				next++
			case got == arr(bulk("pong"), bulk("p"+strconv.Itoa(pongs))):
				pongs++
			default:
				t.Fatalf("after %d messages and %d pongs: %q", next, pongs, got)
			}
		}
		wg.Wait()
		// Nothing more came.
		if got, err := sub.tryRead(50 * time.Millisecond); err == nil {
			t.Fatalf("unexpected %q", got)
		}
	})
}
