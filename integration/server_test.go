package integration_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// infoSection returns the lines of INFO's section header (e.g. "# Keyspace").
func infoSection(info, header string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(l, "# ") {
			in = l == header
			continue
		}
		if in && l != "" {
			out = append(out, l)
		}
	}
	return out
}

func TestServerCommands(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)

	t.Run("INFO", func(t *testing.T) {
		info, ok := value(t, c, "INFO").(string)
		if !ok {
			t.Fatal("INFO is not a string")
		}
		for _, h := range []string{"# Server", "# Clients", "# Memory", "# Persistence", "# Stats", "# Replication", "# CPU", "# Keyspace"} {
			if !strings.Contains(info, h+"\r\n") {
				t.Errorf("INFO lacks section %q", h)
			}
		}
		for _, re := range []string{`(?m)^redis_version:7\.\d+\.\d+\r$`, `(?m)^tcp_port:` + strconv.Itoa(s.Port()) + `\r$`,
			`(?m)^connected_clients:\d+\r$`, `(?m)^role:master\r$`, `(?m)^redis_mode:standalone\r$`, `(?m)^process_id:\d+\r$`,
			`(?m)^used_memory:\d+\r$`, `(?m)^uptime_in_seconds:\d+\r$`, `(?m)^total_commands_processed:\d+\r$`} {
			if !regexp.MustCompile(re).MatchString(info) {
				t.Errorf("INFO does not match %s", re)
			}
		}
		server := value(t, c, "INFO", "server").(string)
		if !strings.HasPrefix(server, "# Server\r\n") || strings.Contains(server, "# Clients") {
			t.Errorf("INFO server returned more or less than the server section: %q", server)
		}
		two := value(t, c, "INFO", "server", "clients").(string)
		if !strings.Contains(two, "# Server\r\n") || !strings.Contains(two, "# Clients\r\n") || strings.Contains(two, "# Memory") {
			t.Errorf("INFO server clients: %q", two)
		}
		for _, arg := range []string{"all", "everything", "default", "SERVER"} {
			if v := value(t, c, "INFO", arg).(string); !strings.Contains(v, "# Server\r\n") {
				t.Errorf("INFO %s lacks the server section", arg)
			}
		}
		expect(t, c, "", "INFO", "nosuchsection")
	})

	t.Run("INFO keyspace", func(t *testing.T) {
		expect(t, c, "# Keyspace\r\n", "INFO", "keyspace")
		expect(t, c, "OK", "MSET", "ks:a", "1", "ks:b", "2", "ks:c", "3")
		expect(t, c, "# Keyspace\r\ndb0:keys=3,expires=0,avg_ttl=0\r\n", "INFO", "keyspace")
		expect(t, c, int64(1), "EXPIRE", "ks:a", "1000")
		d4 := newDBClient(t, s, 4)
		expect(t, d4, "OK", "SET", "ks:x", "1")
		ks := value(t, c, "INFO", "keyspace").(string)
		lines := infoSection(ks, "# Keyspace")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "db0:keys=3,expires=1,avg_ttl=") || lines[1] != "db4:keys=1,expires=0,avg_ttl=0" {
			t.Errorf("INFO keyspace: %q", ks)
		}
		expect(t, c, "OK", "FLUSHALL")
		expect(t, c, "# Keyspace\r\n", "INFO", "keyspace")
	})

	t.Run("CONFIG", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expect(arr(bulk("maxclients"), bulk("10000")), "CONFIG", "GET", "maxclients")
		r.expect("+OK\r\n", "CONFIG", "SET", "maxclients", "500")
		r.expect(arr(bulk("maxclients"), bulk("500")), "CONFIG", "GET", "maxclients")
		r.expect(arr(bulk("maxclients"), bulk("500")), "CONFIG", "GET", "MAXCLIENTS")
		r.expect(arr(bulk("timeout"), bulk("0")), "CONFIG", "GET", "timeout")
		r.expect("+OK\r\n", "CONFIG", "SET", "timeout", "300", "maxclients", "10000")
		r.expect(arr(bulk("timeout"), bulk("300")), "CONFIG", "GET", "timeout")
		r.expect("+OK\r\n", "CONFIG", "SET", "timeout", "0")
		r.expect("*0\r\n", "CONFIG", "GET", "nosuchparam")
		// Several parameters and glob patterns.
		got := r.do("CONFIG", "GET", "maxclients", "timeout")
		if got != arr(bulk("maxclients"), bulk("10000"), bulk("timeout"), bulk("0")) &&
			got != arr(bulk("timeout"), bulk("0"), bulk("maxclients"), bulk("10000")) {
			t.Errorf("CONFIG GET maxclients timeout: %q", got)
		}
		r.expect(arr(bulk("maxclients"), bulk("10000")), "CONFIG", "GET", "maxclient?")
		if got := r.do("CONFIG", "GET", "*"); !strings.Contains(got, bulk("maxclients")+bulk("10000")) {
			t.Errorf("CONFIG GET * lacks maxclients: %.200q", got)
		}

		r.expect("-ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer\r\n", "CONFIG", "SET", "maxclients", "abc")
		r.expect("-ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive\r\n", "CONFIG", "SET", "maxclients", "0")
		r.expect("-ERR Unknown option or number of arguments for CONFIG SET - 'nosuchparam'\r\n", "CONFIG", "SET", "nosuchparam", "1")
		r.expect("-ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config\r\n", "CONFIG", "SET", "databases", "3")
		r.expect("-ERR wrong number of arguments for 'config|set' command\r\n", "CONFIG", "SET", "maxclients")
		r.expect("-ERR wrong number of arguments for 'config|get' command\r\n", "CONFIG", "GET")
		// A failing pair leaves the others untouched.
		r.expect("-ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer\r\n", "CONFIG", "SET", "timeout", "7", "maxclients", "x")
		r.expect(arr(bulk("timeout"), bulk("0")), "CONFIG", "GET", "timeout")
		r.expect("-ERR unknown subcommand 'FOO'. Try CONFIG HELP.\r\n", "CONFIG", "FOO")
		r.expect("+OK\r\n", "CONFIG", "RESETSTAT")
	})

	t.Run("RESP3 reply types", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		if got := r.do("HELLO", "3"); !strings.HasPrefix(got, "%7\r\n") {
			t.Fatalf("HELLO 3: %q", got)
		}
		r.expect("%1\r\n"+bulk("timeout")+bulk("0"), "CONFIG", "GET", "timeout")
		if got := r.do("INFO", "server"); !strings.HasPrefix(got, "=") || !strings.Contains(got, "\r\ntxt:# Server\r\n") {
			t.Errorf("INFO in RESP3 is not a verbatim txt string: %.60q", got)
		}
		r.expect("$3\r\n1.5\r\n", "INCRBYFLOAT", "resp3:f", "1.5")
		r.expect("_\r\n", "GET", "resp3:missing")
		r.expect("*2\r\n$3\r\n1.5\r\n_\r\n", "MGET", "resp3:f", "resp3:missing")
		r.expect(":1\r\n", "DEL", "resp3:f")
	})

	t.Run("COMMAND", func(t *testing.T) {
		count := intValue(t, c, "COMMAND", "COUNT")
		if count < 50 {
			t.Errorf("COMMAND COUNT = %d", count)
		}
		all, ok := value(t, c, "COMMAND").([]interface{})
		if !ok || int64(len(all)) != count {
			t.Errorf("COMMAND has %d entries, COMMAND COUNT says %d", len(all), count)
		}
		info, ok := value(t, c, "COMMAND", "INFO", "get").([]interface{})
		if !ok || len(info) != 1 {
			t.Fatalf("COMMAND INFO get: %#v", info)
		}
		get, ok := info[0].([]interface{})
		if !ok || len(get) < 10 {
			t.Fatalf("COMMAND INFO get entry: %#v", info[0])
		}
		if get[0] != "get" || get[1] != int64(2) || get[3] != int64(1) || get[4] != int64(1) || get[5] != int64(1) {
			t.Errorf("COMMAND INFO get: name/arity/keys = %#v", get[:6])
		}
		if f := sortedStrings(t, get[2]); strings.Join(f, ",") != "fast,readonly" {
			t.Errorf("COMMAND INFO get flags: %v", f)
		}
		if f := sortedStrings(t, get[6]); strings.Join(f, ",") != "@fast,@read,@string" {
			t.Errorf("COMMAND INFO get categories: %v", f)
		}
		// Several names, an unknown one gives nil.
		several := value(t, c, "COMMAND", "INFO", "set", "nosuchcommand", "GET").([]interface{})
		if len(several) != 3 || several[1] != nil {
			t.Errorf("COMMAND INFO set nosuchcommand GET: %#v", several)
		} else if several[0].([]interface{})[0] != "set" || several[0].([]interface{})[1] != int64(-3) || several[2].([]interface{})[0] != "get" {
			t.Errorf("COMMAND INFO set/get entries: %#v / %#v", several[0], several[2])
		}
		expect(t, c, []interface{}{"k"}, "COMMAND", "GETKEYS", "SET", "k", "v")
		expect(t, c, []interface{}{"a", "b"}, "COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2")
		expectErr(t, c, "ERR Invalid command specified", "COMMAND", "GETKEYS", "nosuchcommand", "x")
		expectErr(t, c, errArity("command|getkeys"), "COMMAND", "GETKEYS", "GET")
		expectErr(t, c, "ERR Invalid number of arguments specified for command", "COMMAND", "GETKEYS", "GET", "a", "b")
		expectErr(t, c, "ERR The command has no key arguments", "COMMAND", "GETKEYS", "PING", "x")
		expectErr(t, c, "ERR unknown subcommand 'FOO'. Try COMMAND HELP.", "COMMAND", "FOO")
		expectErr(t, c, errArity("command|count"), "COMMAND", "COUNT", "x")
	})

	t.Run("TIME", func(t *testing.T) {
		v, ok := value(t, c, "TIME").([]interface{})
		if !ok || len(v) != 2 {
			t.Fatalf("TIME: %#v", v)
		}
		secs, err1 := strconv.ParseInt(v[0].(string), 10, 64)
		usecs, err2 := strconv.ParseInt(v[1].(string), 10, 64)
		if err1 != nil || err2 != nil || usecs < 0 || usecs > 999999 {
			t.Fatalf("TIME: %#v", v)
		}
		if d := time.Now().Unix() - secs; d < -5 || d > 5 {
			t.Errorf("TIME is %ds off the local clock", d)
		}
		expectErr(t, c, errArity("time"), "TIME", "x")
	})

	t.Run("DEBUG", func(t *testing.T) {
		expect(t, c, "OK", "DEBUG", "SLEEP", "0")
		expect(t, c, "OK", "DEBUG", "SLEEP", "0.01")
		expect(t, c, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
		expectErr(t, c, "ERR unknown subcommand or wrong number of arguments for 'NOSUCH'. Try DEBUG HELP.", "DEBUG", "NOSUCH")
	})

	t.Run("RUVIO", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		got := r.do("RUVIO")
		if !regexp.MustCompile(`^\*4\r\n\$5\r\nruvio\r\n\$\d+\r\n\d+\.\d+\.\d+\S*\r\n\$6\r\nshards\r\n:1\r\n$`).MatchString(got) {
			t.Errorf("RUVIO: %q", got)
		}
		r.expect(arr(bulk("slot"), ":12182\r\n", bulk("shard"), ":0\r\n", bulk("address"), bulk(s.Addr())), "RUVIO", "OWNER", "foo")
		r.expect(arr(bulk("slot"), ":0\r\n", bulk("shard"), ":0\r\n", bulk("address"), bulk(s.Addr())), "RUVIO", "OWNER", "")
		r.expect("-ERR unknown subcommand 'FOO'. Try RUVIO HELP.\r\n", "RUVIO", "FOO")
		r.expect("-ERR wrong number of arguments for 'ruvio|owner' command\r\n", "RUVIO", "OWNER")
	})

	t.Run("WAIT", func(t *testing.T) {
		expect(t, c, int64(0), "WAIT", "0", "0")
		expect(t, c, int64(0), "WAIT", "1", "10")
		expectErr(t, c, errNotInt, "WAIT", "x", "0")
		expectErr(t, c, errArity("wait"), "WAIT", "0")
	})

	t.Run("MEMORY USAGE and CLIENT NO-EVICT/NO-TOUCH", func(t *testing.T) {
		expect(t, c, "OK", "SET", "mem:k", strings.Repeat("x", 1000))
		if n := intValue(t, c, "MEMORY", "USAGE", "mem:k"); n < 1000 {
			t.Errorf("MEMORY USAGE of a 1000-byte value: %d", n)
		}
		expect(t, c, nil, "MEMORY", "USAGE", "mem:missing")
		expect(t, c, "OK", "CLIENT", "NO-EVICT", "on")
		expect(t, c, "OK", "CLIENT", "NO-EVICT", "off")
		expect(t, c, "OK", "CLIENT", "NO-TOUCH", "on")
		expect(t, c, "OK", "CLIENT", "NO-TOUCH", "off")
		expectErr(t, c, errSyntax, "CLIENT", "NO-EVICT", "maybe")
	})
}
