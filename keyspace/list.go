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

// The list family (LPUSH, LRANGE, LMOVE, …) on types/list. Every mutation
// writes one record: pushes and pops name their end and their elements or
// count; LSET, LINSERT, LREM and LTRIM log their arguments, which give the
// same result on the same state (they depend on nothing but the list);
// LMOVE logs both keys and both ends. A list left empty is deleted, by the
// command and by the replay of its record alike.
//
// The blocking variants (BLPOP and kin) are not implemented yet.

// kindList is the snapshot value kind of a list (types/list binary form).
const kindList uint8 = 61

// List ends as the WAL records them.
const (
	listHead uint8 = 0
	listTail uint8 = 1
)

// listObj is the value of a list key.
type listObj struct{ l *list.List }

func (o *listObj) typeName() string { return "list" }
func (o *listObj) encoding() string { return o.l.Encoding() }
func (o *listObj) clone() any       { return &listObj{l: o.l.Clone()} }

// memoryUsage is the heap the list holds, measured exactly by the type.
func (o *listObj) memoryUsage(int64) int64 { return int64(o.l.MemoryUsage()) }
func (o *listObj) snapshotKind() uint8     { return kindList }

// appendSnapshot appends the types/list binary encoding.
func (o *listObj) appendSnapshot(dst []byte) []byte {
	out, err := o.l.AppendBinary(dst)
	if err != nil {
		return dst
	}
	return out
}

// String is a dump of the elements, for tests comparing states.
func (o *listObj) String() string {
	var els []string
	o.l.Range(0, o.l.Len()-1, func(v []byte) bool {
		els = append(els, fmt.Sprintf("%q", v))
		return true
	})
	return "list[" + strings.Join(els, " ") + "]"
}

// listFill is list-max-listpack-size from the live config.
func (sh *Shard) listFill() int {
	return int(max(min(sh.srv.opts.Live.ListMaxListpackSize(), math.MaxInt32), math.MinInt32))
}

// push adds v at the given end.
func (o *listObj) push(where uint8, v []byte) {
	if where == listHead {
		o.l.PushFront(v)
	} else {
		o.l.PushBack(v)
	}
}

// pop removes the element at the given end; the slice is valid until the
// next mutation of the list.
func (o *listObj) pop(where uint8) ([]byte, bool) {
	if where == listHead {
		return o.l.PopFront()
	}
	return o.l.PopBack()
}

// parseWhere parses LEFT or RIGHT; it replies a syntax error otherwise.
func parseWhere(x *Ctx, b []byte) (uint8, bool) {
	switch {
	case eqFold(b, "left"):
		return listHead, true
	case eqFold(b, "right"):
		return listTail, true
	}
	x.W.Error(errSyntax)
	return 0, false
}

// parseNonNegative parses a count that must be >= 0; msg is the error for
// anything else, a non-integer included, as Redis's getPositiveLong.
func parseNonNegative(x *Ctx, b []byte, msg string) (int64, bool) {
	n, ok := parseInt(b)
	if !ok || n < 0 {
		x.W.Error(msg)
		return 0, false
	}
	return n, true
}

// parseIndex parses an index or count argument (a C long).
func parseIndex(x *Ctx, b []byte) (int64, bool) {
	n, ok := parseInt(b)
	if !ok {
		x.W.Error(errNotInt)
	}
	return n, ok
}

func (sh *Shard) logListPush(db int, key []byte, where uint8, els [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.journal == nil {
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

func (sh *Shard) logListPop(db int, key []byte, where uint8, n int) {
	sh.touchKey(db, bstr(key))
	if sh.journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU8(p, where)
	p = persistence.AppendU64(p, uint64(n))
	sh.recordScratch(db, persistence.OpListPop, p)
}

// logListKeyI64Bytes writes key, one i64 then bytes (ListSet, ListRem).
func (sh *Shard) logListKeyI64Bytes(db int, op persistence.Opcode, key []byte, n int64, b []byte) {
	sh.touchKey(db, bstr(key))
	if sh.journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendI64(p, n)
	p = persistence.AppendBytes(p, b)
	sh.recordScratch(db, op, p)
}

func (sh *Shard) logListInsert(db int, key []byte, after bool, pivot, v []byte) {
	sh.touchKey(db, bstr(key))
	if sh.journal == nil {
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

func (sh *Shard) logListTrim(db int, key []byte, start, stop int64) {
	sh.touchKey(db, bstr(key))
	if sh.journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendI64(p, start)
	p = persistence.AppendI64(p, stop)
	sh.recordScratch(db, persistence.OpListTrim, p)
}

func (sh *Shard) logListMove(db int, src, dst []byte, from, to uint8) {
	sh.touchKey(db, bstr(src))
	sh.touchKey(db, bstr(dst))
	if sh.journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], src)
	p = persistence.AppendBytes(p, dst)
	p = persistence.AppendU8(p, from)
	p = persistence.AppendU8(p, to)
	sh.recordScratch(db, persistence.OpListMove, p)
}

// LPUSH/RPUSH key element [element ...], LPUSHX/RPUSHX (only onto an
// existing list)
func pushCommand(x *Ctx) {
	name := x.Cmd.Name
	where, event := listTail, "rpush"
	if name[0] == 'l' {
		where, event = listHead, "lpush"
	}
	key := x.Args[1]
	e, o, ok := lookupTyped[*listObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		if strings.HasSuffix(name, "x") {
			x.W.Int(0)
			return
		}
		o = &listObj{l: list.New(x.S.listFill())}
		x.DB.add(key, nil, o, 0)
		x.notify(evNew, "new", key)
	}
	for _, v := range x.Args[2:] {
		o.push(where, v)
	}
	x.S.logListPush(x.DB.id, key, where, x.Args[2:])
	x.notify(evList, event, key)
	x.W.Int(int64(o.l.Len()))
}

// popN pops up to n elements at where from the list of e, replying each,
// logs the pops and deletes an emptied list. It returns how many it popped.
func popN(x *Ctx, e *entry, o *listObj, key []byte, where uint8, n int64) int {
	n = min(n, int64(o.l.Len()))
	for range n {
		v, _ := o.pop(where)
		x.W.Bulk(v)
	}
	x.S.logListPop(x.DB.id, key, where, int(n))
	x.notify(evList, popEvent(where), key)
	if o.l.Len() == 0 {
		removeEmpty(x.DB, e)
		x.notify(evGeneric, "del", key)
	}
	return int(n)
}

// popEvent names the keyspace event of a pop at where.
func popEvent(where uint8) string {
	if where == listHead {
		return "lpop"
	}
	return "rpop"
}

// LPOP/RPOP key [count]
func popCommand(x *Ctx) {
	where := listTail
	if x.Cmd.Name == "lpop" {
		where = listHead
	}
	if len(x.Args) > 3 {
		x.W.Error("ERR wrong number of arguments for '" + x.Cmd.Name + "' command")
		return
	}
	hasCount := len(x.Args) == 3
	var count int64
	if hasCount {
		var ok bool
		if count, ok = parseNonNegative(x, x.Args[2], "ERR value is out of range, must be positive"); !ok {
			return
		}
	}
	key := x.Args[1]
	e, o, ok := lookupTyped[*listObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		if hasCount {
			x.W.NullArray()
		} else {
			x.W.Null()
		}
		return
	}
	if !hasCount {
		popN(x, e, o, key, where, 1)
		return
	}
	if count == 0 {
		x.W.ArrayHeader(0)
		return
	}
	x.W.ArrayHeader(int(min(count, int64(o.l.Len()))))
	popN(x, e, o, key, where, count)
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
func lmpopCommand(x *Ctx) {
	m, ok := parseMPop(x, 1, listMPop)
	if !ok {
		return
	}
	where, _ := parseWhere(x, m.direction)
	count := m.count
	for _, key := range m.keys {
		e, o, ok := lookupTyped[*listObj](x, key, false)
		if !ok {
			return
		}
		if e == nil {
			continue
		}
		x.W.ArrayHeader(2)
		x.W.Bulk(key)
		x.W.ArrayHeader(int(min(count, int64(o.l.Len()))))
		popN(x, e, o, key, where, count)
		return
	}
	x.W.NullArray()
}

// readList returns the list at key for a read; o is nil when absent and
// ok false when WRONGTYPE was replied.
func readList(x *Ctx) (o *listObj, ok bool) {
	_, o, ok = lookupTyped[*listObj](x, x.Args[1], true)
	return o, ok
}

// LLEN key
func llenCommand(x *Ctx) {
	o, ok := readList(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(o.l.Len()))
}

// LINDEX key index
func lindexCommand(x *Ctx) {
	o, ok := readList(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.Null()
		return
	}
	i, ok := parseIndex(x, x.Args[2])
	if !ok {
		return
	}
	if v, found := o.l.Index(int(i)); found {
		x.W.Bulk(v)
	} else {
		x.W.Null()
	}
}

// LRANGE key start stop
func lrangeCommand(x *Ctx) {
	start, ok := parseIndex(x, x.Args[2])
	if !ok {
		return
	}
	stop, ok := parseIndex(x, x.Args[3])
	if !ok {
		return
	}
	o, ok := readList(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.ArrayHeader(0)
		return
	}
	lo, hi := list.Span(int(start), int(stop), o.l.Len())
	if lo > hi {
		x.W.ArrayHeader(0)
		return
	}
	x.W.ArrayHeader(hi - lo + 1)
	o.l.Range(lo, hi, func(v []byte) bool {
		x.W.Bulk(v)
		return true
	})
}

// LSET key index element
func lsetCommand(x *Ctx) {
	key := x.Args[1]
	e, o, ok := lookupTyped[*listObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		x.W.Error(errNoSuchKey)
		return
	}
	i, ok := parseIndex(x, x.Args[2])
	if !ok {
		return
	}
	if !o.l.Set(int(i), x.Args[3]) {
		x.W.Error("ERR index out of range")
		return
	}
	x.S.logListKeyI64Bytes(x.DB.id, persistence.OpListSet, key, i, x.Args[3])
	x.notify(evList, "lset", key)
	x.W.OK()
}

// LINSERT key BEFORE|AFTER pivot element
func linsertCommand(x *Ctx) {
	var after bool
	switch {
	case eqFold(x.Args[2], "after"):
		after = true
	case eqFold(x.Args[2], "before"):
	default:
		x.W.Error(errSyntax)
		return
	}
	key := x.Args[1]
	e, o, ok := lookupTyped[*listObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	n := o.l.Insert(x.Args[3], x.Args[4], after)
	if n >= 0 {
		x.S.logListInsert(x.DB.id, key, after, x.Args[3], x.Args[4])
		x.notify(evList, "linsert", key)
	}
	x.W.Int(int64(n))
}

// LREM key count element
func lremCommand(x *Ctx) {
	count, ok := parseIndex(x, x.Args[2])
	if !ok {
		return
	}
	key := x.Args[1]
	e, o, ok := lookupTyped[*listObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	n := o.l.Remove(x.Args[3], int(count))
	if n > 0 {
		x.S.logListKeyI64Bytes(x.DB.id, persistence.OpListRem, key, count, x.Args[3])
		x.notify(evList, "lrem", key)
		if o.l.Len() == 0 {
			removeEmpty(x.DB, e)
			x.notify(evGeneric, "del", key)
		}
	}
	x.W.Int(int64(n))
}

// LTRIM key start stop
func ltrimCommand(x *Ctx) {
	start, ok := parseIndex(x, x.Args[2])
	if !ok {
		return
	}
	stop, ok := parseIndex(x, x.Args[3])
	if !ok {
		return
	}
	key := x.Args[1]
	e, o, ok := lookupTyped[*listObj](x, key, false)
	if !ok {
		return
	}
	if e != nil {
		before := o.l.Len()
		o.l.Trim(int(start), int(stop))
		if o.l.Len() != before {
			x.S.logListTrim(x.DB.id, key, start, stop)
		}
		// Redis announces ltrim on an existing list even when nothing was cut.
		x.notify(evList, "ltrim", key)
		if o.l.Len() == 0 {
			removeEmpty(x.DB, e)
			x.notify(evGeneric, "del", key)
		}
	}
	x.W.OK()
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func lposCommand(x *Ctx) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	args := x.Args
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case eqFold(args[j], "rank") && more:
			j++
			n, ok := parseIndex(x, args[j])
			if !ok {
				return
			}
			if n == 0 {
				x.W.Error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = n
		case eqFold(args[j], "count") && more:
			j++
			n, ok := parseNonNegative(x, args[j], "ERR COUNT can't be negative")
			if !ok {
				return
			}
			count = n
		case eqFold(args[j], "maxlen") && more:
			j++
			n, ok := parseNonNegative(x, args[j], "ERR MAXLEN can't be negative")
			if !ok {
				return
			}
			maxlen = n
		default:
			x.W.Error(errSyntax)
			return
		}
	}
	if rank == math.MinInt64 {
		// Its negation does not fit: no list is that long.
		rank = math.MinInt64 + 1
	}
	o, ok := readList(x)
	if !ok {
		return
	}
	if o == nil {
		if count != -1 {
			x.W.ArrayHeader(0)
		} else {
			x.W.Null()
		}
		return
	}
	want := int(count)
	if count == -1 {
		want = 1
	}
	pos := o.l.Pos(nil, x.Args[2], int(rank), want, int(maxlen))
	if count == -1 {
		if len(pos) == 0 {
			x.W.Null()
		} else {
			x.W.Int(int64(pos[0]))
		}
		return
	}
	x.W.ArrayHeader(len(pos))
	for _, p := range pos {
		x.W.Int(int64(p))
	}
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT / RPOPLPUSH source
// destination
func lmoveCommand(x *Ctx) {
	from, to := listTail, listHead
	if x.Cmd.Name == "lmove" {
		var ok bool
		if from, ok = parseWhere(x, x.Args[3]); !ok {
			return
		}
		if to, ok = parseWhere(x, x.Args[4]); !ok {
			return
		}
	}
	lmoveDo(x, x.Args[1], x.Args[2], from, to)
}

// lmoveDo moves one element from the list at src (from) to the list at
// dstKey (to), replying the element, null when src is absent, WRONGTYPE
// when either is not a list.
func lmoveDo(x *Ctx, src, dstKey []byte, from, to uint8) {
	se, so, ok := lookupTyped[*listObj](x, src, false)
	if !ok {
		return
	}
	if se == nil {
		x.W.Null()
		return
	}
	de, do, ok := lookupTyped[*listObj](x, dstKey, false)
	if !ok {
		return
	}
	v, _ := so.pop(from)
	v = slices.Clone(v)
	if de == nil {
		if string(src) == string(dstKey) {
			do = so
		} else {
			do = &listObj{l: list.New(x.S.listFill())}
			x.DB.add(dstKey, nil, do, 0)
			x.notify(evNew, "new", dstKey)
		}
	}
	do.push(to, v)
	x.S.logListMove(x.DB.id, src, dstKey, from, to)
	pushEv := "rpush"
	if to == listHead {
		pushEv = "lpush"
	}
	x.notify(evList, pushEv, dstKey)
	x.notify(evList, popEvent(from), src)
	if so.l.Len() == 0 {
		// The entry pointer may be stale after an insertion: find it again.
		if e := x.DB.find(src); e != nil {
			removeEmpty(x.DB, e)
			x.notify(evGeneric, "del", src)
		}
	}
	x.W.Bulk(v)
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
func (x *listReplay) get(k []byte, create bool) (*listObj, error) {
	e := x.db.find(k)
	if e == nil {
		if !create {
			return nil, fmt.Errorf("%s on a missing key", x.op)
		}
		o := &listObj{l: list.New(x.sh.listFill())}
		x.db.add(k, nil, o, 0)
		return o, nil
	}
	o, ok := x.db.obj(e).(*listObj)
	if !ok {
		if !create {
			return nil, fmt.Errorf("%s on a key that is not a list", x.op)
		}
		o = &listObj{l: list.New(x.sh.listFill())}
		x.db.setObj(e, o)
	}
	return o, nil
}

// dropIfEmpty deletes the key k of an emptied list.
func (x *listReplay) dropIfEmpty(k []byte, o *listObj) {
	if o.l.Len() == 0 {
		if e := x.db.find(k); e != nil {
			removeEmpty(x.db, e)
		}
	}
}

// applyListRecord replays a list record into db. Each opcode's step reads
// its fields, checks the payload once, and only then changes the list.
func applyListRecord(sh *Shard, db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	x := &listReplay{sh: sh, db: db, op: op, key: p.NextBytes()}
	switch op {
	case persistence.OpListPush:
		return x.push(p)
	case persistence.OpListPop:
		return x.pop(p)
	case persistence.OpListSet:
		return x.set(p)
	case persistence.OpListInsert:
		return x.insert(p)
	case persistence.OpListRem:
		return x.rem(p)
	case persistence.OpListTrim:
		return x.trim(p)
	case persistence.OpListMove:
		return x.move(p)
	}
	return fmt.Errorf("opcode %s is not a list record", op)
}

func (x *listReplay) push(p *persistence.PayloadReader) error {
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
		o.push(where, elems.NextBytes())
	}
	x.dropIfEmpty(x.key, o)
	return nil
}

func (x *listReplay) pop(p *persistence.PayloadReader) error {
	where, n := p.NextU8(), p.NextU64()
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	for range min(n, uint64(o.l.Len())) {
		o.pop(where)
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
	if !o.l.Set(int(i), v) {
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
	o.l.Insert(pivot, v, after == 1)
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
	o.l.Remove(v, int(count))
	x.dropIfEmpty(x.key, o)
	return nil
}

func (x *listReplay) trim(p *persistence.PayloadReader) error {
	start, stop := p.NextI64(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	o, err := x.get(x.key, false)
	if err != nil {
		return err
	}
	o.l.Trim(int(start), int(stop))
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
	v, ok := so.pop(from)
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
	do.push(to, v)
	x.dropIfEmpty(x.key, so)
	return nil
}

// listValueType describes lists to the engine (value.go).
var listValueType = valueType{
	name:  "list",
	kinds: []uint8{kindList},
	decodeSnapshot: func(cfg valueConfig, _ uint8, val []byte) (any, error) {
		return decodeListValue(cfg.listFill, val)
	},
	rdbKind: rdb.KindList,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		o := &listObj{l: list.New(cfg.listFill)}
		for _, el := range v.Elems {
			o.l.PushBack(el)
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

// rdbValue is the list's plain contents, for DUMP.
func (o *listObj) rdbValue(int64) (rdb.Value, string) {
	v := rdb.Value{Kind: rdb.KindList, Elems: make([][]byte, 0, o.l.Len())}
	o.l.Range(0, o.l.Len()-1, func(b []byte) bool {
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
	return &listObj{l: l}, nil
}

func registerListFamily(t commandTable) {
	const rw, ro, fast, deny = FlagWrite, FlagReadOnly, FlagFast, FlagDenyOOM
	t.add(
		&Command{Name: "lpush", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Prepends one or more elements to a list. Creates the key if it doesn't exist.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand},
		&Command{Name: "rpush", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Appends one or more elements to a list. Creates the key if it doesn't exist.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand},
		&Command{Name: "lpushx", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "2.2.0", Summary: "Prepends one or more elements to a list only when the list exists.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand},
		&Command{Name: "rpushx", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "2.2.0", Summary: "Appends an element to a list only when the list exists.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand},
		&Command{Name: "lpop", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.", Complexity: "O(N) where N is the number of elements returned", Handler: popCommand},
		&Command{Name: "rpop", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns and removes the last elements of a list. Deletes the list if the last element was popped.", Complexity: "O(N) where N is the number of elements returned", Handler: popCommand},
		&Command{Name: "lmpop", Arity: -4, Flags: rw, NumKeysAt: 1, Group: "list", Since: "7.0.0", Summary: "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.", Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.", Handler: lmpopCommand},
		&Command{Name: "llen", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns the length of a list.", Complexity: "O(1)", Handler: llenCommand},
		&Command{Name: "lindex", Arity: 3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns an element from a list by its index.", Complexity: "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).", Handler: lindexCommand},
		&Command{Name: "lrange", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns a range of elements from a list.", Complexity: "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.", Handler: lrangeCommand},
		&Command{Name: "lset", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Sets the value of an element in a list by its index.", Complexity: "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).", Handler: lsetCommand},
		&Command{Name: "linsert", Arity: 5, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "2.2.0", Summary: "Inserts an element before or after another element in a list.", Complexity: "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).", Handler: linsertCommand},
		&Command{Name: "lrem", Arity: 4, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Removes elements from a list. Deletes the list if the last element was removed.", Complexity: "O(N+M) where N is the length of the list and M is the number of elements removed.", Handler: lremCommand},
		&Command{Name: "ltrim", Arity: 4, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Removes elements from both ends a list. Deletes the list if all elements were trimmed.", Complexity: "O(N) where N is the number of elements to be removed by the operation.", Handler: ltrimCommand},
		&Command{Name: "lpos", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "6.0.6", Summary: "Returns the index of matching elements in a list.", Complexity: "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.", Handler: lposCommand},
		&Command{Name: "lmove", Arity: 5, Flags: rw | deny, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "6.2.0", Summary: "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.", Complexity: "O(1)", Handler: lmoveCommand},
		&Command{Name: "rpoplpush", Arity: 3, Flags: rw | deny, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "1.2.0", Summary: "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.", Complexity: "O(1)", Handler: lmoveCommand},
	)
}
