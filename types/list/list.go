// Package list is the Redis list: a chain of packed nodes like Redis's
// quicklist, giving O(1) push and pop at both ends and compact storage.
//
// Each node is one pointer-free []byte of entries in the shared packed
// layout (types/internal/lp). The live entries of a node are buf[start:],
// so a pop at the front only advances start and a push at the front fills
// the room before it; a pop at the back truncates. The nodes themselves sit
// in one slice with spare room at the front, so adding or dropping a node
// at either end is amortised O(1).
//
// Node size follows list-max-listpack-size (Redis 7.0, default -2): a
// negative fill limits each node's bytes (-1 4 KiB, -2 8 KiB, -3 16 KiB,
// -4 32 KiB, -5 64 KiB); a positive fill limits entries per node, and a
// node still never grows past 8 KiB unless one entry alone is larger. An
// element bigger than the limit gets a node of its own. Redis 7.0 reports
// every list as "quicklist" (OBJECT ENCODING), and so does Encoding.
// Nodes are not compressed (list-compress-depth is accepted by the command
// layer but has no effect here).
//
// # Binary encoding (version 1)
//
//	byte    1 (version)
//	uvarint number of nodes
//	per node:
//	  uvarint entries in the node (> 0)
//	  uvarint byte length of the node
//	  bytes   the node's entries in the lp layout
//
// Unmarshal keeps the node boundaries it reads, so loading is a copy and
// a validation pass, not a re-insertion.
package list

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/lp"
	"github.com/ruvio/ruvio/types/internal/memsize"
)

// DefaultFill is Redis 7.0's default list-max-listpack-size.
const DefaultFill = -2

// sizeSafetyLimit caps a count-limited node's bytes, as Redis does.
const sizeSafetyLimit = 8192

// encodingVersion is the first byte of MarshalBinary's output.
const encodingVersion = 1

// ErrCorrupt is returned by Unmarshal for input that is not a list
// encoding.
var ErrCorrupt = errors.New("list: corrupt encoding")

type node struct {
	buf   []byte // entries live in buf[start:]
	start int
	count int
}

func (n *node) size() int { return len(n.buf) - n.start }

// List is a Redis list. The zero value is not ready; use New.
type List struct {
	nodes []node // live nodes are nodes[head:]
	head  int
	n     int
	fill  int
	// bufBytes is the rounded allocation size of every live node's
	// buffer, kept as buffers change so that MemoryUsage need not visit
	// the nodes.
	bufBytes int
}

// setBuf makes b the buffer of nd, a live node, keeping bufBytes.
func (l *List) setBuf(nd *node, b []byte) {
	if cap(b) != cap(nd.buf) {
		l.bufBytes += memsize.NoScan(cap(b)) - memsize.NoScan(cap(nd.buf))
	}
	nd.buf = b
}

// New returns an empty list whose nodes follow fill
// (list-max-listpack-size).
func New(fill int) *List {
	if fill == 0 {
		fill = 1
	}
	return &List{fill: fill}
}

// SetFill changes the node size limit for nodes filled from now on.
func (l *List) SetFill(fill int) {
	if fill == 0 {
		fill = 1
	}
	l.fill = fill
}

// Len returns the number of elements.
func (l *List) Len() int { return l.n }

// Encoding returns the name OBJECT ENCODING reports in Redis 7.0.
func (l *List) Encoding() string { return "quicklist" }

func (l *List) live() []node { return l.nodes[l.head:] }

func (l *List) byteLimit() int {
	if l.fill >= 0 {
		return sizeSafetyLimit
	}
	f := -l.fill
	if f > 5 {
		f = 5
	}
	return 4096 << (f - 1)
}

// allows reports whether an entry of sz bytes may join nd.
func (l *List) allows(nd *node, sz int) bool {
	if nd.count == 0 {
		return true
	}
	if nd.size()+sz > l.byteLimit() {
		return false
	}
	return l.fill < 0 || nd.count < l.fill
}

// PushFront inserts v at the head (LPUSH).
func (l *List) PushFront(v []byte) {
	sz := lp.EntrySize(len(v))
	live := l.live()
	if len(live) == 0 || !l.allows(&live[0], sz) {
		var nd node
		if len(live) > 0 {
			c := l.nextNodeCap(sz)
			nd.buf, nd.start = make([]byte, c), c
		}
		l.insertNode(0, nd)
	}
	nd := &l.nodes[l.head]
	if nd.start < sz {
		// Make room before the data: headroom equal to the data size, so
		// repeated pushes at the front are amortised O(1).
		data := nd.buf[nd.start:]
		room := len(data) + sz
		if room < 32 {
			room = 32
		}
		nb := make([]byte, room+len(data))
		copy(nb[room:], data)
		l.setBuf(nd, nb)
		nd.start = room
	}
	nd.start -= sz
	lp.Put(nd.buf[nd.start:], v)
	nd.count++
	l.n++
}

// PushBack appends v at the tail (RPUSH).
func (l *List) PushBack(v []byte) {
	sz := lp.EntrySize(len(v))
	live := l.live()
	if len(live) == 0 || !l.allows(&live[len(live)-1], sz) {
		var nd node
		if len(live) > 0 {
			nd.buf = make([]byte, 0, l.nextNodeCap(sz))
		}
		l.insertNode(len(live), nd)
	}
	nd := &l.nodes[len(l.nodes)-1]
	if cap(nd.buf)-len(nd.buf) < sz && nd.start > 0 && nd.start >= nd.size() {
		// Mostly popped from the front: slide the data down instead of
		// growing, so a single-node queue stays bounded.
		k := copy(nd.buf, nd.buf[nd.start:])
		nd.buf, nd.start = nd.buf[:k], 0
	}
	l.setBuf(nd, lp.Append(nd.buf, v))
	nd.count++
	l.n++
}

// nextNodeCap is the buffer size of a node started at an end of the list
// because the node there is full, for a first entry of sz bytes. A list
// that filled one node is likely to fill the next, so the buffer is made
// at the node's limit at once: grown by doubling from empty it would be
// allocated and copied about a dozen times on the way.
func (l *List) nextNodeCap(sz int) int {
	c := l.byteLimit()
	if l.fill > 0 && l.fill <= c/max(sz, 1) {
		c = l.fill * sz
	}
	return max(c, sz)
}

// insertNode inserts nd before live node i.
func (l *List) insertNode(i int, nd node) {
	l.bufBytes += memsize.NoScan(cap(nd.buf))
	if i == 0 && l.head > 0 {
		l.head--
		l.nodes[l.head] = nd
		return
	}
	if i == 0 {
		// Re-centre with room at the front.
		live := l.live()
		room := len(live) + 1
		nn := make([]node, room+len(live), room+2*len(live)+1)
		copy(nn[room:], live)
		l.nodes, l.head = nn, room-1
		l.nodes[l.head] = nd
		return
	}
	abs := l.head + i
	l.nodes = append(l.nodes, node{})
	copy(l.nodes[abs+1:], l.nodes[abs:])
	l.nodes[abs] = nd
}

// removeNode drops live node i.
func (l *List) removeNode(i int) {
	abs := l.head + i
	l.bufBytes -= memsize.NoScan(cap(l.nodes[abs].buf))
	if i == 0 {
		l.nodes[abs] = node{}
		l.head++
		if l.head == len(l.nodes) {
			l.nodes, l.head = l.nodes[:0], 0
		}
		return
	}
	copy(l.nodes[abs:], l.nodes[abs+1:])
	l.nodes[len(l.nodes)-1] = node{}
	l.nodes = l.nodes[:len(l.nodes)-1]
}

// PopFront removes and returns the head element (LPOP). The slice is
// valid until the next mutation of l: copy it before pushing it into l
// again.
func (l *List) PopFront() ([]byte, bool) {
	if l.n == 0 {
		return nil, false
	}
	nd := &l.nodes[l.head]
	v, next := lp.Next(nd.buf, nd.start)
	nd.start = next
	nd.count--
	l.n--
	if nd.count == 0 {
		l.removeNode(0)
	}
	return v, true
}

// PopBack removes and returns the tail element (RPOP), with PopFront's
// lifetime rule.
func (l *List) PopBack() ([]byte, bool) {
	if l.n == 0 {
		return nil, false
	}
	i := len(l.nodes) - 1
	nd := &l.nodes[i]
	s := lp.Prev(nd.buf, len(nd.buf))
	v, _ := lp.Next(nd.buf, s)
	nd.buf = nd.buf[:s]
	nd.count--
	l.n--
	if nd.count == 0 {
		l.removeNode(i - l.head)
	}
	return v, true
}

// normIndex turns a Redis index (negative counts from the tail) into a
// position, or -1 when out of range.
func (l *List) normIndex(i int) int {
	if i < 0 {
		i += l.n
	}
	if i < 0 || i >= l.n {
		return -1
	}
	return i
}

// locate returns the live node index and byte offset of element pos.
func (l *List) locate(pos int) (int, int) {
	live := l.live()
	if pos < l.n/2 {
		for ni := range live {
			nd := &live[ni]
			if pos < nd.count {
				off := nd.start
				for ; pos > 0; pos-- {
					_, off = lp.Next(nd.buf, off)
				}
				return ni, off
			}
			pos -= nd.count
		}
	}
	rest := l.n - 1 - pos // elements after pos
	for ni := len(live) - 1; ni >= 0; ni-- {
		nd := &live[ni]
		if rest < nd.count {
			off := lp.Prev(nd.buf, len(nd.buf))
			for ; rest > 0; rest-- {
				off = lp.Prev(nd.buf, off)
			}
			return ni, off
		}
		rest -= nd.count
	}
	panic("list: locate out of range")
}

// Index returns the element at index i (LINDEX; negative from the tail).
func (l *List) Index(i int) ([]byte, bool) {
	pos := l.normIndex(i)
	if pos < 0 {
		return nil, false
	}
	ni, off := l.locate(pos)
	v, _ := lp.Next(l.live()[ni].buf, off)
	return v, true
}

// Set replaces the element at index i (LSET) and reports whether the
// index was in range.
func (l *List) Set(i int, v []byte) bool {
	pos := l.normIndex(i)
	if pos < 0 {
		return false
	}
	ni, off := l.locate(pos)
	nd := &l.live()[ni]
	_, end := lp.Next(nd.buf, off)
	l.setBuf(nd, lp.Replace(nd.buf, off, end, v))
	l.maybeSplit(ni)
	return true
}

// maybeSplit halves live node ni if it outgrew the node limit.
func (l *List) maybeSplit(ni int) {
	nd := &l.live()[ni]
	if nd.count < 2 || (nd.size() <= l.byteLimit() && (l.fill < 0 || nd.count <= l.fill)) {
		return
	}
	half := nd.count / 2
	off := nd.start
	for k := 0; k < half; k++ {
		_, off = lp.Next(nd.buf, off)
	}
	left := node{buf: append([]byte(nil), nd.buf[nd.start:off]...), count: half}
	right := node{buf: append([]byte(nil), nd.buf[off:]...), count: nd.count - half}
	l.setBuf(nd, right.buf)
	*nd = right
	l.insertNode(ni, left)
	// A half holding a large element may still be over the limit.
	l.maybeSplit(ni + 1)
	l.maybeSplit(ni)
}

// Insert inserts v before (or after, if after) the first element equal to
// pivot, searching from the head (LINSERT). It returns the new length, or
// -1 if pivot is absent.
func (l *List) Insert(pivot, v []byte, after bool) int {
	live := l.live()
	for ni := range live {
		nd := &live[ni]
		for off := nd.start; off < len(nd.buf); {
			e, next := lp.Next(nd.buf, off)
			if bytes.Equal(e, pivot) {
				at := off
				if after {
					at = next
				}
				if at == nd.start && nd.start >= lp.EntrySize(len(v)) {
					nd.start -= lp.EntrySize(len(v))
					lp.Put(nd.buf[nd.start:], v)
				} else {
					l.setBuf(nd, lp.Insert(nd.buf, at, v))
				}
				nd.count++
				l.n++
				l.maybeSplit(ni)
				return l.n
			}
			off = next
		}
	}
	return -1
}

// Remove deletes up to count elements equal to v (LREM): count > 0 from
// the head, count < 0 from the tail, 0 all of them. It returns how many it
// removed.
func (l *List) Remove(v []byte, count int) int {
	removed := 0
	limit := count
	if limit < 0 {
		limit = -limit
	}
	if count >= 0 {
		for ni := 0; ni < len(l.live()); {
			nd := &l.live()[ni]
			for off := nd.start; off < len(nd.buf); {
				e, next := lp.Next(nd.buf, off)
				if !bytes.Equal(e, v) {
					off = next
					continue
				}
				l.setBuf(nd, lp.Delete(nd.buf, off, next))
				nd.count--
				l.n--
				removed++
				if limit > 0 && removed == limit {
					break
				}
			}
			if nd.count == 0 {
				l.removeNode(ni)
			} else {
				ni++
			}
			if limit > 0 && removed == limit {
				break
			}
		}
		return removed
	}
	for ni := len(l.live()) - 1; ni >= 0; ni-- {
		nd := &l.live()[ni]
		for end := len(nd.buf); end > nd.start; {
			s := lp.Prev(nd.buf, end)
			e, _ := lp.Next(nd.buf, s)
			if bytes.Equal(e, v) {
				l.setBuf(nd, lp.Delete(nd.buf, s, end))
				nd.count--
				l.n--
				removed++
				if removed == limit {
					break
				}
			}
			end = s
		}
		if nd.count == 0 {
			l.removeNode(ni)
		}
		if removed == limit {
			break
		}
	}
	return removed
}

// Span normalises Redis start/stop indexes (LRANGE, LTRIM) against length
// n: it returns inclusive positions lo..hi, with lo > hi for an empty
// range.
func Span(start, stop, n int) (lo, hi int) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, -1
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop
}

// Range calls fn for the elements at positions lo..hi (inclusive, already
// normalised, see Span), from the head, until fn returns false.
func (l *List) Range(lo, hi int, fn func(v []byte) bool) {
	if lo < 0 || hi >= l.n || lo > hi {
		return
	}
	ni, off := l.locate(lo)
	live := l.live()
	left := hi - lo + 1
	for ; ni < len(live); ni++ {
		nd := &live[ni]
		if off < 0 {
			off = nd.start
		}
		for off < len(nd.buf) {
			var e []byte
			e, off = lp.Next(nd.buf, off)
			if !fn(e) {
				return
			}
			if left--; left == 0 {
				return
			}
		}
		off = -1
	}
}

// RangeReverse calls fn for positions hi down to lo (inclusive), until fn
// returns false.
func (l *List) RangeReverse(lo, hi int, fn func(v []byte) bool) {
	if lo < 0 || hi >= l.n || lo > hi {
		return
	}
	ni, off := l.locate(hi)
	live := l.live()
	_, end := lp.Next(live[ni].buf, off)
	left := hi - lo + 1
	for ; ni >= 0; ni-- {
		nd := &live[ni]
		if end < 0 {
			end = len(nd.buf)
		}
		for end > nd.start {
			s := lp.Prev(nd.buf, end)
			e, _ := lp.Next(nd.buf, s)
			if !fn(e) {
				return
			}
			if left--; left == 0 {
				return
			}
			end = s
		}
		end = -1
	}
}

// Trim keeps only the elements between Redis indexes start and stop
// (LTRIM).
func (l *List) Trim(start, stop int) {
	lo, hi := Span(start, stop, l.n)
	if lo > hi {
		l.nodes, l.head, l.n, l.bufBytes = nil, 0, 0, 0
		return
	}
	l.dropFront(lo)
	l.dropBack(l.n - (hi - lo + 1))
}

// dropFront removes the first k elements.
func (l *List) dropFront(k int) {
	for k > 0 {
		nd := &l.nodes[l.head]
		if nd.count <= k {
			k -= nd.count
			l.n -= nd.count
			l.removeNode(0)
			continue
		}
		for ; k > 0; k-- {
			_, nd.start = lp.Next(nd.buf, nd.start)
			nd.count--
			l.n--
		}
	}
}

// dropBack removes the last k elements.
func (l *List) dropBack(k int) {
	for k > 0 {
		i := len(l.nodes) - 1
		nd := &l.nodes[i]
		if nd.count <= k {
			k -= nd.count
			l.n -= nd.count
			l.removeNode(i - l.head)
			continue
		}
		for ; k > 0; k-- {
			nd.buf = nd.buf[:lp.Prev(nd.buf, len(nd.buf))]
			nd.count--
			l.n--
		}
	}
}

// Pos returns the positions of elements equal to v as LPOS defines them,
// appended to dst: rank r (non-zero) skips the first |r|-1 matches, from
// the tail when negative; count limits the matches (0 = all); maxlen
// limits the elements compared (0 = all). Positions are always counted
// from the head.
func (l *List) Pos(dst []int, v []byte, rank, count, maxlen int) []int {
	skip := rank - 1
	if rank < 0 {
		skip = -rank - 1
	}
	found := 0
	compared := 0
	done := func(pos int, e []byte) bool {
		if maxlen > 0 && compared >= maxlen {
			return false
		}
		compared++
		if bytes.Equal(e, v) {
			if skip > 0 {
				skip--
			} else {
				dst = append(dst, pos)
				found++
				if count > 0 && found >= count {
					return false
				}
			}
		}
		return true
	}
	if rank > 0 {
		pos := 0
		l.Range(0, l.n-1, func(e []byte) bool { ok := done(pos, e); pos++; return ok })
	} else {
		pos := l.n - 1
		l.RangeReverse(0, l.n-1, func(e []byte) bool { ok := done(pos, e); pos--; return ok })
	}
	return dst
}

// MemoryUsage returns the heap bytes held by l: the List header, the
// node slice and every node's buffer, each rounded to Go's allocation
// size classes.
func (l *List) MemoryUsage() int {
	return int(unsafe.Sizeof(*l)) + memsize.Alloc(int(unsafe.Sizeof(node{}))*cap(l.nodes)) + l.bufBytes
}

// Clone returns an independent copy of l (for COPY and snapshots).
func (l *List) Clone() *List {
	c := &List{fill: l.fill, n: l.n, nodes: make([]node, len(l.live()))}
	for i, nd := range l.live() {
		c.nodes[i] = node{buf: append([]byte(nil), nd.buf[nd.start:]...), count: nd.count}
		c.bufBytes += memsize.NoScan(cap(c.nodes[i].buf))
	}
	return c
}

// MarshalBinary encodes l in the version 1 format of the package comment.
func (l *List) MarshalBinary() ([]byte, error) {
	return l.AppendBinary(nil)
}

// AppendBinary appends l's encoding to dst.
func (l *List) AppendBinary(dst []byte) ([]byte, error) {
	live := l.live()
	dst = append(dst, encodingVersion)
	dst = binary.AppendUvarint(dst, uint64(len(live)))
	for i := range live {
		nd := &live[i]
		dst = binary.AppendUvarint(dst, uint64(nd.count))
		dst = binary.AppendUvarint(dst, uint64(nd.size()))
		dst = append(dst, nd.buf[nd.start:]...)
	}
	return dst, nil
}

// Unmarshal decodes a list written by MarshalBinary; fill applies to
// nodes filled after loading.
func Unmarshal(b []byte, fill int) (*List, error) {
	l := New(fill)
	if len(b) == 0 || b[0] != encodingVersion {
		return nil, fmt.Errorf("%w: unknown version", ErrCorrupt)
	}
	b = b[1:]
	nn, k := binary.Uvarint(b)
	if k <= 0 || nn > uint64(len(b)) {
		return nil, fmt.Errorf("%w: node count", ErrCorrupt)
	}
	b = b[k:]
	l.nodes = make([]node, 0, nn)
	for i := uint64(0); i < nn; i++ {
		cnt, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, fmt.Errorf("%w: node %d count", ErrCorrupt, i)
		}
		sz, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 || sz > uint64(len(b)-k1-k2) {
			return nil, fmt.Errorf("%w: node %d size", ErrCorrupt, i)
		}
		data := b[k1+k2 : k1+k2+int(sz)]
		got, ok := lp.Check(data)
		if !ok || got == 0 || uint64(got) != cnt {
			return nil, fmt.Errorf("%w: node %d entries", ErrCorrupt, i)
		}
		l.nodes = append(l.nodes, node{buf: append([]byte(nil), data...), count: got})
		l.bufBytes += memsize.NoScan(cap(l.nodes[len(l.nodes)-1].buf))
		l.n += got
		b = b[k1+k2+int(sz):]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(b))
	}
	return l, nil
}
