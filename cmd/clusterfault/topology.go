package main

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/cluster"
)

// group is one replication group as the cluster describes it: the slot
// ranges it owns and which member is its primary now.
type group struct {
	id      string // its members' names, "n1+n3+n5": stable across failovers and migrations
	slots   [][2]int
	primary string // "ip:port"
	members []string
}

// discoverGroups asks the members, one after the other, for CLUSTER
// SHARDS and returns the first answer's groups. In standalone mode there
// is one group, all slots, served by the first process. This is where the
// harness learns which process is which group's primary; adjust it if
// cluster mode describes itself differently.
func discoverGroups(ctx context.Context, e *env) ([]group, error) {
	if e.plain {
		return []group{{id: "all", slots: [][2]int{{0, cluster.SlotCount - 1}}, primary: e.procs[0].addr(),
			members: []string{e.procs[0].addr()}}}, nil
	}
	var lastErr error
	for _, p := range e.procs {
		groups, err := shardsOf(ctx, e.net.hub, p.addr())
		if err == nil {
			// Named by their members, which neither failovers nor slot
			// migrations change.
			for i := range groups {
				var names []string
				for _, a := range groups[i].members {
					if pr := e.procAt(a); pr != nil {
						names = append(names, pr.name)
					} else {
						names = append(names, a)
					}
				}
				sort.Strings(names)
				groups[i].id = strings.Join(names, "+")
			}
			return groups, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("no member described the cluster: %w", lastErr)
}

// shardsOf runs CLUSTER SHARDS on one member, dialing from ns.
func shardsOf(ctx context.Context, ns, addr string) ([]group, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, Dialer: nsDialer(ns), MaxRetries: -1, Protocol: 2,
		DialTimeout: time.Second, ReadTimeout: time.Second, ContextTimeoutEnabled: true})
	defer c.Close()
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	shards, err := c.ClusterShards(rctx).Result()
	if err != nil {
		return nil, fmt.Errorf("CLUSTER SHARDS on %s: %w", addr, err)
	}
	var groups []group
	for _, s := range shards {
		if len(s.Slots) == 0 {
			continue
		}
		g := group{id: fmt.Sprintf("%d-%d", s.Slots[0].Start, s.Slots[0].End)}
		for _, r := range s.Slots {
			g.slots = append(g.slots, [2]int{int(r.Start), int(r.End)})
		}
		for _, n := range s.Nodes {
			ip := n.IP
			if ip == "" {
				ip = n.Endpoint
			}
			a := net.JoinHostPort(ip, strconv.FormatInt(n.Port, 10))
			g.members = append(g.members, a)
			if (n.Role == "master" || n.Role == "primary") && n.Health != "fail" {
				g.primary = a
			}
		}
		groups = append(groups, g)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("CLUSTER SHARDS on %s: no slots", addr)
	}
	return groups, nil
}

// owns reports whether g serves slot.
func (g group) owns(slot int) bool {
	for _, r := range g.slots {
		if slot >= r[0] && slot <= r[1] {
			return true
		}
	}
	return false
}

// keyIn returns the first key "prefix:N" whose slot g owns.
func keyIn(g group, prefix string) string {
	for i := 0; ; i++ {
		k := prefix + ":" + strconv.Itoa(i)
		if g.owns(int(cluster.KeySlot([]byte(k)))) {
			return k
		}
	}
}

// procAt returns the process listening on addr, or nil.
func (e *env) procAt(addr string) *proc {
	for _, p := range e.procs {
		// A standalone server with several shards listens on port+i.
		for i := range max(1, e.opts.shards) {
			if fmt.Sprintf("%s:%d", p.ip, p.port+i) == addr {
				return p
			}
		}
	}
	return nil
}
