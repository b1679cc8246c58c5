package zset

import (
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/memsize"
)

const (
	maxLevel = 32
	// levelCut gives each level a 1/4 chance to grow, as Redis's
	// ZSKIPLIST_P over a 16-bit draw.
	levelCut = 0x10000 / 4
)

type slLevel struct {
	forward *slNode
	span    int
}

// slNode is a skiplist node. Its levels live in the same allocation: a
// node of k levels is allocated as the smallest nodeN type below with at
// least k, and lvl(i) reaches level i by offset from lv0. That saves the
// separate level slice (its 24-byte header and its own allocation): a
// one-level node, three in four, is 48 bytes in all.
type slNode struct {
	member   string
	score    float64
	backward *slNode
	lv0      slLevel
}

// lvl returns level i of n; n must have more than i levels.
func (n *slNode) lvl(i int) *slLevel {
	return (*slLevel)(unsafe.Add(unsafe.Pointer(&n.lv0), uintptr(i)*unsafe.Sizeof(slLevel{})))
}

type (
	node2 struct {
		slNode
		_ [1]slLevel // levels 1.. (reached through lvl)
	}
	node3 struct {
		slNode
		_ [2]slLevel // levels 1.. (reached through lvl)
	}
	node4 struct {
		slNode
		_ [3]slLevel // levels 1.. (reached through lvl)
	}
	node6 struct {
		slNode
		_ [5]slLevel // levels 1.. (reached through lvl)
	}
	node8 struct {
		slNode
		_ [7]slLevel // levels 1.. (reached through lvl)
	}
	node16 struct {
		slNode
		_ [15]slLevel // levels 1.. (reached through lvl)
	}
	node32 struct {
		slNode
		_ [31]slLevel // levels 1.. (reached through lvl)
	}
)

// newNode allocates a node with room for k levels and returns it with
// the number of levels its allocation holds.
func newNode(k int) (*slNode, int) {
	switch {
	case k <= 1:
		return &slNode{}, 1
	case k == 2:
		return &(&node2{}).slNode, 2
	case k == 3:
		return &(&node3{}).slNode, 3
	case k == 4:
		return &(&node4{}).slNode, 4
	case k <= 6:
		return &(&node6{}).slNode, 6
	case k <= 8:
		return &(&node8{}).slNode, 8
	case k <= 16:
		return &(&node16{}).slNode, 16
	}
	return &(&node32{}).slNode, 32
}

// nodeBytes is the size of the allocation newNode makes for k levels.
func nodeBytes(k int) int {
	switch {
	case k <= 1:
		return int(unsafe.Sizeof(slNode{}))
	case k == 2:
		return int(unsafe.Sizeof(node2{}))
	case k == 3:
		return int(unsafe.Sizeof(node3{}))
	case k == 4:
		return int(unsafe.Sizeof(node4{}))
	case k <= 6:
		return int(unsafe.Sizeof(node6{}))
	case k <= 8:
		return int(unsafe.Sizeof(node8{}))
	case k <= 16:
		return int(unsafe.Sizeof(node16{}))
	}
	return int(unsafe.Sizeof(node32{}))
}

// skiplist orders (score, member) pairs and counts ranks through spans,
// as Redis's zskiplist: O(log n) insert, delete, rank and seek by rank.
type skiplist struct {
	header *slNode
	tail   *slNode
	length int
	level  int
	rng    uint64 // xorshift state for node levels
	// nodeMem is the allocation size of the live nodes (header excluded)
	// and their member strings, kept as nodes come and go so that memory
	// need not walk the levels.
	nodeMem int
}

func newSkiplist() *skiplist {
	h, _ := newNode(maxLevel)
	return &skiplist{header: h, level: 1, rng: 0x9e3779b97f4a7c15}
}

// less reports whether (s1, m1) sorts before (s2, m2).
func less(s1 float64, m1 string, s2 float64, m2 string) bool {
	return s1 < s2 || s1 == s2 && m1 < m2
}

func (sl *skiplist) randomLevel() int {
	lvl := 1
	for lvl < maxLevel {
		sl.rng ^= sl.rng << 13
		sl.rng ^= sl.rng >> 7
		sl.rng ^= sl.rng << 17
		if sl.rng&0xffff >= levelCut {
			break
		}
		lvl++
	}
	return lvl
}

func (sl *skiplist) insert(score float64, member string) *slNode {
	lvl := sl.randomLevel()
	n, _ := newNode(lvl)
	sl.nodeMem += memsize.Alloc(nodeBytes(lvl)) + memsize.NoScan(len(member))
	n.member = member
	sl.link(n, lvl, score)
	return n
}

// link puts n, a node of lvl levels not in the list, at the place of
// (score, n.member).
func (sl *skiplist) link(n *slNode, lvl int, score float64) {
	var update [maxLevel]*slNode
	var rank [maxLevel]int
	member := n.member
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		if i < sl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := x.lvl(i).forward; f != nil && less(f.score, f.member, score, member); f = x.lvl(i).forward {
			rank[i] += x.lvl(i).span
			x = f
		}
		update[i] = x
	}
	if lvl > sl.level {
		for i := sl.level; i < lvl; i++ {
			rank[i] = 0
			update[i] = sl.header
			update[i].lvl(i).span = sl.length
		}
		sl.level = lvl
	}
	n.score = score
	for i := 0; i < lvl; i++ {
		n.lvl(i).forward = update[i].lvl(i).forward
		update[i].lvl(i).forward = n
		n.lvl(i).span = update[i].lvl(i).span - (rank[0] - rank[i])
		update[i].lvl(i).span = rank[0] - rank[i] + 1
	}
	for i := lvl; i < sl.level; i++ {
		update[i].lvl(i).span++
	}
	n.backward = nil
	if update[0] != sl.header {
		n.backward = update[0]
	}
	if n.lvl(0).forward != nil {
		n.lvl(0).forward.backward = n
	} else {
		sl.tail = n
	}
	sl.length++
}

func (sl *skiplist) deleteNode(x *slNode, update *[maxLevel]*slNode) {
	height := sl.unlink(x, update)
	sl.nodeMem -= memsize.Alloc(nodeBytes(height)) + memsize.NoScan(len(x.member))
}

// unlink takes x out of the list, update holding its predecessor at
// every level, and returns how many levels x has.
func (sl *skiplist) unlink(x *slNode, update *[maxLevel]*slNode) int {
	height := 0 // the levels x is linked in: the level it was given
	for i := 0; i < sl.level; i++ {
		if update[i].lvl(i).forward == x {
			height++
			update[i].lvl(i).span += x.lvl(i).span - 1
			update[i].lvl(i).forward = x.lvl(i).forward
		} else {
			update[i].lvl(i).span--
		}
	}
	if x.lvl(0).forward != nil {
		x.lvl(0).forward.backward = x.backward
	} else {
		sl.tail = x.backward
	}
	for sl.level > 1 && sl.header.lvl(sl.level-1).forward == nil {
		sl.level--
	}
	sl.length--
	return height
}

// find fills update with the last node before (score, member) at every
// level and returns the node holding (score, member), or nil.
func (sl *skiplist) find(score float64, member string, update *[maxLevel]*slNode) *slNode {
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && less(f.score, f.member, score, member); f = x.lvl(i).forward {
			x = f
		}
		update[i] = x
	}
	x = x.lvl(0).forward
	if x == nil || x.score != score || x.member != member {
		return nil
	}
	return x
}

// updateScore moves x, a node of the list, to score, as Redis's
// zslUpdateScore: in place when the new score keeps its neighbours (no
// walk at all, the node being known), else by unlinking the node and
// linking the same node at its new place, so that an update allocates
// nothing.
func (sl *skiplist) updateScore(x *slNode, score float64) {
	if (x.backward == nil || x.backward.score < score) && (x.lvl(0).forward == nil || x.lvl(0).forward.score > score) {
		x.score = score
		return
	}
	var update [maxLevel]*slNode
	if sl.find(x.score, x.member, &update) != x {
		panic("zset: updateScore of a node not in the skiplist")
	}
	height := sl.unlink(x, &update)
	sl.link(x, height, score)
}

// remove deletes the node holding (score, member) and reports whether it
// existed.
func (sl *skiplist) remove(score float64, member string) bool {
	var update [maxLevel]*slNode
	x := sl.find(score, member, &update)
	if x == nil {
		return false
	}
	sl.deleteNode(x, &update)
	return true
}

// rank returns the 1-based rank of (score, member), 0 if absent.
func (sl *skiplist) rank(score float64, member string) int {
	r := 0
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && (less(f.score, f.member, score, member) || f.score == score && f.member == member); f = x.lvl(i).forward {
			r += x.lvl(i).span
			x = f
		}
		if x != sl.header && x.member == member && x.score == score {
			return r
		}
	}
	return 0
}

// byRank returns the node at 1-based rank r, or nil.
func (sl *skiplist) byRank(r int) *slNode {
	if r < 1 || r > sl.length {
		return nil
	}
	traversed := 0
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for x.lvl(i).forward != nil && traversed+x.lvl(i).span <= r {
			traversed += x.lvl(i).span
			x = x.lvl(i).forward
		}
		if traversed == r {
			return x
		}
	}
	return nil
}

// first returns the first node for which below is false, where below is
// monotone (true for a prefix of the order).
func (sl *skiplist) first(below func(n *slNode) bool) *slNode {
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && below(f); f = x.lvl(i).forward {
			x = f
		}
	}
	return x.lvl(0).forward
}

// last returns the last node for which within is true, where within is
// monotone (true for a prefix of the order), or nil.
func (sl *skiplist) last(within func(n *slNode) bool) *slNode {
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && within(f); f = x.lvl(i).forward {
			x = f
		}
	}
	if x == sl.header {
		return nil
	}
	return x
}

// rangeFrom calls fn for the nodes within [gteMin, lteMax] (both
// monotone: gteMin false for a prefix of the order, lteMax true for one),
// ascending from the first or (rev) descending from the last, stopping
// when fn returns false or after count calls (count < 0: no limit).
// Member slices are valid during the call only.
func (sl *skiplist) rangeFrom(gteMin, lteMax func(m []byte, s float64) bool, rev bool, count int, fn func([]byte, float64) bool) {
	var x *slNode
	if rev {
		x = sl.last(func(n *slNode) bool { return lteMax(bytesOf(n.member), n.score) })
	} else {
		x = sl.first(func(n *slNode) bool { return !gteMin(bytesOf(n.member), n.score) })
	}
	for ; x != nil && count != 0; count-- {
		m := bytesOf(x.member)
		if rev && !gteMin(m, x.score) || !rev && !lteMax(m, x.score) {
			return
		}
		if !fn(m, x.score) {
			return
		}
		if rev {
			x = x.backward
		} else {
			x = x.lvl(0).forward
		}
	}
}

// memory returns the heap bytes of the nodes and their member strings,
// the header's included: O(1), from the running figure.
func (sl *skiplist) memory() int {
	return memsize.Alloc(nodeBytes(maxLevel)) + sl.nodeMem
}
