package commands

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/types/rdb"
)

// rdbLenCases are strings whose RDB length was measured with DEBUG OBJECT
// on redis-server 7.0.15 (rdbcompression on): integers at the edges of the
// encodings, short and long plain strings, and compressible runs, patterns
// and seeded random texts over small alphabets, where the LZF length
// decides.
func rdbLenCases() [][]byte {
	cases := [][]byte{}
	for _, s := range []string{"bar", "", "1", "-1", "127", "128", "-128", "-129", "32767", "32768", "-32768",
		"-32769", "2147483647", "2147483648", "-2147483648", "-2147483649", "007", "+1", "-0",
		"12345678901234567890", "9223372036854775807", "abcdefghijklmnopqrstu"} {
		cases = append(cases, []byte(s))
	}
	for _, k := range []int{20, 21, 22, 30, 63, 64, 100, 264, 265, 300, 16384, 70000} {
		cases = append(cases, bytes.Repeat([]byte("a"), k))
	}
	for _, k := range []int{11, 12, 40, 133, 500} {
		cases = append(cases, bytes.Repeat([]byte("ab"), k))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{21, 25, 40, 77, 100, 300, 1000, 5000, 9000, 20000} {
		for _, alphabet := range []string{"ab", "abcdefgh", "abcdefghijklmnopqrstuvwxyz0123456789"} {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			cases = append(cases, b)
		}
		// A random block repeated: back references at a fixed distance,
		// near and beyond the 8 KiB window.
		for _, period := range []int{50, 300, 9000} {
			block := make([]byte, period)
			for i := range block {
				block[i] = byte(rng.Uint32())
			}
			cases = append(cases, bytes.Repeat(block, n/period+2)[:n])
		}
	}
	return cases
}

// rdbLenWant are the serializedlength values redis-server 7.0.15 reported
// for rdbLenCases, in order.
var rdbLenWant = []int64{4, 1, 2, 2, 2, 3, 2, 3, 3, 5, 3, 5, 5, 11, 5, 12, 4, 3, 3, 21, 20, 22, 21, 9, 11, 12, 12, 13, 13, 13, 13, 16, 203, 812, 10, 13, 14, 14, 23, 19, 22, 22, 22, 22, 22, 26, 26, 26, 26, 26, 26, 28, 41, 41, 41, 41, 41, 47, 79, 79, 63, 79, 79, 64, 102, 102, 63, 102, 102, 158, 290, 302, 63, 302, 302, 515, 831, 1002, 73, 328, 1002, 2546, 3374, 5002, 118, 373, 5002, 4589, 5926, 8983, 163, 418, 9002, 10044, 12964, 19817, 292, 547, 20005}

// TestRDBStringLen checks rdbStringLen against Redis's figures.
func TestRDBStringLen(t *testing.T) {
	cases := rdbLenCases()
	if dir := os.Getenv("RUVIO_DUMP_RDBLEN_CASES"); dir != "" {
		for i, c := range cases {
			if err := os.WriteFile(dir+"/"+strconv.Itoa(i), c, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if len(cases) != len(rdbLenWant) {
		t.Fatalf("%d cases, %d expectations", len(cases), len(rdbLenWant))
	}
	for i, c := range cases {
		if got := rdbStringLen(c); got != rdbLenWant[i] {
			t.Errorf("case %d (%d bytes %.20q): %d, Redis %d", i, len(c), c, got, rdbLenWant[i])
		}
	}
}

// TestDebugObjectSerializedLength checks DEBUG OBJECT's serializedlength:
// Redis's RDB length for strings, the snapshot encoding's length for the
// native types.
func TestDebugObjectSerializedLength(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	for _, tc := range []struct{ val, want string }{
		{"bar", "4"}, {"12345", "3"}, {"hello world hello world hello world", "23"},
	} {
		srvRun(sh, 2, "SET", "foo", tc.val)
		got := srvRun(sh, 2, "DEBUG", "OBJECT", "foo")
		if !bytes.Contains([]byte(got), []byte(" serializedlength:"+tc.want+" ")) {
			t.Errorf("SET foo %q: DEBUG OBJECT %q, want serializedlength:%s", tc.val, got, tc.want)
		}
	}
	// A lease is a token and a deadline: 16 bytes in a snapshot.
	srvRun(sh, 2, "LEASE", "l", "60000")
	if got := srvRun(sh, 2, "DEBUG", "OBJECT", "l"); !bytes.Contains([]byte(got), []byte(" serializedlength:16 ")) {
		t.Errorf("DEBUG OBJECT of a lease: %q", got)
	}
}

// FuzzRDBStringLen checks that the length stays within what the encoding
// can take: never more than the plain encoding.
func FuzzRDBStringLen(f *testing.F) {
	for _, c := range rdbLenCases()[:40] {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		n := len(s)
		if got, plain := rdbStringLen(s), int64(len(rdb.AppendLength(nil, uint64(n))))+int64(n); got < 1 || got > plain {
			t.Fatalf("%d bytes: length %d, plain %d", n, got, plain)
		}
	})
}
