package keyspace

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"go.uber.org/zap"
)

// IDEM keeps one packed record per key as a plain string value (TYPE is
// string, GET shows the record) with the key's ordinary deadline as its
// retention. The layout is documented in docs/idem-format.md:
//
//	offset size field
//	0      1    magic 0xFE (never the first byte of UTF-8 text)
//	1      1    format version, 1
//	2      1    state: 'P' pending, 'C' completed
//	3      1    fingerprint length, 1-128
//	4      1    owner length, 1-128
//	5      4    result length, u32 little-endian; 0 while pending
//	9      2    Fletcher-16 of bytes 0-8: sum1 then sum2
//	11     …    fingerprint, owner, result
//
// Anything that does not parse exactly (wrong magic, version, state,
// bounds, total length or check bytes) is not an IDEM record, and IDEM
// fails closed on it: an error, nothing overwritten.

// IDEM bounds.
const (
	idemHeaderLen    = 11
	idemMaxToken     = 128
	idemMaxResult    = 4 << 20 // 4 MiB
	idemMaxTTL       = 604_800_000
	idemMagic        = 0xFE
	idemVersion      = 1
	idemPending      = 'P'
	idemCompleted    = 'C'
	idemMaxRecordLen = idemHeaderLen + 2*idemMaxToken + idemMaxResult
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
	if len(v) < idemHeaderLen || v[0] != idemMagic || v[1] != idemVersion {
		return r, false
	}
	state, fl, ol := v[2], int(v[3]), int(v[4])
	rl := int(binary.LittleEndian.Uint32(v[5:9]))
	if (state != idemPending && state != idemCompleted) || fl < 1 || fl > idemMaxToken ||
		ol < 1 || ol > idemMaxToken || rl > idemMaxResult || (state == idemPending && rl != 0) {
		return r, false
	}
	if len(v) != idemHeaderLen+fl+ol+rl {
		return r, false
	}
	if c1, c2 := fletcher16(v[:9]); c1 != v[9] || c2 != v[10] {
		return r, false
	}
	body := v[idemHeaderLen:]
	r.state = state
	r.fp = body[:fl:fl]
	r.owner = body[fl : fl+ol : fl+ol]
	r.result = body[fl+ol:]
	return r, true
}

// buildIdemRecord packs a record into one exactly sized buffer.
func buildIdemRecord(state byte, fp, owner, result []byte) []byte {
	b := make([]byte, idemHeaderLen+len(fp)+len(owner)+len(result))
	b[0], b[1], b[2] = idemMagic, idemVersion, state
	b[3], b[4] = byte(len(fp)), byte(len(owner))
	binary.LittleEndian.PutUint32(b[5:9], uint32(len(result)))
	b[9], b[10] = fletcher16(b[:9])
	n := copy(b[idemHeaderLen:], fp)
	n += copy(b[idemHeaderLen+n:], owner)
	copy(b[idemHeaderLen+n:], result)
	return b
}

// IDEM key BEGIN fingerprint owner ttl_ms
// IDEM key COMPLETE fingerprint owner result
func idemCommand(x *Ctx) {
	args := x.Args
	begin := eqFold(args[2], "begin")
	if !begin && !eqFold(args[2], "complete") {
		x.W.Error(errIdemAction)
		return
	}
	fp, owner, last := args[3], args[4], args[5]
	if len(fp) < 1 || len(fp) > idemMaxToken {
		x.W.Error(errIdemFP)
		return
	}
	if len(owner) < 1 || len(owner) > idemMaxToken {
		x.W.Error(errIdemOwner)
		return
	}
	if begin {
		ttl, ok := parseInt(last)
		if !ok || ttl < 1 || ttl > idemMaxTTL {
			x.W.Error(errIdemTTL)
			return
		}
		idemBegin(x, fp, owner, x.S.nowMs+ttl)
		return
	}
	if len(last) > idemMaxResult {
		x.W.Error(errIdemResult)
		return
	}
	if size, limit := int64(idemHeaderLen+len(fp)+len(owner)+len(last)), x.S.srv.opts.Live.ProtoMaxBulkLen(); size > limit {
		x.W.Error("ERR IDEM record of " + strconv.FormatInt(size, 10) + " bytes exceeds proto-max-bulk-len (" + strconv.FormatInt(limit, 10) + ")")
		return
	}
	idemComplete(x, fp, owner, last)
}

// idemLive returns the live record at the command's key: nil with ok when
// the key is missing; ok false (after an error reply) when the key holds
// anything but a well-formed record with a deadline.
func idemLive(x *Ctx) (e *entry, r idemRecord, ok bool) {
	e = x.S.lookup(x.DB, x.Args[1])
	if e == nil {
		return nil, r, true
	}
	if x.DB.obj(e) != nil {
		if _, isStr := x.DB.obj(e).(stringLike); isStr {
			x.W.Error(errIdemMalformed)
		} else {
			x.W.Error(errWrongType)
		}
		return nil, r, false
	}
	if r, ok = parseIdemRecord(x.DB.val(e)); !ok {
		x.W.Error(errIdemMalformed)
		return nil, r, false
	}
	if e.expireAt == 0 {
		x.W.Error(errIdemNoTTL)
		return nil, r, false
	}
	return e, r, true
}

// idemBegin creates a pending record on a missing key, and otherwise
// reports the state of the live one without changing it.
func idemBegin(x *Ctx, fp, owner []byte, at int64) {
	e, r, ok := idemLive(x)
	if !ok {
		return
	}
	if e == nil {
		sh, db := x.S, x.DB
		e = db.add(x.Args[1], buildIdemRecord(idemPending, fp, owner, nil), nil, at)
		sh.logIdemPut(db.id, e.keyView(), db.val(e), at)
		x.W.Raw(idemAcquired)
		return
	}
	switch {
	case !bytes.Equal(r.fp, fp):
		x.W.Raw(idemConflict)
	case r.state == idemPending:
		x.W.Raw(idemPendingReply)
	default:
		// The reply borrows the stored result bytes.
		x.W.Raw(idemCompletedHead)
		x.W.Bulk(r.result)
	}
}

// idemComplete publishes result on a live pending record with the same
// fingerprint and owner, keeping its deadline.
func idemComplete(x *Ctx, fp, owner, result []byte) {
	e, r, ok := idemLive(x)
	if !ok {
		return
	}
	if e == nil || !bytes.Equal(r.fp, fp) || !bytes.Equal(r.owner, owner) {
		x.W.Int(0)
		return
	}
	if r.state == idemCompleted {
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
	e = db.setString(e, buildIdemRecord(idemCompleted, fp, owner, result))
	sh.logIdemPut(db.id, e.keyView(), db.val(e), e.expireAt)
	x.W.Int(1)
}

// checkIdemLimits logs at start when proto-max-bulk-len cannot hold the
// largest IDEM record (a 4 MiB result plus two 128-byte tokens plus the
// 11-byte header): such results are refused until the limit is raised.
func checkIdemLimits(s *Server) {
	limit := s.opts.Live.ProtoMaxBulkLen()
	if limit >= idemMaxRecordLen {
		return
	}
	s.log.Warn("proto_max_bulk_len is too small for the largest IDEM record: IDEM COMPLETE refuses records "+
		"(result + fingerprint + owner + 11 bytes) above the limit; raise it to at least "+
		strconv.Itoa(idemMaxRecordLen)+" bytes to admit 4 MiB results",
		zap.Int64("proto_max_bulk_len", limit), zap.Int("idem_max_record", idemMaxRecordLen),
		zap.Int64("idem_max_result_now", max(0, limit-idemHeaderLen-2*idemMaxToken)))
}
