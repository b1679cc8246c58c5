package commands

import (
	"fmt"
	"testing"
)

// Small collections are packed in their slot between commands and
// unpacked by the commands that touch them (packed.go): these measure
// what that costs a command on a 10-element hash, intset and sorted set.
//
//	go test ./commands -run '^$' -bench SmallCollection -benchmem

func smallCollectionsSetup() [][]string {
	h := []string{"HSET", "h"}
	z := []string{"ZADD", "z"}
	for i := 0; i < 10; i++ {
		h = append(h, fmt.Sprint("f", i), "0123456789")
		z = append(z, fmt.Sprint(i), fmt.Sprint("m", i))
	}
	return [][]string{h, z, {"SADD", "s", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}}
}

func BenchmarkSmallCollectionHGET(b *testing.B) {
	benchmarkHotPath(b, smallCollectionsSetup(), "HGET", "h", "f5")
}

func BenchmarkSmallCollectionHSET(b *testing.B) {
	benchmarkHotPath(b, smallCollectionsSetup(), "HSET", "h", "f5", "9876543210")
}

func BenchmarkSmallCollectionSISMEMBER(b *testing.B) {
	benchmarkHotPath(b, smallCollectionsSetup(), "SISMEMBER", "s", "7")
}

func BenchmarkSmallCollectionZSCORE(b *testing.B) {
	benchmarkHotPath(b, smallCollectionsSetup(), "ZSCORE", "z", "m5")
}

func BenchmarkSmallCollectionZADD(b *testing.B) {
	benchmarkHotPath(b, smallCollectionsSetup(), "ZADD", "z", "5", "m5")
}
