package codec

import "testing"

func BenchmarkParseCommand(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"SET", "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000042\r\n$32\r\nvalue-0123456789-0123456789-0123\r\n"},
		{"GET", "*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000042\r\n"},
		{"inline", "SET key \"a\\x20value\"\r\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			src := []byte(bc.in)
			buf := make([]byte, len(src))
			args := make([][]byte, 0, 8)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, src) // inline requests are unescaped in place
				var n int
				var err error
				args, n, err = ParseCommand(buf, args, Limits{})
				if err != nil || n != len(buf) {
					b.Fatalf("n %d err %v", n, err)
				}
			}
		})
	}
}
