package keyspace

import "testing"

// The flags CLIENT PAUSE WRITE judges a command by: a script's shebang
// decides whether EVAL may write.
func TestPauseEffectiveFlags(t *testing.T) {
	sh := newTestShard(t)
	cmds := sh.srv.cmds
	writes := func(args ...string) bool {
		cmd := cmds.lookup([]byte(args[0]))
		return sh.effectiveFlags(cmd, argsOf(args...))&(FlagWrite|FlagMayReplicate) != 0
	}
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"get", "k"}, false},
		{[]string{"set", "k", "v"}, true},
		{[]string{"publish", "c", "m"}, true},
		{[]string{"pfcount", "h"}, true},
		{[]string{"eval", "return 1", "0"}, true},
		{[]string{"eval", "#!lua\nreturn 1", "0"}, true},
		{[]string{"eval", "#!lua flags=no-writes\nreturn 1", "0"}, false},
		{[]string{"eval_ro", "return 1", "0"}, false},
		{[]string{"evalsha", "0000000000000000000000000000000000000000", "0"}, true},
		{[]string{"fcall", "nosuch", "0"}, true},
		{[]string{"client", "list"}, false},
		{[]string{"config", "set", "hz", "10"}, true},
	}
	for _, c := range cases {
		if got := writes(c.args...); got != c.want {
			t.Errorf("%q: pausable %v, want %v", c.args, got, c.want)
		}
	}
}
