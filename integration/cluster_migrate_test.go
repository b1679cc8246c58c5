package integration_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/cluster/control"
	"github.com/ruvio/ruvio/internal/testserver"
)

// Slot migration in a cluster across hosts: a range moves between groups
// while clients write to it, and afterwards exactly one group holds every
// key of it, with every acknowledged write.

// keysInSlots returns n key names whose slots are in r, each with prefix.
func keysInSlots(prefix string, r cluster.SlotRange, n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		k := prefix + strconv.Itoa(i)
		if s := cluster.KeySlot([]byte(k)); r.Start <= s && s <= r.End {
			out = append(out, k)
		}
	}
	return out
}

// setKeysToNames sets every key of keys to its own name through c, in
// pipelines of 500, each with a deadline of its own.
func setKeysToNames(t *testing.T, c *redis.ClusterClient, keys []string) {
	t.Helper()
	for i := 0; i < len(keys); i += 500 {
		p := c.Pipeline()
		for _, k := range keys[i:min(i+500, len(keys))] {
			p.Set(context.Background(), k, k, 0)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := p.Exec(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// groupServing returns the group of st whose slots hold all of r, or nil.
func groupServing(st *control.State, r cluster.SlotRange) *control.Group {
	for i := range st.Groups {
		for _, s := range st.Groups[i].Slots {
			if s.Start <= r.Start && r.End <= s.End {
				return &st.Groups[i]
			}
		}
	}
	return nil
}

// memberNamed returns the member of ms called name.
func memberNamed(t *testing.T, ms []*clusterMember, name string) *clusterMember {
	t.Helper()
	for _, m := range ms {
		if m.name == name {
			return m
		}
	}
	t.Fatalf("no member %s", name)
	return nil
}

// controlClient talks to the control plane through member m.
func controlClient(t *testing.T, m *clusterMember) *control.Client {
	c := control.NewClient(net.JoinHostPort(m.host, strconv.Itoa(m.control)), 3*time.Second)
	t.Cleanup(c.Close)
	return c
}

// awaitMigrationEnd polls the control plane until migration id has ended
// and reports whether its range belongs to group to.
func awaitMigrationEnd(t *testing.T, cc *control.Client, m control.Migration, within time.Duration, ms []*clusterMember) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := cc.Status()
		if err == nil && !slices.ContainsFunc(st.State.Migrations, func(x control.Migration) bool { return x.ID == m.ID }) {
			for _, r := range st.State.Groups[m.To].ShardSlots[m.ToShard] {
				if r.Start <= m.Slots.Start && m.Slots.End <= r.End {
					return true
				}
			}
			return false
		}
		if time.Now().After(deadline) {
			t.Fatalf("migration %d has not ended within %v (%v)\n%s", m.ID, within, err, clusterOutputs(ms))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// countKeysInRange sums CLUSTER COUNTKEYSINSLOT over r on a node.
func countKeysInRange(t *testing.T, addr string, r cluster.SlotRange) int64 {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	var n int64
	for s := int(r.Start); s <= int(r.End); s++ {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		v, err := c.ClusterCountKeysInSlot(ctx, s).Result()
		cancel()
		if err != nil {
			t.Fatalf("CLUSTER COUNTKEYSINSLOT %d on %s: %v", s, addr, err)
		}
		n += v
	}
	return n
}

// counterLoad increments counters from several clients until stop and
// keeps, per counter, how many increments were acknowledged and how many
// have an unknown outcome (timeouts).
type counterLoad struct {
	acked, unsure sync.Map // key → *atomic.Int64
	errs          atomic.Int64
	lastErr       atomic.Value
}

func (l *counterLoad) add(m *sync.Map, k string) {
	v, _ := m.LoadOrStore(k, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (l *counterLoad) get(m *sync.Map, k string) int64 {
	if v, ok := m.Load(k); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// doubtKey is the context key of the *atomic.Bool that loadClient's hook
// sets when an attempt of a request ended without a server reply.
type doubtKey struct{}

// doubtHook marks a request whose attempt ended in doubt: go-redis's
// cluster client resends a command after a lost connection, so an INCR
// may apply twice though the client sees one success.
type doubtHook struct{}

func (doubtHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (doubtHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if err != nil && !definite(err) {
			if b, ok := ctx.Value(doubtKey{}).(*atomic.Bool); ok {
				b.Store(true)
			}
		}
		return err
	}
}
func (doubtHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err != nil && !definite(err) {
			if b, ok := ctx.Value(doubtKey{}).(*atomic.Bool); ok {
				b.Store(true)
			}
		}
		return err
	}
}

// definite reports whether err says for certain what happened: a server's
// reply, or a dial that failed before anything was sent.
func definite(err error) bool {
	var re redis.Error
	var oe *net.OpError
	return err == nil || errors.Is(err, redis.Nil) || errors.As(err, &re) || (errors.As(err, &oe) && oe.Op == "dial")
}

// loadClient is a cluster client whose node clients mark doubtful attempts.
func loadClient(t *testing.T, ms []*clusterMember) *redis.ClusterClient {
	var addrs []string
	for _, m := range ms {
		addrs = append(addrs, m.addr())
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: addrs, MaxRedirects: 8, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
		DisableIdentity: true, ClusterStateReloadInterval: 500 * time.Millisecond,
	})
	c.OnNewNode(func(n *redis.Client) { n.AddHook(doubtHook{}) })
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (l *counterLoad) run(c *redis.ClusterClient, keys []string, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		k := keys[i%len(keys)]
		doubt := new(atomic.Bool)
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), doubtKey{}, doubt), 3*time.Second)
		err := c.Incr(ctx, k).Err()
		cancel()
		switch {
		case err == nil:
			l.add(&l.acked, k)
			if doubt.Load() {
				// An earlier attempt may have applied it too.
				l.add(&l.unsure, k)
			}
		case definite(err) && !doubt.Load():
			// Refused by the server, or never sent: not applied.
			l.errs.Add(1)
			l.lastErr.Store(err.Error())
		default:
			l.add(&l.unsure, k)
			l.lastErr.Store(err.Error())
		}
	}
}

func TestClusterMigrateSlotsUnderLoad(t *testing.T) {
	ms := startClusterAcrossHosts(t, 2, 0)
	cc := controlClient(t, ms[0])
	st, err := cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	// Group 0 owns 0-8191: move 0-999 to group 1 and back again.
	if g := st.State.Groups[0]; len(g.Slots) != 1 || g.Slots[0].Start != 0 {
		t.Fatalf("group 0 slots %v", g.Slots)
	}
	moving := cluster.SlotRange{Start: 0, End: 999}
	c := clusterClientOf(t, ms)

	// Data of every kind in the range, a key with a deadline, and keys
	// elsewhere.
	strs := keysInSlots("str:", moving, 2000)
	for _, k := range strs {
		if err := c.Set(ctxT(t), k, "v-"+k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	other := keysInSlots("other:", cluster.SlotRange{Start: 5000, End: 16000}, 200)
	for _, k := range other {
		if err := c.Set(ctxT(t), k, "o-"+k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	h, z, l, x, ttl := keysInSlots("hash:", moving, 1)[0], keysInSlots("zset:", moving, 1)[0], keysInSlots("list:", moving, 1)[0], keysInSlots("stream:", moving, 1)[0], keysInSlots("ttl:", moving, 1)[0]
	lease := keysInSlots("lease:", moving, 1)[0]
	for i := range 300 {
		c.HSet(ctxT(t), h, "f"+strconv.Itoa(i), i)
		c.ZAdd(ctxT(t), z, redis.Z{Score: float64(i), Member: "m" + strconv.Itoa(i)})
		c.RPush(ctxT(t), l, i)
		c.XAdd(ctxT(t), &redis.XAddArgs{Stream: x, Values: []any{"i", i}})
	}
	if err := c.Set(ctxT(t), ttl, "t", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	token, err := c.Do(ctxT(t), "LEASE", lease, 600000).Int64()
	if err != nil {
		t.Fatalf("LEASE: %v", err)
	}
	// The copy comes from a snapshot plus the records after it.
	for _, m := range ms {
		mc := redis.NewClient(&redis.Options{Addr: m.addr(), DisableIdentity: true})
		if err := mc.Save(ctxT(t)).Err(); err != nil {
			t.Fatal(err)
		}
		_ = mc.Close()
	}

	// Writers: counters in the moving range and elsewhere, and
	// transactions on hash-tagged pairs in the range.
	counters := append(keysInSlots("cnt:", moving, 20), keysInSlots("cntx:", cluster.SlotRange{Start: 9000, End: 16000}, 5)...)
	load := &counterLoad{}
	lc := loadClient(t, ms)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go load.run(lc, counters, stop, &wg)
	}
	tag := keysInSlots("tx", moving, 1)[0]
	pairA, pairB := "{"+tag+"}a", "{"+tag+"}b"
	var txAcked, txUnsure atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			doubt := new(atomic.Bool)
			ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), doubtKey{}, doubt), 3*time.Second) // lint:allow-shared-deadline (one transaction)
			_, err := lc.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, pairA)
				p.Incr(ctx, pairB)
				return nil
			})
			cancel()
			switch {
			case err == nil:
				txAcked.Add(1)
				if doubt.Load() {
					txUnsure.Add(1)
				}
			case !definite(err) || doubt.Load():
				txUnsure.Add(1)
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)

	// There and back: group 0 → group 1 (the snapshot path), then back
	// (the log-only path, no snapshot since).
	for round, to := range []int{1, 0} {
		mg, err := cc.Migrate(control.MigrateArgs{Slots: moving, To: to, FromShard: -1, ToShard: -1})
		if err != nil {
			t.Fatalf("round %d: migrate: %v", round, err)
		}
		if !awaitMigrationEnd(t, cc, mg, 60*time.Second, ms) {
			t.Fatalf("round %d: migration %d aborted\n%s", round, mg.ID, clusterOutputs(ms))
		}
		time.Sleep(500 * time.Millisecond)
	}
	// And once more to group 1, to end away from where the data began,
	// with a client blocked on a key of the range on the sender: it is
	// answered with the slot's redirection.
	blockKey := keysInSlots("blk:", moving, 1)[0]
	bc := redis.NewClient(&redis.Options{Addr: ms[0].addr(), MaxRetries: -1, DisableIdentity: true, ReadTimeout: -1})
	defer bc.Close()
	blocked := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		blocked <- bc.BLPop(ctx, 0, blockKey).Err()
	}()
	time.Sleep(200 * time.Millisecond)
	mg, err := cc.Migrate(control.MigrateArgs{Slots: moving, To: 1, FromShard: -1, ToShard: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !awaitMigrationEnd(t, cc, mg, 60*time.Second, ms) {
		t.Fatalf("migration %d aborted\n%s", mg.ID, clusterOutputs(ms))
	}
	select {
	case err := <-blocked:
		if err == nil || !strings.HasPrefix(err.Error(), "MOVED ") || !strings.HasSuffix(err.Error(), ms[1].addr()) {
			t.Fatalf("BLPOP blocked on the sender across the move: %v, want MOVED to %s", err, ms[1].addr())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("BLPOP blocked on the sender is still waiting after the move")
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()

	// The range is group 1's: CLUSTER SLOTS says so, and the client finds
	// everything there.
	owner := primaryOf(t, ms, ms[0], strs[0])
	if owner != ms[1] {
		t.Fatalf("slot of %s served by %s, want m1", strs[0], owner.name)
	}
	for _, k := range strs {
		if v, err := c.Get(ctxT(t), k).Result(); err != nil || v != "v-"+k {
			t.Fatalf("GET %s = %q, %v", k, v, err)
		}
	}
	for _, k := range other {
		if v, err := c.Get(ctxT(t), k).Result(); err != nil || v != "o-"+k {
			t.Fatalf("GET %s = %q, %v", k, v, err)
		}
	}
	if n, _ := c.HLen(ctxT(t), h).Result(); n != 300 {
		t.Fatalf("HLEN = %d", n)
	}
	if n, _ := c.ZCard(ctxT(t), z).Result(); n != 300 {
		t.Fatalf("ZCARD = %d", n)
	}
	if n, _ := c.LLen(ctxT(t), l).Result(); n != 300 {
		t.Fatalf("LLEN = %d", n)
	}
	if n, _ := c.XLen(ctxT(t), x).Result(); n != 300 {
		t.Fatalf("XLEN = %d", n)
	}
	if d, _ := c.TTL(ctxT(t), ttl).Result(); d <= 0 || d > time.Hour {
		t.Fatalf("TTL after the moves = %v", d)
	}
	// The lease moved with its token: releasing with it works.
	if n, err := c.Do(ctxT(t), "RELEASE", lease, token).Int64(); err != nil || n != 1 {
		t.Fatalf("RELEASE with the token = %d, %v", n, err)
	}
	for _, k := range counters {
		got, err := c.Get(ctxT(t), k).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		acked, unsure := load.get(&load.acked, k), load.get(&load.unsure, k)
		if got < acked || got > acked+unsure {
			t.Fatalf("counter %s = %d, acknowledged %d (+%d unsure): an acknowledged write was lost or doubled\n%s", k, got, acked, unsure, clusterOutputs(ms))
		}
	}
	a, _ := c.Get(ctxT(t), pairA).Int64()
	b, _ := c.Get(ctxT(t), pairB).Int64()
	if a != b || a < txAcked.Load() || a > txAcked.Load()+txUnsure.Load() {
		t.Fatalf("transaction pair %d/%d, acknowledged %d (+%d unsure)", a, b, txAcked.Load(), txUnsure.Load())
	}
	total := int64(0)
	for _, k := range counters {
		total += load.get(&load.acked, k)
	}
	if total == 0 || txAcked.Load() == 0 {
		t.Fatalf("no writes acknowledged during the moves (last error %v)", load.lastErr.Load())
	}
	// The former owner deleted the range's keys.
	deadline := time.Now().Add(20 * time.Second)
	for countKeysInRange(t, ms[0].addr(), moving) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("m0 still holds keys of the moved range\n%s", clusterOutputs(ms))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := countKeysInRange(t, ms[1].addr(), moving); n < int64(len(strs)) {
		t.Fatalf("m1 holds %d keys of the range", n)
	}
	unsure := int64(0)
	for _, k := range counters {
		unsure += load.get(&load.unsure, k)
	}
	t.Logf("acknowledged increments %d (unsure %d, refused %d), transactions %d", total, unsure, load.errs.Load(), txAcked.Load())
	for _, line := range strings.Split(ms[0].proc.Output()+ms[1].proc.Output(), "\n") {
		if strings.Contains(line, "migration committed") {
			t.Log(line)
		}
	}
}

// TestClusterMigrateAbortLeavesOneOwner aborts a migration at once (or
// finds it committed, when the commit wins the race) between two shards
// of members with two shards each: afterwards exactly one group holds the
// range's keys, and the other none.
func TestClusterMigrateAbortLeavesOneOwner(t *testing.T) {
	ms := startClusterAcrossHosts(t, 2, 0, "--shards", "2")
	cc := controlClient(t, ms[0])
	c := clusterClientOf(t, ms)
	moving := cluster.SlotRange{Start: 100, End: 199}
	keys := keysInSlots("ab:", moving, 3000)
	for _, k := range keys {
		if err := c.Set(ctxT(t), k, k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	src := primaryOf(t, ms, ms[0], keys[0])
	dst := ms[1]
	if src == ms[1] {
		dst = ms[0]
	}
	st, err := cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	to := st.State.GroupOf(dst.name).ID
	mg, err := cc.Migrate(control.MigrateArgs{Slots: moving, To: to, FromShard: -1, ToShard: 1})
	if err != nil {
		t.Fatal(err)
	}
	abortErr := cc.AbortMigration(mg.ID)
	committed := awaitMigrationEnd(t, cc, mg, 30*time.Second, ms)
	if committed && abortErr == nil {
		t.Fatalf("migration %d both aborted and committed", mg.ID)
	}
	owner, other := src, dst
	if committed {
		owner, other = dst, src
	}
	if got := primaryOf(t, ms, ms[0], keys[0]); got != owner {
		t.Fatalf("committed=%v: slot served by %s, want %s", committed, got.name, owner.name)
	}
	for _, k := range keys {
		if v, err := c.Get(ctxT(t), k).Result(); err != nil || v != k {
			t.Fatalf("GET %s = %q, %v", k, v, err)
		}
	}
	// The other side holds none of the range (on any of its shards).
	deadline := time.Now().Add(20 * time.Second)
	for {
		n := int64(0)
		for i := range 2 {
			n += countKeysInRange(t, net.JoinHostPort(other.host, strconv.Itoa(other.port+i)), moving)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("committed=%v: %s still holds %d keys of the range\n%s", committed, other.name, n, clusterOutputs(ms))
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("migration %d committed=%v abort error=%v", mg.ID, committed, abortErr)
}

// TestClusterAddHostRebalanceDrain grows a cluster by a host and shrinks
// it again through `ruvio cluster`: a member joins (as a replica), becomes
// the primary of a new group, rebalance moves a share of the slots onto
// it, drain moves them all away again, and the member is removed; every
// key stays readable throughout.
func TestClusterAddHostRebalanceDrain(t *testing.T) {
	ms := startClusterAcrossHosts(t, 3, 0)
	c := clusterClientOf(t, ms)
	keys := keysInSlots("grow:", cluster.SlotRange{Start: 0, End: cluster.SlotCount - 1}, 3000)
	for _, k := range keys {
		if err := c.Set(ctxT(t), k, k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// The fourth member joins through the first one's control port.
	port, err := testserver.FreePorts(4)
	if err != nil {
		t.Fatal(err)
	}
	m3 := &clusterMember{name: "m3", host: ms[0].host[:strings.LastIndex(ms[0].host, ".")] + ".4", port: port, control: port + 3, dir: t.TempDir()}
	m3.proc = startMember(t, m3, 0, []string{"--cluster-name", "m3", "--cluster-join", net.JoinHostPort(ms[0].host, strconv.Itoa(ms[0].control))})
	all := append(append([]*clusterMember{}, ms...), m3)
	cc := controlClient(t, ms[0])
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := cc.Status()
		if err == nil && st.State.GroupOf("m3") != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("m3 did not join a group: %v\n%s", err, clusterOutputs(all))
		}
		time.Sleep(200 * time.Millisecond)
	}
	tool := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(testserver.Binary(t), append([]string{"cluster"}, append(args, "--control", net.JoinHostPort(ms[0].host, strconv.Itoa(ms[0].control)))...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ruvio cluster %v: %v\n%s\n%s", args, err, out, clusterOutputs(all))
		}
		return string(out)
	}
	tool("add-group", "--member", "m3")
	out := tool("rebalance")
	st, err := cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	g := st.State.GroupOf("m3")
	if g.Primary != "m3" || slotsIn(g.Slots) != cluster.SlotCount/4 {
		t.Fatalf("after rebalance m3's group %+v owns %d slots, want %d\n%s", g, slotsIn(g.Slots), cluster.SlotCount/4, out)
	}
	for _, other := range st.State.Groups {
		if n := slotsIn(other.Slots); n != cluster.SlotCount/4 {
			t.Fatalf("group %d owns %d slots after rebalance\n%s", other.ID, n, out)
		}
	}
	readAll := func(stage string) {
		t.Helper()
		for _, k := range keys {
			if v, err := c.Get(ctxT(t), k).Result(); err != nil || v != k {
				t.Fatalf("%s: GET %s = %q, %v\n%s", stage, k, v, err, clusterOutputs(all))
			}
		}
	}
	readAll("after rebalance")
	waitClusterOK(t, all, 20*time.Second)
	if n := countKeysInRange(t, m3.addr(), g.Slots[0]); n == 0 {
		t.Fatalf("m3 holds no key of its slots %v", g.Slots[0])
	}
	tool("drain", "--group", strconv.Itoa(g.ID))
	st, err = cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	if n := slotsIn(st.State.Groups[g.ID].Slots); n != 0 {
		t.Fatalf("group %d owns %d slots after drain", g.ID, n)
	}
	readAll("after drain")
	tool("remove", "--member", "m3")
	st, err = cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.State.Member("m3"); ok || st.State.Groups[g.ID].Primary != "" {
		t.Fatalf("m3 still in the state: %+v", st.State.Groups[g.ID])
	}
	readAll("after remove")
}

func slotsIn(rs []cluster.SlotRange) int {
	n := 0
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

// TestClusterMigrateSurvivesAKilledSide kills the receiving primary, then
// (in a second round) the sending one, at a random point of a migration
// of a range holding many keys, while a client writes counters in it: the
// migration ends (aborted, or committed when it got there first), and once
// the member is back exactly one group holds the range, with every key and
// every acknowledged increment, and the other none of it.
func TestClusterMigrateSurvivesAKilledSide(t *testing.T) {
	ms := startClusterAcrossHosts(t, 3, 0)
	cc := controlClient(t, ms[0])
	c := clusterClientOf(t, ms)
	moving := cluster.SlotRange{Start: 0, End: 199}
	keys := keysInSlots("kill:", moving, 40000)
	setKeysToNames(t, c, keys)
	for round, victimSide := range []string{"receiver", "sender"} {
		counters := keysInSlots(fmt.Sprintf("killcnt%d:", round), moving, 8)
		st, err := cc.Status()
		if err != nil {
			t.Fatal(err)
		}
		from := groupServing(&st.State, moving)
		if from == nil {
			t.Fatalf("round %d: the range is not within one group: %+v", round, st.State.Groups)
		}
		to := (from.ID + 1) % len(st.State.Groups)
		load := &counterLoad{}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go load.run(loadClient(t, ms), counters, stop, &wg)
		mg, err := cc.Migrate(control.MigrateArgs{Slots: moving, To: to, FromShard: -1, ToShard: -1})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		name := st.State.Groups[to].Primary
		if victimSide == "sender" {
			name = from.Primary
		}
		victim := memberNamed(t, ms, name)
		if victim == ms[0] {
			// Keep the member the control client talks through.
			cc = controlClient(t, ms[1])
		}
		time.Sleep(time.Duration(20+time.Now().UnixNano()%300) * time.Millisecond)
		victim.proc.Kill(t)
		committed := awaitMigrationEnd(t, cc, mg, 30*time.Second, ms)
		victim.proc = victim.proc.Restart(t)
		waitClusterOK(t, ms, 40*time.Second)
		waitPrimariesLeased(t, ms)
		close(stop)
		wg.Wait()
		owner := ms[0]
		for _, m := range ms {
			if st, err := cc.Status(); err == nil {
				g := st.State.GroupOf(m.name)
				for _, r := range g.Slots {
					if r.Start <= moving.Start && moving.End <= r.End {
						owner = m
					}
				}
			}
		}
		for _, k := range keys {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			v, err := c.Get(ctx, k).Result()
			cancel()
			if err != nil || v != k {
				t.Fatalf("round %d (%s killed, committed %v): GET %s = %q, %v\n%s", round, victimSide, committed, k, v, err, clusterOutputs(ms))
			}
		}
		for _, k := range counters {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			got, err := c.Get(ctx, k).Int64()
			cancel()
			if err != nil && !errors.Is(err, redis.Nil) {
				t.Fatal(err)
			}
			acked, unsure := load.get(&load.acked, k), load.get(&load.unsure, k)
			if got < acked || got > acked+unsure {
				t.Fatalf("round %d (%s killed): counter %s = %d, acknowledged %d (+%d unsure)", round, victimSide, k, got, acked, unsure)
			}
		}
		deadline := time.Now().Add(20 * time.Second)
		for _, m := range ms {
			if m == owner {
				continue
			}
			for countKeysInRange(t, m.addr(), moving) != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: %s (not the owner %s) still holds keys of the range\n%s", round, m.name, owner.name, clusterOutputs(ms))
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		t.Logf("round %d: %s killed, migration %d committed=%v, owner %s", round, victimSide, mg.ID, committed, owner.name)
	}
}

// TestClusterMigrateBetweenShardsOfOneGroup moves a range between two
// shards of the same members (the receiver reads its own sending shard):
// the replica's shards follow, and the keys stay readable.
func TestClusterMigrateBetweenShardsOfOneGroup(t *testing.T) {
	ms := startClusterAcrossHosts(t, 2, 1, "--shards", "2")
	cc := controlClient(t, ms[0])
	c := clusterClientOf(t, ms)
	moving := cluster.SlotRange{Start: 10, End: 60}
	keys := keysInSlots("same:", moving, 2000)
	for _, k := range keys {
		if err := c.Set(ctxT(t), k, k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	mg, err := cc.Migrate(control.MigrateArgs{Slots: moving, To: 0, FromShard: 0, ToShard: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !awaitMigrationEnd(t, cc, mg, 30*time.Second, ms) {
		t.Fatalf("migration %d aborted\n%s", mg.ID, clusterOutputs(ms))
	}
	st, err := cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	primary, _ := st.State.Member(st.State.Groups[0].Primary)
	shard1 := net.JoinHostPort(primary.Host, strconv.Itoa(primary.Port+1))
	for _, k := range keys {
		if v, err := c.Get(ctxT(t), k).Result(); err != nil || v != k {
			t.Fatalf("GET %s = %q, %v", k, v, err)
		}
	}
	if n := countKeysInRange(t, shard1, moving); n != int64(len(keys)) {
		t.Fatalf("shard 1 of the primary holds %d keys of the range, want %d", n, len(keys))
	}
	deadline := time.Now().Add(20 * time.Second)
	shard0 := net.JoinHostPort(primary.Host, strconv.Itoa(primary.Port))
	for countKeysInRange(t, shard0, moving) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("shard 0 still holds keys of the range\n%s", clusterOutputs(ms))
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The replica's shard 1 has them too (it follows shard 1's log).
	replica, _ := st.State.Member(st.State.Groups[0].Replicas[0])
	raddr := net.JoinHostPort(replica.Host, strconv.Itoa(replica.Port+1))
	for countKeysInRange(t, raddr, moving) != int64(len(keys)) {
		if time.Now().After(deadline) {
			t.Fatalf("the replica's shard 1 does not hold the range's keys\n%s", clusterOutputs(ms))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
