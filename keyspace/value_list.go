package keyspace

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/list"
	"github.com/ruvio/ruvio/types/rdb"
)

// The list value type, as the engine knows it: the value's wrapper and
// its configuration, its snapshot, DUMP and packed forms, the WAL records of
// its mutations (encoders and their replay). The list commands are in
// commands/list.go.

// KindList is the snapshot value kind of a list (types/list binary form).
const KindList uint8 = 61

// List ends as the WAL records them.
const (
	ListHead uint8 = 0
	ListTail uint8 = 1
)

// ListObj is the value of a list key.
type ListObj struct {
	L *list.List // the list
}

// TypeName is the TYPE reply.
func (o *ListObj) TypeName() string { return "list" }

// Encoding is OBJECT ENCODING: the encoding the list is in now.
func (o *ListObj) Encoding() string { return o.L.Encoding() }

// Len is the number of elements, which LLEN replies.
func (o *ListObj) Len() int { return o.L.Len() }

// Clone returns a deep copy, for COPY.
func (o *ListObj) Clone() any { return &ListObj{L: o.L.Clone()} }

// memoryUsage is the heap the list holds, measured exactly by the type.
func (o *ListObj) memoryUsage(int64) int64 { return int64(o.L.MemoryUsage()) }

// SnapshotKind is KindList.
func (o *ListObj) SnapshotKind() uint8 { return KindList }

// AppendSnapshot appends the types/list binary encoding.
func (o *ListObj) AppendSnapshot(dst []byte) []byte {
	out, err := o.L.AppendBinary(dst)
	if err != nil {
		return dst
	}
	return out
}

// String is a dump of the elements, for tests comparing states.
func (o *ListObj) String() string {
	var els []string
	o.L.Range(0, o.L.Len()-1, func(v []byte) bool {
		els = append(els, fmt.Sprintf("%q", v))
		return true
	})
	return "list[" + strings.Join(els, " ") + "]"
}

// ListFill is list-max-listpack-size from the live config.
func (sh *Shard) ListFill() int {
	return int(max(min(sh.Srv.Opts.Live.ListMaxListpackSize(), math.MaxInt32), math.MinInt32))
}

// Push adds v at the given end.
func (o *ListObj) Push(where uint8, v []byte) {
	if where == ListHead {
		o.L.PushFront(v)
	} else {
		o.L.PushBack(v)
	}
}

// Pop removes the element at the given end; the slice is valid until the
// next mutation of the list.
func (o *ListObj) Pop(where uint8) ([]byte, bool) {
	if where == ListHead {
		return o.L.PopFront()
	}
	return o.L.PopBack()
}

// LogListPush logs els pushed, in order, at the where end (ListHead,
// ListTail) of key's list, creating it: OpListPush.
func (sh *Shard) LogListPush(db int, key []byte, where uint8, els [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU8(p, where)
	p = persistence.AppendU64(p, uint64(len(els)))
	for _, b := range els {
		p = persistence.AppendBytes(p, b)
	}
	sh.recordScratch(db, persistence.OpListPush, p)
}

// LogListPop logs n elements popped from the where end of key's list (an
// emptied list is deleted at replay): OpListPop.
func (sh *Shard) LogListPop(db int, key []byte, where uint8, n int) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU8(p, where)
	p = persistence.AppendU64(p, uint64(n))
	sh.recordScratch(db, persistence.OpListPop, p)
}

// LogListKeyI64Bytes writes key, one i64 then bytes (ListSet, ListRem).
func (sh *Shard) LogListKeyI64Bytes(db int, op persistence.Opcode, key []byte, n int64, b []byte) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendI64(p, n)
	p = persistence.AppendBytes(p, b)
	sh.recordScratch(db, op, p)
}

// LogListInsert logs v inserted before or, with after, after the first
// pivot from the head (LINSERT): OpListInsert.
func (sh *Shard) LogListInsert(db int, key []byte, after bool, pivot, v []byte) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	var a uint8
	if after {
		a = 1
	}
	p = persistence.AppendU8(p, a)
	p = persistence.AppendBytes(p, pivot)
	p = persistence.AppendBytes(p, v)
	sh.recordScratch(db, persistence.OpListInsert, p)
}

// LogListTrim logs LTRIM key start stop, with LTRIM's indexes:
// OpListTrim.
func (sh *Shard) LogListTrim(db int, key []byte, start, stop int64) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendI64(p, start)
	p = persistence.AppendI64(p, stop)
	sh.recordScratch(db, persistence.OpListTrim, p)
}

// LogListMove logs one element popped from the from end of src and pushed
// at the to end of dst (LMOVE, RPOPLPUSH and their blocking forms):
// OpListMove.
func (sh *Shard) LogListMove(db int, src, dst []byte, from, to uint8) {
	sh.touchKey(db, bstr(src))
	sh.touchKey(db, bstr(dst))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], src)
	p = persistence.AppendBytes(p, dst)
	p = persistence.AppendU8(p, from)
	p = persistence.AppendU8(p, to)
	sh.recordScratch(db, persistence.OpListMove, p)
}

// listReplay is the state one list record's replay shares between its
// steps: the database and the record's first key.
type listReplay struct {
	sh  *Shard
	db  *DB
	op  persistence.Opcode
	key []byte
}

// get returns the list at k. A missing key, or one holding another type, is
// an error unless create is set, when it becomes an empty list.
func (x *listReplay) get(k []byte, create bool) (*ListObj, error) {
	e := x.db.Find(k)
	if e == nil {
		if !create {
			return nil, fmt.Errorf("%s on a missing key", x.op)
		}
		o := &ListObj{L: list.New(x.sh.ListFill())}
		x.db.Add(k, nil, o, 0)
		return o, nil
	}
	o, ok := x.db.Obj(e).(*ListObj)
	if !ok {
		if !create {
			return nil, fmt.Errorf("%s on a key that is not a list", x.op)
		}
		o = &ListObj{L: list.New(x.sh.ListFill())}
		x.db.SetObj(e, o)
	}
	return o, nil
}

// dropIfEmpty deletes the key k of an emptied list.
func (x *listReplay) dropIfEmpty(k []byte, o *ListObj) {
	if o.L.Len() == 0 {
		if e := x.db.Find(k); e != nil {
			RemoveEmpty(x.db, e)
		}
	}
}

// applyListRecord replays a list record into db. Each opcode's step reads
// its fields, checks the payload once, and only then changes the list.
func applyListRecord(sh *Shard, db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	x := &listReplay{sh: sh, db: db, op: op, key: p.NextBytes()}
	switch op {
	case persistence.OpListPush:
		return x.Push(p)
	case persistence.OpListPop:
		return x.Pop(p)
	case persistence.OpListSet:
		return x.set(p)
	case persistence.OpListInsert:
		return x.insert(p)
	case persistence.OpListRem:
		return x.rem(p)
	case persistence.OpListTrim:
		return x.Trim(p)
	case persistence.OpListMove:
		return x.move(p)
	}
	return fmt.Errorf("opcode %s is not a list record", op)
}

func (x *listReplay) Push(p *persistence.PayloadReader) error {
	where := p.NextU8()
	elems := p.NextFields(p.NextCount(1))
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, true)
	if err != nil {
		return err
	}
	for elems.Len() > 0 {
		o.Push(where, elems.NextBytes())
	}
	x.dropIfEmpty(x.key, o)
	return nil
}

func (x *listReplay) Pop(p *persistence.PayloadReader) error {
	where, n := p.NextU8(), p.NextU64()
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	for range min(n, uint64(o.L.Len())) {
		o.Pop(where)
	}
	x.dropIfEmpty(x.key, o)
	return nil
}

func (x *listReplay) set(p *persistence.PayloadReader) error {
	i, v := p.NextI64(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	if !o.L.Set(int(i), v) {
		return fmt.Errorf("%s index %d out of range", x.op, i)
	}
	return nil
}

func (x *listReplay) insert(p *persistence.PayloadReader) error {
	after, pivot, v := p.NextU8(), p.NextBytes(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	o.L.Insert(pivot, v, after == 1)
	return nil
}

func (x *listReplay) rem(p *persistence.PayloadReader) error {
	count, v := p.NextI64(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	o.L.Remove(v, int(count))
	x.dropIfEmpty(x.key, o)
	return nil
}

func (x *listReplay) Trim(p *persistence.PayloadReader) error {
	start, stop := p.NextI64(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	o.L.Trim(int(start), int(stop))
	x.dropIfEmpty(x.key, o)
	return nil
}

func (x *listReplay) move(p *persistence.PayloadReader) error {
	dst, from, to := p.NextBytes(), p.NextU8(), p.NextU8()
	if err := p.End(); err != nil {
		return err
	}
	so, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	v, ok := so.Pop(from)
	if !ok {
		return fmt.Errorf("%s from an empty list", x.op)
	}
	v = slices.Clone(v)
	do := so
	if string(dst) != string(x.key) {
		if do, err = x.get(dst, true); err != nil {
			return err
		}
	}
	do.Push(to, v)
	x.dropIfEmpty(x.key, so)
	return nil
}

// listValueType describes lists to the engine (value.go).
var listValueType = valueType{
	name:  "list",
	kinds: []uint8{KindList},
	decodeSnapshot: func(cfg valueConfig, _ uint8, val []byte) (any, error) {
		return decodeListValue(cfg.listFill, val)
	},
	rdbKind: rdb.KindList,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		o := &ListObj{L: list.New(cfg.listFill)}
		for _, el := range v.Elems {
			o.L.PushBack(el)
		}
		return o
	},
}

// listReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var listReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpListPush, persistence.OpListPop, persistence.OpListSet, persistence.OpListInsert, persistence.OpListRem, persistence.OpListTrim, persistence.OpListMove}, apply: replayListRecord},
	{ops: []persistence.Opcode{persistence.OpListStore}, apply: replayListStoreRecord},
}

// replayListRecord adapts the family decoder to the replay table.
func replayListRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return applyListRecord(sh, db, r.Op, p)
}

// replayListStoreRecord adapts the family decoder to the replay table.
func replayListStoreRecord(sh *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	return sh.applyListStore(db, p)
}

// RDBValue is the list's plain contents, for DUMP.
func (o *ListObj) RDBValue(int64) (rdb.Value, string) {
	v := rdb.Value{Kind: rdb.KindList, Elems: make([][]byte, 0, o.L.Len())}
	o.L.Range(0, o.L.Len()-1, func(b []byte) bool {
		v.Elems = append(v.Elems, bytes.Clone(b))
		return true
	})
	return v, ""
}

// decodeListValue rebuilds a list from its snapshot encoding.
func decodeListValue(fill int, val []byte) (any, error) {
	l, err := list.Unmarshal(val, fill)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", persistence.ErrCorrupt, err)
	}
	if l.Len() == 0 {
		return nil, fmt.Errorf("%w: empty list", persistence.ErrCorrupt)
	}
	return &ListObj{L: l}, nil
}

// LogListStore writes the whole list stored at key.
func (sh *Shard) LogListStore(db int, key []byte, o *ListObj) {
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = o.AppendSnapshot(p)
	sh.recordScratch(db, persistence.OpListStore, p)
}

// applyListStore replays an OpListStore record.
func (sh *Shard) applyListStore(db *DB, p *persistence.PayloadReader) error {
	key, err := p.Bytes()
	if err != nil {
		return err
	}
	v, err := decodeListValue(sh.ListFill(), p.Rest())
	if err != nil {
		return fmt.Errorf("%s: %w", persistence.OpListStore, err)
	}
	StoreObj(db, db.Find(key), key, v)
	return nil
}
