package cluster

import "bytes"

// SlotCount is the number of hash slots in Redis Cluster.
const SlotCount = 16384

// SlotRange is the slots Start..End, both included.
type SlotRange struct {
	Start uint16 `json:"start"`
	End   uint16 `json:"end"`
}

// Len is the number of slots in the range.
func (r SlotRange) Len() int { return int(r.End) - int(r.Start) + 1 }

// crc16Table is the CRC16-CCITT (XMODEM) table for polynomial 0x1021, one entry per byte.
// Computed once; never written afterwards.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// CRC16 returns the CRC16-CCITT (XMODEM) checksum of b, the checksum Redis Cluster hashes
// keys with. CRC16([]byte("123456789")) is 0x31C3.
func CRC16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^c]
	}
	return crc
}

// KeySlot returns the hash slot of key, exactly as Redis Cluster computes it, hash tags
// included: if key has a "{" and a later "}" with at least one byte between the first "{"
// and the first "}" after it, only those bytes are hashed. It does not allocate.
func KeySlot(key []byte) uint16 {
	if i := bytes.IndexByte(key, '{'); i >= 0 {
		// j is the offset of the first "}" after the "{"; j == 0 is an empty tag.
		if j := bytes.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return CRC16(key) & (SlotCount - 1)
}
