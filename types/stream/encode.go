package stream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Binary encoding (version 1), for snapshots:
//
//	byte    1 (version)
//	id      last id; id max deleted id (an id is uvarint ms, uvarint seq)
//	uvarint entries added
//	uvarint node count; per node: id master, uvarint entry count,
//	        uvarint byte length, the node's bytes (master fields and
//	        entries as in the package comment)
//	uvarint group count; per group:
//	        uvarint len + name, id last, varint entries read,
//	        uvarint consumer count; per consumer: uvarint len + name,
//	                varint seen time
//	        uvarint pending count; per record: id, varint delivery time,
//	                uvarint delivery count, uvarint consumer index (in the
//	                order listed)
//	        uvarint deferred count; ids
//	then, only when the stream has holds:
//	uvarint hold count; per hold: id, varint due
//
// Unmarshal validates every node's layout, so a corrupt input is an error,
// never a panic or a stream that misbehaves later.

const encodingVersion = 1

// ErrCorrupt is returned by Unmarshal for input that is not a stream
// encoding.
var ErrCorrupt = errors.New("stream: corrupt encoding")

func appendID(dst []byte, id ID) []byte {
	dst = binary.AppendUvarint(dst, id.Ms)
	return binary.AppendUvarint(dst, id.Seq)
}

func appendStr(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// AppendBinary appends the stream's encoding to dst.
func (s *Stream) AppendBinary(dst []byte) []byte {
	dst = append(dst, encodingVersion)
	dst = appendID(dst, s.lastID)
	dst = appendID(dst, s.maxDeletedID)
	dst = binary.AppendUvarint(dst, s.entriesAdded)
	dst = binary.AppendUvarint(dst, uint64(len(s.nodes)))
	for _, n := range s.nodes {
		dst = appendID(dst, n.master)
		dst = binary.AppendUvarint(dst, uint64(n.count))
		dst = binary.AppendUvarint(dst, uint64(len(n.buf)))
		dst = append(dst, n.buf...)
	}
	groups := s.Groups()
	dst = binary.AppendUvarint(dst, uint64(len(groups)))
	for _, g := range groups {
		dst = appendStr(dst, g.Name)
		dst = appendID(dst, g.LastID)
		dst = binary.AppendVarint(dst, g.EntriesRead)
		cons := g.Consumers()
		index := make(map[*Consumer]uint64, len(cons))
		dst = binary.AppendUvarint(dst, uint64(len(cons)))
		for i, c := range cons {
			index[c] = uint64(i)
			dst = appendStr(dst, c.Name)
			dst = binary.AppendVarint(dst, c.SeenTime)
		}
		dst = binary.AppendUvarint(dst, uint64(len(g.pel)))
		g.Pending(MinID, MaxID, func(p *Pending) bool {
			dst = appendID(dst, p.ID)
			dst = binary.AppendVarint(dst, p.DeliveryTime)
			dst = binary.AppendUvarint(dst, p.DeliveryCount)
			dst = binary.AppendUvarint(dst, index[p.Consumer])
			return true
		})
		dst = binary.AppendUvarint(dst, uint64(len(g.Deferred)))
		for _, id := range g.Deferred {
			dst = appendID(dst, id)
		}
	}
	if len(s.holds) > 0 {
		dst = binary.AppendUvarint(dst, uint64(len(s.holds)))
		for _, h := range s.holds {
			dst = appendID(dst, h.ID)
			dst = binary.AppendVarint(dst, h.Due)
		}
	}
	return dst
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
	}
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail("bad uvarint")
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) id() ID { return ID{r.uvarint(), r.uvarint()} }

// count reads a count of items of at least min bytes each.
func (r *reader) count(min int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)/min) {
		r.fail("count %d exceeds the input", n)
		return 0
	}
	return int(n)
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.fail("length %d exceeds the input", n)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// Unmarshal decodes an encoding made by AppendBinary. The result does not
// alias b.
func Unmarshal(b []byte) (*Stream, error) {
	if len(b) == 0 || b[0] != encodingVersion {
		return nil, fmt.Errorf("%w: unknown version", ErrCorrupt)
	}
	r := &reader{b: b[1:]}
	s := &Stream{}
	s.lastID = r.id()
	s.maxDeletedID = r.id()
	s.entriesAdded = r.uvarint()
	nn := r.count(4)
	var prevLast ID
	for i := 0; i < nn && r.err == nil; i++ {
		n := &node{master: r.id()}
		cnt := r.uvarint()
		buf := r.bytes()
		if r.err != nil {
			break
		}
		n.buf = slices.Clip(append([]byte(nil), buf...))
		if err := n.validate(cnt, i == 0, prevLast); err != nil {
			return nil, err
		}
		if n.live == 0 {
			return nil, fmt.Errorf("%w: node without entries", ErrCorrupt)
		}
		prevLast = n.lastID()
		s.nodes = append(s.nodes, n)
		s.bytes += cap(n.buf)
		s.length += int64(n.live)
	}
	if r.err == nil && len(s.nodes) > 0 && s.lastID.Less(prevLast) {
		r.fail("last id below the last entry")
	}
	ng := r.count(4)
	for i := 0; i < ng && r.err == nil; i++ {
		name := string(r.bytes())
		g := newGroup(name, r.id(), r.varint())
		if _, dup := s.groups[name]; dup {
			r.fail("duplicate group")
		}
		nc := r.count(2)
		cons := make([]*Consumer, 0, nc)
		for j := 0; j < nc && r.err == nil; j++ {
			c := &Consumer{Name: string(r.bytes()), SeenTime: r.varint()}
			if _, dup := g.consumers[c.Name]; dup {
				r.fail("duplicate consumer")
			}
			g.consumers[c.Name] = c
			cons = append(cons, c)
		}
		np := r.count(5)
		var prev ID
		for j := 0; j < np && r.err == nil; j++ {
			id, at, dc, ci := r.id(), r.varint(), r.uvarint(), r.uvarint()
			if r.err != nil {
				break
			}
			if ci >= uint64(len(cons)) || (j > 0 && !prev.Less(id)) {
				r.fail("bad pending record")
				break
			}
			prev = id
			g.SetPending(id, cons[ci], at, dc)
		}
		nd := r.count(2)
		for j := 0; j < nd && r.err == nil; j++ {
			id := r.id()
			if j > 0 && !g.Deferred[j-1].Less(id) {
				r.fail("deferred ids out of order")
			}
			g.Deferred = append(g.Deferred, id)
		}
		if r.err == nil {
			s.addGroup(g)
		}
	}
	if r.err == nil && len(r.b) > 0 {
		nh := r.count(3)
		for j := 0; j < nh && r.err == nil; j++ {
			h := Hold{r.id(), r.varint()}
			if j > 0 && !s.holds[j-1].ID.Less(h.ID) {
				r.fail("holds out of order")
			}
			s.holds = append(s.holds, h)
		}
		if nh == 0 && r.err == nil {
			r.fail("empty hold trailer")
		}
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("%d trailing bytes", len(r.b))
	}
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

// lastID is the id of n's last entry, deleted or not.
func (n *node) lastID() ID {
	var id ID
	for off := n.first; off < len(n.buf); {
		_, id, _, off = n.decodeAt(off)
	}
	return id
}

// validate checks n's layout: the master fields, then cnt entries in
// increasing id order above prev (unless first), each within bounds.
func (n *node) validate(cnt uint64, first bool, prev ID) error {
	bad := func(what string) error { return fmt.Errorf("%w: node: %s", ErrCorrupt, what) }
	buf := n.buf
	p := 0
	field := func() bool {
		l, k := binary.Uvarint(buf[p:])
		if k <= 0 || l > uint64(len(buf)-p-k) {
			return false
		}
		p += k + int(l)
		return true
	}
	mc, k := binary.Uvarint(buf)
	if k <= 0 || mc == 0 || mc > uint64(len(buf)) {
		return bad("master fields")
	}
	p = k
	for range mc {
		if !field() {
			return bad("master field")
		}
	}
	n.first = p
	if !first && !prev.Less(n.master) {
		return bad("master out of order")
	}
	var last ID
	for i := uint64(0); p < len(buf); i++ {
		if i >= cnt {
			return bad("more entries than counted")
		}
		start := p
		flags := buf[p]
		if flags&^(flagDeleted|flagSameFields) != 0 {
			return bad("flags")
		}
		p++
		body, k := binary.Uvarint(buf[p:])
		if k <= 0 || body > uint64(len(buf)-p-k) {
			return bad("entry length")
		}
		p += k
		end := p + int(body)
		sub := buf[:end]
		dms, k := binary.Uvarint(sub[p:])
		if k <= 0 {
			return bad("id")
		}
		p += k
		seq, k := binary.Uvarint(sub[p:])
		if k <= 0 {
			return bad("id")
		}
		p += k
		id := ID{n.master.Ms + dms, seq}
		if dms == 0 {
			id.Seq = n.master.Seq + seq
		}
		if id.Ms < n.master.Ms || (dms == 0 && id.Seq < n.master.Seq) {
			return bad("id overflow")
		}
		if i > 0 && !last.Less(id) {
			return bad("ids out of order")
		}
		last = id
		field := func() bool {
			l, k := binary.Uvarint(sub[p:])
			if k <= 0 || l > uint64(end-p-k) {
				return false
			}
			p += k + int(l)
			return true
		}
		if flags&flagSameFields != 0 {
			for range mc {
				if !field() {
					return bad("value")
				}
			}
		} else {
			pc, k := binary.Uvarint(sub[p:])
			if k <= 0 || pc == 0 || pc > uint64(end-p) {
				return bad("pair count")
			}
			p += k
			for range 2 * pc {
				if !field() {
					return bad("field")
				}
			}
		}
		if p != end {
			return bad("entry length mismatch")
		}
		n.count++
		if flags&flagDeleted != 0 {
			n.dead += int32(p - start)
		} else {
			n.live++
		}
	}
	if uint64(n.count) != cnt {
		return bad("entry count")
	}
	return nil
}
