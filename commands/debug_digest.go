package commands

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"sort"

	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/types/stream"
)

// digestLen is the size of a DEBUG DIGEST digest (SHA-1's), written as 40 hex digits.
const digestLen = sha1.Size

// emptyDigest is the digest of an empty dataset and of a missing key, as in Redis.
var emptyDigest = [digestLen]byte{}

// DEBUG DIGEST: a digest of every live key of the shard (database, name, type, value and
// deadline). Two shards holding the same data have the same digest, whatever order their
// keys, set members and hash fields were written in: a primary and a replica that loaded it
// from a snapshot agree. It is this server's own digest, not Redis's bytes.
func debugDigest(x *keyspace.Ctx) {
	var total [digestLen]byte
	now := x.S.NowMs
	h := sha1.New()
	var db4 [4]byte
	for _, db := range x.S.DBs {
		binary.BigEndian.PutUint32(db4[:], uint32(db.ID))
		db.Each(func(e *keyspace.Entry) {
			if e.Expired(now) {
				return
			}
			h.Reset()
			h.Write(db4[:])
			writeDigestPart(h, e.Key())
			v := valueDigest(db, e)
			h.Write(v[:])
			var exp [8]byte
			binary.BigEndian.PutUint64(exp[:], uint64(e.ExpireAt))
			h.Write(exp[:])
			xorDigest(&total, h.Sum(nil))
		})
	}
	x.W.SimpleString(hex.EncodeToString(total[:]))
}

// DEBUG DIGEST-VALUE key [key ...]: the digest of each key's value (40 zeros for a missing
// key).
func debugDigestValue(x *keyspace.Ctx) {
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, k := range x.Args[2:] {
		d := emptyDigest
		// A key of another shard reads as missing.
		if keySlotRefusal(x, k, false) == "" {
			if e := x.S.LookupNoTouch(x.DB, k); e != nil {
				d = valueDigest(x.DB, e)
			}
		}
		x.W.SimpleString(hex.EncodeToString(d[:]))
	}
}

// valueDigest is the digest of e's type and value. Ordered values (strings, lists, sorted
// sets, streams) are hashed in order; the members of a set and the fields of a hash are
// hashed one by one and combined with XOR, so their storage order does not count.
func valueDigest(db *keyspace.DB, e *keyspace.Entry) [digestLen]byte {
	h := sha1.New()
	writeDigestPart(h, []byte(typeName(db, e)))
	var acc [digestLen]byte
	switch o := db.Obj(e).(type) {
	case *keyspace.SetObj:
		m := sha1.New()
		o.S.Each(func(member []byte) bool {
			m.Reset()
			m.Write(member)
			xorDigest(&acc, m.Sum(nil))
			return true
		})
		h.Write(acc[:])
	case *keyspace.HashObj:
		f := sha1.New()
		o.H.Each(func(field, value []byte) bool {
			f.Reset()
			writeDigestPart(f, field)
			writeDigestPart(f, value)
			xorDigest(&acc, f.Sum(nil))
			return true
		})
		h.Write(acc[:])
	case *keyspace.ListObj:
		o.L.Range(0, o.L.Len()-1, func(v []byte) bool {
			writeDigestPart(h, v)
			return true
		})
	case *keyspace.ZsetObj:
		var score [8]byte
		o.Z.Each(func(member []byte, s float64) bool {
			writeDigestPart(h, member)
			binary.BigEndian.PutUint64(score[:], math.Float64bits(s))
			h.Write(score[:])
			return true
		})
	case *keyspace.StreamObj:
		digestStream(h, o.S)
	default:
		if v, ok := stringOf(db, e); ok {
			writeDigestPart(h, v)
		} else if sv, ok := db.Obj(e).(keyspace.SnapshotValue); ok {
			// The coordination values (leases, limits, Bloom filters...) have one encoding.
			writeDigestPart(h, sv.AppendSnapshot(nil))
		}
	}
	var d [digestLen]byte
	copy(d[:], h.Sum(nil))
	return d
}

// digestStream hashes a stream's entries in id order, its last id and its groups by name
// with their last delivered ids.
func digestStream(h hash.Hash, s *stream.Stream) {
	var id [16]byte
	putID := func(v stream.ID) {
		binary.BigEndian.PutUint64(id[:8], v.Ms)
		binary.BigEndian.PutUint64(id[8:], v.Seq)
		h.Write(id[:])
	}
	s.Range(stream.MinID, stream.MaxID, false, func(en stream.Entry) bool {
		putID(en.ID)
		en.Fields(func(name, value []byte) {
			writeDigestPart(h, name)
			writeDigestPart(h, value)
		})
		return true
	})
	putID(s.LastID())
	groups := s.Groups()
	sort.Slice(groups, func(i, j int) bool { return groups[i].Name < groups[j].Name })
	for _, g := range groups {
		writeDigestPart(h, []byte(g.Name))
		putID(g.LastID)
	}
}

// writeDigestPart writes b with its length first, so that parts cannot run into each other.
func writeDigestPart(h hash.Hash, b []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	h.Write(n[:])
	h.Write(b)
}

func xorDigest(acc *[digestLen]byte, d []byte) {
	for i := range acc {
		acc[i] ^= d[i]
	}
}
