package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/ruvio/ruvio/cluster"
)

// Member is one Ruvio process of the cluster as it registered itself.
type Member struct {
	// Name is the member's name (cluster.name), unique in the cluster; it is
	// also its server id in the consensus group.
	Name string `json:"name"`
	// Host is the address clients and peers reach the member's ports at.
	Host string `json:"host"`
	// Port is the client port of the member's shard 0; shard i listens on
	// Port+i.
	Port int `json:"port"`
	// Control is the "host:port" of the member's control plane.
	Control string `json:"control"`
	// NodeIDs are the CLUSTER MYID of each of the member's shards; their
	// number is the member's shard count.
	NodeIDs []string `json:"node_ids"`
}

// Shards is the member's shard count.
func (m Member) Shards() int { return len(m.NodeIDs) }

// Group is a primary and its replicas, which own slot ranges together.
type Group struct {
	// ID numbers the group from 0.
	ID int `json:"id"`
	// Slots are the slot ranges the group owns, in order.
	Slots []cluster.SlotRange `json:"slots"`
	// ShardSlots are the ranges each shard of the group's members serves
	// (index: shard; shard i of a replica follows shard i of the
	// primary). Their union is Slots. States written before slots could
	// move lack them: normalize splits Slots evenly, as those did.
	ShardSlots [][]cluster.SlotRange `json:"shard_slots,omitempty"`
	// Primary is the name of the member that takes the group's writes.
	Primary string `json:"primary"`
	// Replicas are the names of the members that follow the primary.
	Replicas []string `json:"replicas"`
	// Epoch is the cluster epoch at which the current primary was made
	// primary: a member holds a write lease only once it has applied it.
	Epoch uint64 `json:"epoch"`
	// PromotedAt is, for each shard, the durable sequence the primary's
	// log had when it was promoted (empty for the first primary): a former
	// primary that rejoins counts what it wrote after it as discarded.
	PromotedAt []uint64 `json:"promoted_at,omitempty"`
}

// Has reports whether name is the group's primary or one of its replicas.
func (g *Group) Has(name string) bool {
	return g.Primary == name || slices.Contains(g.Replicas, name)
}

// State is the replicated topology: the members, the groups and an epoch
// that grows with every change. Only Apply changes it, deterministically,
// so that every member that applies the same log holds the same State.
type State struct {
	// Epoch grows by one with every change of the topology.
	Epoch uint64 `json:"epoch"`
	// Created is set once the initial groups are formed.
	Created bool `json:"created"`
	// Members are the registered members, ordered by name.
	Members []Member `json:"members"`
	// Groups are the groups, ordered by id.
	Groups []Group `json:"groups"`
	// Migrations are the slot ranges moving between groups now.
	Migrations []Migration `json:"migrations,omitempty"`
}

// Migration is a slot range moving from a shard of one group to a shard
// of another (or of the same group). The receiving group's primary copies
// the range and follows the sender's log; once it has caught up, the
// sender holds the range's writes and OpMigrateCommit moves ownership in
// one change, or OpMigrateAbort leaves it where it was. Exactly one of
// the two ends every migration.
type Migration struct {
	// ID is the epoch at which the migration began: unique.
	ID    uint64            `json:"id"`
	Slots cluster.SlotRange `json:"slots"`
	// From and FromShard own the range now; To and ToShard receive it.
	From      int `json:"from"`
	FromShard int `json:"from_shard"`
	To        int `json:"to"`
	ToShard   int `json:"to_shard"`
	// FromEpoch and ToEpoch are the two groups' epochs when it began: a
	// failover of either group makes the commit fail.
	FromEpoch uint64 `json:"from_epoch"`
	ToEpoch   uint64 `json:"to_epoch"`
}

// Op names a change of the topology.
type Op string

// The changes of the topology.
const (
	// OpRegister adds a member or updates its addresses and node ids. A
	// member new to a created cluster joins the group with the fewest
	// replicas as a replica.
	OpRegister Op = "register"
	// OpCreate forms the initial groups from the seed members, all
	// registered, and splits the slots among them.
	OpCreate Op = "create"
	// OpFailover makes a replica of a group its primary and the former
	// primary one of its replicas.
	OpFailover Op = "failover"
	// OpRemove removes a member that is not a group's primary.
	OpRemove Op = "remove"
	// OpMigrate begins moving a slot range between groups' shards.
	OpMigrate Op = "migrate"
	// OpMigrateCommit ends a migration: the range belongs to its
	// receiving shard from this epoch on.
	OpMigrateCommit Op = "migrate-commit"
	// OpMigrateAbort ends a migration and leaves the range where it was.
	OpMigrateAbort Op = "migrate-abort"
	// OpAddGroup makes a member that is no group's primary the primary of
	// a new group without slots (slots then move onto it).
	OpAddGroup Op = "add-group"
)

// Command is one entry of the consensus log.
type Command struct {
	Op Op `json:"op"`
	// Member is the registering member (OpRegister).
	Member *Member `json:"member,omitempty"`
	// Seeds are the members to form the groups from, in the configured
	// order, and Replicas the replicas per group (OpCreate).
	Seeds    []string `json:"seeds,omitempty"`
	Replicas int      `json:"replicas,omitempty"`
	// Group, From and To name the group, its current primary and the
	// replica to promote (OpFailover); Seqs are To's durable sequences.
	Group int      `json:"group,omitempty"`
	From  string   `json:"from,omitempty"`
	To    string   `json:"to,omitempty"`
	Seqs  []uint64 `json:"seqs,omitempty"`
	// Name is the member to remove (OpRemove) or to make a new group's
	// primary (OpAddGroup).
	Name string `json:"name,omitempty"`
	// Migration is the move to begin (OpMigrate; its ID and epochs are
	// set by Apply) or, by ID, the one to end (OpMigrateCommit,
	// OpMigrateAbort).
	Migration *Migration `json:"migration,omitempty"`
}

// Encode is the command as a log entry.
func (c Command) Encode() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		// Only plain fields: cannot fail.
		panic(err)
	}
	return b
}

// DecodeCommand reads a log entry.
func DecodeCommand(b []byte) (Command, error) {
	var c Command
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("control: decoding a log entry: %w", err)
	}
	return c, nil
}

// Clone is a deep copy of s.
func (s *State) Clone() *State {
	c := &State{Epoch: s.Epoch, Created: s.Created}
	for _, m := range s.Members {
		m.NodeIDs = slices.Clone(m.NodeIDs)
		c.Members = append(c.Members, m)
	}
	for _, g := range s.Groups {
		g.Slots = slices.Clone(g.Slots)
		if g.ShardSlots != nil {
			parts := make([][]cluster.SlotRange, len(g.ShardSlots))
			for i, p := range g.ShardSlots {
				parts[i] = slices.Clone(p)
			}
			g.ShardSlots = parts
		}
		g.Replicas = slices.Clone(g.Replicas)
		g.PromotedAt = slices.Clone(g.PromotedAt)
		c.Groups = append(c.Groups, g)
	}
	c.Migrations = slices.Clone(s.Migrations)
	return c
}

// shardCount is the cluster's shard count per member (0 before any group
// exists).
func (s *State) shardCount() int {
	for _, g := range s.Groups {
		if p, ok := s.Member(g.Primary); ok {
			return p.Shards()
		}
	}
	return 0
}

// normalize fills in the per-shard ranges of a state written before slots
// could move, exactly as those members split their groups' slots.
func (s *State) normalize() {
	n := s.shardCount()
	if n == 0 {
		return
	}
	for i := range s.Groups {
		if g := &s.Groups[i]; len(g.ShardSlots) != n {
			g.ShardSlots = cluster.SplitRanges(g.Slots, n)
		}
	}
}

// Member returns the member named name.
func (s *State) Member(name string) (Member, bool) {
	i := s.memberIndex(name)
	if i < 0 {
		return Member{}, false
	}
	return s.Members[i], true
}

func (s *State) memberIndex(name string) int {
	i := sort.Search(len(s.Members), func(i int) bool { return s.Members[i].Name >= name })
	if i < len(s.Members) && s.Members[i].Name == name {
		return i
	}
	return -1
}

// GroupOf returns the group name belongs to, or nil.
func (s *State) GroupOf(name string) *Group {
	for i := range s.Groups {
		if s.Groups[i].Has(name) {
			return &s.Groups[i]
		}
	}
	return nil
}

// Errors of Apply, each a refused change; the state is unchanged.
var (
	ErrCreated      = errors.New("the cluster is already created")
	ErrNotCreated   = errors.New("the cluster is not created yet")
	ErrUnknown      = errors.New("no such member")
	ErrShardCount   = errors.New("a member's shard count differs from the cluster's")
	ErrStalePrimary = errors.New("the group's primary changed meanwhile")
	ErrNoMigration  = errors.New("no such migration (it has ended)")
)

// Apply makes the change c, or refuses it with an error and changes
// nothing.
func (s *State) Apply(c Command) error {
	switch c.Op {
	case OpRegister:
		return s.register(c.Member)
	case OpCreate:
		return s.create(c.Seeds, c.Replicas)
	case OpFailover:
		return s.failover(c.Group, c.From, c.To, c.Seqs)
	case OpRemove:
		return s.remove(c.Name)
	case OpMigrate:
		return s.migrate(c.Migration)
	case OpAddGroup:
		return s.addGroup(c.Name)
	case OpMigrateCommit, OpMigrateAbort:
		if c.Migration == nil {
			return errors.New("no migration named")
		}
		return s.endMigration(c.Migration.ID, c.Op == OpMigrateCommit)
	}
	return fmt.Errorf("unknown change %q", c.Op)
}

func (s *State) register(m *Member) error {
	if m == nil || m.Name == "" {
		return errors.New("a member needs a name")
	}
	if m.Host == "" || m.Port < 1 || m.Port+m.Shards()-1 > 65535 || m.Control == "" {
		return fmt.Errorf("member %s: address %q port %d control %q is not valid", m.Name, m.Host, m.Port, m.Control)
	}
	if m.Shards() < 1 {
		return fmt.Errorf("member %s has no shards", m.Name)
	}
	for _, id := range m.NodeIDs {
		if !cluster.ValidNodeID(id) {
			return fmt.Errorf("member %s: node id %q is not 40 hex characters", m.Name, id)
		}
	}
	if s.Created && len(s.Groups) > 0 {
		// Every member of a group has the cluster's shard count.
		if p, ok := s.Member(s.Groups[0].Primary); ok && p.Name != m.Name && p.Shards() != m.Shards() {
			return fmt.Errorf("member %s has %d shards, the cluster %d: %w", m.Name, m.Shards(), p.Shards(), ErrShardCount)
		}
	}
	nm := *m
	nm.NodeIDs = slices.Clone(m.NodeIDs)
	if i := s.memberIndex(m.Name); i >= 0 {
		old := s.Members[i]
		if old.Shards() != nm.Shards() && s.GroupOf(m.Name) != nil {
			return fmt.Errorf("member %s came back with %d shards instead of %d: %w", m.Name, nm.Shards(), old.Shards(), ErrShardCount)
		}
		if old.Host == nm.Host && old.Port == nm.Port && old.Control == nm.Control && slices.Equal(old.NodeIDs, nm.NodeIDs) {
			return nil
		}
		s.Members[i] = nm
		s.Epoch++
		return nil
	}
	i := sort.Search(len(s.Members), func(i int) bool { return s.Members[i].Name >= m.Name })
	s.Members = slices.Insert(s.Members, i, nm)
	if s.Created && len(s.Groups) > 0 {
		g := s.placeReplica(nm.Name, nm.Host)
		s.Groups[g].Replicas = append(s.Groups[g].Replicas, nm.Name)
	}
	s.Epoch++
	return nil
}

// placeReplica picks the group a new replica on host joins: the one with
// the fewest replicas among those with no member on host, else the one
// with the fewest replicas; the lowest id on a tie.
func (s *State) placeReplica(name, host string) int {
	best, bestApart := -1, false
	for i := range s.Groups {
		g := &s.Groups[i]
		if g.Primary == "" {
			continue // retired
		}
		apart := true
		for _, n := range append([]string{g.Primary}, g.Replicas...) {
			if m, ok := s.Member(n); ok && m.Host == host {
				apart = false
			}
		}
		switch {
		case best < 0,
			apart && !bestApart,
			apart == bestApart && len(g.Replicas) < len(s.Groups[best].Replicas):
			best, bestApart = i, apart
		}
	}
	return best
}

func (s *State) create(seeds []string, replicas int) error {
	if s.Created {
		return ErrCreated
	}
	if len(seeds) == 0 {
		return errors.New("no seed members")
	}
	if replicas < 0 {
		return fmt.Errorf("replicas %d is negative", replicas)
	}
	shards := -1
	for _, n := range seeds {
		m, ok := s.Member(n)
		if !ok {
			return fmt.Errorf("seed member %s has not registered: %w", n, ErrUnknown)
		}
		if shards >= 0 && m.Shards() != shards {
			return fmt.Errorf("seed member %s has %d shards, another %d: %w", n, m.Shards(), shards, ErrShardCount)
		}
		shards = m.Shards()
	}
	groups := max(len(seeds)/(replicas+1), 1)
	if groups*shards > cluster.SlotCount {
		return fmt.Errorf("%d groups of %d shards is more than %d slots", groups, shards, cluster.SlotCount)
	}
	// Primaries on distinct hosts where the hosts allow, in seed order.
	var primaries []string
	usedHost := map[string]bool{}
	taken := map[string]bool{}
	for _, n := range seeds {
		if len(primaries) == groups {
			break
		}
		m, _ := s.Member(n)
		if !usedHost[m.Host] && !taken[n] {
			primaries = append(primaries, n)
			usedHost[m.Host], taken[n] = true, true
		}
	}
	for _, n := range seeds {
		if len(primaries) == groups {
			break
		}
		if !taken[n] {
			primaries = append(primaries, n)
			taken[n] = true
		}
	}
	s.Groups = nil
	base, extra := cluster.SlotCount/groups, cluster.SlotCount%groups
	start := 0
	first := s.Epoch + 1
	for i, p := range primaries {
		size := base
		if i < extra {
			size++
		}
		s.Groups = append(s.Groups, Group{
			ID:      i,
			Slots:   []cluster.SlotRange{{Start: uint16(start), End: uint16(start + size - 1)}},
			Primary: p,
			// Unique per group, and the epoch of the creation or above: a
			// primary is leased only once it has applied it.
			Epoch: first + uint64(i),
		})
		start += size
	}
	// Replicas: first as many per group as asked for, each on a host
	// apart from its group's, matched over all groups at once (a greedy
	// pass can strand a group whose host is the only one left); then the
	// other seeds and the members that registered without being seeds,
	// one at a time.
	var rest []string
	for _, n := range seeds {
		if !taken[n] {
			rest = append(rest, n)
		}
	}
	for _, m := range s.Members {
		if !taken[m.Name] && !slices.Contains(seeds, m.Name) {
			rest = append(rest, m.Name)
		}
	}
	matched := s.matchReplicas(rest, replicas)
	for gi := range s.Groups {
		for _, n := range matched[gi] {
			s.Groups[gi].Replicas = append(s.Groups[gi].Replicas, n)
			taken[n] = true
		}
	}
	for _, n := range rest {
		if taken[n] {
			continue
		}
		m, _ := s.Member(n)
		g := s.placeReplica(n, m.Host)
		s.Groups[g].Replicas = append(s.Groups[g].Replicas, n)
		taken[n] = true
	}
	s.Created = true
	s.Epoch = first + uint64(len(s.Groups)) - 1
	for i := range s.Groups {
		s.Groups[i].ShardSlots = cluster.SplitRanges(s.Groups[i].Slots, shards)
	}
	return nil
}

// matchReplicas assigns up to perGroup replicas to every group from
// candidates, each on a host where its group has no member, as many as
// such a placement allows (a maximum bipartite matching, by augmenting
// paths); it returns the assignment as group index → member names.
func (s *State) matchReplicas(candidates []string, perGroup int) map[int][]string {
	type slot struct{ group int }
	var slots []slot
	for g := range s.Groups {
		for range perGroup {
			slots = append(slots, slot{g})
		}
	}
	hostOf := func(n string) string { m, _ := s.Member(n); return m.Host }
	apart := func(n string, g int) bool {
		return hostOf(n) != hostOf(s.Groups[g].Primary)
	}
	owner := make([]int, len(slots)) // slot → candidate index, -1 free
	for i := range owner {
		owner[i] = -1
	}
	var try func(c int, seen []bool) bool
	try = func(c int, seen []bool) bool {
		// A free slot first, in group order, so that an easy placement
		// stays the obvious one; then move a placed candidate elsewhere.
		for si, sl := range slots {
			if owner[si] < 0 && apart(candidates[c], sl.group) {
				owner[si] = c
				return true
			}
		}
		for si, sl := range slots {
			if seen[si] || !apart(candidates[c], sl.group) {
				continue
			}
			seen[si] = true
			if try(owner[si], seen) {
				owner[si] = c
				return true
			}
		}
		return false
	}
	for c := range candidates {
		try(c, make([]bool, len(slots)))
	}
	out := map[int][]string{}
	for si, c := range owner {
		if c >= 0 {
			out[slots[si].group] = append(out[slots[si].group], candidates[c])
		}
	}
	for g := range out {
		// In the order the candidates were given.
		slices.SortFunc(out[g], func(a, b string) int {
			return slices.Index(candidates, a) - slices.Index(candidates, b)
		})
	}
	return out
}

func (s *State) failover(group int, from, to string, seqs []uint64) error {
	if !s.Created {
		return ErrNotCreated
	}
	if group < 0 || group >= len(s.Groups) {
		return fmt.Errorf("no group %d", group)
	}
	g := &s.Groups[group]
	if g.Primary != from {
		return fmt.Errorf("group %d: primary is %s, not %s: %w", group, g.Primary, from, ErrStalePrimary)
	}
	i := slices.Index(g.Replicas, to)
	if i < 0 {
		return fmt.Errorf("group %d: %s is not one of its replicas", group, to)
	}
	g.Replicas = slices.Delete(g.Replicas, i, i+1)
	g.Replicas = append(g.Replicas, from)
	g.Primary = to
	s.Epoch++
	g.Epoch = s.Epoch
	g.PromotedAt = slices.Clone(seqs)
	return nil
}

func (s *State) remove(name string) error {
	i := s.memberIndex(name)
	if i < 0 {
		return fmt.Errorf("member %s: %w", name, ErrUnknown)
	}
	if g := s.GroupOf(name); g != nil {
		switch {
		case g.Primary == name && (len(g.Slots) > 0 || len(g.Replicas) > 0):
			return fmt.Errorf("member %s is the primary of group %d: fail it over, or move its slots away (drain) and remove its replicas, first", name, g.ID)
		case g.Primary == name:
			if s.migrating(g.ID) {
				return fmt.Errorf("member %s: group %d has a migration in progress", name, g.ID)
			}
			// A drained group without replicas is retired: it keeps its
			// number, and nothing joins or moves to it again.
			g.Primary = ""
			s.Members = slices.Delete(s.Members, i, i+1)
			s.Epoch++
			return nil
		}
		j := slices.Index(g.Replicas, name)
		g.Replicas = slices.Delete(g.Replicas, j, j+1)
	}
	s.Members = slices.Delete(s.Members, i, i+1)
	s.Epoch++
	return nil
}
