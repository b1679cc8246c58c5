package rdb

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
)

// Streams (types 15 and 19) are a count of nodes, each a 16-byte key (the
// node's master ID, ms and seq big-endian) and a listpack, both strings;
// then the length, the last ID (ms, seq); for type 19 the first ID, the
// largest deleted ID and the count of entries ever added; then the
// consumer groups:
//
//	group    := name, last ID (ms, seq), [entries read (type 19)],
//	            PEL count, count × (ID 16 bytes BE, delivery time 8 bytes
//	            LE ms, delivery count), consumer count, count × consumer
//	consumer := name, seen time 8 bytes LE ms, PEL count, count × ID
//
// Numbers are lengths unless said otherwise; an unknown entries-read
// count (-1) is stored as the length 2^64-1. A node's listpack holds the
// master entry — live count, deleted count, field count, the field names
// and 0 — then the entries, each its flags (1 deleted, 2 same field
// names as the master), ms and seq as differences from the master ID,
// the field count and names unless flag 2, the values, and the number of
// listpack elements the entry took before this one.

// Stream entry flags.
const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// Node limits of Redis 7.0's defaults (stream-node-max-bytes and
// stream-node-max-entries).
const (
	streamNodeMaxBytes   = 4096
	streamNodeMaxEntries = 100
)

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

func (a StreamID) less(b StreamID) bool { return a.Ms < b.Ms || (a.Ms == b.Ms && a.Seq < b.Seq) }

func (a StreamID) compare(b StreamID) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

// String formats the ID as ms-seq.
func (a StreamID) String() string {
	return strconv.FormatUint(a.Ms, 10) + "-" + strconv.FormatUint(a.Seq, 10)
}

// StreamEntry is a live entry: its ID and its fields, names and values
// alternating.
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte
}

// StreamPending is an entry of a group's pending-entries list.
type StreamPending struct {
	ID            StreamID
	DeliveryTime  int64 // unix ms
	DeliveryCount uint64
}

// StreamConsumer is a consumer of a group and the IDs pending for it
// (each also in the group's PEL).
type StreamConsumer struct {
	Name     []byte
	SeenTime int64 // unix ms
	PEL      []StreamID
}

// StreamGroup is a consumer group. EntriesRead is -1 when unknown.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64
	PEL         []StreamPending
	Consumers   []StreamConsumer
}

// Stream is the contents of a stream: its live entries in ID order, its
// metadata and its consumer groups (by name, with their PELs in ID order).
type Stream struct {
	Entries      []StreamEntry
	LastID       StreamID
	FirstID      StreamID // 0-0 when empty
	MaxDeletedID StreamID
	EntriesAdded uint64
	Groups       []StreamGroup
}

// stream reads a stream value of type t (15 or 19).
func (d *decoder) stream(t Type) (*Stream, error) {
	nodes, err := d.count()
	if err != nil {
		return nil, err
	}
	s := &Stream{}
	var prevMaster StreamID
	for i := range nodes {
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		if len(key) != 16 {
			return nil, badf("stream node key of %d bytes", len(key))
		}
		master := StreamID{binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])}
		if i > 0 && !prevMaster.less(master) {
			return nil, badf("stream node %s out of order", master)
		}
		prevMaster = master
		lp, err := d.string()
		if err != nil {
			return nil, err
		}
		if s.Entries, err = appendStreamNode(s.Entries, master, lp); err != nil {
			return nil, err
		}
	}
	var meta [3]uint64
	for i := range meta {
		if meta[i], err = d.plainLength(); err != nil {
			return nil, err
		}
	}
	length := meta[0]
	s.LastID = StreamID{meta[1], meta[2]}
	if length != uint64(len(s.Entries)) {
		return nil, badf("stream length %d, %d entries", length, len(s.Entries))
	}
	if n := len(s.Entries); n > 0 && s.LastID.less(s.Entries[n-1].ID) {
		return nil, badf("stream last ID %s below its last entry", s.LastID)
	}
	if t == TypeStreamListpacks2 {
		var v2 [5]uint64
		for i := range v2 {
			if v2[i], err = d.plainLength(); err != nil {
				return nil, err
			}
		}
		s.FirstID = StreamID{v2[0], v2[1]}
		s.MaxDeletedID = StreamID{v2[2], v2[3]}
		s.EntriesAdded = v2[4]
		if s.EntriesAdded < length {
			return nil, badf("stream entries added %d below its length %d", s.EntriesAdded, length)
		}
	} else {
		// The older type keeps no history: the first entry is the first
		// ever added, and nothing was deleted.
		if len(s.Entries) > 0 {
			s.FirstID = s.Entries[0].ID
		}
		s.EntriesAdded = length
	}
	groups, err := d.count()
	if err != nil {
		return nil, err
	}
	for range groups {
		g, err := d.streamGroup(t, s)
		if err != nil {
			return nil, err
		}
		s.Groups = append(s.Groups, g)
	}
	slices.SortFunc(s.Groups, func(a, b StreamGroup) int { return bytes.Compare(a.Name, b.Name) })
	for i := 1; i < len(s.Groups); i++ {
		if bytes.Equal(s.Groups[i-1].Name, s.Groups[i].Name) {
			return nil, badf("duplicate stream group %q", s.Groups[i].Name)
		}
	}
	return s, nil
}

// streamID reads an ID stored as 16 raw bytes.
func (d *decoder) streamID() (StreamID, error) {
	var b [16]byte
	if err := d.full(b[:]); err != nil {
		return StreamID{}, err
	}
	return StreamID{binary.BigEndian.Uint64(b[:]), binary.BigEndian.Uint64(b[8:])}, nil
}

// millis reads a time in milliseconds stored as 8 bytes little-endian.
func (d *decoder) millis() (int64, error) {
	var b [8]byte
	err := d.full(b[:])
	return int64(binary.LittleEndian.Uint64(b[:])), err
}

func (d *decoder) streamGroup(t Type, s *Stream) (StreamGroup, error) {
	var g StreamGroup
	var err error
	if g.Name, err = d.string(); err != nil {
		return g, err
	}
	ms, err := d.plainLength()
	if err != nil {
		return g, err
	}
	seq, err := d.plainLength()
	if err != nil {
		return g, err
	}
	g.LastID = StreamID{ms, seq}
	if t == TypeStreamListpacks2 {
		er, err := d.plainLength()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(er)
		if g.EntriesRead < -1 {
			return g, badf("stream group entries read %d", er)
		}
	} else {
		g.EntriesRead = s.estimateDistance(g.LastID)
	}
	n, err := d.count()
	if err != nil {
		return g, err
	}
	for range n {
		var p StreamPending
		if p.ID, err = d.streamID(); err != nil {
			return g, err
		}
		if p.DeliveryTime, err = d.millis(); err != nil {
			return g, err
		}
		if p.DeliveryCount, err = d.plainLength(); err != nil {
			return g, err
		}
		g.PEL = append(g.PEL, p)
	}
	slices.SortFunc(g.PEL, func(a, b StreamPending) int { return a.ID.compare(b.ID) })
	for i := 1; i < len(g.PEL); i++ {
		if g.PEL[i-1].ID == g.PEL[i].ID {
			return g, badf("duplicate PEL entry %s in stream group %q", g.PEL[i].ID, g.Name)
		}
	}
	owned := make([]bool, len(g.PEL))
	n, err = d.count()
	if err != nil {
		return g, err
	}
	for range n {
		var c StreamConsumer
		if c.Name, err = d.string(); err != nil {
			return g, err
		}
		if c.SeenTime, err = d.millis(); err != nil {
			return g, err
		}
		k, err := d.count()
		if err != nil {
			return g, err
		}
		for range k {
			id, err := d.streamID()
			if err != nil {
				return g, err
			}
			i, found := slices.BinarySearchFunc(g.PEL, id, func(p StreamPending, id StreamID) int { return p.ID.compare(id) })
			if !found {
				return g, badf("consumer %q of stream group %q owns %s, not in the group's PEL", c.Name, g.Name, id)
			}
			if owned[i] {
				return g, badf("PEL entry %s of stream group %q has two owners", id, g.Name)
			}
			owned[i] = true
			c.PEL = append(c.PEL, id)
		}
		slices.SortFunc(c.PEL, StreamID.compare)
		g.Consumers = append(g.Consumers, c)
	}
	for i, ok := range owned {
		if !ok {
			return g, badf("PEL entry %s of stream group %q has no consumer", g.PEL[i].ID, g.Name)
		}
	}
	slices.SortFunc(g.Consumers, func(a, b StreamConsumer) int { return bytes.Compare(a.Name, b.Name) })
	for i := 1; i < len(g.Consumers); i++ {
		if bytes.Equal(g.Consumers[i-1].Name, g.Consumers[i].Name) {
			return g, badf("duplicate consumer %q in stream group %q", g.Consumers[i].Name, g.Name)
		}
	}
	return g, nil
}

// estimateDistance is the entries-read count Redis gives a group loaded
// from the older type, which keeps no count: in a stream without history
// (nothing deleted, entries added = length) the distance from the first
// entry is known for the last ID, the first entry and anything before it,
// and unknown (-1) elsewhere.
func (s *Stream) estimateDistance(id StreamID) int64 {
	switch {
	case s.EntriesAdded == 0:
		return 0
	case id == s.LastID:
		return int64(s.EntriesAdded)
	case s.LastID.less(id):
		return -1
	case id.less(s.FirstID):
		return 0
	case id == s.FirstID:
		return 1
	}
	return -1
}

// appendStreamNode checks a node's listpack and appends its live entries
// to dst.
func appendStreamNode(dst []StreamEntry, master StreamID, lp []byte) ([]StreamEntry, error) {
	var items [][]byte
	if err := parseListpack(lp, func(v []byte) error {
		items = append(items, bytes.Clone(v))
		return nil
	}); err != nil {
		return nil, err
	}
	r := lpReader{items: items}
	live, deleted, nf := r.int(), r.int(), r.int()
	if r.err != nil || live < 0 || deleted < 0 || nf < 1 || nf > int64(len(items)) {
		return nil, badf("stream node master entry")
	}
	masterFields := r.take(int(nf))
	if r.int() != 0 {
		return nil, badf("stream node master entry terminator")
	}
	var total, alive int64
	var prev StreamID
	if len(dst) > 0 {
		prev = dst[len(dst)-1].ID
	}
	for !r.done() && r.err == nil {
		flags := r.int()
		msd, seqd := r.int(), r.int()
		id := StreamID{master.Ms + uint64(msd), master.Seq + uint64(seqd)}
		var fields [][]byte
		n, extra := nf, int64(3)
		if flags&streamFlagSameFields != 0 {
			vals := r.take(int(nf))
			if r.err == nil {
				fields = make([][]byte, 0, 2*nf)
				for i, v := range vals {
					fields = append(fields, masterFields[i], v)
				}
			}
		} else {
			n = r.int()
			if n < 1 || n > int64(len(items)) {
				return nil, badf("stream entry field count %d", n)
			}
			fields = r.take(int(2 * n))
			extra += n + 1
		}
		if r.int() != n+extra || r.err != nil || flags&^(streamFlagDeleted|streamFlagSameFields) != 0 {
			return nil, badf("stream entry %d of node %s", total, master)
		}
		total++
		if flags&streamFlagDeleted != 0 {
			continue
		}
		if !prev.less(id) {
			return nil, badf("stream entry %s out of order", id)
		}
		prev = id
		alive++
		dst = append(dst, StreamEntry{ID: id, Fields: fields})
	}
	if r.err != nil || total != live+deleted || alive != live || total == 0 {
		return nil, badf("stream node %s holds %d entries (%d live), says %d and %d deleted", master, total, alive, live, deleted)
	}
	return dst, nil
}

// lpReader walks the elements of a listpack; the first failure sticks.
type lpReader struct {
	items [][]byte
	err   error
}

func (r *lpReader) done() bool { return len(r.items) == 0 }

func (r *lpReader) take(n int) [][]byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.items) {
		r.err = badf("stream node ends inside an entry")
		return nil
	}
	out := r.items[:n:n]
	r.items = r.items[n:]
	return out
}

func (r *lpReader) int() int64 {
	it := r.take(1)
	if r.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(string(it[0]), 10, 64)
	if err != nil {
		r.err = badf("stream node element %q is not an integer", it[0])
	}
	return v
}

// appendStream appends a stream as type 19, its entries packed into nodes
// as Redis 7.0 packs them when they are added one by one under its
// default node limits.
func appendStream(dst []byte, s *Stream) []byte {
	type lpNode struct {
		master StreamID
		lp     []byte
	}
	var nodes []lpNode
	var lb *listpackBuilder
	var master StreamID
	var masterFields [][]byte
	count := 0
	flush := func() {
		patchCount(lb, count)
		nodes = append(nodes, lpNode{master, lb.finish()})
	}
	var ibuf [24]byte
	addInt := func(v int64) { lb.add(strconv.AppendInt(ibuf[:0], v, 10)) }
	for _, e := range s.Entries {
		if lb != nil {
			var elen int
			for _, f := range e.Fields {
				elen += len(f)
			}
			if lb.size()+elen >= streamNodeMaxBytes || count >= streamNodeMaxEntries {
				flush()
				lb = nil
			}
		}
		flags := int64(0)
		if lb == nil {
			lb, master, count = newListpack(), e.ID, 0
			addInt(1) // live count, patched when the node is done
			addInt(0)
			addInt(int64(len(e.Fields) / 2))
			masterFields = masterFields[:0]
			for i := 0; i < len(e.Fields); i += 2 {
				lb.add(e.Fields[i])
				masterFields = append(masterFields, e.Fields[i])
			}
			addInt(0)
			flags = streamFlagSameFields
		} else if len(e.Fields)/2 == len(masterFields) {
			flags = streamFlagSameFields
			for i, f := range masterFields {
				if !bytes.Equal(f, e.Fields[2*i]) {
					flags = 0
					break
				}
			}
		}
		nf := int64(len(e.Fields) / 2)
		addInt(flags)
		addInt(int64(e.ID.Ms - master.Ms))
		addInt(int64(e.ID.Seq - master.Seq))
		if flags == 0 {
			addInt(nf)
		}
		for i := 0; i < len(e.Fields); i += 2 {
			if flags == 0 {
				lb.add(e.Fields[i])
			}
			lb.add(e.Fields[i+1])
		}
		lpCount := nf + 3
		if flags == 0 {
			lpCount += nf + 1
		}
		addInt(lpCount)
		count++
	}
	if lb != nil {
		flush()
	}
	dst = AppendLength(append(dst, byte(TypeStreamListpacks2)), uint64(len(nodes)))
	var key [16]byte
	for _, n := range nodes {
		binary.BigEndian.PutUint64(key[:], n.master.Ms)
		binary.BigEndian.PutUint64(key[8:], n.master.Seq)
		dst = AppendString(dst, key[:])
		dst = AppendString(dst, n.lp)
	}
	for _, v := range []uint64{uint64(len(s.Entries)), s.LastID.Ms, s.LastID.Seq, s.FirstID.Ms, s.FirstID.Seq,
		s.MaxDeletedID.Ms, s.MaxDeletedID.Seq, s.EntriesAdded, uint64(len(s.Groups))} {
		dst = AppendLength(dst, v)
	}
	groups := slices.Clone(s.Groups)
	slices.SortFunc(groups, func(a, b StreamGroup) int { return bytes.Compare(a.Name, b.Name) })
	for _, g := range groups {
		dst = AppendString(dst, g.Name)
		dst = AppendLength(dst, g.LastID.Ms)
		dst = AppendLength(dst, g.LastID.Seq)
		dst = AppendLength(dst, uint64(g.EntriesRead))
		dst = AppendLength(dst, uint64(len(g.PEL)))
		for _, p := range g.PEL {
			dst = appendStreamID(dst, p.ID)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.DeliveryTime))
			dst = AppendLength(dst, p.DeliveryCount)
		}
		consumers := slices.Clone(g.Consumers)
		slices.SortFunc(consumers, func(a, b StreamConsumer) int { return bytes.Compare(a.Name, b.Name) })
		dst = AppendLength(dst, uint64(len(consumers)))
		for _, c := range consumers {
			dst = AppendString(dst, c.Name)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(c.SeenTime))
			dst = AppendLength(dst, uint64(len(c.PEL)))
			for _, id := range c.PEL {
				dst = appendStreamID(dst, id)
			}
		}
	}
	return dst
}

// patchCount sets the live count of a node being built (its first
// element, written as 1) to n, which is at most streamNodeMaxEntries and
// so keeps the same 1-byte encoding.
func patchCount(lb *listpackBuilder, n int) {
	lb.b[6] = byte(n)
}

func appendStreamID(dst []byte, id StreamID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}
