// Package rdb reads and writes the serialization of Redis 7.0: the value
// encodings of RDB version 10 (and the version 9 forms still found in
// files written by Redis 6), the payload of DUMP and RESTORE, and whole
// RDB files. It knows nothing of the server: values come in and go out as
// plain Go values (Value), and every decoder returns an error, never a
// panic, on bad input, allocating no more than the input could justify.
//
// # Lengths and strings
//
// A length's first byte says how it is stored by its two top bits: 00 a
// 6-bit length in that byte, 01 a 14-bit length in it and the next byte
// (big-endian), 10 a 32-bit (0x80) or 64-bit (0x81) big-endian length in
// the bytes that follow. 11 marks a special string encoding in the low
// six bits: 0, 1 and 2 an integer of 8, 16 or 32 bits (little-endian)
// written in decimal when read back, 3 an LZF-compressed string (the
// compressed and the original lengths, then the compressed bytes).
//
//	string  := length bytes | 0xC0 i8 | 0xC1 i16 | 0xC2 i32 | 0xC3 clen len lzf
//
// # Values
//
// A value is a one-byte type and the type's body:
//
//	0  string              string
//	1  list (linked)       count, count × string            (read only)
//	2  set                 count, count × string
//	3  sorted set          count, count × (member, score as text)  (read only)
//	4  hash                count, count × (field, value)
//	5  sorted set (v2)     count, count × (member, float64 LE)
//	10 list ziplist        string holding a ziplist          (read only)
//	11 set intset          string holding an intset
//	12 zset ziplist        string holding a ziplist          (read only)
//	13 hash ziplist        string holding a ziplist          (read only)
//	14 list quicklist      count, count × ziplist string     (read only)
//	15 stream listpacks    as 19 without first/deleted ids, entries added
//	                       and entries read                  (read only)
//	16 hash listpack       string holding a listpack
//	17 zset listpack       string holding a listpack
//	18 list quicklist v2   count, count × (container, string): container
//	                       2 holds a listpack, 1 a single element
//	19 stream listpacks 2  nodes of listpacks, metadata, consumer groups
//	                       (see stream.go)
//
// Intsets, ziplists and listpacks are Redis's in-memory layouts, stored as
// they are; their structure is checked in full before anything is taken
// from them (lengths, terminators, back lengths, entry counts).
//
// # DUMP payloads
//
// A DUMP payload is a value, then the RDB version as 2 bytes and a CRC-64
// (Jones polynomial, reflected, no inversion) of everything before the
// CRC as 8 bytes, both little-endian.
//
// # Files
//
// A file starts with "REDIS" and four decimal digits of version, then
// opcodes and values until 0xFF and an 8-byte CRC-64 of the file (zero
// when the writer did not compute it): 0xFE SELECTDB (length), 0xFB
// RESIZEDB (two lengths), 0xFA AUX (two strings), 0xFC a deadline in
// milliseconds (8 bytes LE) or 0xFD in seconds (4 bytes LE) for the next
// key, 0xF8 IDLE (length) and 0xF9 FREQ (1 byte) for the next key, 0xF5
// a function library (its code as a string), 0xF7 module auxiliary data;
// any other byte is the type of a key, followed by the key (a string)
// and the value.
package rdb
