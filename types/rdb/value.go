package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"
)

// Type is the type byte of an RDB value.
type Type uint8

// Value types of RDB version 10 (see the package comment).
const (
	TypeString           Type = 0
	TypeList             Type = 1
	TypeSet              Type = 2
	TypeZSet             Type = 3
	TypeHash             Type = 4
	TypeZSet2            Type = 5
	TypeModule           Type = 6
	TypeModule2          Type = 7
	TypeHashZipmap       Type = 9
	TypeListZiplist      Type = 10
	TypeSetIntset        Type = 11
	TypeZSetZiplist      Type = 12
	TypeHashZiplist      Type = 13
	TypeListQuicklist    Type = 14
	TypeStreamListpacks  Type = 15
	TypeHashListpack     Type = 16
	TypeZSetListpack     Type = 17
	TypeListQuicklist2   Type = 18
	TypeStreamListpacks2 Type = 19
	// TypeHashMetadataPreGA and TypeHashMetadata are RDB version 12's
	// hashes with field deadlines (Redis 7.4): per field a length-encoded
	// deadline (absolute in the pre-GA form; in the final form 0 for none,
	// else relative to a minimum written first as 8 bytes, plus 1), the
	// field and the value.
	TypeHashMetadataPreGA Type = 22
	TypeHashMetadata      Type = 24
	// TypeHashListpackExPreGA and TypeHashListpackEx are RDB version
	// 12's small hashes with field deadlines: a listpack of (field, value,
	// deadline) triplets, the deadline absolute in ms and 0 for none; the
	// final form writes the minimum deadline (8 bytes) before it. They are
	// read, never written.
	TypeHashListpackExPreGA Type = 23
	TypeHashListpackEx      Type = 25
)

// Kind is the data type of a value, whatever its encoding.
type Kind uint8

// Kinds of values.
const (
	KindString Kind = iota
	KindList
	KindSet
	KindHash
	KindZSet
	KindStream
)

func (k Kind) String() string {
	return [...]string{"string", "list", "set", "hash", "zset", "stream"}[k]
}

// ZEntry is one member of a sorted set.
type ZEntry struct {
	Member []byte
	Score  float64
}

// Value is a decoded value. Which field holds it depends on Kind: Str for
// a string, Elems for a list's elements (head first) or a set's members,
// Pairs for a hash's fields and values alternating, Z for a sorted set's
// members, Stream for a stream.
type Value struct {
	Kind   Kind
	Str    []byte
	Elems  [][]byte
	Pairs  [][]byte
	Z      []ZEntry
	Stream *Stream
	// FieldTTLs, for a hash whose fields have deadlines, holds each
	// field's deadline (unix ms, 0 = none) in the order of Pairs; nil
	// when no field has one.
	FieldTTLs []int64
}

// ErrEmpty is returned for a collection with no elements, which Redis
// refuses to restore and skips when it loads a file.
var ErrEmpty = errors.New("rdb: empty collection")

// ErrUnsupportedType is returned for a value type this package does not
// decode (modules, zipmaps).
var ErrUnsupportedType = errors.New("rdb: unsupported value type")

// Encoding thresholds of Redis 7.0's defaults: a value written in the
// compact encoding loads in the compact encoding.
const (
	maxListpackEntries = 128
	maxListpackValue   = 64
	maxIntsetEntries   = 512
	// quicklistNodeBytes is a list node's size limit (list-max-listpack-size -2).
	quicklistNodeBytes = 8 << 10
)

// IsObjectType reports whether t is a value type (as opposed to an
// opcode of a file).
func IsObjectType(t byte) bool {
	return t <= 7 || (t >= 9 && t <= 19) || (t >= byte(TypeHashMetadataPreGA) && t <= byte(TypeHashListpackEx))
}

// hashListpackEx reads the body of a TypeHashListpackEx or
// TypeHashListpackExPreGA value.
func (d *decoder) hashListpackEx(t Type) (Value, error) {
	if t == TypeHashListpackEx {
		var b [8]byte
		if err := d.full(b[:]); err != nil {
			return Value{}, err
		}
	}
	blob, err := d.string()
	if err != nil {
		return Value{}, err
	}
	var items [][]byte
	if err := parseListpack(blob, func(e []byte) error { items = append(items, bytes.Clone(e)); return nil }); err != nil {
		return Value{}, err
	}
	if len(items)%3 != 0 {
		return Value{}, badf("hash listpack with deadlines: %d entries", len(items))
	}
	v := Value{Kind: KindHash}
	for i := 0; i < len(items); i += 3 {
		at, err := strconv.ParseInt(string(items[i+2]), 10, 64)
		if err != nil || at < 0 || at > maxFieldDeadline {
			return Value{}, badf("hash field deadline %q", items[i+2])
		}
		v.Pairs = append(v.Pairs, items[i], items[i+1])
		v.FieldTTLs = append(v.FieldTTLs, at)
	}
	return v, v.check()
}

// maxFieldDeadline is the latest field deadline RDB version 12 allows
// (unix ms, 48 bits).
const maxFieldDeadline = 1<<48 - 1

// hashWithTTLs reads the body of a TypeHashMetadata or
// TypeHashMetadataPreGA value.
func (d *decoder) hashWithTTLs(t Type) (Value, error) {
	var minAt uint64
	if t == TypeHashMetadata {
		var b [8]byte
		if err := d.full(b[:]); err != nil {
			return Value{}, err
		}
		minAt = binary.LittleEndian.Uint64(b[:])
		if minAt > maxFieldDeadline {
			return Value{}, badf("hash minimum field deadline %d", minAt)
		}
	}
	n, err := d.count()
	if err != nil {
		return Value{}, err
	}
	v := Value{Kind: KindHash}
	for range n {
		ttl, err := d.plainLength()
		if err != nil {
			return Value{}, err
		}
		at := ttl
		if t == TypeHashMetadata && ttl != 0 {
			at = ttl + minAt - 1
		}
		if at > maxFieldDeadline {
			return Value{}, badf("hash field deadline %d", at)
		}
		f, err := d.string()
		if err != nil {
			return Value{}, err
		}
		val, err := d.string()
		if err != nil {
			return Value{}, err
		}
		v.Pairs = append(v.Pairs, f, val)
		v.FieldTTLs = append(v.FieldTTLs, int64(at))
	}
	return v, v.check()
}

// hasFieldTTLs reports whether v is a hash with at least one field
// deadline, which only RDB version 12's types can hold.
func (v *Value) hasFieldTTLs() bool {
	if v.Kind != KindHash {
		return false
	}
	for _, at := range v.FieldTTLs {
		if at > 0 {
			return true
		}
	}
	return false
}

// appendHashWithTTLs appends v as a TypeHashMetadata value.
func appendHashWithTTLs(dst []byte, v *Value) []byte {
	minAt := int64(0)
	for _, at := range v.FieldTTLs {
		if at > 0 && (minAt == 0 || at < minAt) {
			minAt = at
		}
	}
	dst = append(dst, byte(TypeHashMetadata))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(minAt))
	dst = AppendLength(dst, uint64(len(v.Pairs)/2))
	for i := 0; i+1 < len(v.Pairs); i += 2 {
		var rel uint64
		if at := v.FieldTTLs[i/2]; at > 0 {
			rel = uint64(at-minAt) + 1
		}
		dst = AppendLength(dst, rel)
		dst = AppendString(dst, v.Pairs[i])
		dst = AppendString(dst, v.Pairs[i+1])
	}
	return dst
}

// decodeValue reads a value of type t.
func (d *decoder) value(t Type) (Value, error) {
	switch t {
	case TypeString:
		s, err := d.string()
		return Value{Kind: KindString, Str: s}, err
	case TypeList, TypeSet:
		n, err := d.count()
		if err != nil {
			return Value{}, err
		}
		v := Value{Kind: KindList}
		if t == TypeSet {
			v.Kind = KindSet
		}
		for range n {
			s, err := d.string()
			if err != nil {
				return Value{}, err
			}
			v.Elems = append(v.Elems, s)
		}
		return v, v.check()
	case TypeHashMetadata, TypeHashMetadataPreGA:
		return d.hashWithTTLs(t)
	case TypeHashListpackEx, TypeHashListpackExPreGA:
		return d.hashListpackEx(t)
	case TypeHash:
		n, err := d.count()
		if err != nil {
			return Value{}, err
		}
		v := Value{Kind: KindHash}
		for range 2 * n {
			s, err := d.string()
			if err != nil {
				return Value{}, err
			}
			v.Pairs = append(v.Pairs, s)
		}
		return v, v.check()
	case TypeZSet, TypeZSet2:
		n, err := d.count()
		if err != nil {
			return Value{}, err
		}
		v := Value{Kind: KindZSet}
		for range n {
			m, err := d.string()
			if err != nil {
				return Value{}, err
			}
			var score float64
			if t == TypeZSet2 {
				var b [8]byte
				if err := d.full(b[:]); err != nil {
					return Value{}, err
				}
				score = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
			} else if score, err = d.textScore(); err != nil {
				return Value{}, err
			}
			v.Z = append(v.Z, ZEntry{Member: m, Score: score})
		}
		return v, v.check()
	case TypeListQuicklist, TypeListQuicklist2:
		n, err := d.count()
		if err != nil {
			return Value{}, err
		}
		v := Value{Kind: KindList}
		add := func(e []byte) error { v.Elems = append(v.Elems, bytes.Clone(e)); return nil }
		for range n {
			container := uint64(2)
			if t == TypeListQuicklist2 {
				if container, err = d.plainLength(); err != nil {
					return Value{}, err
				}
				if container != 1 && container != 2 {
					return Value{}, badf("quicklist container %d", container)
				}
			}
			s, err := d.string()
			if err != nil {
				return Value{}, err
			}
			if len(s) == 0 {
				return Value{}, badf("empty quicklist node")
			}
			switch {
			case container == 1:
				v.Elems = append(v.Elems, s)
			case t == TypeListQuicklist2:
				err = parseListpack(s, add)
			default:
				err = parseZiplist(s, add)
			}
			if err != nil {
				return Value{}, err
			}
		}
		return v, v.check()
	case TypeListZiplist, TypeSetIntset, TypeZSetZiplist, TypeHashZiplist, TypeHashListpack, TypeZSetListpack:
		blob, err := d.string()
		if err != nil {
			return Value{}, err
		}
		return packedValue(t, blob)
	case TypeStreamListpacks, TypeStreamListpacks2:
		s, err := d.stream(t)
		return Value{Kind: KindStream, Stream: s}, err
	}
	return Value{}, ErrUnsupportedType
}

// textScore reads a score of the first sorted set type: a length byte
// (253 NaN, 254 +inf, 255 -inf) and that many bytes of decimal text.
func (d *decoder) textScore() (float64, error) {
	l, err := d.byte()
	if err != nil {
		return 0, err
	}
	switch l {
	case 253:
		return 0, badf("sorted set score is NaN")
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b := make([]byte, l)
	if err := d.full(b); err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, badf("sorted set score %q", b)
	}
	return f, nil
}

// packedValue decodes a value held in one intset, ziplist or listpack.
func packedValue(t Type, blob []byte) (Value, error) {
	var items [][]byte
	collect := func(e []byte) error { items = append(items, bytes.Clone(e)); return nil }
	var err error
	switch t {
	case TypeSetIntset:
		v := Value{Kind: KindSet}
		err = parseIntset(blob, func(i int64) error {
			v.Elems = append(v.Elems, strconv.AppendInt(nil, i, 10))
			return nil
		})
		if err != nil {
			return Value{}, err
		}
		return v, v.check()
	case TypeHashListpack, TypeZSetListpack:
		err = parseListpack(blob, collect)
	default:
		err = parseZiplist(blob, collect)
	}
	if err != nil {
		return Value{}, err
	}
	var v Value
	switch t {
	case TypeListZiplist:
		v = Value{Kind: KindList, Elems: items}
	case TypeHashZiplist, TypeHashListpack:
		if len(items)%2 != 0 {
			return Value{}, badf("hash with an odd number of entries")
		}
		v = Value{Kind: KindHash, Pairs: items}
	default:
		if len(items)%2 != 0 {
			return Value{}, badf("sorted set with an odd number of entries")
		}
		v = Value{Kind: KindZSet}
		for i := 0; i < len(items); i += 2 {
			f, err := strconv.ParseFloat(string(items[i+1]), 64)
			if err != nil || math.IsNaN(f) {
				return Value{}, badf("sorted set score %q", items[i+1])
			}
			v.Z = append(v.Z, ZEntry{Member: items[i], Score: f})
		}
	}
	return v, v.check()
}

// check refuses empty collections, duplicate members or fields and NaN
// scores.
func (v *Value) check() error {
	var keys [][]byte
	switch v.Kind {
	case KindString, KindStream:
		// A stream may be empty; the decoder checks the rest.
		return nil
	case KindList:
		if len(v.Elems) == 0 {
			return ErrEmpty
		}
		return nil
	case KindSet:
		keys = slices.Clone(v.Elems)
	case KindHash:
		for i := 0; i < len(v.Pairs); i += 2 {
			keys = append(keys, v.Pairs[i])
		}
	case KindZSet:
		for _, z := range v.Z {
			if math.IsNaN(z.Score) {
				return badf("sorted set score is NaN")
			}
			keys = append(keys, z.Member)
		}
	}
	if len(keys) == 0 {
		return ErrEmpty
	}
	slices.SortFunc(keys, bytes.Compare)
	for i := 1; i < len(keys); i++ {
		if bytes.Equal(keys[i-1], keys[i]) {
			return badf("duplicate %s member %q", v.Kind, keys[i])
		}
	}
	return nil
}

// AppendValue appends the type byte and the body of v in the encoding
// Redis 7.0 gives such a value with its default thresholds: strings as
// AppendString does; lists as a quicklist of listpacks of up to 8 KiB;
// sets of at most 512 integers as an intset, other sets plain; hashes and
// sorted sets of at most 128 entries of at most 64 bytes as a listpack,
// others plain (sorted sets with binary scores); streams as type 19 with
// nodes of at most 100 entries and about 4 KiB.
func AppendValue(dst []byte, v *Value) []byte {
	switch v.Kind {
	case KindString:
		return AppendString(append(dst, byte(TypeString)), v.Str)
	case KindList:
		return appendQuicklist(dst, v.Elems)
	case KindSet:
		if ints, ok := intsetMembers(v.Elems); ok {
			return AppendString(append(dst, byte(TypeSetIntset)), appendIntset(nil, ints))
		}
		dst = AppendLength(append(dst, byte(TypeSet)), uint64(len(v.Elems)))
		for _, m := range v.Elems {
			dst = AppendString(dst, m)
		}
		return dst
	case KindHash:
		if v.hasFieldTTLs() {
			return appendHashWithTTLs(dst, v)
		}
		if small(v.Pairs, len(v.Pairs)/2) {
			lb := newListpack()
			for _, p := range v.Pairs {
				lb.add(p)
			}
			return AppendString(append(dst, byte(TypeHashListpack)), lb.finish())
		}
		dst = AppendLength(append(dst, byte(TypeHash)), uint64(len(v.Pairs)/2))
		for _, p := range v.Pairs {
			dst = AppendString(dst, p)
		}
		return dst
	case KindZSet:
		members := make([][]byte, len(v.Z))
		for i, z := range v.Z {
			members[i] = z.Member
		}
		if small(members, len(members)) {
			lb := newListpack()
			var buf [32]byte
			for _, z := range v.Z {
				lb.add(z.Member)
				lb.add(FormatScore(buf[:0], z.Score))
			}
			return AppendString(append(dst, byte(TypeZSetListpack)), lb.finish())
		}
		dst = AppendLength(append(dst, byte(TypeZSet2)), uint64(len(v.Z)))
		// Highest score first, as Redis writes a skiplist from its tail.
		for i := len(v.Z) - 1; i >= 0; i-- {
			dst = AppendString(dst, v.Z[i].Member)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.Z[i].Score))
		}
		return dst
	case KindStream:
		return appendStream(dst, v.Stream)
	}
	panic("rdb: value of unknown kind")
}

// small reports whether a hash or sorted set of n entries made of items
// fits in a listpack under the default thresholds.
func small(items [][]byte, n int) bool {
	if n > maxListpackEntries {
		return false
	}
	for _, it := range items {
		if len(it) > maxListpackValue {
			return false
		}
	}
	return true
}

// intsetMembers returns the members as sorted integers when they all are
// canonical integers and few enough for an intset.
func intsetMembers(ms [][]byte) ([]int64, bool) {
	if len(ms) > maxIntsetEntries {
		return nil, false
	}
	ints := make([]int64, 0, len(ms))
	for _, m := range ms {
		i, ok := canonicalInt(m)
		if !ok {
			return nil, false
		}
		ints = append(ints, i)
	}
	slices.Sort(ints)
	return ints, true
}

// appendQuicklist appends a list as a version 2 quicklist: listpack nodes
// filled up to the node size limit, an element too big for a node alone
// in a node of its own.
func appendQuicklist(dst []byte, elems [][]byte) []byte {
	var nodes [][]byte
	lb := newListpack()
	for _, e := range elems {
		// As Redis appends: the node takes the element while its size,
		// the element's and 8 bytes of estimated overhead stay within
		// the limit.
		if lb.n > 0 && lb.size()+len(e)+8 > quicklistNodeBytes {
			nodes = append(nodes, lb.finish())
			lb = newListpack()
		}
		lb.add(e)
	}
	nodes = append(nodes, lb.finish())
	dst = AppendLength(append(dst, byte(TypeListQuicklist2)), uint64(len(nodes)))
	for _, n := range nodes {
		dst = AppendLength(dst, 2)
		dst = AppendString(dst, n)
	}
	return dst
}

// FormatScore appends f as Redis writes a score into a listpack: an
// integral value within ±2^62 as an integer, infinities as "inf" and
// "-inf", negative zero as "-0", anything else with 17 significant digits.
func FormatScore(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	case f == math.Trunc(f) && f >= -(1<<62) && f <= 1<<62:
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}
