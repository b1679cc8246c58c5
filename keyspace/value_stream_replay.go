package keyspace

import (
	"errors"
	"fmt"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
	"github.com/ruvio/ruvio/types/stream"
)

// Replay of the stream records (opcodes 100–111). Each sets the state the
// record states; none reads the clock or re-runs command logic.

var errStreamReplay = errors.New("stream record does not fit the keyspace")

// nextStreamID reads a stream id (ms u64, seq u64).
func nextStreamID(p *persistence.PayloadReader) stream.ID {
	return stream.ID{Ms: p.NextU64(), Seq: p.NextU64()}
}

// nextStreamIDs reads a list of ids: count u64, then the ids.
func nextStreamIDs(p *persistence.PayloadReader) []stream.ID {
	ids := make([]stream.ID, p.NextCount(16))
	for i := range ids {
		ids[i] = nextStreamID(p)
	}
	return ids
}

// streamReplay is the state one stream record's replay shares between its
// steps: the record's key and the stream it holds (nil when missing).
type streamReplay struct {
	sh  *Shard
	db  *DB
	op  persistence.Opcode
	key []byte
	o   *StreamObj
}

// create makes the key an empty stream when it is missing.
func (x *streamReplay) create() {
	if x.o == nil {
		x.o = &StreamObj{S: stream.New()}
		x.db.Add(x.key, nil, x.o, 0)
	}
}

// group returns the stream's consumer group called name.
func (x *streamReplay) group(name []byte) (*stream.Group, error) {
	g := x.o.S.Group(name)
	if g == nil {
		return nil, fmt.Errorf("%w: %s names a missing group %q", errStreamReplay, x.op, name)
	}
	return g, nil
}

// applyStreamRecord replays one stream record into db. Each opcode's step
// reads its fields, checks the payload once, and only then changes the
// stream.
func (sh *Shard) applyStreamRecord(db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	x := &streamReplay{sh: sh, db: db, op: op, key: p.NextBytes()}
	if err := p.Err(); err != nil {
		return err
	}
	if e := db.Find(x.key); e != nil {
		var ok bool
		if x.o, ok = db.Obj(e).(*StreamObj); !ok {
			return fmt.Errorf("%w: %s on a key that is not a stream", errStreamReplay, op)
		}
	}
	if x.o == nil && op != persistence.OpStreamAdd && op != persistence.OpStreamGroupCreate {
		return fmt.Errorf("%w: %s on a missing key", errStreamReplay, op)
	}
	switch op {
	case persistence.OpStreamAdd:
		return x.Add(p)
	case persistence.OpStreamDel:
		return x.del(p)
	case persistence.OpStreamTrim:
		return x.Trim(p)
	case persistence.OpStreamSetID:
		return x.setID(p)
	case persistence.OpStreamGroupCreate, persistence.OpStreamGroupSetID:
		return x.groupSetID(p)
	case persistence.OpStreamGroupDestroy:
		return x.groupDestroy(p)
	case persistence.OpStreamConsumerCreate:
		return x.consumerCreate(p)
	case persistence.OpStreamConsumerDel:
		return x.consumerDel(p)
	case persistence.OpStreamGroupRead:
		return x.groupRead(p)
	case persistence.OpStreamClaim:
		return x.claim(p)
	case persistence.OpStreamAck:
		return x.ack(p)
	}
	return fmt.Errorf("%w: opcode %s", errStreamReplay, op)
}

func (x *streamReplay) Add(p *persistence.PayloadReader) error {
	id, due, trim := nextStreamID(p), p.NextI64(), nextStreamID(p)
	// Each pair is at least two length prefixes.
	n := p.NextCount(2)
	if err := p.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %s claims no pairs", persistence.ErrCorrupt, x.op)
	}
	fields := make([][]byte, 2*n)
	for i := range fields {
		fields[i] = p.NextBytes()
	}
	if err := p.End(); err != nil {
		return err
	}
	x.create()
	if err := x.o.S.Add(x.sh.StreamConfig(), id, fields); err != nil {
		return fmt.Errorf("%w: %s %v: %v", errStreamReplay, x.op, id, err)
	}
	if due != 0 {
		x.o.S.AddHold(id, due)
	}
	if !trim.IsZero() {
		x.o.S.RemoveThrough(trim)
	}
	return nil
}

func (x *streamReplay) del(p *persistence.PayloadReader) error {
	ids := nextStreamIDs(p)
	if err := p.End(); err != nil {
		return err
	}
	for _, id := range ids {
		x.o.S.Delete(id)
	}
	return nil
}

func (x *streamReplay) Trim(p *persistence.PayloadReader) error {
	id := nextStreamID(p)
	if err := p.End(); err != nil {
		return err
	}
	x.o.S.RemoveThrough(id)
	return nil
}

func (x *streamReplay) setID(p *persistence.PayloadReader) error {
	last, added, md := nextStreamID(p), p.NextU64(), nextStreamID(p)
	if err := p.End(); err != nil {
		return err
	}
	x.o.S.SetMeta(last, added, md)
	return nil
}

// groupSetID replays OpStreamGroupCreate (creating the stream when
// missing) and OpStreamGroupSetID, which share a layout.
func (x *streamReplay) groupSetID(p *persistence.PayloadReader) error {
	name, id, er := p.NextBytes(), nextStreamID(p), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	if x.op == persistence.OpStreamGroupCreate {
		x.create()
		if x.o.S.CreateGroup(name, id, er) == nil {
			return fmt.Errorf("%w: group %q exists", errStreamReplay, name)
		}
		return nil
	}
	g, err := x.group(name)
	if err != nil {
		return err
	}
	g.SetLastID(id, er)
	return nil
}

func (x *streamReplay) groupDestroy(p *persistence.PayloadReader) error {
	name := p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	x.o.S.DestroyGroup(name)
	return nil
}

func (x *streamReplay) consumerCreate(p *persistence.PayloadReader) error {
	group, name, seen := p.NextBytes(), p.NextBytes(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	g, err := x.group(group)
	if err != nil {
		return err
	}
	if c := g.CreateConsumer(name, seen); c == nil {
		return fmt.Errorf("%w: consumer %q exists", errStreamReplay, name)
	}
	return nil
}

func (x *streamReplay) consumerDel(p *persistence.PayloadReader) error {
	group, name := p.NextBytes(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	g, err := x.group(group)
	if err != nil {
		return err
	}
	g.DeleteConsumer(name)
	return nil
}

func (x *streamReplay) groupRead(p *persistence.PayloadReader) error {
	group, name, now, noack := p.NextBytes(), p.NextBytes(), p.NextI64(), p.NextU8()
	last, er := nextStreamID(p), p.NextI64()
	delivered, deferred, resolved := nextStreamIDs(p), nextStreamIDs(p), nextStreamIDs(p)
	if err := p.End(); err != nil {
		return err
	}
	g, err := x.group(group)
	if err != nil {
		return err
	}
	x.o.S.PruneHolds(now)
	c := replayConsumer(g, name, now)
	g.ApplyRead(c, delivered, deferred, resolved, last, er, now, noack != 0)
	return nil
}

func (x *streamReplay) claim(p *persistence.PayloadReader) error {
	group, name, seen := p.NextBytes(), p.NextBytes(), p.NextI64()
	// Each claim is an id, a delivery time and a delivery count: 32 bytes.
	const claimSize = 32
	n := p.NextCount(claimSize)
	claims := persistence.NewPayloadReader(p.NextRaw(int(n) * claimSize))
	if err := p.End(); err != nil {
		return err
	}
	g, err := x.group(group)
	if err != nil {
		return err
	}
	c := replayConsumer(g, name, seen)
	for range n {
		id, at, dc := nextStreamID(&claims), claims.NextI64(), claims.NextU64()
		g.SetPending(id, c, at, dc)
	}
	return nil
}

func (x *streamReplay) ack(p *persistence.PayloadReader) error {
	group, ids := p.NextBytes(), nextStreamIDs(p)
	if err := p.End(); err != nil {
		return err
	}
	g, err := x.group(group)
	if err != nil {
		return err
	}
	for _, id := range ids {
		g.Ack(id)
	}
	return nil
}

// replayConsumer returns the consumer called name, created when absent,
// with its seen time set.
func replayConsumer(g *stream.Group, name []byte, seen int64) *stream.Consumer {
	c := g.Consumer(name)
	if c == nil {
		c = g.CreateConsumer(name, seen)
	}
	c.SeenTime = seen
	return c
}

// streamValueType describes streams to the engine (value.go).
var streamValueType = valueType{
	name:  "stream",
	kinds: []uint8{KindStream},
	decodeSnapshot: func(_ valueConfig, _ uint8, val []byte) (any, error) {
		return decodeStream(val)
	},
	rdbKind: rdb.KindStream,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		return &StreamObj{S: streamFromRDB(cfg.stream, v.Stream)}
	},
}

// streamReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var streamReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpStreamAdd, persistence.OpStreamDel, persistence.OpStreamTrim, persistence.OpStreamSetID, persistence.OpStreamGroupCreate, persistence.OpStreamGroupSetID, persistence.OpStreamGroupDestroy, persistence.OpStreamConsumerCreate, persistence.OpStreamConsumerDel, persistence.OpStreamGroupRead, persistence.OpStreamClaim, persistence.OpStreamAck}, apply: replayStreamRecord},
}

// replayStreamRecord adapts the family decoder to the replay table.
func replayStreamRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return sh.applyStreamRecord(db, r.Op, p)
}

// decodeStream rebuilds a stream from its snapshot encoding.
func decodeStream(val []byte) (any, error) {
	s, err := stream.Unmarshal(val)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", persistence.ErrCorrupt, err)
	}
	return &StreamObj{S: s}, nil
}
