package keyspace

import (
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/stream"
)

// The stream value type, as the engine knows it: the value's wrapper and
// its configuration, its snapshot, DUMP and packed forms, the WAL records of
// its mutations (encoders and their replay). The stream commands are in
// commands/stream.go.

// KindStream is the snapshot value kind of a stream (types/stream binary
// form, holds as its trailer).
const KindStream uint8 = 100

// StreamObj is the value of a stream key.
type StreamObj struct {
	S *stream.Stream // the stream
}

// TypeName is the TYPE reply.
func (o *StreamObj) TypeName() string { return "stream" }

// Encoding is OBJECT ENCODING: streams have one encoding.
func (o *StreamObj) Encoding() string { return "stream" }

// Clone returns a deep copy, for COPY.
func (o *StreamObj) Clone() any { return &StreamObj{S: o.S.Clone()} }

// memoryUsage is the heap the stream holds, measured from its layout.
func (o *StreamObj) memoryUsage(int64) int64 { return int64(o.S.MemoryUsage()) }

// SnapshotKind is KindStream.
func (o *StreamObj) SnapshotKind() uint8 { return KindStream }

// AppendSnapshot appends the types/stream binary encoding, holds included.
func (o *StreamObj) AppendSnapshot(dst []byte) []byte {
	return o.S.AppendBinary(dst)
}

// String is a canonical dump, for tests comparing states.
func (o *StreamObj) String() string {
	var b strings.Builder
	b.WriteString("stream{")
	o.S.Range(stream.MinID, stream.MaxID, false, func(e stream.Entry) bool {
		b.WriteString(e.ID.String())
		e.Fields(func(f, v []byte) { b.WriteString(" " + string(f) + "=" + string(v)) })
		b.WriteString("; ")
		return true
	})
	b.WriteString("last=" + o.S.LastID().String())
	b.WriteString(" added=" + strconv.FormatUint(o.S.EntriesAdded(), 10))
	b.WriteString(" maxdel=" + o.S.MaxDeletedID().String())
	for _, h := range o.S.Holds() {
		b.WriteString(" hold=" + h.ID.String() + "@" + strconv.FormatInt(h.Due, 10))
	}
	for _, g := range o.S.Groups() {
		b.WriteString(" group=" + g.Name + "@" + g.LastID.String() + "/" + strconv.FormatInt(g.EntriesRead, 10))
		for _, id := range g.Deferred {
			b.WriteString(" deferred=" + id.String())
		}
		for _, c := range g.Consumers() {
			b.WriteString(" consumer=" + c.Name + "@" + strconv.FormatInt(c.SeenTime, 10))
		}
		g.Pending(stream.MinID, stream.MaxID, func(p *stream.Pending) bool {
			b.WriteString(" pel=" + p.ID.String() + ":" + p.Consumer.Name + ":" + strconv.FormatInt(p.DeliveryTime, 10) + ":" + strconv.FormatUint(p.DeliveryCount, 10))
			return true
		})
	}
	b.WriteString("}")
	return b.String()
}

// StreamConfig is the node size limits from the live config.
func (sh *Shard) StreamConfig() stream.Config {
	b, n := sh.Srv.Opts.Live.StreamNodeMax()
	return stream.Config{NodeMaxBytes: clampThreshold(b), NodeMaxEntries: clampThreshold(n)}
}

// Record helpers.

func appendStreamID(p []byte, id stream.ID) []byte {
	p = persistence.AppendU64(p, id.Ms)
	return persistence.AppendU64(p, id.Seq)
}

func appendStreamIDs(p []byte, ids []stream.ID) []byte {
	p = persistence.AppendU64(p, uint64(len(ids)))
	for _, id := range ids {
		p = appendStreamID(p, id)
	}
	return p
}

// streamRecord starts a record of key (touching it for WATCH); ok is false
// when there is no log.
func (sh *Shard) streamRecord(db int, key []byte) ([]byte, bool) {
	if !sh.logged(db, string(key)) {
		return nil, false
	}
	return persistence.AppendBytes(sh.scratch[:0], key), true
}

// LogStreamAdd logs an entry of fields (field, value pairs) added at id,
// held until due (0: no hold), and the entries up to trim then removed
// (0-0: none); replay creates the stream: OpStreamAdd.
func (sh *Shard) LogStreamAdd(db int, key []byte, id stream.ID, due int64, trim stream.ID, fields [][]byte) {
	p, ok := sh.streamRecord(db, key)
	if !ok {
		return
	}
	p = appendStreamID(p, id)
	p = persistence.AppendI64(p, due)
	p = appendStreamID(p, trim)
	p = persistence.AppendU64(p, uint64(len(fields)/2))
	for _, f := range fields {
		p = persistence.AppendBytes(p, f)
	}
	sh.recordScratch(db, persistence.OpStreamAdd, p)
}

// LogStreamIDs logs ids deleted from key's stream (op OpStreamDel, XDEL)
// or acknowledged in group (op OpStreamAck); group is written only for
// OpStreamAck.
func (sh *Shard) LogStreamIDs(db int, op persistence.Opcode, key, group []byte, ids []stream.ID) {
	p, ok := sh.streamRecord(db, key)
	if !ok {
		return
	}
	if op == persistence.OpStreamAck {
		p = persistence.AppendBytes(p, group)
	}
	sh.recordScratch(db, op, appendStreamIDs(p, ids))
}

// LogStreamTrim logs every entry up to and including through removed
// (XTRIM): OpStreamTrim.
func (sh *Shard) LogStreamTrim(db int, key []byte, through stream.ID) {
	if p, ok := sh.streamRecord(db, key); ok {
		sh.recordScratch(db, persistence.OpStreamTrim, appendStreamID(p, through))
	}
}

// LogStreamSetID logs s's last id, entries-added count and max deleted id
// as they now are (XSETID): OpStreamSetID.
func (sh *Shard) LogStreamSetID(db int, key []byte, s *stream.Stream) {
	if p, ok := sh.streamRecord(db, key); ok {
		p = appendStreamID(p, s.LastID())
		p = persistence.AppendU64(p, s.EntriesAdded())
		p = appendStreamID(p, s.MaxDeletedID())
		sh.recordScratch(db, persistence.OpStreamSetID, p)
	}
}

// LogStreamGroup writes GroupCreate or GroupSetID with g's position.
func (sh *Shard) LogStreamGroup(db int, op persistence.Opcode, key []byte, g *stream.Group) {
	if p, ok := sh.streamRecord(db, key); ok {
		p = AppendStr(p, g.Name)
		p = appendStreamID(p, g.LastID)
		p = persistence.AppendI64(p, g.EntriesRead)
		sh.recordScratch(db, op, p)
	}
}

// LogStreamNames writes a record of key then names (GroupDestroy,
// ConsumerDel), then seen when op is ConsumerCreate.
func (sh *Shard) LogStreamNames(db int, op persistence.Opcode, key []byte, seen int64, names ...[]byte) {
	if p, ok := sh.streamRecord(db, key); ok {
		for _, n := range names {
			p = persistence.AppendBytes(p, n)
		}
		if op == persistence.OpStreamConsumerCreate {
			p = persistence.AppendI64(p, seen)
		}
		sh.recordScratch(db, op, p)
	}
}

// LogStreamRead logs what an XREADGROUP of new entries did to group g:
// consumer seen at now, the group's new position (r's last id and entries
// read), the ids delivered (not added to the PEL with noack), and r's
// deferred and resolved held entries: OpStreamGroupRead.
func (sh *Shard) LogStreamRead(db int, key []byte, g *stream.Group, consumer []byte, now int64, noack bool, delivered []stream.ID, r *stream.Read) {
	p, ok := sh.streamRecord(db, key)
	if !ok {
		return
	}
	p = AppendStr(p, g.Name)
	p = persistence.AppendBytes(p, consumer)
	p = persistence.AppendI64(p, now)
	var na uint8
	if noack {
		na = 1
	}
	p = persistence.AppendU8(p, na)
	p = appendStreamID(p, r.LastID)
	p = persistence.AppendI64(p, r.EntriesRead)
	p = appendStreamIDs(p, delivered)
	p = appendStreamIDs(p, r.Deferred)
	p = appendStreamIDs(p, r.Resolved)
	sh.recordScratch(db, persistence.OpStreamGroupRead, p)
}

// LogStreamClaim writes the pending records of ids as they now are, all
// owned by c, and c's seen time.
func (sh *Shard) LogStreamClaim(db int, key []byte, g *stream.Group, c *stream.Consumer, ids []stream.ID) {
	p, ok := sh.streamRecord(db, key)
	if !ok {
		return
	}
	p = AppendStr(p, g.Name)
	p = AppendStr(p, c.Name)
	p = persistence.AppendI64(p, c.SeenTime)
	p = persistence.AppendU64(p, uint64(len(ids)))
	for _, id := range ids {
		pe := g.PendingEntry(id)
		p = appendStreamID(p, id)
		p = persistence.AppendI64(p, pe.DeliveryTime)
		p = persistence.AppendU64(p, pe.DeliveryCount)
	}
	sh.recordScratch(db, persistence.OpStreamClaim, p)
}
