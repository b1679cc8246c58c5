package keyspace

import (
	"errors"
	"fmt"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/stream"
)

// Replay of the stream records (opcodes 100–111). Each sets the state the
// record states; none reads the clock or re-runs command logic.

var errStreamReplay = errors.New("stream record does not fit the keyspace")

func readStreamID(p *persistence.PayloadReader) (stream.ID, error) {
	ms, err := p.U64()
	if err != nil {
		return stream.ID{}, err
	}
	seq, err := p.U64()
	return stream.ID{Ms: ms, Seq: seq}, err
}

func readStreamIDs(p *persistence.PayloadReader) ([]stream.ID, error) {
	n, err := p.U64()
	if err != nil {
		return nil, err
	}
	if n > uint64(p.Len()/16) {
		return nil, fmt.Errorf("%w: %d ids in %d bytes", persistence.ErrCorrupt, n, p.Len())
	}
	ids := make([]stream.ID, n)
	for i := range ids {
		if ids[i], err = readStreamID(p); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// applyStreamRecord replays one stream record into db.
func (sh *Shard) applyStreamRecord(db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	key, err := p.Bytes()
	if err != nil {
		return err
	}
	var o *streamObj
	if e := db.find(key); e != nil {
		var ok bool
		if o, ok = db.obj(e).(*streamObj); !ok {
			return fmt.Errorf("%w: %s on a key that is not a stream", errStreamReplay, op)
		}
	}
	create := func() {
		if o == nil {
			o = &streamObj{s: stream.New()}
			db.add(key, nil, o, 0)
		}
	}
	if o == nil && op != persistence.OpStreamAdd && op != persistence.OpStreamGroupCreate {
		return fmt.Errorf("%w: %s on a missing key", errStreamReplay, op)
	}
	group := func() (*stream.Group, error) {
		name, err := p.Bytes()
		if err != nil {
			return nil, err
		}
		g := o.s.Group(name)
		if g == nil {
			return nil, fmt.Errorf("%w: %s names a missing group %q", errStreamReplay, op, name)
		}
		return g, nil
	}
	switch op {
	case persistence.OpStreamAdd:
		id, err := readStreamID(p)
		if err != nil {
			return err
		}
		due, err := p.I64()
		if err != nil {
			return err
		}
		trim, err := readStreamID(p)
		if err != nil {
			return err
		}
		n, err := p.U64()
		if err != nil {
			return err
		}
		if n == 0 || n > uint64(p.Len()/2) {
			return fmt.Errorf("%w: %s claims %d pairs in %d bytes", persistence.ErrCorrupt, op, n, p.Len())
		}
		fields := make([][]byte, 2*n)
		for i := range fields {
			if fields[i], err = p.Bytes(); err != nil {
				return err
			}
		}
		create()
		if err := o.s.Add(sh.streamConfig(), id, fields); err != nil {
			return fmt.Errorf("%w: %s %v: %v", errStreamReplay, op, id, err)
		}
		if due != 0 {
			o.s.AddHold(id, due)
		}
		if !trim.IsZero() {
			o.s.RemoveThrough(trim)
		}
	case persistence.OpStreamDel:
		ids, err := readStreamIDs(p)
		if err != nil {
			return err
		}
		for _, id := range ids {
			o.s.Delete(id)
		}
	case persistence.OpStreamTrim:
		id, err := readStreamID(p)
		if err != nil {
			return err
		}
		o.s.RemoveThrough(id)
	case persistence.OpStreamSetID:
		last, err := readStreamID(p)
		if err != nil {
			return err
		}
		added, err := p.U64()
		if err != nil {
			return err
		}
		md, err := readStreamID(p)
		if err != nil {
			return err
		}
		o.s.SetMeta(last, added, md)
	case persistence.OpStreamGroupCreate, persistence.OpStreamGroupSetID:
		name, err := p.Bytes()
		if err != nil {
			return err
		}
		id, err := readStreamID(p)
		if err != nil {
			return err
		}
		er, err := p.I64()
		if err != nil {
			return err
		}
		if op == persistence.OpStreamGroupCreate {
			create()
			if o.s.CreateGroup(name, id, er) == nil {
				return fmt.Errorf("%w: group %q exists", errStreamReplay, name)
			}
			break
		}
		g := o.s.Group(name)
		if g == nil {
			return fmt.Errorf("%w: %s names a missing group %q", errStreamReplay, op, name)
		}
		g.SetLastID(id, er)
	case persistence.OpStreamGroupDestroy:
		name, err := p.Bytes()
		if err != nil {
			return err
		}
		o.s.DestroyGroup(name)
	case persistence.OpStreamConsumerCreate, persistence.OpStreamConsumerDel:
		g, err := group()
		if err != nil {
			return err
		}
		name, err := p.Bytes()
		if err != nil {
			return err
		}
		if op == persistence.OpStreamConsumerDel {
			g.DeleteConsumer(name)
			break
		}
		seen, err := p.I64()
		if err != nil {
			return err
		}
		if c := g.CreateConsumer(name, seen); c == nil {
			return fmt.Errorf("%w: consumer %q exists", errStreamReplay, name)
		}
	case persistence.OpStreamGroupRead:
		g, err := group()
		if err != nil {
			return err
		}
		name, err := p.Bytes()
		if err != nil {
			return err
		}
		now, err := p.I64()
		if err != nil {
			return err
		}
		noack, err := p.U8()
		if err != nil {
			return err
		}
		last, err := readStreamID(p)
		if err != nil {
			return err
		}
		er, err := p.I64()
		if err != nil {
			return err
		}
		var lists [3][]stream.ID
		for i := range lists {
			if lists[i], err = readStreamIDs(p); err != nil {
				return err
			}
		}
		o.s.PruneHolds(now)
		c := replayConsumer(g, name, now)
		g.ApplyRead(c, lists[0], lists[1], lists[2], last, er, now, noack != 0)
	case persistence.OpStreamClaim:
		g, err := group()
		if err != nil {
			return err
		}
		name, err := p.Bytes()
		if err != nil {
			return err
		}
		seen, err := p.I64()
		if err != nil {
			return err
		}
		n, err := p.U64()
		if err != nil {
			return err
		}
		if n > uint64(p.Len()/32) {
			return fmt.Errorf("%w: %s claims %d records in %d bytes", persistence.ErrCorrupt, op, n, p.Len())
		}
		c := replayConsumer(g, name, seen)
		for range n {
			id, err := readStreamID(p)
			if err != nil {
				return err
			}
			at, err := p.I64()
			if err != nil {
				return err
			}
			dc, err := p.U64()
			if err != nil {
				return err
			}
			g.SetPending(id, c, at, dc)
		}
	case persistence.OpStreamAck:
		g, err := group()
		if err != nil {
			return err
		}
		ids, err := readStreamIDs(p)
		if err != nil {
			return err
		}
		for _, id := range ids {
			g.Ack(id)
		}
	default:
		return fmt.Errorf("%w: opcode %s", errStreamReplay, op)
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

// decodeStream rebuilds a stream from its snapshot encoding.
func decodeStream(val []byte) (any, error) {
	s, err := stream.Unmarshal(val)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", persistence.ErrCorrupt, err)
	}
	return &streamObj{s: s}, nil
}
