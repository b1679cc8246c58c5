package config

import (
	"strings"
	"testing"
)

// redisObufDefault is Redis 7.0's client-output-buffer-limit default, the
// starting point of the cases checked against redis-server 7.0.15.
const redisObufDefault = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"

// Each case was run against redis-server 7.0.15 (CONFIG SET from the default,
// then CONFIG GET); want is what it printed, or its error reason.
func TestParseObufLimitsLikeRedis(t *testing.T) {
	const (
		args   = errObufArgs
		class  = errObufClass
		values = errObufValues
	)
	cases := []struct{ in, want, err string }{
		{in: "normal 1 2 3", want: "normal 1 2 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "", want: redisObufDefault},
		{in: "NORMAL 1MB 2kb 3", want: "normal 1048576 2048 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1kB 1Gb 0", want: "normal 1024 1073741824 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "pubsub 1g 1m 1", want: "normal 0 0 0 slave 268435456 67108864 60 pubsub 1000000000 1000000 1"},
		{in: "replica 1b 2B 1", want: "normal 0 0 0 slave 1 2 1 pubsub 33554432 8388608 60"},
		{in: "replica 1mb 2k 5 normal 1 2 3", want: "normal 1 2 3 slave 1048576 2000 5 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 3 slave 4 5 6 pubsub 7 8 9 normal 10 11 12", want: "normal 10 11 12 slave 4 5 6 pubsub 7 8 9"},
		// Memory values as Redis's memtoull reads them: no digits is 0,
		// too many digits saturate.
		{in: "normal mb 0 0", want: redisObufDefault},
		{in: "normal  1 2", want: "normal 0 1 2 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 18446744073709551615 0 0", want: "normal 18446744073709551615 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 18446744073709551616 0 0", want: "normal 18446744073709551615 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 9223372036854775808 0 0", want: "normal 9223372036854775808 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		// Seconds as strtoll into a C int reads them.
		{in: "normal 1 2 +5", want: "normal 1 2 5 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 05", want: "normal 1 2 5 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 -0", want: "normal 1 2 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 ", want: "normal 1 2 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 \t5", want: "normal 1 2 5 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 4294967301", want: "normal 1 2 5 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 -9999999999999999999", want: "normal 1 2 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{in: "normal 1 2 -92233720368547758080", want: "normal 1 2 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		// Errors.
		{in: "normal  1 2 3", err: args},
		{in: " normal 1 2 3", err: args},
		{in: "normal 1 2 3 ", err: args},
		{in: "normal 0 0", err: args},
		{in: "slave", err: args},
		{in: "normal 1 2 3 replica 1", err: args},
		{in: "normal 1 2 3 4 5 6 7 8", err: args},
		{in: "master 0 0 0", err: class},
		{in: "normal 1 2 3 bogus 1 2 3", err: class},
		{in: "normal 1 2 3 4 5 6 7", err: class},
		{in: "normal 1 2 x", err: values},
		{in: "normal 1 2 +", err: values},
		{in: "normal 1 2 5x", err: values},
		{in: "normal 1 2 -1", err: values},
		{in: "normal 1 2 9999999999999999999", err: values},
		{in: "normal 1 2 92233720368547758070", err: values},
		{in: "normal 1 2 9223372036854775807", err: values},
		{in: "normal 1 2 2147483648", err: values},
		{in: "normal 1.5 2 3", err: values},
		{in: "normal 0x10 0 0", err: values},
		{in: "normal +1 0 0", err: values},
		{in: "pubsub -1 0 0", err: values},
		{in: "normal x 0 0", err: values},
	}
	for _, tc := range cases {
		got, reason := parseObufLimits(tc.in, redisObufDefault)
		if got != tc.want || reason != tc.err {
			t.Errorf("parseObufLimits(%q) = %q, %q; want %q, %q", tc.in, got, reason, tc.want, tc.err)
		}
	}
}

// CONFIG GET reports the normal class's hard limit under both names, and
// setting either one changes both; the enforced limits follow.
func TestObufAliasStaysInStep(t *testing.T) {
	l := NewLive(Default())
	set := func(pairs ...[2]string) {
		t.Helper()
		if err := l.Set(pairs); err != nil {
			t.Fatal(err)
		}
	}
	check := func(obuf, alias string) {
		t.Helper()
		if got := get1(t, l, "client-output-buffer-limit"); got != obuf {
			t.Errorf("client-output-buffer-limit = %q, want %q", got, obuf)
		}
		if got := get1(t, l, "ruvio-client-output-buffer-limit"); got != alias {
			t.Errorf("ruvio-client-output-buffer-limit = %q, want %q", got, alias)
		}
	}
	check("normal 268435456 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", "268435456")

	set([2]string{"ruvio-client-output-buffer-limit", "8mb"})
	check("normal 8388608 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", "8388608")
	if got := l.OutputBufferLimit(OutputNormal); got != (OutputLimit{Hard: 8 * MiB}) || l.ClientOutputBufferLimit() != 8*MiB {
		t.Errorf("normal limit = %+v", got)
	}

	set([2]string{"client-output-buffer-limit", "normal 1mb 512kb 2 pubsub 4mb 1mb 1"})
	check("normal 1048576 524288 2 slave 268435456 67108864 60 pubsub 4194304 1048576 1", "1048576")
	if got := l.OutputBufferLimit(OutputNormal); got != (OutputLimit{Hard: MiB, Soft: 512 * KiB, SoftSeconds: 2}) {
		t.Errorf("normal limit = %+v", got)
	}
	if got := l.OutputBufferLimit(OutputPubSub); got != (OutputLimit{Hard: 4 * MiB, Soft: MiB, SoftSeconds: 1}) {
		t.Errorf("pubsub limit = %+v", got)
	}
	if got := l.OutputBufferLimit(OutputReplica); got != (OutputLimit{Hard: 256 * MiB, Soft: 64 * MiB, SoftSeconds: 60}) {
		t.Errorf("replica limit = %+v", got)
	}

	// Both in one CONFIG SET: applied in argument order.
	set([2]string{"client-output-buffer-limit", "normal 5 6 7"}, [2]string{"ruvio-client-output-buffer-limit", "9"})
	check("normal 9 6 7 slave 268435456 67108864 60 pubsub 4194304 1048576 1", "9")

	// A refused CONFIG SET changes neither.
	if err := l.Set([][2]string{{"ruvio-client-output-buffer-limit", "1"}, {"client-output-buffer-limit", "normal 1"}}); err == nil {
		t.Fatal("a bad value was accepted")
	}
	check("normal 9 6 7 slave 268435456 67108864 60 pubsub 4194304 1048576 1", "9")

	// A hard limit past the int64 range is printed as given and enforced as none would be.
	set([2]string{"client-output-buffer-limit", "normal 18446744073709551615 0 0"})
	check("normal 18446744073709551615 0 0 slave 268435456 67108864 60 pubsub 4194304 1048576 1", "9223372036854775807")
	if got := l.OutputBufferLimit(OutputNormal).Hard; got != 1<<63-1 {
		t.Errorf("saturated hard limit = %d", got)
	}
}

func TestObufFromFile(t *testing.T) {
	c, err := Parse("t.toml", []byte(`
[limits.client_output_buffer.normal]
hard = "8mb"
soft = "1mb"
soft_seconds = 2

[limits.client_output_buffer.pubsub]
soft_seconds = 5
`))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultOutputBufferLimits()
	want.Normal = OutputLimit{Hard: 8 * MiB, Soft: MiB, SoftSeconds: 2}
	want.PubSub.SoftSeconds = 5
	if c.Limits.ClientOutputBuffer != want {
		t.Fatalf("limits = %+v, want %+v", c.Limits.ClientOutputBuffer, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := get1(t, NewLive(c), "client-output-buffer-limit"), "normal 8388608 1048576 2 slave 268435456 67108864 60 pubsub 33554432 8388608 5"; got != want {
		t.Errorf("CONFIG GET = %q, want %q", got, want)
	}

	// The older key alone is the normal class's hard limit.
	c, err = Parse("t.toml", []byte("[limits]\nclient_output_buffer_limit = \"1mb\"\n"))
	if err != nil || c.Limits.ClientOutputBuffer.Normal.Hard != MiB {
		t.Fatalf("older key: %+v, %v", c.Limits.ClientOutputBuffer, err)
	}

	for _, tc := range []struct{ text, want string }{
		{"[limits]\nclient_output_buffer_limit = \"1mb\"\n[limits.client_output_buffer.normal]\nhard = \"2mb\"\n",
			"config: t.toml: limits.client_output_buffer_limit is the older name of limits.client_output_buffer.normal.hard; set only one"},
		{"[limits.client_output_buffer.normal]\nhardd = 1\n", "config: t.toml: unknown key limits.client_output_buffer.normal.hardd"},
		{"[limits.client_output_buffer.master]\nhard = 1\n", "config: t.toml: unknown keys limits.client_output_buffer.master, limits.client_output_buffer.master.hard"},
		{"[limits.client_output_buffer.normal]\nhard = \"lots\"\n", "lots"},
		{"[limits.client_output_buffer.normal]\nsoft_seconds = \"5\"\n", "soft_seconds"},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.text, err, tc.want)
		}
	}
}

// Whatever parseObufLimits accepts reads back as itself: its canonical
// form parses to the same value over anything.
func FuzzParseObufLimits(f *testing.F) {
	for _, s := range []string{"normal 1 2 3", "", "replica 1mb 2k 5 normal 1 2 3", "normal  1 2", "normal 18446744073709551616 0 0",
		"normal 1 2 -9999999999999999999", "pubsub 1g 1m \t1", "master 0 0 0", "normal 1 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, reason := parseObufLimits(v, redisObufDefault)
		if reason != "" {
			if got != "" {
				t.Fatalf("%q: error %q with value %q", v, reason, got)
			}
			return
		}
		again, reason := parseObufLimits(got, "normal 1 1 1 slave 1 1 1 pubsub 1 1 1")
		if reason != "" || again != got {
			t.Fatalf("%q -> %q reparses to %q, %q", v, got, again, reason)
		}
		if obufCanonical(obufFromCanonical(got)) != got {
			t.Fatalf("%q -> %q does not read back", v, got)
		}
	})
}
