package zset

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

type slNode struct {
	member   string
	score    float64
	backward *slNode
	level    []slLevel
}

// skiplist orders (score, member) pairs and counts ranks through spans,
// as Redis's zskiplist: O(log n) insert, delete, rank and seek by rank.
type skiplist struct {
	header *slNode
	tail   *slNode
	length int
	level  int
	rng    uint64 // xorshift state for node levels
}

func newSkiplist() *skiplist {
	return &skiplist{header: &slNode{level: make([]slLevel, maxLevel)}, level: 1, rng: 0x9e3779b97f4a7c15}
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
	var update [maxLevel]*slNode
	var rank [maxLevel]int
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		if i < sl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := x.level[i].forward; f != nil && less(f.score, f.member, score, member); f = x.level[i].forward {
			rank[i] += x.level[i].span
			x = f
		}
		update[i] = x
	}
	lvl := sl.randomLevel()
	if lvl > sl.level {
		for i := sl.level; i < lvl; i++ {
			rank[i] = 0
			update[i] = sl.header
			update[i].level[i].span = sl.length
		}
		sl.level = lvl
	}
	n := &slNode{member: member, score: score, level: make([]slLevel, lvl)}
	for i := 0; i < lvl; i++ {
		n.level[i].forward = update[i].level[i].forward
		update[i].level[i].forward = n
		n.level[i].span = update[i].level[i].span - (rank[0] - rank[i])
		update[i].level[i].span = rank[0] - rank[i] + 1
	}
	for i := lvl; i < sl.level; i++ {
		update[i].level[i].span++
	}
	if update[0] != sl.header {
		n.backward = update[0]
	}
	if n.level[0].forward != nil {
		n.level[0].forward.backward = n
	} else {
		sl.tail = n
	}
	sl.length++
	return n
}

func (sl *skiplist) deleteNode(x *slNode, update *[maxLevel]*slNode) {
	for i := 0; i < sl.level; i++ {
		if update[i].level[i].forward == x {
			update[i].level[i].span += x.level[i].span - 1
			update[i].level[i].forward = x.level[i].forward
		} else {
			update[i].level[i].span--
		}
	}
	if x.level[0].forward != nil {
		x.level[0].forward.backward = x.backward
	} else {
		sl.tail = x.backward
	}
	for sl.level > 1 && sl.header.level[sl.level-1].forward == nil {
		sl.level--
	}
	sl.length--
}

// remove deletes the node holding (score, member) and reports whether it
// existed.
func (sl *skiplist) remove(score float64, member string) bool {
	var update [maxLevel]*slNode
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && less(f.score, f.member, score, member); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	x = x.level[0].forward
	if x == nil || x.score != score || x.member != member {
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
		for f := x.level[i].forward; f != nil && (less(f.score, f.member, score, member) || f.score == score && f.member == member); f = x.level[i].forward {
			r += x.level[i].span
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
		for x.level[i].forward != nil && traversed+x.level[i].span <= r {
			traversed += x.level[i].span
			x = x.level[i].forward
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
		for f := x.level[i].forward; f != nil && below(f); f = x.level[i].forward {
			x = f
		}
	}
	return x.level[0].forward
}

// last returns the last node for which within is true, where within is
// monotone (true for a prefix of the order), or nil.
func (sl *skiplist) last(within func(n *slNode) bool) *slNode {
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && within(f); f = x.level[i].forward {
			x = f
		}
	}
	if x == sl.header {
		return nil
	}
	return x
}
