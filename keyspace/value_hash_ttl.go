package keyspace

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/hash"
)

// Hash-field expiry (Redis 7.4's HEXPIRE family). A hash whose fields
// never get a deadline keeps its types/hash encodings, packed into its
// entry while small, and pays one nil pointer in its transient wrapper:
// the deadlines live beside the hash in a fieldTTLs the first deadline
// creates and the last one removed drops. A hash with deadlines is never
// packed (its wrapper carries them), and is written to snapshots under
// its own kind.
//
// An expired field is invisible at once and deleted on the primary:
//   - lazily, as Redis 7.4 does: a command naming fields deletes those of
//     them it finds expired (ExpireAccessedFields), HRANDFIELD every
//     expired field (PurgeHashFields), in one HashDel record with the
//     hexpired notification (and del when the hash is left empty); the
//     commands that walk the hash (HGETALL, HSCAN) skip expired fields
//     and HLEN counts them until they are deleted, as Redis's do;
//   - actively, by the cron's bounded step (activeExpireHashFields): each
//     database keeps a min-heap of hashes by their earliest deadline, and
//     a step deletes at most a quota of fields before it yields.
//
// A replica deletes nothing itself: its primary's HashDel records do;
// meanwhile its commands skip the expired fields the same way.

// KindHashTTL is the snapshot value kind of a hash with field deadlines:
// the KindHash encoding (uvarint length first), then uvarint count and
// count × (uvarint length, field, deadline i64 little-endian).
const KindHashTTL uint8 = 62

// due is one deadline in a min-heap: a field's (in a hash's fieldTTLs) or
// a hash key's earliest one (in a database's queue).
type due struct {
	at   int64
	name string
}

// dueHeap is a binary min-heap of deadlines by at. Entries may be stale;
// their owners check them against the current state when they pop them.
type dueHeap []due

func (h *dueHeap) push(d due) {
	*h = append(*h, d)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].at <= s[i].at {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *dueHeap) pop() due {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = due{}
	*h = s[:last]
	h.down(0)
	return top
}

// down sifts the entry at i down to its place.
func (h *dueHeap) down(i int) {
	s := *h
	for {
		l, m := 2*i+1, i
		if l < len(s) && s[l].at < s[m].at {
			m = l
		}
		if r := l + 1; r < len(s) && s[r].at < s[m].at {
			m = r
		}
		if m == i {
			return
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
}

// fieldTTLs holds the deadlines of a hash's fields.
type fieldTTLs struct {
	// at maps each field with a deadline to it (unix ms).
	at map[string]int64
	// heap orders the deadlines; an entry whose deadline differs from
	// at's (changed or removed since) is stale and skipped.
	heap dueHeap
	// queued is the deadline under which the hash waits in its
	// database's queue (0: not queued).
	queued int64
	// names is the bytes of the field names in at, kept as they change
	// so that measuring the hash does not visit each one.
	names int64
}

// next returns the earliest live deadline, dropping stale heap tops, or 0.
func (t *fieldTTLs) next() int64 {
	for len(t.heap) > 0 {
		top := t.heap[0]
		if at, ok := t.at[top.name]; ok && at == top.at {
			return at
		}
		t.heap.pop()
	}
	return 0
}

// set gives field the deadline at (0 removes it).
func (t *fieldTTLs) set(field string, at int64) {
	_, had := t.at[field]
	if at == 0 {
		if had {
			delete(t.at, field)
			t.names -= int64(len(field))
		}
		return
	}
	if !had {
		t.names += int64(len(field))
	}
	t.at[field] = at
	t.heap.push(due{at: at, name: field})
	if len(t.heap) > 2*len(t.at)+32 {
		// Rebuild: too many stale entries.
		t.heap = t.heap[:0]
		for f, a := range t.at {
			t.heap.push(due{at: a, name: f})
		}
	}
}

// FieldTTL returns field's deadline (unix ms), 0 when it has none.
func (o *HashObj) FieldTTL(field []byte) int64 {
	if o.ttl == nil {
		return 0
	}
	return o.ttl.at[string(field)]
}

// HasFieldTTLs reports whether any field has a deadline.
func (o *HashObj) HasFieldTTLs() bool { return o.ttl != nil }

// FieldTTLCount is the number of fields with a deadline.
func (o *HashObj) FieldTTLCount() int {
	if o.ttl == nil {
		return 0
	}
	return len(o.ttl.at)
}

// SetFieldTTL gives an existing field the deadline at (unix ms; 0 removes
// its deadline).
func (o *HashObj) SetFieldTTL(field []byte, at int64) {
	if o.ttl == nil {
		if at == 0 {
			return
		}
		o.ttl = &fieldTTLs{at: make(map[string]int64, 1)}
	}
	o.ttl.set(string(field), at)
	if len(o.ttl.at) == 0 {
		o.ttl = nil
	}
}

// Set sets field to value, dropping its deadline as HSET does, and
// reports whether the field is new.
func (o *HashObj) Set(cfg hash.Config, field, value []byte) bool {
	if o.ttl != nil {
		o.SetFieldTTL(field, 0)
	}
	return o.H.Set(cfg, field, value)
}

// Delete removes field and its deadline and reports whether it was there.
func (o *HashObj) Delete(field []byte) bool {
	if o.ttl != nil {
		o.SetFieldTTL(field, 0)
	}
	return o.H.Delete(field)
}

// FieldExpired reports whether field has a deadline at or before now.
func (o *HashObj) FieldExpired(field []byte, now int64) bool {
	if o.ttl == nil {
		return false
	}
	at, ok := o.ttl.at[string(field)]
	return ok && at <= now
}

// nextFieldDeadline is the earliest field deadline, 0 when none.
func (o *HashObj) nextFieldDeadline() int64 {
	if o.ttl == nil {
		return 0
	}
	return o.ttl.next()
}

// popExpired deletes up to limit fields (limit < 0: all) whose deadline
// is at or before now, appending them to dst; more reports that expired
// fields remain.
func (o *HashObj) popExpired(now int64, limit int, dst [][]byte) (out [][]byte, more bool) {
	for o.ttl != nil {
		at := o.ttl.next()
		if at == 0 || at > now {
			return dst, false
		}
		if limit == 0 {
			return dst, true
		}
		limit--
		f := o.ttl.heap.pop().name
		delete(o.ttl.at, f)
		o.ttl.names -= int64(len(f))
		o.H.Delete(unsafe.Slice(unsafe.StringData(f), len(f)))
		dst = append(dst, []byte(f))
		if len(o.ttl.at) == 0 {
			o.ttl = nil
		}
	}
	return dst, false
}

// liveCopy returns a copy of the hash without the fields expired at now,
// or nil when none is left.
func (o *HashObj) liveCopy(now int64) *HashObj {
	c := o.Clone().(*HashObj)
	c.popExpired(now, -1, nil)
	if c.H.Len() == 0 {
		return nil
	}
	return c
}

// cloneTTLs copies the deadlines for Clone.
func (t *fieldTTLs) clone() *fieldTTLs {
	if t == nil {
		return nil
	}
	c := &fieldTTLs{at: make(map[string]int64, len(t.at)), heap: make(dueHeap, 0, len(t.at)), names: t.names}
	for f, at := range t.at {
		c.at[f] = at
		c.heap.push(due{at: at, name: f})
	}
	return c
}

// memoryUsage estimates the heap the deadlines hold, in O(1): the map's
// slots (about 40 bytes a field), the heap's and the field names.
func (t *fieldTTLs) memoryUsage() int64 {
	if t == nil {
		return 0
	}
	return int64(unsafe.Sizeof(*t)) + int64(cap(t.heap))*int64(unsafe.Sizeof(due{})) + 40*int64(len(t.at)) + t.names
}

// queueHash puts the hash at key into db's queue of hashes with field
// deadlines under its earliest deadline, unless it waits there already
// under an earlier one.
func (db *DB) queueHash(key string, o *HashObj) {
	at := o.nextFieldDeadline()
	if at == 0 || (o.ttl.queued != 0 && o.ttl.queued <= at) {
		return
	}
	o.ttl.queued = at
	db.hashQueue.push(due{at: at, name: strings.Clone(key)})
	if len(db.hashQueue) > 2*max(db.hashQueueLive, 512) {
		db.compactHashQueue()
	}
}

// compactHashQueue drops the stale entries of db's queue: those of
// hashes deleted, renamed or persisted since, which would otherwise wait
// for their deadline. It runs when the queue has doubled since the last
// compaction, so its cost is constant per entry queued.
func (db *DB) compactHashQueue() {
	live := db.hashQueue[:0]
	for _, d := range db.hashQueue {
		if db.queuedHash(d) != nil {
			live = append(live, d)
		}
	}
	clear(db.hashQueue[len(live):])
	db.hashQueue = live
	// Restore the heap order over what is left.
	for i := len(live)/2 - 1; i >= 0; i-- {
		db.hashQueue.down(i)
	}
	db.hashQueueLive = len(live)
}

// queuedHash returns the hash d stands for, or nil when d is stale.
func (db *DB) queuedHash(d due) *HashObj {
	e := db.FindString(d.name)
	if e == nil || !e.IsObj() {
		return nil
	}
	if o, ok := db.A.Objs[e.Vlen()].(*HashObj); ok && o.ttl != nil && o.ttl.queued == d.at {
		return o
	}
	return nil
}

// requeueHash queues o again under its earliest deadline, wherever it
// waited before (an entry that moved to a new key or database).
func (db *DB) requeueHash(key string, obj any) {
	if o, ok := obj.(*HashObj); ok && o.ttl != nil {
		o.ttl.queued = 0
		db.queueHash(key, o)
	}
}

// NoteFieldTTLs queues the hash at key for the active expiry of its
// fields; the commands call it after giving fields deadlines.
func (db *DB) NoteFieldTTLs(key []byte, o *HashObj) {
	if o.ttl != nil {
		db.queueHash(string(key), o)
	}
}

// HashesWithFieldTTLs counts the hashes of db with field deadlines
// (INFO keyspace's subexpiry): each waits in the queue under exactly one
// entry that is not stale. It walks the queue.
func (db *DB) HashesWithFieldTTLs() int {
	n := 0
	for _, d := range db.hashQueue {
		if db.queuedHash(d) != nil {
			n++
		}
	}
	return n
}

// canDeleteExpired reports whether this shard deletes expired data itself
// now: not on a replica, not while expiry is paused, not for a key whose
// slot is being received (the sender's records delete it).
func (sh *Shard) canDeleteExpired(key []byte) bool {
	if sh.Srv.IsReplica() || sh.expiryPaused() {
		return false
	}
	return !sh.Srv.Cluster.multi || !sh.receivingSlot(key)
}

// PurgeHashFields deletes the fields of the hash o at e whose deadline
// passed, logging them as one HashDel and notifying hexpired, and the key
// with its last field (del). It returns the hash the command should read:
// o, nil when the key is gone, or on a shard that does not delete (a
// replica) a copy without the expired fields (nil when none is left).
func (sh *Shard) PurgeHashFields(db *DB, e *Entry, o *HashObj) *HashObj {
	if o == nil || o.ttl == nil {
		return o
	}
	if at := o.ttl.next(); at == 0 || at > sh.NowMs {
		return o
	}
	if !sh.canDeleteExpired(e.Key()) {
		return o.liveCopy(sh.NowMs)
	}
	sh.expireHashFields(db, e, o, -1)
	if o.H.Len() == 0 {
		return nil
	}
	return o
}

// ExpiredFieldCount is the number of fields whose deadline is at or
// before now (still in the hash until deleted).
func (o *HashObj) ExpiredFieldCount(now int64) int {
	if o.ttl == nil {
		return 0
	}
	if at := o.ttl.next(); at == 0 || at > now {
		return 0
	}
	n := 0
	for _, at := range o.ttl.at {
		if at <= now {
			n++
		}
	}
	return n
}

// ExpireAccessedFields deletes, lazily, the fields among fields[0],
// fields[step], fields[2*step], … whose deadline passed, as one HashDel
// record with the hexpired notification, and the key with its last field
// (del). It reports whether the key is gone. A shard that does not delete
// (a replica) leaves them; the commands treat them as absent
// (FieldExpired).
func (sh *Shard) ExpireAccessedFields(db *DB, e *Entry, o *HashObj, fields [][]byte, step int) (gone bool) {
	if o.ttl == nil {
		return false
	}
	if at := o.ttl.next(); at == 0 || at > sh.NowMs {
		return false
	}
	var expired [][]byte
	for i := 0; i < len(fields); i += step {
		if o.FieldExpired(fields[i], sh.NowMs) {
			expired = append(expired, fields[i])
		}
	}
	if len(expired) == 0 || !sh.canDeleteExpired(e.Key()) {
		return false
	}
	if sh.Snap != nil {
		sh.SnapshotTouch(db, e.Key())
	}
	deleted := expired[:0]
	for _, f := range expired {
		if o.Delete(f) {
			deleted = append(deleted, f)
		}
	}
	sh.LogHashDel(db.ID, e.Key(), deleted)
	sh.Notify(EvHash, "hexpired", db.ID, e.Key())
	sh.Srv.Stats.ExpiredFields.Add(int64(len(deleted)))
	if sh.Trk != nil {
		// Tracking clients learn of the change as of a key's expiry.
		sh.trackRemoved(e.KeyString())
	}
	if o.H.Len() == 0 {
		sh.Notify(EvGeneric, "del", db.ID, e.Key())
		db.Remove(e)
		return true
	}
	return false
}

// expireHashFields deletes up to limit expired fields of o (limit < 0:
// all) and returns how many it deleted and whether more remain; a hash
// left empty is deleted.
func (sh *Shard) expireHashFields(db *DB, e *Entry, o *HashObj, limit int) (n int, more bool) {
	if sh.Snap != nil {
		// A snapshot in progress writes the hash as it was first.
		sh.SnapshotTouch(db, e.Key())
	}
	fields, more := o.popExpired(sh.NowMs, limit, sh.expiredFields[:0])
	if len(fields) == 0 {
		return 0, more
	}
	sh.LogHashDel(db.ID, e.Key(), fields)
	sh.Notify(EvHash, "hexpired", db.ID, e.Key())
	sh.Srv.Stats.ExpiredFields.Add(int64(len(fields)))
	clear(fields)
	if cap(fields) <= 1024 {
		sh.expiredFields = fields[:0]
	}
	if sh.Trk != nil {
		sh.trackRemoved(e.KeyString())
	}
	if o.H.Len() == 0 {
		sh.Notify(EvGeneric, "del", db.ID, e.Key())
		db.Remove(e)
		return len(fields), false
	}
	return len(fields), more
}

// activeExpireHashFields runs one bounded step of the active expiry of
// hash fields in db: it deletes at most quota fields, from the hashes
// whose earliest deadline passed, and stops at the time deadline
// (microseconds). It returns the quota left.
func (sh *Shard) activeExpireHashFields(db *DB, quota int, deadline int64) int {
	for iter := 0; len(db.hashQueue) > 0 && quota > 0; iter++ {
		top := db.hashQueue[0]
		if top.at > sh.NowMs {
			break
		}
		if iter%16 == 15 && sh.Srv.Now().UnixMicro() > deadline {
			break
		}
		db.hashQueue.pop()
		e := db.FindString(top.name)
		if e == nil || !e.IsObj() || e.Expired(sh.NowMs) {
			continue
		}
		o, ok := db.Obj(e).(*HashObj)
		if !ok || o.ttl == nil || o.ttl.queued != top.at {
			continue // superseded entry
		}
		o.ttl.queued = 0
		n, _ := sh.expireHashFields(db, e, o, quota)
		quota -= n
		if n > 0 && o.H.Len() == 0 {
			continue // the key went with its last field
		}
		db.queueHash(top.name, o)
	}
	if len(db.hashQueue) > 0 && cap(db.hashQueue) > 64 && cap(db.hashQueue) > 4*len(db.hashQueue) {
		db.hashQueue = append(dueHeap(nil), db.hashQueue...)
	}
	return quota
}

// hashFieldQuota bounds the fields one cron step deletes per database set.
const hashFieldQuota = 1000

// LogHashFieldTTL writes a HashFieldExpire record: fields of key get the
// deadline at (0: none).
func (sh *Shard) LogHashFieldTTL(db int, key []byte, at int64, fields [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendI64(p, at)
	p = persistence.AppendU64(p, uint64(len(fields)))
	for _, f := range fields {
		p = persistence.AppendBytes(p, f)
	}
	sh.recordScratch(db, persistence.OpHashFieldExpire, p)
}

// HashSetEx modes: the deadline each field written by a HashSetEx record
// gets.
const (
	// SetExDeadline gives every field the record's deadline (0: none).
	SetExDeadline uint8 = 0
	// SetExKeepTTL keeps each existing field's deadline.
	SetExKeepTTL uint8 = 1
)

// LogHashSetEx writes a HashSetEx record: the field/value pairs in kv
// (alternating) are set in key, each with the deadline at (mode
// SetExDeadline) or keeping its own (SetExKeepTTL).
func (sh *Shard) LogHashSetEx(db int, key []byte, mode uint8, at int64, kv [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU8(p, mode)
	p = persistence.AppendI64(p, at)
	p = persistence.AppendU64(p, uint64(len(kv)/2))
	for _, b := range kv {
		p = persistence.AppendBytes(p, b)
	}
	sh.recordScratch(db, persistence.OpHashSetEx, p)
}

// replayHashFieldTTL applies a HashFieldExpire or HashSetEx record. The
// whole payload is checked before the hash changes.
func replayHashFieldTTL(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	if r.Op == persistence.OpHashSetEx {
		return applyHashSetEx(sh, db, p)
	}
	key, at := p.NextBytes(), p.NextI64()
	n := p.NextCount(1)
	fields := p.NextFields(n)
	if err := p.End(); err != nil {
		return err
	}
	if at < 0 {
		return fmt.Errorf("%s with a negative deadline", r.Op)
	}
	e := db.Find(key)
	if e == nil {
		return fmt.Errorf("%s on a missing key", r.Op)
	}
	o, ok := db.Obj(e).(*HashObj)
	if !ok {
		return fmt.Errorf("%s on a key that is not a hash", r.Op)
	}
	for fields.Len() > 0 {
		f := fields.NextBytes()
		if o.H.Exists(f) {
			o.SetFieldTTL(f, at)
		}
	}
	db.NoteFieldTTLs(key, o)
	return nil
}

// applyHashSetEx replays a HashSetEx record.
func applyHashSetEx(sh *Shard, db *DB, p *persistence.PayloadReader) error {
	key, mode, at := p.NextBytes(), p.NextU8(), p.NextI64()
	n := p.NextCount(2)
	fields := p.NextFields(2 * n)
	if err := p.End(); err != nil {
		return err
	}
	if mode > SetExKeepTTL || at < 0 {
		return fmt.Errorf("%s mode %d deadline %d", persistence.OpHashSetEx, mode, at)
	}
	e := db.Find(key)
	var o *HashObj
	if e != nil {
		var isHash bool
		if o, isHash = db.Obj(e).(*HashObj); !isHash {
			o = &HashObj{}
			db.SetObj(e, o)
		}
	} else {
		o = &HashObj{}
		db.Add(key, nil, o, 0)
	}
	cfg := sh.HashConfig()
	for fields.Len() > 0 {
		f, v := fields.NextBytes(), fields.NextBytes()
		if mode == SetExKeepTTL {
			o.H.Set(cfg, f, v)
			continue
		}
		o.Set(cfg, f, v)
		o.SetFieldTTL(f, at)
	}
	db.NoteFieldTTLs(key, o)
	return nil
}

// appendHashTTLSnapshot appends the KindHashTTL encoding of o.
func (o *HashObj) appendHashTTLSnapshot(dst []byte) []byte {
	enc, err := o.H.AppendBinary(nil)
	if err != nil {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(len(enc)))
	dst = append(dst, enc...)
	dst = binary.AppendUvarint(dst, uint64(len(o.ttl.at)))
	// In the hash's order, so that equal states encode alike.
	o.H.Each(func(f, _ []byte) bool {
		if at := o.ttl.at[string(f)]; at != 0 {
			dst = binary.AppendUvarint(dst, uint64(len(f)))
			dst = append(dst, f...)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(at))
		}
		return true
	})
	return dst
}

// decodeHashTTLValue rebuilds a hash with field deadlines from its
// KindHashTTL encoding. Every deadline must name a field of the hash.
func decodeHashTTLValue(cfg hash.Config, val []byte) (any, error) {
	l, k := binary.Uvarint(val)
	if k <= 0 || l > uint64(len(val)-k) {
		return nil, fmt.Errorf("%w: hash with field deadlines: hash length", persistence.ErrCorrupt)
	}
	v, err := decodeHashValue(cfg, val[k:k+int(l)])
	if err != nil {
		return nil, err
	}
	o := v.(*HashObj)
	r := val[k+int(l):]
	n, k := binary.Uvarint(r)
	if k <= 0 || n == 0 || n > uint64(o.H.Len()) {
		return nil, fmt.Errorf("%w: hash with field deadlines: count", persistence.ErrCorrupt)
	}
	r = r[k:]
	for i := uint64(0); i < n; i++ {
		fl, k := binary.Uvarint(r)
		if k <= 0 || fl > uint64(len(r)-k) || len(r)-k-int(fl) < 8 {
			return nil, fmt.Errorf("%w: hash with field deadlines: deadline %d", persistence.ErrCorrupt, i)
		}
		f := r[k : k+int(fl)]
		at := int64(binary.LittleEndian.Uint64(r[k+int(fl):]))
		r = r[k+int(fl)+8:]
		if !o.H.Exists(f) || at <= 0 || o.FieldTTL(f) != 0 {
			return nil, fmt.Errorf("%w: hash with field deadlines: deadline %d of field %q", persistence.ErrCorrupt, i, f)
		}
		o.SetFieldTTL(f, at)
	}
	if len(r) != 0 {
		return nil, fmt.Errorf("%w: hash with field deadlines: trailing bytes", persistence.ErrCorrupt)
	}
	return o, nil
}
