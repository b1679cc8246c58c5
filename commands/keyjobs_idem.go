package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"encoding/binary"
	"strconv"
)

// Reply texts of IDEM.
const (
	errIdemAction    = "ERR IDEM action must be BEGIN or COMPLETE"
	errIdemFP        = "ERR IDEM fingerprint must be 1-128 bytes"
	errIdemOwner     = "ERR IDEM owner must be 1-128 bytes"
	errIdemTTL       = "ERR IDEM ttl_ms must be an integer from 1 to 604800000"
	errIdemResult    = "ERR IDEM result exceeds 4194304 bytes"
	errIdemMalformed = "ERR IDEM key holds a value that is not a well-formed IDEM record"
	errIdemNoTTL     = "ERR IDEM record has no TTL; refusing to use it"
)

// Replies of IDEM BEGIN, as complete RESP arrays (the same in RESP2 and
// RESP3).
var (
	idemAcquired      = []byte("*1\r\n$8\r\nacquired\r\n")
	idemPendingReply  = []byte("*1\r\n$7\r\npending\r\n")
	idemConflict      = []byte("*1\r\n$8\r\nconflict\r\n")
	idemCompletedHead = []byte("*2\r\n$9\r\ncompleted\r\n")
)

// idemRecord is a parsed view of a packed record; its slices alias it.
type idemRecord struct {
	state     byte
	fp, owner []byte
	result    []byte
}

// fletcher16 returns the two check bytes of b.
func fletcher16(b []byte) (byte, byte) {
	var s1, s2 uint16
	for _, c := range b {
		s1 = (s1 + uint16(c)) % 255
		s2 = (s2 + s1) % 255
	}
	return byte(s1), byte(s2)
}

// parseIdemRecord parses v; ok is false unless v is exactly a well-formed
// record.
func parseIdemRecord(v []byte) (r idemRecord, ok bool) {
	if len(v) < keyspace.IdemHeaderLen || v[0] != keyspace.IdemMagic || v[1] != keyspace.IdemVersion {
		return r, false
	}
	state, fl, ol := v[2], int(v[3]), int(v[4])
	rl := int(binary.LittleEndian.Uint32(v[5:9]))
	if (state != keyspace.IdemPending && state != keyspace.IdemCompleted) || fl < 1 || fl > keyspace.IdemMaxToken ||
		ol < 1 || ol > keyspace.IdemMaxToken || rl > keyspace.IdemMaxResult || (state == keyspace.IdemPending && rl != 0) {
		return r, false
	}
	if len(v) != keyspace.IdemHeaderLen+fl+ol+rl {
		return r, false
	}
	if c1, c2 := fletcher16(v[:9]); c1 != v[9] || c2 != v[10] {
		return r, false
	}
	body := v[keyspace.IdemHeaderLen:]
	r.state = state
	r.fp = body[:fl:fl]
	r.owner = body[fl : fl+ol : fl+ol]
	r.result = body[fl+ol:]
	return r, true
}

// buildIdemRecord packs a record into one exactly sized buffer.
func buildIdemRecord(state byte, fp, owner, result []byte) []byte {
	b := make([]byte, keyspace.IdemHeaderLen+len(fp)+len(owner)+len(result))
	b[0], b[1], b[2] = keyspace.IdemMagic, keyspace.IdemVersion, state
	b[3], b[4] = byte(len(fp)), byte(len(owner))
	binary.LittleEndian.PutUint32(b[5:9], uint32(len(result)))
	b[9], b[10] = fletcher16(b[:9])
	n := copy(b[keyspace.IdemHeaderLen:], fp)
	n += copy(b[keyspace.IdemHeaderLen+n:], owner)
	copy(b[keyspace.IdemHeaderLen+n:], result)
	return b
}

// IDEM key BEGIN fingerprint owner ttl_ms
// IDEM key COMPLETE fingerprint owner result
func idemCommand(x *keyspace.Ctx) {
	args := x.Args
	begin := keyspace.EqFold(args[2], "begin")
	if !begin && !keyspace.EqFold(args[2], "complete") {
		x.W.Error(errIdemAction)
		return
	}
	fp, owner, last := args[3], args[4], args[5]
	if len(fp) < 1 || len(fp) > keyspace.IdemMaxToken {
		x.W.Error(errIdemFP)
		return
	}
	if len(owner) < 1 || len(owner) > keyspace.IdemMaxToken {
		x.W.Error(errIdemOwner)
		return
	}
	if begin {
		ttl, ok := keyspace.ParseInt(last)
		if !ok || ttl < 1 || ttl > keyspace.IdemMaxTTL {
			x.W.Error(errIdemTTL)
			return
		}
		idemBegin(x, fp, owner, x.S.NowMs+ttl)
		return
	}
	if len(last) > keyspace.IdemMaxResult {
		x.W.Error(errIdemResult)
		return
	}
	if size, limit := int64(keyspace.IdemHeaderLen+len(fp)+len(owner)+len(last)), x.S.Srv.Opts.Live.ProtoMaxBulkLen(); size > limit {
		x.W.Error("ERR IDEM record of " + strconv.FormatInt(size, 10) + " bytes exceeds proto-max-bulk-len (" + strconv.FormatInt(limit, 10) + ")")
		return
	}
	idemComplete(x, fp, owner, last)
}

// idemLiveOrReply returns the live record at the command's key: nil with ok when
// the key is missing; ok false (after an error reply) when the key holds
// anything but a well-formed record with a deadline.
func idemLiveOrReply(x *keyspace.Ctx) (e *keyspace.Entry, r idemRecord, ok bool) {
	e = x.S.Lookup(x.DB, x.Args[1])
	if e == nil {
		return nil, r, true
	}
	if x.DB.Obj(e) != nil {
		if _, isStr := x.DB.Obj(e).(stringLike); isStr {
			x.W.Error(errIdemMalformed)
		} else {
			x.W.Error(keyspace.ErrWrongType)
		}
		return nil, r, false
	}
	if r, ok = parseIdemRecord(x.DB.Val(e)); !ok {
		x.W.Error(errIdemMalformed)
		return nil, r, false
	}
	if e.ExpireAt == 0 {
		x.W.Error(errIdemNoTTL)
		return nil, r, false
	}
	return e, r, true
}

// idemBegin creates a pending record on a missing key, and otherwise
// reports the state of the live one without changing it.
func idemBegin(x *keyspace.Ctx, fp, owner []byte, at int64) {
	e, r, ok := idemLiveOrReply(x)
	if !ok {
		return
	}
	if e == nil {
		sh, db := x.S, x.DB
		e = db.Add(x.Args[1], buildIdemRecord(keyspace.IdemPending, fp, owner, nil), nil, at)
		sh.LogIdemPut(db.ID, e.KeyView(), db.Val(e), at)
		x.W.Raw(idemAcquired)
		return
	}
	switch {
	case !bytes.Equal(r.fp, fp):
		x.W.Raw(idemConflict)
	case r.state == keyspace.IdemPending:
		x.W.Raw(idemPendingReply)
	default:
		// The reply borrows the stored result bytes.
		x.W.Raw(idemCompletedHead)
		x.W.Bulk(r.result)
	}
}

// idemComplete publishes result on a live pending record with the same
// fingerprint and owner, keeping its deadline.
func idemComplete(x *keyspace.Ctx, fp, owner, result []byte) {
	e, r, ok := idemLiveOrReply(x)
	if !ok {
		return
	}
	if e == nil || !bytes.Equal(r.fp, fp) || !bytes.Equal(r.owner, owner) {
		x.W.Int(0)
		return
	}
	if r.state == keyspace.IdemCompleted {
		// An identical repeat succeeds without a write; a different
		// result never replaces the published one.
		if bytes.Equal(r.result, result) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
		return
	}
	sh, db := x.S, x.DB
	e = db.SetString(e, buildIdemRecord(keyspace.IdemCompleted, fp, owner, result))
	sh.LogIdemPut(db.ID, e.KeyView(), db.Val(e), e.ExpireAt)
	x.W.Int(1)
}
