package integration_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/internal/testserver"
)

// An error a script passes on from a command it called is counted once in
// the error statistics (at the command), while the script's call still
// counts as failed, as Redis 7.0 reports it.
func TestScriptErrorCountedOnce(t *testing.T) {
	c := testserver.Start(t).Client(t)
	stats := func() string {
		t.Helper()
		s, err := c.Info(ctxT(t), "errorstats", "stats", "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	has := func(info string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(info, w) {
				t.Errorf("INFO lacks %q:\n%s", w, info)
			}
		}
	}
	cases := []struct {
		name, script string
		wantErr      string
		want         []string
	}{
		{"redis.call refused (OOM)", "return redis.call('set','x','y')", "OOM command not allowed",
			[]string{"errorstat_OOM:count=1\r\n", "total_error_replies:1\r\n", "cmdstat_set:calls=0,", "rejected_calls=1,failed_calls=0", "cmdstat_eval:calls=1,"}},
		{"redis.pcall refused (OOM), error returned", "return redis.pcall('set','x','y')", "OOM command not allowed",
			[]string{"errorstat_OOM:count=1\r\n", "total_error_replies:1\r\n"}},
		{"redis.call failed (SELECT 99)", "return redis.call('select',99)", "ERR DB index is out of range",
			[]string{"errorstat_ERR:count=1\r\n", "total_error_replies:1\r\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			maxmem := "0"
			if strings.HasPrefix(tc.wantErr, "OOM") {
				maxmem = "1"
			}
			if err := c.ConfigSet(ctxT(t), "maxmemory", maxmem).Err(); err != nil {
				t.Fatal(err)
			}
			defer c.ConfigSet(ctxT(t), "maxmemory", "0")
			if err := c.ConfigResetStat(ctxT(t)).Err(); err != nil {
				t.Fatal(err)
			}
			err := c.Eval(ctxT(t), tc.script, []string{"x"}).Err()
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Fatalf("EVAL: %v, want %s…", err, tc.wantErr)
			}
			has(stats(), tc.want...)
		})
	}
}
