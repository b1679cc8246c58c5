package stream

import (
	"slices"
	"sort"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/memsize"
)

// InvalidEntriesRead is a group's entries-read counter when it is unknown.
const InvalidEntriesRead = -1

// Pending is one entry of a group's pending-entries list: delivered to
// Consumer and not yet acknowledged.
type Pending struct {
	ID            ID
	DeliveryTime  int64 // unix ms of the last delivery
	DeliveryCount uint64
	Consumer      *Consumer
	acked         bool
}

// Consumer is a consumer of a group.
type Consumer struct {
	Name     string
	SeenTime int64 // unix ms of the last interaction
	// pel holds the consumer's pending records in id order; records that
	// were acked or moved to another consumer are dead and skipped.
	pel   []*Pending
	count int
	dead  int
}

// PendingCount is the number of entries pending for the consumer.
func (c *Consumer) PendingCount() int { return c.count }

// Pending calls fn with the consumer's pending entries with start <= id
// <= end in id order, until fn returns false.
func (c *Consumer) Pending(start, end ID, fn func(*Pending) bool) {
	i := sort.Search(len(c.pel), func(i int) bool { return !c.pel[i].ID.Less(start) })
	for ; i < len(c.pel); i++ {
		p := c.pel[i]
		if end.Less(p.ID) {
			return
		}
		if p.acked || p.Consumer != c {
			continue
		}
		if !fn(p) {
			return
		}
	}
}

// insert links p (already owned by c) into c's list.
func (c *Consumer) insert(p *Pending) {
	n := len(c.pel)
	if n == 0 || c.pel[n-1].ID.Less(p.ID) {
		c.pel = append(c.pel, p)
		return
	}
	i := sort.Search(n, func(i int) bool { return !c.pel[i].ID.Less(p.ID) })
	if i < n && c.pel[i].ID == p.ID {
		// A dead record of the same id: reuse its slot.
		c.pel[i] = p
		c.dead--
		return
	}
	c.pel = slices.Insert(c.pel, i, p)
}

// release marks one of c's records dead and compacts the list when half
// of it is.
func (c *Consumer) release() {
	c.count--
	c.dead++
	if c.dead > 16 && c.dead > len(c.pel)/2 {
		c.pel = slices.DeleteFunc(c.pel, func(p *Pending) bool { return p.acked || p.Consumer != c })
		c.dead = 0
	}
}

// Group is a consumer group.
type Group struct {
	Name        string
	LastID      ID
	EntriesRead int64
	pel         map[ID]*Pending
	order       []*Pending // id order; acked records are dead
	dead        int
	consumers   map[string]*Consumer
	// Deferred are held entries the group passed over before they were
	// due, in id order: each is delivered once it is due.
	Deferred []ID
}

func newGroup(name string, last ID, entriesRead int64) *Group {
	return &Group{Name: name, LastID: last, EntriesRead: entriesRead, pel: map[ID]*Pending{}, consumers: map[string]*Consumer{}}
}

// Group returns the group called name, or nil.
func (s *Stream) Group(name []byte) *Group { return s.groups[string(name)] }

// CreateGroup adds a group; it returns nil when one of that name exists.
func (s *Stream) CreateGroup(name []byte, last ID, entriesRead int64) *Group {
	if _, ok := s.groups[string(name)]; ok {
		return nil
	}
	g := newGroup(string(name), last, entriesRead)
	s.addGroup(g)
	return g
}

func (s *Stream) addGroup(g *Group) {
	if s.groups == nil {
		s.groups = map[string]*Group{}
	}
	s.groups[g.Name] = g
}

// DestroyGroup removes the group called name and reports whether it
// existed.
func (s *Stream) DestroyGroup(name []byte) bool {
	if _, ok := s.groups[string(name)]; !ok {
		return false
	}
	delete(s.groups, string(name))
	return true
}

// NumGroups is the number of groups.
func (s *Stream) NumGroups() int { return len(s.groups) }

// Groups returns the groups ordered by name (bytewise).
func (s *Stream) Groups() []*Group {
	out := make([]*Group, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *Group) int { return compareStrings(a.Name, b.Name) })
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Consumer returns the consumer called name, or nil.
func (g *Group) Consumer(name []byte) *Consumer { return g.consumers[string(name)] }

// CreateConsumer adds a consumer seen at now; it returns nil when one of
// that name exists.
func (g *Group) CreateConsumer(name []byte, now int64) *Consumer {
	if _, ok := g.consumers[string(name)]; ok {
		return nil
	}
	c := &Consumer{Name: string(name), SeenTime: now}
	g.consumers[c.Name] = c
	return c
}

// DeleteConsumer removes a consumer and its pending entries and returns
// how many were pending; ok is false when there was no such consumer.
func (g *Group) DeleteConsumer(name []byte) (pending int, ok bool) {
	c := g.consumers[string(name)]
	if c == nil {
		return 0, false
	}
	pending = c.count
	var ids []ID
	c.Pending(MinID, MaxID, func(p *Pending) bool { ids = append(ids, p.ID); return true })
	for _, id := range ids {
		g.Ack(id)
	}
	delete(g.consumers, c.Name)
	return pending, true
}

// NumConsumers is the number of consumers.
func (g *Group) NumConsumers() int { return len(g.consumers) }

// Consumers returns the consumers ordered by name.
func (g *Group) Consumers() []*Consumer {
	out := make([]*Consumer, 0, len(g.consumers))
	for _, c := range g.consumers {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Consumer) int { return compareStrings(a.Name, b.Name) })
	return out
}

// PendingCount is the size of the group's PEL.
func (g *Group) PendingCount() int { return len(g.pel) }

// PendingEntry returns the PEL record of id, or nil.
func (g *Group) PendingEntry(id ID) *Pending { return g.pel[id] }

// Pending calls fn with the group's pending entries with start <= id <=
// end in id order, until fn returns false.
func (g *Group) Pending(start, end ID, fn func(*Pending) bool) {
	i := sort.Search(len(g.order), func(i int) bool { return !g.order[i].ID.Less(start) })
	for ; i < len(g.order); i++ {
		p := g.order[i]
		if end.Less(p.ID) {
			return
		}
		if p.acked {
			continue
		}
		if !fn(p) {
			return
		}
	}
}

// PendingRev calls fn with pending entries from end down to start.
func (g *Group) PendingRev(start, end ID, fn func(*Pending) bool) {
	i := sort.Search(len(g.order), func(i int) bool { return end.Less(g.order[i].ID) }) - 1
	for ; i >= 0; i-- {
		p := g.order[i]
		if p.ID.Less(start) {
			return
		}
		if p.acked {
			continue
		}
		if !fn(p) {
			return
		}
	}
}

// SetPending makes id pending for c with the delivery time and count,
// creating the record or moving it from its consumer.
func (g *Group) SetPending(id ID, c *Consumer, at int64, count uint64) *Pending {
	p := g.pel[id]
	if p == nil {
		p = &Pending{ID: id}
		g.pel[id] = p
		n := len(g.order)
		if n == 0 || g.order[n-1].ID.Less(id) {
			g.order = append(g.order, p)
		} else {
			i := sort.Search(n, func(i int) bool { return !g.order[i].ID.Less(id) })
			if i < n && g.order[i].ID == id {
				g.order[i] = p
				g.dead--
			} else {
				g.order = slices.Insert(g.order, i, p)
			}
		}
	}
	p.DeliveryTime, p.DeliveryCount = at, count
	g.assign(p, c)
	return p
}

// assign makes c the owner of p.
func (g *Group) assign(p *Pending, c *Consumer) {
	if p.Consumer == c {
		return
	}
	if old := p.Consumer; old != nil {
		p.Consumer = nil
		old.release()
	}
	p.Consumer = c
	c.count++
	c.insert(p)
}

// Ack removes id from the PEL and reports whether it was pending.
func (g *Group) Ack(id ID) bool {
	p := g.pel[id]
	if p == nil {
		return false
	}
	delete(g.pel, id)
	p.acked = true
	g.dead++
	if c := p.Consumer; c != nil {
		c.release()
	}
	if g.dead > 16 && g.dead > len(g.order)/2 {
		g.order = slices.DeleteFunc(g.order, func(p *Pending) bool { return p.acked })
		g.dead = 0
	}
	return true
}

// Defer remembers a held entry the group passed over.
func (g *Group) Defer(id ID) {
	i, found := slices.BinarySearchFunc(g.Deferred, id, ID.Compare)
	if !found {
		g.Deferred = slices.Insert(g.Deferred, i, id)
	}
}

// Undefer forgets a deferred entry.
func (g *Group) Undefer(id ID) {
	if i, found := slices.BinarySearchFunc(g.Deferred, id, ID.Compare); found {
		g.Deferred = slices.Delete(g.Deferred, i, i+1)
	}
}

// SetLastID moves the group's last delivered id (XGROUP SETID); deferred
// entries after it are forgotten, as the group will meet them again.
func (g *Group) SetLastID(id ID, entriesRead int64) {
	g.LastID, g.EntriesRead = id, entriesRead
	i, _ := slices.BinarySearchFunc(g.Deferred, id, ID.Compare)
	for i < len(g.Deferred) && !id.Less(g.Deferred[i]) {
		i++
	}
	g.Deferred = g.Deferred[:i]
}

func (g *Group) memoryUsage() int {
	sz := memsize.Alloc(int(unsafe.Sizeof(*g))) + memsize.NoScan(len(g.Name))
	sz += len(g.pel) * (memsize.Alloc(int(unsafe.Sizeof(Pending{}))) + 32)
	sz += memsize.Alloc(cap(g.order) * 8)
	sz += memsize.NoScan(cap(g.Deferred) * 16)
	for _, c := range g.consumers {
		sz += memsize.Alloc(int(unsafe.Sizeof(*c))) + memsize.NoScan(len(c.Name)) + memsize.Alloc(cap(c.pel)*8) + 32
	}
	return sz
}

func (g *Group) clone() *Group {
	c := newGroup(g.Name, g.LastID, g.EntriesRead)
	c.Deferred = slices.Clone(g.Deferred)
	for _, k := range g.consumers {
		c.consumers[k.Name] = &Consumer{Name: k.Name, SeenTime: k.SeenTime}
	}
	g.Pending(MinID, MaxID, func(p *Pending) bool {
		c.SetPending(p.ID, c.consumers[p.Consumer.Name], p.DeliveryTime, p.DeliveryCount)
		return true
	})
	return c
}

// Holds

// AddHold holds id until due (unix ms). Ids are added in increasing
// order, as entries are.
func (s *Stream) AddHold(id ID, due int64) {
	n := len(s.holds)
	if n == 0 || s.holds[n-1].ID.Less(id) {
		s.holds = append(s.holds, Hold{id, due})
		return
	}
	i, found := slices.BinarySearchFunc(s.holds, id, func(h Hold, id ID) int { return h.ID.Compare(id) })
	if found {
		s.holds[i].Due = due
		return
	}
	s.holds = slices.Insert(s.holds, i, Hold{id, due})
}

// HoldOf returns the due time of id's hold.
func (s *Stream) HoldOf(id ID) (int64, bool) {
	if len(s.holds) == 0 {
		return 0, false
	}
	i, found := slices.BinarySearchFunc(s.holds, id, func(h Hold, id ID) int { return h.ID.Compare(id) })
	if !found {
		return 0, false
	}
	return s.holds[i].Due, true
}

// Holds returns the holds in id order (aliasing the stream).
func (s *Stream) Holds() []Hold { return s.holds }

// HeldCount is the number of entries held past now.
func (s *Stream) HeldCount(now int64) int {
	n := 0
	for _, h := range s.holds {
		if h.Due > now {
			n++
		}
	}
	return n
}

// NextDue is the earliest due time after now among the holds.
func (s *Stream) NextDue(now int64) (int64, bool) {
	var best int64
	ok := false
	for _, h := range s.holds {
		if h.Due > now && (!ok || h.Due < best) {
			best, ok = h.Due, true
		}
	}
	return best, ok
}

// PruneHolds forgets holds that are due at now: a due hold no longer
// changes anything.
func (s *Stream) PruneHolds(now int64) {
	s.holds = slices.DeleteFunc(s.holds, func(h Hold) bool { return h.Due <= now })
}

func (s *Stream) dropHold(id ID) {
	if len(s.holds) == 0 {
		return
	}
	if i, found := slices.BinarySearchFunc(s.holds, id, func(h Hold, id ID) int { return h.ID.Compare(id) }); found {
		s.holds = slices.Delete(s.holds, i, i+1)
	}
}

func (s *Stream) dropHoldsThrough(last ID) {
	i := 0
	for i < len(s.holds) && !last.Less(s.holds[i].ID) {
		i++
	}
	if i > 0 {
		s.holds = slices.Delete(s.holds, 0, i)
	}
}

// due reports whether id may be delivered to a group at now.
func (s *Stream) due(id ID, now int64) bool {
	d, held := s.HoldOf(id)
	return !held || d <= now
}

// Read is what XREADGROUP ">" does to a group: the entries it delivers,
// in id order, and the group's new state.
type Read struct {
	Entries     []Entry
	Deferred    []ID // held entries passed over now
	Resolved    []ID // deferred entries delivered now or gone
	LastID      ID
	EntriesRead int64
}

// PlanRead picks what XREADGROUP ">" delivers to g at now: due deferred
// entries first, then entries after the group's last id, skipping (and
// deferring) held ones, up to count entries (0: no limit). It changes
// nothing; ApplyRead does.
func (s *Stream) PlanRead(g *Group, count int, now int64) Read {
	r := Read{LastID: g.LastID, EntriesRead: g.EntriesRead}
	full := func() bool { return count > 0 && len(r.Entries) >= count }
	for _, id := range g.Deferred {
		if full() {
			break
		}
		e, ok := s.Get(id)
		if !ok {
			r.Resolved = append(r.Resolved, id)
			continue
		}
		if s.due(id, now) {
			r.Entries = append(r.Entries, e)
			r.Resolved = append(r.Resolved, id)
		}
	}
	if full() {
		return r
	}
	start, ok := g.LastID.Next()
	if !ok {
		return r
	}
	s.Range(start, MaxID, false, func(e Entry) bool {
		if full() {
			return false
		}
		r.EntriesRead = s.advanceRead(r.EntriesRead, r.LastID, e.ID)
		r.LastID = e.ID
		if !s.due(e.ID, now) {
			r.Deferred = append(r.Deferred, e.ID)
			return true
		}
		r.Entries = append(r.Entries, e)
		return true
	})
	return r
}

// advanceRead is the group's entries-read counter after reading id.
func (s *Stream) advanceRead(er int64, last, id ID) int64 {
	if er != InvalidEntriesRead && !s.rangeHasTombstones(id, MaxID) {
		return er + 1
	}
	if s.entriesAdded != 0 {
		return s.EstimateDistance(id)
	}
	return er
}

// ApplyRead applies a read to g: the group's last id and counter, its
// deferred entries, and (unless noack) the delivered ids as pending for c
// at now with a delivery count of one.
func (g *Group) ApplyRead(c *Consumer, ids []ID, deferred, resolved []ID, last ID, entriesRead int64, now int64, noack bool) {
	g.LastID, g.EntriesRead = last, entriesRead
	for _, id := range resolved {
		g.Undefer(id)
	}
	for _, id := range deferred {
		g.Defer(id)
	}
	if noack {
		return
	}
	for _, id := range ids {
		g.SetPending(id, c, now, 1)
	}
}

// rangeHasTombstones reports whether an XDEL may have removed an entry in
// [start, end].
func (s *Stream) rangeHasTombstones(start, end ID) bool {
	if s.length == 0 || s.maxDeletedID.IsZero() {
		return false
	}
	if s.maxDeletedID.Less(s.FirstID()) {
		return false
	}
	return !s.maxDeletedID.Less(start) && !end.Less(s.maxDeletedID)
}

// EstimateDistance is id's logical read counter, the number of entries
// from the first ever added through id, or InvalidEntriesRead when it
// cannot be known (deletions in between, or an id in the middle).
func (s *Stream) EstimateDistance(id ID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && !s.lastID.Less(id) {
		return int64(s.entriesAdded)
	}
	switch id.Compare(s.lastID) {
	case 0:
		return int64(s.entriesAdded)
	case 1:
		return InvalidEntriesRead
	}
	first := s.FirstID()
	if s.maxDeletedID.IsZero() || s.maxDeletedID.Less(first) {
		switch id.Compare(first) {
		case -1:
			return int64(s.entriesAdded) - s.length
		case 0:
			return int64(s.entriesAdded) - s.length + 1
		}
	}
	return InvalidEntriesRead
}

// Lag is the number of entries the group has yet to read, and whether
// it can be known.
func (s *Stream) Lag(g *Group) (int64, bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	if g.EntriesRead != InvalidEntriesRead && !s.rangeHasTombstones(g.LastID, MaxID) {
		return int64(s.entriesAdded) - g.EntriesRead, true
	}
	if er := s.EstimateDistance(g.LastID); er != InvalidEntriesRead {
		return int64(s.entriesAdded) - er, true
	}
	return 0, false
}
