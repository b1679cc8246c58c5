package keyspace

import (
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
	IdemHeaderLen    = 11
	IdemMaxToken     = 128
	IdemMaxResult    = 4 << 20 // 4 MiB
	IdemMaxTTL       = 604_800_000
	IdemMagic        = 0xFE
	IdemVersion      = 1
	IdemPending      = 'P'
	IdemCompleted    = 'C'
	IdemMaxRecordLen = IdemHeaderLen + 2*IdemMaxToken + IdemMaxResult
)

// checkIdemLimits logs at start when proto-max-bulk-len cannot hold the
// largest IDEM record (a 4 MiB result plus two 128-byte tokens plus the
// 11-byte header): such results are refused until the limit is raised.
func checkIdemLimits(s *Server) {
	limit := s.Opts.Live.ProtoMaxBulkLen()
	if limit >= IdemMaxRecordLen {
		return
	}
	s.Log.Warn("proto_max_bulk_len is too small for the largest IDEM record: IDEM COMPLETE refuses records "+
		"(result + fingerprint + owner + 11 bytes) above the limit; raise it to at least "+
		strconv.Itoa(IdemMaxRecordLen)+" bytes to admit 4 MiB results",
		zap.Int64("proto_max_bulk_len", limit), zap.Int("idem_max_record", IdemMaxRecordLen),
		zap.Int64("idem_max_result_now", max(0, limit-IdemHeaderLen-2*IdemMaxToken)))
}
