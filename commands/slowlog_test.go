package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"slices"
	"strings"
	"testing"
)

func argsOf(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

func TestSlowlogArgs(t *testing.T) {
	long := strings.Repeat("x", 130)
	many := []string{"sadd", "s"}
	for i := 0; i < 40; i++ {
		many = append(many, "m")
	}
	cases := []struct {
		in, want []string
	}{
		{[]string{"get", "k"}, []string{"get", "k"}},
		{[]string{"set", "k", long}, []string{"set", "k", strings.Repeat("x", 128) + "... (2 more bytes)"}},
		{[]string{"set", "k", long[:128]}, []string{"set", "k", long[:128]}},
		{many, append(slices.Clone(many[:31]), "... (11 more arguments)")},
		{[]string{"AUTH", "pw"}, []string{"AUTH", "(redacted)"}},
		{[]string{"auth", "u", "pw"}, []string{"auth", "(redacted)", "(redacted)"}},
		{[]string{"HELLO", "3", "AUTH", "u", "pw", "SETNAME", "n"}, []string{"HELLO", "3", "AUTH", "(redacted)", "(redacted)", "SETNAME", "n"}},
		{[]string{"HELLO", "3", "SETNAME", "auth", "AUTH", "u", "pw"}, []string{"HELLO", "3", "SETNAME", "auth", "AUTH", "(redacted)", "(redacted)"}},
		{[]string{"HELLO", "3", "AUTH", "u", "pw", "AUTH", "v", "pw2"}, []string{"HELLO", "3", "AUTH", "(redacted)", "(redacted)", "AUTH", "(redacted)", "(redacted)"}},
		{[]string{"acl", "SETUSER", "u", "on", ">pw"}, []string{"acl", "SETUSER", "(redacted)", "(redacted)", "(redacted)"}},
		{[]string{"acl", "getuser", "u"}, []string{"acl", "getuser", "u"}},
		{[]string{"config", "set", "maxmemory", "1", "requirepass", "pw", "MASTERAUTH", "x"},
			[]string{"config", "set", "maxmemory", "1", "requirepass", "(redacted)", "MASTERAUTH", "(redacted)"}},
	}
	for _, c := range cases {
		if got := keyspace.SlowlogArgs(argsOf(c.in...)); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSlowlogTrim(t *testing.T) {
	sl := keyspace.Slowlog{Entries: make([]keyspace.SlowlogEntry, 5)}
	sl.Trim(2)
	if len(sl.Entries) != 2 {
		t.Fatalf("len %d", len(sl.Entries))
	}
	sl.Trim(0)
	if len(sl.Entries) != 0 {
		t.Fatalf("len %d", len(sl.Entries))
	}
}
