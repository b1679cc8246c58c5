package rdb

import "hash/crc64"

// jonesTable is the table of the CRC-64 Redis uses: the Jones polynomial
// 0xad93d23594c935a9, given here reversed as hash/crc64 wants it.
var jonesTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

// CRC64 continues the checksum crc over p. Redis's CRC starts at 0 and is
// not inverted; hash/crc64 inverts before and after, which the two
// inversions here undo.
func CRC64(crc uint64, p []byte) uint64 {
	return ^crc64.Update(^crc, jonesTable, p)
}
