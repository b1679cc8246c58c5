package keyspace

import (
	"bytes"

	"github.com/ruvio/ruvio/types/rdb"
	"github.com/ruvio/ruvio/types/stream"
)

// errDumpHeldStream is DUMP's reply for a stream with delayed entries.
// Redis's format has no place for a hold: a payload without it would let
// Redis (or a RESTORE here) deliver the entries at once, so the stream is
// refused rather than changed in transit. Holds whose time has come and
// that no group passed over change nothing and are left out.
const errDumpHeldStream = "ERR DUMP of a stream with delayed entries (XADD DELAY) is not supported: Redis's serialization cannot hold them back; retry once they are due"

// RDBValue is the stream's plain contents, for DUMP.
func (o *StreamObj) RDBValue(now int64) (rdb.Value, string) { return rdbStreamOf(o.S, now) }

// rdbStreamOf converts a stream to its plain contents at time now (ms).
func rdbStreamOf(s *stream.Stream, now int64) (rdb.Value, string) {
	if s.HeldCount(now) > 0 {
		return rdb.Value{}, errDumpHeldStream
	}
	groups := s.Groups()
	for _, g := range groups {
		if len(g.Deferred) > 0 {
			return rdb.Value{}, errDumpHeldStream
		}
	}
	out := &rdb.Stream{
		Entries:      make([]rdb.StreamEntry, 0, s.Len()),
		LastID:       rdb.StreamID(s.LastID()),
		FirstID:      rdb.StreamID(s.FirstID()),
		MaxDeletedID: rdb.StreamID(s.MaxDeletedID()),
		EntriesAdded: s.EntriesAdded(),
	}
	s.Range(stream.MinID, stream.MaxID, false, func(e stream.Entry) bool {
		var fields [][]byte
		e.Fields(func(f, v []byte) { fields = append(fields, bytes.Clone(f), bytes.Clone(v)) })
		out.Entries = append(out.Entries, rdb.StreamEntry{ID: rdb.StreamID(e.ID), Fields: fields})
		return true
	})
	for _, g := range groups {
		rg := rdb.StreamGroup{Name: []byte(g.Name), LastID: rdb.StreamID(g.LastID), EntriesRead: g.EntriesRead}
		g.Pending(stream.MinID, stream.MaxID, func(p *stream.Pending) bool {
			rg.PEL = append(rg.PEL, rdb.StreamPending{ID: rdb.StreamID(p.ID), DeliveryTime: p.DeliveryTime, DeliveryCount: p.DeliveryCount})
			return true
		})
		for _, c := range g.Consumers() {
			rc := rdb.StreamConsumer{Name: []byte(c.Name), SeenTime: c.SeenTime}
			c.Pending(stream.MinID, stream.MaxID, func(p *stream.Pending) bool {
				rc.PEL = append(rc.PEL, rdb.StreamID(p.ID))
				return true
			})
			rg.Consumers = append(rg.Consumers, rc)
		}
		out.Groups = append(out.Groups, rg)
	}
	return rdb.Value{Kind: rdb.KindStream, Stream: out}, ""
}

// streamFromRDB builds a stream from contents the decoder checked:
// entries in order above 0-0 and at most the last ID, every PEL entry
// owned by exactly one consumer of its group.
func streamFromRDB(cfg stream.Config, v *rdb.Stream) *stream.Stream {
	s := stream.New()
	for _, e := range v.Entries {
		// Cannot fail: the ids grow from above 0-0.
		_ = s.Add(cfg, stream.ID(e.ID), e.Fields)
	}
	s.SetMeta(stream.ID(v.LastID), v.EntriesAdded, stream.ID(v.MaxDeletedID))
	for _, rg := range v.Groups {
		g := s.CreateGroup(rg.Name, stream.ID(rg.LastID), rg.EntriesRead)
		owner := make(map[rdb.StreamID]*stream.Consumer, len(rg.PEL))
		for _, rc := range rg.Consumers {
			c := g.CreateConsumer(rc.Name, rc.SeenTime)
			for _, id := range rc.PEL {
				owner[id] = c
			}
		}
		// In id order, so every list is appended to, never inserted into.
		for _, p := range rg.PEL {
			g.SetPending(stream.ID(p.ID), owner[p.ID], p.DeliveryTime, p.DeliveryCount)
		}
	}
	return s
}
