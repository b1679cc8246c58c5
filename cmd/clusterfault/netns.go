package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// network is the run's private network: a hub namespace holding a bridge
// (and the address the harness's own clients dial from), and one
// namespace per host with a veth to the bridge. Nothing is created in the
// root namespace, so runs cannot clash on addresses; only the namespace
// names carry the run's tag.
type network struct {
	tag    string
	subnet string // "10.77.N", the first three octets of the /24
	hub    string // namespace name of the hub
	hosts  []host
	logf   func(format string, args ...any)
}

// host is one simulated machine: a namespace and its address.
type host struct {
	ns string
	ip string
}

// hubIP is the hub's address on the bridge; clients in the hub dial from it.
func (n *network) hubIP() string { return n.subnet + ".100" }

// ipCmd runs `ip args...` and wraps its output into the error.
func ipCmd(ctx context.Context, args ...string) error {
	return runTool(ctx, "ip", args...)
}

func runTool(ctx context.Context, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// newNetwork creates the hub and nhosts host namespaces. On error it
// removes what it made.
func newNetwork(ctx context.Context, tag string, nhosts int, logf func(string, ...any)) (_ *network, err error) {
	// The /24 only has to be readable; the namespaces are not connected to
	// anything else. Derive it from the tag so logs of parallel runs differ.
	sum := 0
	for _, c := range tag {
		sum = sum*31 + int(c)
	}
	n := &network{tag: tag, subnet: fmt.Sprintf("10.77.%d", 1+(sum&0x7fffffff)%250), hub: tag + "-hub", logf: logf}
	defer func() {
		if err != nil {
			n.close()
		}
	}()
	if err := ipCmd(ctx, "netns", "add", n.hub); err != nil {
		return nil, err
	}
	steps := [][]string{
		{"-n", n.hub, "link", "set", "lo", "up"},
		{"-n", n.hub, "link", "add", "br0", "type", "bridge"},
		{"-n", n.hub, "addr", "add", n.hubIP() + "/24", "dev", "br0"},
		{"-n", n.hub, "link", "set", "br0", "up"},
	}
	for _, s := range steps {
		if err := ipCmd(ctx, s...); err != nil {
			return nil, err
		}
	}
	for i := range nhosts {
		h := host{ns: fmt.Sprintf("%s-h%d", tag, i+1), ip: fmt.Sprintf("%s.%d", n.subnet, i+1)}
		if err := ipCmd(ctx, "netns", "add", h.ns); err != nil {
			return nil, err
		}
		n.hosts = append(n.hosts, h)
		peer := fmt.Sprintf("veth%d", i+1)
		steps := [][]string{
			{"-n", h.ns, "link", "set", "lo", "up"},
			// Both ends are made inside the namespaces, never in the root one.
			{"-n", h.ns, "link", "add", "eth0", "type", "veth", "peer", "name", peer, "netns", n.hub},
			{"-n", h.ns, "addr", "add", h.ip + "/24", "dev", "eth0"},
			{"-n", h.ns, "link", "set", "eth0", "up"},
			{"-n", n.hub, "link", "set", peer, "master", "br0"},
			{"-n", n.hub, "link", "set", peer, "up"},
		}
		for _, s := range steps {
			if err := ipCmd(ctx, s...); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// close deletes every namespace of the network (their veths go with
// them). It is safe to call more than once.
func (n *network) close() {
	for _, ns := range append([]string{n.hub}, n.nsNames()...) {
		if _, err := os.Stat("/var/run/netns/" + ns); err != nil {
			continue
		}
		// A fresh context: cleanup must run after the run's was cancelled.
		if err := ipCmd(context.Background(), "netns", "del", ns); err != nil {
			n.logf("cleanup: %v", err)
		}
	}
}

func (n *network) nsNames() []string {
	var names []string
	for _, h := range n.hosts {
		names = append(names, h.ns)
	}
	return names
}

// partitionTable is the nft table a partition adds to a host's namespace.
const partitionTable = "clusterfault"

// isolate cuts host i off from every other host and the hub: all traffic
// not on its loopback is dropped, both ways. Its own processes still reach
// each other, and clients dialing from inside its namespace still reach
// them (local traffic goes over lo).
func (n *network) isolate(ctx context.Context, i int) error {
	rules := fmt.Sprintf(`table inet %[1]s {
	chain in { type filter hook input priority -10; policy accept; iifname != "lo" drop; }
	chain out { type filter hook output priority -10; policy accept; oifname != "lo" drop; }
}
`, partitionTable)
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", n.hosts[i].ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("isolate %s: %w: %s", n.hosts[i].ns, err, bytes.TrimSpace(out))
	}
	return nil
}

// heal removes host i's partition, if any.
func (n *network) heal(ctx context.Context, i int) error {
	err := runTool(ctx, "ip", "netns", "exec", n.hosts[i].ns, "nft", "delete", "table", "inet", partitionTable)
	if err != nil && strings.Contains(err.Error(), "No such file") {
		return nil
	}
	return err
}

// nsDialer returns a dial function whose sockets live in namespace ns ("":
// the harness's own). The socket is made on an OS thread switched into ns
// and switched back before the thread is reused; a socket keeps its
// namespace for life, so only the dial needs the switch.
func nsDialer(ns string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 2 * time.Second}
	if ns == "" {
		return d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			c   net.Conn
			err error
		}
		ch := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			c, restored, err := dialIn(ctx, d, ns, network, addr)
			if restored {
				runtime.UnlockOSThread()
			} // else the thread stays locked and exits with this goroutine
			ch <- result{c, err}
		}()
		r := <-ch
		return r.c, r.err
	}
}

// dialIn dials from namespace ns on the calling (locked) thread and
// reports whether the thread is back in its own namespace.
func dialIn(ctx context.Context, d *net.Dialer, ns, network, addr string) (net.Conn, bool, error) {
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return nil, true, fmt.Errorf("dial from %s: %w", ns, err)
	}
	defer self.Close()
	target, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		return nil, true, fmt.Errorf("dial from %s: %w", ns, err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("dial from %s: setns: %w", ns, err)
	}
	c, dialErr := d.DialContext(ctx, network, addr)
	restored := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET) == nil
	return c, restored, dialErr
}
