package integration_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

const errDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// server.enable_debug_command = "no" refuses DEBUG to every client, local
// ones included, with Redis's text; CONFIG GET reports the setting and
// CONFIG SET cannot change it. The default ("local") admits a loopback
// client.
func TestDebugCommandSetting(t *testing.T) {
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.EnableDebugCommand = "no" }))
	c := s.Client(t)
	for _, args := range [][]any{{"DEBUG", "HELP"}, {"DEBUG", "SLEEP", "100"}, {"debug", "set-active-expire", "0"}} {
		if err := c.Do(ctxT(t), args...).Err(); err == nil || err.Error() != errDebugNotAllowed {
			t.Errorf("%v: %v", args, err)
		}
	}
	if got := c.ConfigGet(ctxT(t), "enable-debug-command").Val(); got["enable-debug-command"] != "no" {
		t.Errorf("CONFIG GET enable-debug-command = %v", got)
	}
	if err := c.ConfigSet(ctxT(t), "enable-debug-command", "yes").Err(); err == nil || !strings.Contains(err.Error(), "can't set immutable config") {
		t.Errorf("CONFIG SET enable-debug-command: %v", err)
	}
	if err := c.Ping(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}

	local := testserver.Start(t).Client(t)
	if err := local.Do(ctxT(t), "DEBUG", "SLEEP", "0").Err(); err != nil {
		t.Errorf("DEBUG from loopback with the default setting: %v", err)
	}
	if got := local.ConfigGet(ctxT(t), "enable-debug-command").Val(); got["enable-debug-command"] != "local" {
		t.Errorf("default enable-debug-command = %v", got)
	}
}

// CONFIG SET of a setting the server cannot honour is refused with a reason
// instead of answering OK and doing nothing; a value that describes the
// server as it is stays accepted (the Redis test framework sets save "").
// (port, bind and tls-port move the listeners: listeners_test.go.)
// Save points are honoured (TestSavePointTakesSnapshot).
// The memory limit and its policy are honoured: they are set and read back.
func TestConfigSetRefusesWhatItCannotDo(t *testing.T) {
	c := testserver.Start(t, testserver.Shards(2)).Client(t)
	refused := []struct{ name, value, want string }{
		{"dbfilename", "other.rdb", "can't set protected config"},
		{"dir", "/tmp", "can't set protected config"},
		{"appendfsync", "always", "can't set immutable config: the WAL fsync policy is chosen at start"},
	}
	for _, tc := range refused {
		err := c.ConfigSet(ctxT(t), tc.name, tc.value).Err()
		if err == nil || !strings.HasPrefix(err.Error(), "ERR CONFIG SET failed (possibly related to argument '"+tc.name+"') - "+tc.want) {
			t.Errorf("CONFIG SET %s %s: %v", tc.name, tc.value, err)
		}
	}
	for _, pr := range [][2]string{{"save", ""}, {"maxmemory", "0"}, {"maxmemory-policy", "noeviction"}, {"appendfsync", "everysec"}} {
		if err := c.ConfigSet(ctxT(t), pr[0], pr[1]).Err(); err != nil {
			t.Errorf("CONFIG SET %s %q (the current value): %v", pr[0], pr[1], err)
		}
	}
	got := c.ConfigGet(ctxT(t), "maxmemory*").Val()
	if got["maxmemory"] != "0" || got["maxmemory-policy"] != "noeviction" {
		t.Errorf("CONFIG GET maxmemory* = %v", got)
	}
	if err := c.ConfigSet(ctxT(t), "maxmemory", "100mb").Err(); err != nil {
		t.Errorf("CONFIG SET maxmemory 100mb: %v", err)
	}
	if err := c.ConfigSet(ctxT(t), "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		t.Errorf("CONFIG SET maxmemory-policy allkeys-lru: %v", err)
	}
	got = c.ConfigGet(ctxT(t), "maxmemory*").Val()
	if got["maxmemory"] != "104857600" || got["maxmemory-policy"] != "allkeys-lru" {
		t.Errorf("CONFIG GET maxmemory* after CONFIG SET = %v", got)
	}
	if v := infoInt(t, c, "memory", "maxmemory"); v != 100<<20/2 {
		t.Errorf("INFO maxmemory on one of 2 shards = %d, want its half of 100mb", v)
	}
	if got := c.ConfigGet(ctxT(t), "enable-protected-configs").Val(); got["enable-protected-configs"] != "no" {
		t.Errorf("CONFIG GET enable-protected-configs = %v", got)
	}
}
