package keyspace

import (
	"cmp"
	"slices"
)

// Byte spans: the bit writes (SETBIT, BITFIELD, the HyperLogLog updates)
// log only the bytes they changed, as SetRange records, so a far bit costs
// its bytes in the WAL, not the whole padded string.

// ByteSpan is the byte range Lo..Hi (inclusive) of a string.
type ByteSpan struct {
	Lo, Hi int // first and last byte index
}

// LogByteSpans logs the bytes of v in spans as SetRange records, merging
// spans that overlap or touch. Several records are written as one unit
// (unless one is being collected already), so that they replay whole.
func (sh *Shard) LogByteSpans(db int, key string, v []byte, spans []ByteSpan) {
	if len(spans) == 0 {
		return
	}
	slices.SortFunc(spans, func(a, b ByteSpan) int { return cmp.Compare(a.Lo, b.Lo) })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.Lo <= last.Hi+1 {
			last.Hi = max(last.Hi, s.Hi)
			continue
		}
		merged = append(merged, s)
	}
	own := len(merged) > 1 && sh.Journal != nil && !sh.Tx.Recording
	if own {
		sh.BeginUnit()
	}
	// The last first: replaying it creates or grows the string to its
	// length at once, the others then write inside it.
	for i := len(merged) - 1; i >= 0; i-- {
		s := merged[i]
		sh.LogSetRange(db, key, int64(s.Lo), v[s.Lo:s.Hi+1])
	}
	if own {
		sh.EndUnit()
	}
}
