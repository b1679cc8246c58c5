package integration_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Commands called from a script are checked against the calling user's
// permissions, with Redis 7.0's error text and an ACL LOG entry in the lua
// context; redis.acl_check_cmd answers without logging.
func TestScriptCallsCheckedAgainstCallerACL(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	expect(t, admin, "OK", "ACL", "SETUSER", "scripter", "on", ">p", "+eval", "+get", "~*")
	expect(t, admin, "OK", "SET", "k", "v")
	c := userClient(t, s.Addr(), "scripter", "p")

	expect(t, c, "v", "EVAL", "return redis.call('get', KEYS[1])", "1", "k")
	_, err := c.Do(ctxT(t), "EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "k").Result()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR The user executing the script can't run this command or subcommand script: ") {
		t.Fatalf("EVAL calling a denied command: %v", err)
	}
	expect(t, admin, "v", "GET", "k")
	if v, err := c.Do(ctxT(t), "EVAL", "return redis.acl_check_cmd('set', 'k', 'x')", "0").Result(); err == nil || v != nil {
		t.Fatalf("acl_check_cmd of a denied command = %v, %v; want nil reply", v, err)
	}
	// The newest entry comes first (the client library's own handshake
	// may have logged one before).
	entries, err := admin.Do(ctxT(t), "ACL", "LOG", "1").Slice()
	if err != nil || len(entries) != 1 {
		t.Fatalf("ACL LOG 1 = %v, %v; want one entry", entries, err)
	}
	entry := entries[0].(map[any]any)
	if entry["context"] != "lua" || entry["object"] != "set" || entry["username"] != "scripter" {
		t.Fatalf("ACL LOG entry = %v", entry)
	}
}
