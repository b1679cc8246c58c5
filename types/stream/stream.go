// Package stream is the Redis stream: an append-only log of entries keyed
// by ID, with consumer groups, their pending-entries lists, and delayed
// delivery (XADD … DELAY holds).
//
// # Entries
//
// Entries live in packed nodes, as Redis keeps listpacks in a radix tree:
// each node is one pointer-free []byte holding up to
// stream-node-max-entries entries (and, past its first entry, at most
// stream-node-max-bytes bytes). The nodes sit in one slice ordered by
// their master id, the id of the node's first entry; since ids only grow,
// new nodes are appended and a lookup is a binary search over the masters
// then a scan of one node, a two-level B+tree whose inner level is the
// slice. A node starts with its master entry's field names; an entry whose
// fields are the same names in the same order stores only its values.
// Entry layout inside a node:
//
//	byte    flags (1 deleted, 2 same fields as the master)
//	uvarint byte length of the rest of the entry
//	uvarint ms - master.Ms
//	uvarint seq (seq - master.Seq when the ms are equal)
//	same fields: per master field, uvarint len + value bytes
//	otherwise:   uvarint pair count, then per pair uvarint len + field,
//	             uvarint len + value
//
// XDEL and trimming flag entries deleted in place; a node whose entries are
// all deleted is dropped, and a node with more deleted bytes than live ones
// is rewritten. No entry is ever a heap object of its own.
//
// # Groups
//
// A group keeps its pending entries (PEL) in a map by id for lookups and in
// an id-ordered slice for ranges; each consumer keeps an id-ordered slice of
// the same records. Removal from a slice is lazy (the record is marked and
// skipped, and the slice is compacted once half of it is dead), so acking
// in delivery order is O(1) amortised.
//
// # Holds
//
// An entry added with a delay has a hold: its absolute due time. XREADGROUP
// ">" passes over a held entry that is not yet due and the group remembers
// it (Group.Deferred); once due, the entry is delivered to that group
// before anything later, exactly once. Holds and deferrals are state like
// any other: the caller logs them.
package stream

import (
	"encoding/binary"
	"errors"
	"slices"
	"sort"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/memsize"
)

// Entry flags.
const (
	flagDeleted    = 1
	flagSameFields = 2
)

// Config is the node size limits (stream-node-max-bytes and
// stream-node-max-entries; 0 means no limit).
type Config struct {
	NodeMaxBytes   int
	NodeMaxEntries int
}

// DefaultConfig is Redis 7.0's defaults.
var DefaultConfig = Config{NodeMaxBytes: 4096, NodeMaxEntries: 100}

// ErrIDTooSmall is returned by Add for an id not above the last one.
var ErrIDTooSmall = errors.New("stream: id is equal or smaller than the last id")

type node struct {
	master ID
	// buf is the master fields (uvarint count, then uvarint len + name)
	// followed by the entries.
	buf   []byte
	first int // offset of the first entry in buf
	count int32
	live  int32
	dead  int32 // bytes of deleted entries
}

// Stream is a Redis stream. The zero value is an empty stream.
type Stream struct {
	nodes        []*node
	length       int64
	lastID       ID
	maxDeletedID ID
	entriesAdded uint64
	groups       map[string]*Group
	holds        []Hold
	// bytes is the running size of the nodes' buffers (cap).
	bytes int
	// lastEntry caches LastEntryID while lastKnown.
	lastEntry ID
	lastKnown bool
	// seekNode, seekOff and seekID remember where the last forward
	// iteration yielded an entry: a read that starts after seekID in the
	// same node resumes there instead of scanning the node from its
	// start (consumers read a stream in order). Compaction clears it.
	seekNode *node
	seekOff  int
	seekID   ID
}

// Hold is a delayed entry: XREADGROUP does not deliver it before Due
// (unix ms).
type Hold struct {
	ID  ID
	Due int64
}

// New returns an empty stream.
func New() *Stream { return &Stream{} }

// Len is the number of entries.
func (s *Stream) Len() int64 { return s.length }

// LastID is the last id generated or set (XSETID), 0-0 for a new stream.
func (s *Stream) LastID() ID { return s.lastID }

// MaxDeletedID is the largest id XDEL removed.
func (s *Stream) MaxDeletedID() ID { return s.maxDeletedID }

// EntriesAdded is the count of entries ever added.
func (s *Stream) EntriesAdded() uint64 { return s.entriesAdded }

// SetMeta sets the last id, the entries-added count and the max deleted
// id (XSETID and replay). The caller checks them against the entries.
func (s *Stream) SetMeta(last ID, added uint64, maxDeleted ID) {
	s.lastID, s.entriesAdded, s.maxDeletedID = last, added, maxDeleted
}

// Nodes is the number of nodes (XINFO's radix-tree-keys).
func (s *Stream) Nodes() int { return len(s.nodes) }

// NextAutoID is the id "*" gives at time now (ms): now-0 when now is past
// the last id's ms, else the last id's successor. ok is false when the
// last id is the largest possible.
func (s *Stream) NextAutoID(now uint64) (ID, bool) {
	if now > s.lastID.Ms {
		return ID{now, 0}, true
	}
	return s.lastID.Next()
}

// NextSeqID is the id "ms-*" gives: ms-0, or the last id's successor in
// the same ms. ok is false when ms is below the last id's ms or its
// sequence is exhausted.
func (s *Stream) NextSeqID(ms uint64) (ID, bool) {
	switch {
	case ms > s.lastID.Ms:
		return ID{ms, 0}, true
	case ms == s.lastID.Ms && s.lastID.Seq != ^uint64(0):
		return ID{ms, s.lastID.Seq + 1}, true
	}
	return ID{}, false
}

// Add appends an entry with id (above LastID) and fields (alternating
// names and values, at least one pair).
func (s *Stream) Add(cfg Config, id ID, fields [][]byte) error {
	if !s.lastID.Less(id) {
		return ErrIDTooSmall
	}
	var n *node
	if len(s.nodes) > 0 {
		n = s.nodes[len(s.nodes)-1]
		if (cfg.NodeMaxEntries > 0 && int(n.count) >= cfg.NodeMaxEntries) ||
			(cfg.NodeMaxBytes > 0 && len(n.buf)+entrySize(fields) > cfg.NodeMaxBytes) {
			s.sealLast()
			n = nil
		}
	}
	if n == nil {
		n = &node{master: id}
		if cfg.NodeMaxBytes > 0 && cfg.NodeMaxBytes <= maxPrealloc {
			// The node will fill up to the limit: one allocation instead
			// of a doubling series of them.
			n.buf = make([]byte, 0, cfg.NodeMaxBytes)
		}
		n.buf = binary.AppendUvarint(n.buf, uint64(len(fields)/2))
		for i := 0; i < len(fields); i += 2 {
			n.buf = binary.AppendUvarint(n.buf, uint64(len(fields[i])))
			n.buf = append(n.buf, fields[i]...)
		}
		n.first = len(n.buf)
		s.nodes = append(s.nodes, n)
		s.bytes += cap(n.buf)
	}
	old := cap(n.buf)
	n.buf = appendEntry(n.buf, n, id, fields)
	s.bytes += cap(n.buf) - old
	n.count++
	n.live++
	s.length++
	s.entriesAdded++
	s.lastID = id
	s.lastEntry, s.lastKnown = id, true
	return nil
}

// maxPrealloc bounds the buffer a new node reserves up front.
const maxPrealloc = 64 << 10

// sealLast trims the last node's buffer to its length when more than a
// sixteenth of it is spare: a node that receives no more entries keeps
// little unused capacity.
func (s *Stream) sealLast() {
	n := s.nodes[len(s.nodes)-1]
	if cap(n.buf)-len(n.buf) > len(n.buf)/16 {
		s.bytes -= cap(n.buf)
		n.buf = slices.Clip(append([]byte(nil), n.buf...))
		s.bytes += cap(n.buf)
	}
}

// entrySize is an upper bound of an entry's packed size with other
// field names than the master's.
func entrySize(fields [][]byte) int {
	sz := 1 + 10 + 10 + 5
	for _, f := range fields {
		sz += binary.MaxVarintLen32 + len(f)
	}
	return sz
}

// sameFields reports whether fields' names are n's master fields.
func (n *node) sameFields(fields [][]byte) bool {
	p := n.buf
	cnt, k := binary.Uvarint(p)
	if int(cnt) != len(fields)/2 {
		return false
	}
	p = p[k:]
	for i := 0; i < len(fields); i += 2 {
		l, k := binary.Uvarint(p)
		p = p[k:]
		if int(l) != len(fields[i]) || string(p[:l]) != string(fields[i]) {
			return false
		}
		p = p[l:]
	}
	return true
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendEntry(buf []byte, n *node, id ID, fields [][]byte) []byte {
	same := n.sameFields(fields)
	var flags byte
	if same {
		flags = flagSameFields
	}
	dms, seq := id.Ms-n.master.Ms, id.Seq
	if dms == 0 {
		seq -= n.master.Seq
	}
	body := uvarintLen(dms) + uvarintLen(seq)
	if !same {
		body += uvarintLen(uint64(len(fields) / 2))
	}
	for i, f := range fields {
		if same && i%2 == 0 {
			continue
		}
		body += uvarintLen(uint64(len(f))) + len(f)
	}
	buf = append(buf, flags)
	buf = binary.AppendUvarint(buf, uint64(body))
	buf = binary.AppendUvarint(buf, dms)
	buf = binary.AppendUvarint(buf, seq)
	if !same {
		buf = binary.AppendUvarint(buf, uint64(len(fields)/2))
	}
	for i, f := range fields {
		if same && i%2 == 0 {
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(len(f)))
		buf = append(buf, f...)
	}
	return buf
}

// Entry is one entry seen through an iteration. It is valid until the
// stream is next modified.
type Entry struct {
	ID ID
	n  *node
	// off is the offset of the entry's field data (after its id), end
	// the entry's end.
	off, end int
	same     bool
}

// NumFields is the entry's pair count.
func (e Entry) NumFields() int {
	if e.same {
		c, _ := binary.Uvarint(e.n.buf)
		return int(c)
	}
	c, _ := binary.Uvarint(e.n.buf[e.off:])
	return int(c)
}

// Fields calls fn with each name and value in order. The slices alias the
// stream.
func (e Entry) Fields(fn func(name, value []byte)) {
	buf := e.n.buf
	if e.same {
		m := buf
		cnt, k := binary.Uvarint(m)
		m = m[k:]
		p := buf[e.off:e.end]
		for range cnt {
			l, k := binary.Uvarint(m)
			name := m[k : k+int(l)]
			m = m[k+int(l):]
			vl, vk := binary.Uvarint(p)
			val := p[vk : vk+int(vl)]
			p = p[vk+int(vl):]
			fn(name, val)
		}
		return
	}
	p := buf[e.off:e.end]
	cnt, k := binary.Uvarint(p)
	p = p[k:]
	for range cnt {
		l, k := binary.Uvarint(p)
		name := p[k : k+int(l)]
		p = p[k+int(l):]
		vl, vk := binary.Uvarint(p)
		val := p[vk : vk+int(vl)]
		p = p[vk+int(vl):]
		fn(name, val)
	}
}

// AppendFields appends the entry's names and values (alternating) to dst.
func (e Entry) AppendFields(dst [][]byte) [][]byte {
	e.Fields(func(f, v []byte) { dst = append(dst, f, v) })
	return dst
}

// decodeAt decodes the entry starting at off: its flags, id, the offset
// of its field data and its end. The entry's length prefix makes this
// O(1) whatever its fields.
func (n *node) decodeAt(off int) (flags byte, id ID, data, end int) {
	buf := n.buf
	flags = buf[off]
	p := off + 1
	body, k := binary.Uvarint(buf[p:])
	p += k
	end = p + int(body)
	dms, k := binary.Uvarint(buf[p:])
	p += k
	seq, k := binary.Uvarint(buf[p:])
	p += k
	id.Ms = n.master.Ms + dms
	if dms == 0 {
		id.Seq = n.master.Seq + seq
	} else {
		id.Seq = seq
	}
	return flags, id, p, end
}

// nodeFor returns the index of the last node whose master is <= id, or -1.
func (s *Stream) nodeFor(id ID) int {
	return sort.Search(len(s.nodes), func(i int) bool { return id.Less(s.nodes[i].master) }) - 1
}

// Range calls fn for each entry with start <= id <= end, ascending, or
// descending when rev, until fn returns false.
func (s *Stream) Range(start, end ID, rev bool, fn func(Entry) bool) {
	if end.Less(start) || len(s.nodes) == 0 {
		return
	}
	if !rev {
		i := max(s.nodeFor(start), 0)
		for ; i < len(s.nodes); i++ {
			n := s.nodes[i]
			if end.Less(n.master) {
				return
			}
			off := n.first
			if n == s.seekNode && !start.Less(s.seekID) {
				off = s.seekOff
			}
			for off < len(n.buf) {
				at := off
				flags, id, data, next := n.decodeAt(off)
				off = next
				if flags&flagDeleted != 0 || id.Less(start) {
					continue
				}
				if end.Less(id) {
					return
				}
				s.seekNode, s.seekOff, s.seekID = n, at, id
				if !fn(Entry{ID: id, n: n, off: data, end: next, same: flags&flagSameFields != 0}) {
					return
				}
			}
		}
		return
	}
	var offs []int
	for i := s.nodeFor(end); i >= 0; i-- {
		n := s.nodes[i]
		offs = offs[:0]
		for off := n.first; off < len(n.buf); {
			offs = append(offs, off)
			_, _, _, off = n.decodeAt(off)
		}
		for j := len(offs) - 1; j >= 0; j-- {
			flags, id, data, next := n.decodeAt(offs[j])
			if flags&flagDeleted != 0 || end.Less(id) {
				continue
			}
			if id.Less(start) {
				return
			}
			if !fn(Entry{ID: id, n: n, off: data, end: next, same: flags&flagSameFields != 0}) {
				return
			}
		}
	}
}

// Get returns the entry with id.
func (s *Stream) Get(id ID) (e Entry, ok bool) {
	s.Range(id, id, false, func(x Entry) bool { e, ok = x, true; return false })
	return e, ok
}

// FirstID is the first entry's id (0-0 when empty).
func (s *Stream) FirstID() ID {
	var id ID
	s.Range(MinID, MaxID, false, func(e Entry) bool { id = e.ID; return false })
	return id
}

// LastEntryID is the last entry's id (0-0 when empty).
func (s *Stream) LastEntryID() ID {
	if !s.lastKnown {
		var id ID
		s.Range(MinID, MaxID, true, func(e Entry) bool { id = e.ID; return false })
		s.lastEntry, s.lastKnown = id, true
	}
	return s.lastEntry
}

// Delete removes the entry with id and reports whether it existed. It
// raises MaxDeletedID as XDEL does.
func (s *Stream) Delete(id ID) bool {
	if !s.remove(id) {
		return false
	}
	if s.maxDeletedID.Less(id) {
		s.maxDeletedID = id
	}
	s.dropHold(id)
	return true
}

// remove flags the entry with id deleted.
func (s *Stream) remove(id ID) bool {
	i := s.nodeFor(id)
	if i < 0 {
		return false
	}
	n := s.nodes[i]
	for off := n.first; off < len(n.buf); {
		flags, eid, _, next := n.decodeAt(off)
		if eid == id {
			if flags&flagDeleted != 0 {
				return false
			}
			n.buf[off] |= flagDeleted
			n.live--
			n.dead += int32(next - off)
			s.length--
			s.lastKnown = false
			s.afterRemove(i)
			return true
		}
		if id.Less(eid) {
			return false
		}
		off = next
	}
	return false
}

// afterRemove drops node i when empty and compacts it when mostly dead.
func (s *Stream) afterRemove(i int) {
	n := s.nodes[i]
	if n.live == 0 {
		s.bytes -= cap(n.buf)
		s.nodes = slices.Delete(s.nodes, i, i+1)
		if s.seekNode == n {
			s.seekNode = nil
		}
		return
	}
	if int(n.dead) > (len(n.buf)-n.first)/2 && i < len(s.nodes)-1 {
		s.compact(n)
	}
}

// compact rewrites n without its deleted entries (keeping its master).
func (s *Stream) compact(n *node) {
	out := make([]byte, 0, len(n.buf)-int(n.dead))
	out = append(out, n.buf[:n.first]...)
	for off := n.first; off < len(n.buf); {
		flags, _, _, next := n.decodeAt(off)
		if flags&flagDeleted == 0 {
			out = append(out, n.buf[off:next]...)
		}
		off = next
	}
	s.bytes += cap(out) - cap(n.buf)
	if s.seekNode == n {
		s.seekNode = nil
	}
	n.buf = out
	n.count = n.live
	n.dead = 0
}

// TrimPlan returns how many entries a trim to maxLen entries (minID false)
// or to ids >= min (minID true) removes, at most limit (0: no limit), and
// the id of the last one removed.
func (s *Stream) TrimPlan(maxLen int64, min ID, byMinID bool, limit int64) (removed int64, last ID) {
	if !byMinID && s.length <= maxLen {
		return 0, ID{}
	}
	want := s.length - maxLen
	s.Range(MinID, MaxID, false, func(e Entry) bool {
		if byMinID {
			if !e.ID.Less(min) {
				return false
			}
		} else if removed >= want {
			return false
		}
		if limit > 0 && removed >= limit {
			return false
		}
		removed++
		last = e.ID
		return true
	})
	return removed, last
}

// RemoveThrough removes every entry with id <= last (the applying half of
// a trim) and returns how many went. Whole nodes go without decoding.
func (s *Stream) RemoveThrough(last ID) int64 {
	s.dropHoldsThrough(last)
	s.lastKnown = false
	var removed int64
	drop := 0
	for drop < len(s.nodes) {
		n := s.nodes[drop]
		if drop+1 < len(s.nodes) && !last.Less(s.nodes[drop+1].master) {
			// Every entry of n is below the next master <= last.
			removed += int64(n.live)
			s.bytes -= cap(n.buf)
			drop++
			continue
		}
		break
	}
	if drop > 0 {
		for _, n := range s.nodes[:drop] {
			if n == s.seekNode {
				s.seekNode = nil
			}
		}
		clear(s.nodes[:drop])
		s.nodes = s.nodes[drop:]
		s.length -= removed
	}
	if len(s.nodes) == 0 {
		return removed
	}
	n := s.nodes[0]
	for off := n.first; off < len(n.buf); {
		flags, id, _, next := n.decodeAt(off)
		if last.Less(id) {
			break
		}
		if flags&flagDeleted == 0 {
			n.buf[off] |= flagDeleted
			n.live--
			n.dead += int32(next - off)
			s.length--
			removed++
		}
		off = next
	}
	s.afterRemove(0)
	return removed
}

// Trim removes entries as TrimPlan describes and returns the count and
// the last id removed.
func (s *Stream) Trim(maxLen int64, min ID, byMinID bool, limit int64) (int64, ID) {
	n, last := s.TrimPlan(maxLen, min, byMinID, limit)
	if n > 0 {
		s.RemoveThrough(last)
	}
	return n, last
}

// MemoryUsage is the heap the stream holds: its nodes, groups and holds.
func (s *Stream) MemoryUsage() int {
	sz := memsize.Alloc(int(unsafe.Sizeof(*s)))
	sz += memsize.Alloc(cap(s.nodes) * 8)
	sz += len(s.nodes) * memsize.Alloc(int(unsafe.Sizeof(node{})))
	sz += s.bytes
	sz += memsize.Alloc(cap(s.holds) * int(unsafe.Sizeof(Hold{})))
	for _, g := range s.groups {
		sz += g.memoryUsage()
	}
	return sz
}

// Clone returns a deep copy.
func (s *Stream) Clone() *Stream {
	c := &Stream{length: s.length, lastID: s.lastID, maxDeletedID: s.maxDeletedID, entriesAdded: s.entriesAdded, bytes: s.bytes}
	c.nodes = make([]*node, len(s.nodes))
	for i, n := range s.nodes {
		cn := *n
		cn.buf = slices.Clip(append([]byte(nil), n.buf...))
		c.bytes += cap(cn.buf) - cap(n.buf)
		c.nodes[i] = &cn
	}
	c.holds = slices.Clone(s.holds)
	for _, g := range s.groups {
		c.addGroup(g.clone())
	}
	return c
}
