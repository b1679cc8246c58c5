package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"strings"
	"testing"
)

// respDoc builds expected COMMAND DOCS replies by hand, in RESP2 (maps and
// sets as flat arrays) or RESP3, independently of the writer under test.
type respDoc struct{ proto int }

func (r respDoc) int(n int) string       { return ":" + strconv.Itoa(n) + "\r\n" }
func (r respDoc) status(s string) string { return "+" + s + "\r\n" }
func (r respDoc) arr(items ...string) string {
	return "*" + strconv.Itoa(len(items)) + "\r\n" + strings.Join(items, "")
}
func (r respDoc) set(items ...string) string {
	if r.proto == 3 {
		return "~" + strconv.Itoa(len(items)) + "\r\n" + strings.Join(items, "")
	}
	return r.arr(items...)
}

// kv is a map of alternating keys (written as bulk strings) and encoded
// values.
func (r respDoc) kv(pairs ...string) string {
	var b strings.Builder
	for i := 0; i < len(pairs); i += 2 {
		b.WriteString(rBulk(pairs[i]) + pairs[i+1])
	}
	if r.proto == 3 {
		return "%" + strconv.Itoa(len(pairs)/2) + "\r\n" + b.String()
	}
	return "*" + strconv.Itoa(len(pairs)) + "\r\n" + b.String()
}

// flags is an argument's flag set.
func (r respDoc) flags(names ...string) string {
	var items []string
	for _, n := range names {
		items = append(items, r.status(n))
	}
	return r.set(items...)
}

// TestCommandDocsArguments checks the whole COMMAND DOCS reply, argument
// trees included, for commands of each shape: one key (GET), nested oneof
// choices with tokens and since (SET), a block with a token and repeated
// keys (XREAD), a native oneof of token blocks (IDEM) and a native command
// of plain arguments (LEASE); in RESP3 and in RESP2.
func TestCommandDocsArguments(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	cmds := sh.Srv.Cmds
	for _, proto := range []int{2, 3} {
		r := respDoc{proto}
		b := rBulk
		head := func(c *keyspace.Command) []string {
			return []string{"summary", b(c.Summary), "since", b(c.Since), "group", b(c.Group), "complexity", b(c.Complexity)}
		}
		key := r.kv("name", b("key"), "type", b("key"), "key_spec_index", r.int(0))

		get := cmds["get"]
		want := r.kv("get", r.kv(append(head(get), "arguments", r.arr(key))...))
		if got := srvRun(sh, proto, "COMMAND", "DOCS", "get"); got != want {
			t.Errorf("RESP%d COMMAND DOCS get:\n got %q\nwant %q", proto, got, want)
		}

		set := cmds["set"]
		token := func(name, tok, since string) string {
			return r.kv("name", b(name), "type", b("pure-token"), "token", b(tok), "since", b(since))
		}
		valued := func(name, typ, tok, since string) string {
			return r.kv("name", b(name), "type", b(typ), "token", b(tok), "since", b(since))
		}
		history := r.set(
			r.arr(b("2.6.12"), b("Added the `EX`, `PX`, `NX` and `XX` options.")),
			r.arr(b("6.0.0"), b("Added the `KEEPTTL` option.")),
			r.arr(b("6.2.0"), b("Added the `GET`, `EXAT` and `PXAT` option.")),
			r.arr(b("7.0.0"), b("Allowed the `NX` and `GET` options to be used together.")),
			r.arr(b("8.1.0"), b("Added the `IFEQ` option.")),
		)
		setArgs := r.arr(
			key,
			r.kv("name", b("value"), "type", b("string")),
			r.kv("name", b("condition"), "type", b("oneof"), "since", b("2.6.12"), "flags", r.flags("optional"), "arguments", r.arr(
				r.kv("name", b("nx"), "type", b("pure-token"), "token", b("NX")),
				r.kv("name", b("xx"), "type", b("pure-token"), "token", b("XX")),
				valued("comparison-value", "string", "IFEQ", "8.1.0"),
			)),
			r.kv("name", b("get"), "type", b("pure-token"), "token", b("GET"), "since", b("6.2.0"), "flags", r.flags("optional")),
			r.kv("name", b("expiration"), "type", b("oneof"), "flags", r.flags("optional"), "arguments", r.arr(
				valued("seconds", "integer", "EX", "2.6.12"),
				valued("milliseconds", "integer", "PX", "2.6.12"),
				valued("unix-time-seconds", "unix-time", "EXAT", "6.2.0"),
				valued("unix-time-milliseconds", "unix-time", "PXAT", "6.2.0"),
				token("keepttl", "KEEPTTL", "6.0.0"),
			)),
		)
		want = r.kv("set", r.kv(append(head(set), "history", history, "arguments", setArgs)...))
		if got := srvRun(sh, proto, "COMMAND", "DOCS", "SET"); got != want {
			t.Errorf("RESP%d COMMAND DOCS set:\n got %q\nwant %q", proto, got, want)
		}

		xread := cmds["xread"]
		xreadArgs := r.arr(
			r.kv("name", b("count"), "type", b("integer"), "token", b("COUNT"), "flags", r.flags("optional")),
			r.kv("name", b("milliseconds"), "type", b("integer"), "token", b("BLOCK"), "flags", r.flags("optional")),
			r.kv("name", b("streams"), "type", b("block"), "token", b("STREAMS"), "arguments", r.arr(
				r.kv("name", b("key"), "type", b("key"), "key_spec_index", r.int(0), "flags", r.flags("multiple")),
				r.kv("name", b("id"), "type", b("string"), "flags", r.flags("multiple")),
			)),
		)
		want = r.kv("xread", r.kv(append(head(xread), "arguments", xreadArgs)...))
		if got := srvRun(sh, proto, "COMMAND", "DOCS", "xread"); got != want {
			t.Errorf("RESP%d COMMAND DOCS xread:\n got %q\nwant %q", proto, got, want)
		}

		str := func(name string) string { return r.kv("name", b(name), "type", b("string")) }
		integer := func(name string) string { return r.kv("name", b(name), "type", b("integer")) }
		idem, lease := cmds["idem"], cmds["lease"]
		idemArgs := r.arr(key, r.kv("name", b("action"), "type", b("oneof"), "arguments", r.arr(
			r.kv("name", b("begin"), "type", b("block"), "token", b("BEGIN"), "arguments",
				r.arr(str("fingerprint"), str("owner"), integer("ttl_ms"))),
			r.kv("name", b("complete"), "type", b("block"), "token", b("COMPLETE"), "arguments",
				r.arr(str("fingerprint"), str("owner"), str("result"))),
		)))
		want = r.kv(
			"idem", r.kv(append(head(idem), "arguments", idemArgs)...),
			"lease", r.kv(append(head(lease), "arguments", r.arr(key, integer("ttl_ms")))...),
		)
		if got := srvRun(sh, proto, "COMMAND", "DOCS", "idem", "nosuch", "LEASE"); got != want {
			t.Errorf("RESP%d COMMAND DOCS idem lease:\n got %q\nwant %q", proto, got, want)
		}
	}
}

// TestCommandDocsDeprecatedAndSyscmd checks the fields a deprecated command
// and a system command add, in Redis 7.0's order.
func TestCommandDocsDeprecatedAndSyscmd(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	r := respDoc{3}
	got := srvRun(sh, 3, "COMMAND", "DOCS", "getset")
	c := sh.Srv.Cmds["getset"]
	want := r.kv("getset", r.kv(
		"summary", rBulk(c.Summary), "since", rBulk(c.Since), "group", rBulk(c.Group), "complexity", rBulk(c.Complexity),
		"doc_flags", r.flags("deprecated"),
		"deprecated_since", rBulk("6.2.0"),
		"replaced_by", rBulk("`SET` with the `!GET` argument"),
		"arguments", r.arr(
			r.kv("name", rBulk("key"), "type", rBulk("key"), "key_spec_index", r.int(0)),
			r.kv("name", rBulk("value"), "type", rBulk("string")),
		),
	))
	if got != want {
		t.Errorf("COMMAND DOCS getset:\n got %q\nwant %q", got, want)
	}
	if got := srvRun(sh, 3, "COMMAND", "DOCS", "replsync"); !strings.Contains(got, rBulk("doc_flags")+"~1\r\n+syscmd\r\n") {
		t.Errorf("COMMAND DOCS replsync lacks doc_flags syscmd: %q", got)
	}
}

// argBounds returns the fewest and the most arguments the tree args
// accepts (most: -1 when unbounded).
func argBounds(args []commandArg) (lo, hi int) {
	for _, a := range args {
		l, h := oneArgBounds(a)
		lo += l
		if hi >= 0 && h >= 0 {
			hi += h
		} else {
			hi = -1
		}
	}
	return lo, hi
}

func oneArgBounds(a commandArg) (lo, hi int) {
	switch a.typ {
	case argBlock:
		lo, hi = argBounds(a.args)
	case argOneOf:
		lo = -1
		for _, s := range a.args {
			l, h := oneArgBounds(s)
			if lo < 0 || l < lo {
				lo = l
			}
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
	default:
		lo, hi = 1, 1
	}
	if a.token != "" && a.typ != argPureToken {
		lo++
		if hi >= 0 {
			hi++
		}
	}
	if a.flags&argMultiple != 0 {
		hi = -1
	}
	if a.flags&argOptional != 0 {
		lo = 0
	}
	return lo, hi
}

// redisArityMismatches are the commands whose argument tree in Redis 7.0's
// own descriptions does not fit their arity; the docs keep Redis's tree.
var redisArityMismatches = map[string]bool{
	"geohash": true, "geopos": true, "pfmerge": true, // members or sources shown as required
	"command|getkeys": true, "command|getkeysandflags": true, // the command's arguments shown as optional
	"client|kill": true, // the old CLIENT KILL ip:port form
	"debug":       true, // no arguments described
}

// TestCommandDocsCoverEveryCommand checks every command and subcommand of
// the table: each has docs, and its argument tree accepts exactly what its
// arity says (a fixed count, or at least |arity| words), so a tree written
// by hand for a native command cannot drift from its parser's arity. Key
// arguments name key specs the command has, and every key spec is named by
// an argument.
func TestCommandDocsCoverEveryCommand(t *testing.T) {
	cmds := allCommands(newCommandTable())
	for name, c := range cmds {
		d := commandDocsOf(name)
		if d == nil {
			t.Errorf("%s: no COMMAND DOCS entry: regenerate command_docs_gen.go (REDIS_SRC=<a Redis 7.0 tree> go generate ./commands) for a Redis command, or write its tree in nativeCommandDocs", name)
			continue
		}
		if len(c.Subcommands) > 0 {
			if len(d.args) > 0 {
				t.Errorf("%s: a container has arguments", name)
			}
			continue
		}
		words := 1 + strings.Count(name, "|")
		lo, hi := argBounds(d.args)
		lo += words
		if hi >= 0 {
			hi += words
		}
		fits := c.Arity > 0 && lo == c.Arity && hi == c.Arity || c.Arity < 0 && lo == -c.Arity
		switch {
		case redisArityMismatches[name] && fits:
			t.Errorf("%s: fits its arity now; drop it from redisArityMismatches", name)
		case redisArityMismatches[name] && (nativeCommandDocs[name] != nil || extendedCommandDocs[name] != nil):
			t.Errorf("%s: a native tree must fit the arity", name)
		case !fits && !redisArityMismatches[name]:
			t.Errorf("%s: arity %d, but the arguments take %d to %d words", name, c.Arity, lo, hi)
		}
		used := map[int]bool{}
		var walk func([]commandArg)
		walk = func(args []commandArg) {
			for _, a := range args {
				if a.keySpec > 0 {
					if a.keySpec > len(c.KeySpecs) {
						t.Errorf("%s: argument %s names key spec %d of %d", name, a.name, a.keySpec-1, len(c.KeySpecs))
					}
					used[a.keySpec-1] = true
				}
				walk(a.args)
			}
		}
		walk(d.args)
		notKey := false
		for _, ks := range c.KeySpecs {
			notKey = notKey || ks.Flags&keyspace.KeyNotKey != 0
		}
		if !notKey && len(used) != len(c.KeySpecs) {
			t.Errorf("%s: %d key specs, arguments name %d", name, len(c.KeySpecs), len(used))
		}
	}
	for name := range redisCommandDocs {
		if cmds[name] == nil {
			t.Errorf("%s: in the generated docs but not in the table", name)
		}
		if nativeCommandDocs[name] != nil {
			t.Errorf("%s: has Redis's docs and native ones", name)
		}
	}
	for name := range nativeCommands {
		if nativeCommandDocs[name] == nil {
			t.Errorf("%s: a native command without hand-written docs", name)
		}
	}
	for name := range nativeCommandDocs {
		if !nativeCommands[name] {
			t.Errorf("%s: hand-written docs for a command that is not native", name)
		}
	}
	for name := range extendedCommandDocs {
		if redisCommandDocs[name] == nil {
			t.Errorf("%s: extends docs Redis does not have", name)
		}
	}
}
