package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
	"github.com/ruvio/ruvio/internal/testserver"
)

// seed is the address of shard 0 of a four-shard server that runs for the
// whole package (examples have no *testing.T to start one).
var seed string

func TestMain(m *testing.M) {
	a, addr, err := startServer(4)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start server:", err)
		os.Exit(1)
	}
	seed = addr
	code := m.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = a.Stop(ctx)
	cancel()
	os.Exit(code)
}

func startServer(shards int) (*app.App, string, error) {
	dir, err := os.MkdirTemp("", "ruvio-client-test")
	if err != nil {
		return nil, "", err
	}
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		port, err := testserver.FreePorts(shards)
		if err != nil {
			lastErr = err
			continue
		}
		cfg := config.Default()
		cfg.Server.Shards = shards
		cfg.Server.Port = port
		cfg.Persistence.Dir = dir
		cfg.Persistence.WAL = false
		cfg.Persistence.SnapshotOnShutdown = false
		a, err := app.Start(cfg, app.Options{Logger: zap.NewNop()})
		if err != nil {
			lastErr = err
			continue
		}
		return a, "127.0.0.1:" + strconv.Itoa(port), nil
	}
	return nil, "", lastErr
}

// newClient returns a cluster-routed client on the shared server.
func newClient(t testing.TB) *client.Client {
	c := client.New(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{seed}, MaxRetries: -1, DisableIdentity: true}))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestClientHelpers(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	p := "t" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"

	tok, ok, err := c.Lease(ctx, p+"lease", time.Minute)
	if err != nil || !ok || tok != 1 {
		t.Fatalf("Lease: %d %v %v", tok, ok, err)
	}
	if _, ok, err := c.Lease(ctx, p+"lease", time.Minute); err != nil || ok {
		t.Fatalf("Lease while held: %v %v", ok, err)
	}
	if ok, err := c.Release(ctx, p+"lease", 2); err != nil || ok {
		t.Fatalf("Release wrong token: %v %v", ok, err)
	}
	if ok, err := c.Release(ctx, p+"lease", 1); err != nil || !ok {
		t.Fatalf("Release: %v %v", ok, err)
	}

	s1, ok, err := c.Semaphore(ctx, p+"sem", 1, time.Minute)
	if err != nil || !ok {
		t.Fatalf("Semaphore: %v %v", ok, err)
	}
	if _, ok, _ := c.Semaphore(ctx, p+"sem", 1, time.Minute); ok {
		t.Fatal("Semaphore over max")
	}
	if ok, _ := c.Release(ctx, p+"sem", s1); !ok {
		t.Fatal("Release semaphore")
	}

	if v, err := c.SetV(ctx, p+"v", []byte("a"), 0); err != nil || v != 1 {
		t.Fatalf("SetV create: %d %v", v, err)
	}
	if v, err := c.SetV(ctx, p+"v", []byte("b"), 1); err != nil || v != 2 {
		t.Fatalf("SetV update: %d %v", v, err)
	}
	var rerr redis.Error
	if _, err := c.SetV(ctx, p+"v", []byte("c"), 1); !errors.As(err, &rerr) || err.Error() != "ERR SETV version mismatch" {
		t.Fatalf("SetV mismatch: %v", err)
	}

	for want := int64(1); want >= 0; want-- {
		if n, ok, err := c.Limit(ctx, p+"lim", 2, time.Minute); err != nil || !ok || n != want {
			t.Fatalf("Limit: %d %v %v", n, ok, err)
		}
	}
	if _, ok, _ := c.Limit(ctx, p+"lim", 2, time.Minute); ok {
		t.Fatal("Limit over max")
	}

	if first, _ := c.Once(ctx, p+"once", time.Minute); !first {
		t.Fatal("Once first")
	}
	if again, _ := c.Once(ctx, p+"once", time.Minute); again {
		t.Fatal("Once again")
	}

	if n, ok, err := c.IncrByMax(ctx, p+"n", 5, 6); err != nil || !ok || n != 5 {
		t.Fatalf("IncrByMax: %d %v %v", n, ok, err)
	}
	if _, ok, _ := c.IncrByMax(ctx, p+"n", 5, 6); ok {
		t.Fatal("IncrByMax over limit")
	}
	if n, ok, err := c.Take(ctx, p+"n", 2); err != nil || !ok || n != 3 {
		t.Fatalf("Take: %d %v %v", n, ok, err)
	}
	if _, ok, _ := c.Take(ctx, p+"n", 4); ok {
		t.Fatal("Take shortfall")
	}
	if v, ok, err := c.GetEx(ctx, p+"n", time.Minute); err != nil || !ok || string(v) != "3" {
		t.Fatalf("GetEx: %q %v %v", v, ok, err)
	}
	if _, ok, err := c.GetEx(ctx, p+"none", time.Minute); err != nil || ok {
		t.Fatalf("GetEx missing: %v %v", ok, err)
	}

	fp, owner := []byte("fp\x00binary"), []byte{0, 1, 2, 255}
	if st, _, err := c.IdemBegin(ctx, p+"idem", fp, owner, time.Minute); err != nil || st != client.IdemAcquired {
		t.Fatalf("IdemBegin: %v %v", st, err)
	}
	if st, _, _ := c.IdemBegin(ctx, p+"idem", fp, []byte("x"), time.Minute); st != client.IdemPending {
		t.Fatalf("IdemBegin pending: %v", st)
	}
	if st, _, _ := c.IdemBegin(ctx, p+"idem", []byte("other"), owner, time.Minute); st != client.IdemConflict {
		t.Fatalf("IdemBegin conflict: %v", st)
	}
	if ok, err := c.IdemComplete(ctx, p+"idem", fp, owner, []byte("res\x00ult")); err != nil || !ok {
		t.Fatalf("IdemComplete: %v %v", ok, err)
	}
	if st, res, _ := c.IdemBegin(ctx, p+"idem", fp, []byte("x"), time.Minute); st != client.IdemCompleted || string(res) != "res\x00ult" {
		t.Fatalf("IdemBegin completed: %v %q", st, res)
	}
	if ok, _ := c.IdemComplete(ctx, p+"idem", fp, owner, []byte("other")); ok {
		t.Fatal("IdemComplete replaced a result")
	}
}

func TestClientThrottle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newClient(t)
	key := "thr" + strconv.FormatInt(time.Now().UnixNano(), 36)
	r, err := c.Throttle(ctx, key, 15, 30, 60, 1)
	want := client.ThrottleResult{Limit: 16, Remaining: 15, RetryAfter: -time.Second, ResetAfter: 2 * time.Second}
	if err != nil || r != want {
		t.Fatalf("Throttle: %+v %v, want %+v", r, err, want)
	}
	r, err = c.Throttle(ctx, key, 15, 30, 60, 100)
	want = client.ThrottleResult{Limited: true, Limit: 16, Remaining: 15, RetryAfter: -time.Second, ResetAfter: 2 * time.Second}
	if err != nil || r.Limited != want.Limited || r.Remaining != 15 || r.RetryAfter != want.RetryAfter {
		t.Fatalf("Throttle over the burst: %+v %v, want %+v", r, err, want)
	}
	if _, err := c.Throttle(ctx, key, 1, 0, 60, 1); err == nil || err.Error() != "Cell error: Zero rates are not supported" {
		t.Fatalf("zero rate: %v", err)
	}
}

func TestClientChanges(t *testing.T) {
	ctx := context.Background()
	a, addr, err := startServer(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	node := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
	t.Cleanup(func() { _ = node.Close() })
	c := client.New(node)
	cur, err := client.ChangesStart(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	node.Set(ctx, "k", "v", 0)
	if _, err := c.SetV(ctx, "sv", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	got, err := client.Changes(ctx, node, cur)
	if err != nil {
		t.Fatal(err)
	}
	want := []client.Change{{Cursor: cur + 1, Command: "SET", Key: "k"}, {Cursor: cur + 2, Command: "SETV", Key: "sv", Detail: 1, HasDetail: true}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Changes: %+v, want %+v", got, want)
	}
}

func ExampleClient_Lease() {
	ctx := context.Background()
	c := client.NewCluster(seed)
	defer c.Close()

	token, ok, err := c.Lease(ctx, "example:lease", 30*time.Second)
	fmt.Println(token, ok, err)
	_, ok, _ = c.Lease(ctx, "example:lease", 30*time.Second)
	fmt.Println("second attempt:", ok)
	released, _ := c.Release(ctx, "example:lease", token)
	fmt.Println("released:", released)
	// Output:
	// 1 true <nil>
	// second attempt: false
	// released: true
}

func ExampleClient_Limit() {
	ctx := context.Background()
	c := client.NewCluster(seed)
	defer c.Close()

	for i := 0; i < 4; i++ {
		remaining, ok, _ := c.Limit(ctx, "example:limit", 3, time.Minute)
		fmt.Println(remaining, ok)
	}
	// Output:
	// 2 true
	// 1 true
	// 0 true
	// 0 false
}

func ExampleClient_SetV() {
	ctx := context.Background()
	c := client.NewCluster(seed)
	defer c.Close()

	v, _ := c.SetV(ctx, "example:config", []byte("a=1"), 0)
	fmt.Println("created version", v)
	v, _ = c.SetV(ctx, "example:config", []byte("a=2"), v)
	fmt.Println("updated to version", v)
	_, err := c.SetV(ctx, "example:config", []byte("a=3"), 1)
	fmt.Println(err)
	// Output:
	// created version 1
	// updated to version 2
	// ERR SETV version mismatch
}

func ExampleClient_IdemBegin() {
	ctx := context.Background()
	c := client.NewCluster(seed)
	defer c.Close()

	fp, owner := []byte("sha256-of-the-request"), []byte("random-attempt-token")
	state, _, _ := c.IdemBegin(ctx, "tenant-1:order:42", fp, owner, time.Hour)
	fmt.Println(state)
	if state == client.IdemAcquired {
		// ... perform the operation once, then publish its result.
		ok, _ := c.IdemComplete(ctx, "tenant-1:order:42", fp, owner, []byte("order accepted"))
		fmt.Println("completed:", ok)
	}
	state, result, _ := c.IdemBegin(ctx, "tenant-1:order:42", fp, []byte("retry-token"), time.Hour)
	fmt.Println(state, string(result))
	// Output:
	// acquired
	// completed: true
	// completed order accepted
}

func ExampleClient_Once() {
	ctx := context.Background()
	c := client.NewCluster(seed)
	defer c.Close()

	first, _ := c.Once(ctx, "example:welcome-mail:user-7", 24*time.Hour)
	again, _ := c.Once(ctx, "example:welcome-mail:user-7", 24*time.Hour)
	fmt.Println(first, again)
	// Output: true false
}
