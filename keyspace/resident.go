package keyspace

import (
	"os"
	"strconv"
	"strings"
)

// The process's resident set size, which the engine's memory tuner and
// INFO memory (commands/info.go) both read.

// ResidentBytes is the process's resident set size as the OS reports it
// (Linux: the second field of /proc/self/statm, in pages); ok is false
// where that file does not exist.
func ResidentBytes() (uint64, bool) {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	return ParseStatmResident(data, os.Getpagesize())
}

// ParseStatmResident reads the resident page count out of a statm line
// ("size resident shared text lib data dt") and converts it to bytes.
func ParseStatmResident(statm []byte, pageSize int) (uint64, bool) {
	f := strings.Fields(string(statm))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * uint64(pageSize), true
}
