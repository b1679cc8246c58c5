package acl

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// -redis names a running redis-server 7.0.15 (loopback) to regenerate
// testdata/redis-describe.txt from: go test ./acl -run TestDescribeGolden -redis 127.0.0.1:PORT
var redisAddr = flag.String("redis", "", "redis-server 7.0.15 address to regenerate the describe golden file from")

// describeCases are rule sets whose descriptions are compared with Redis's own.
var describeCases = []string{
	"",
	"on",
	"reset",
	"on nopass ~* &* +@all",
	"+@all",
	"-@all",
	"allcommands allkeys allchannels",
	"nocommands",
	"+@all -@dangerous",
	"+@all -@dangerous +info",
	"-@all +@read",
	"-@all +@read +@write",
	"-@all +@read -get",
	"+@all -@string",
	"-@all +@set +acl",
	"+@all -client +client|id +client|setname",
	"+@all -client|kill",
	"-@all +acl +config -config|set",
	"-@all +acl +select|0",
	"-@all +acl +incr +debug|object",
	"+memory|doctor",
	"+memory|doctor +memory",
	"+memory +@all +client|id",
	"+@all -memory|doctor",
	"+@all -memory",
	"+@all ~* -@string +incr -debug +debug|digest",
	"+@string -incr +acl +debug|digest +debug|segfault",
	"-@all +get +set +del",
	"+@all -@write -@admin",
	"-@all +@fast",
	"-@all +@slow",
	"-@all +@keyspace +@hash -hset",
	"+@all -@slow +keys",
	"-@all +@pubsub +@connection",
	"-@all +@scripting +@transaction",
	"+@all -@blocking -@dangerous -@admin",
	"-@all +@list +@hash +@set +@sortedset +@string",
	"+@all -@hyperloglog -@geo -@stream -@bitmap",
	"~foo:* ~bar:*",
	"%R~read* %W~write* %RW~rw*",
	"%R~foo %W~foo %RW~bar",
	"~a %R~a",
	"%R~",
	"resetchannels &foo &bar:*",
	"allchannels",
	"&foo allchannels",
	"resetkeys",
	">passwd1 >passwd2 <passwd1",
	"#34344e4d60c2b6d639b7bd22e18f2b0b91bc34bf0ac5f9952744435093cfb4e6",
	"nopass",
	"on nopass resetchannels &foo +@all",
	"skip-sanitize-payload",
	"-@all +get resetchannels &channel1 %R~foo1 %W~bar1 ~baz1 (-@all +set resetchannels &channel2 %R~foo2 %W~bar2 ~baz2)",
	"(+@write ~write::*) (+@read ~read::*)",
	"()",
	"(~added-selector)",
	"(~added-selector) clearselectors",
	"+mget ~key (+mget ~key ~otherkey)",
	"(%R~read* +@all) (%W~write* +@all)",
	"(+sort ~mylist %R~*)",
	"+@all -select +select|0 +select|1",
	"-@all +client|id +client|info +client|list",
}

type goldenCase struct {
	rules                    string
	list                     string
	commands, keys, channels string
	selectors                []string // "commands|keys|channels"
}

func readGolden(t *testing.T) []goldenCase {
	t.Helper()
	f, err := os.Open("testdata/redis-describe.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenCase
	var cur *goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		switch k {
		case "rules":
			out = append(out, goldenCase{rules: v})
			cur = &out[len(out)-1]
		case "list":
			cur.list = v
		case "commands":
			cur.commands = v
		case "keys":
			cur.keys = v
		case "channels":
			cur.channels = v
		case "selector":
			cur.selectors = append(cur.selectors, v)
		}
	}
	return out
}

func regenerateGolden(t *testing.T) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, Protocol: 2})
	defer rdb.Close()
	var b strings.Builder
	b.WriteString("# ACL LIST and ACL GETUSER of redis-server 7.0.15 for each rule set of describeCases\n")
	b.WriteString("# (user \"u\", created by ACL SETUSER u <rules>). Regenerate with -redis.\n")
	for _, rules := range describeCases {
		rdb.Do(ctx, "ACL", "DELUSER", "u")
		cmd := []any{"ACL", "SETUSER", "u"}
		for _, r := range strings.Fields(rules) {
			cmd = append(cmd, r)
		}
		if err := rdb.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%s: %v", rules, err)
		}
		list, err := rdb.Do(ctx, "ACL", "LIST").StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "rules: %s\n", rules)
		for _, l := range list {
			if strings.HasPrefix(l, "user u ") {
				fmt.Fprintf(&b, "list: %s\n", l)
			}
		}
		gu, err := rdb.Do(ctx, "ACL", "GETUSER", "u").Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(gu); i += 2 {
			switch k := fmt.Sprint(gu[i]); k {
			case "commands", "keys", "channels":
				fmt.Fprintf(&b, "%s: %s\n", k, gu[i+1])
			case "selectors":
				for _, s := range gu[i+1].([]any) {
					m := s.([]any)
					fmt.Fprintf(&b, "selector: %s|%s|%s\n", m[1], m[3], m[5])
				}
			}
		}
	}
	if err := os.WriteFile("testdata/redis-describe.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameRules compares two command-rule descriptions: the leading +@all/-@all and category
// rules must be identical and in order (Redis computes them deterministically); the single
// command rules after them may come in any order (Redis emits them in its hash table's
// order, this package in universe order).
func sameRules(a, b string) bool {
	split := func(s string) (cats string, rest []string) {
		f := strings.Fields(s)
		i := 0
		for i < len(f) && (strings.HasPrefix(f[i], "+@") || strings.HasPrefix(f[i], "-@")) {
			i++
		}
		rest = append(rest, f[i:]...)
		sort.Strings(rest)
		return strings.Join(f[:i], " "), rest
	}
	ca, ra := split(a)
	cb, rb := split(b)
	return ca == cb && strings.Join(ra, " ") == strings.Join(rb, " ")
}

// sameList compares ACL LIST lines the same way, selector by selector.
func sameList(a, b string) bool {
	pa, pb := strings.Split(a, " ("), strings.Split(b, " (")
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if !sameRules(pa[i], pb[i]) {
			return false
		}
	}
	return true
}

func TestDescribeGolden(t *testing.T) {
	if *redisAddr != "" {
		regenerateCommands(t)
		regenerateGolden(t)
	}
	u := testUniverse(t)
	golden := readGolden(t)
	if len(golden) != len(describeCases) {
		t.Fatalf("golden file has %d cases, want %d (regenerate with -redis)", len(golden), len(describeCases))
	}
	exact := 0
	for _, g := range golden {
		users, err := NewUsers(u, Options{}).SetUser("u", strings.Fields(g.rules)...)
		if err != nil {
			t.Errorf("%q: %v", g.rules, err)
			continue
		}
		user := users.Get("u")
		list := users.List()
		var line string
		for _, l := range list {
			if strings.HasPrefix(l, "user u ") {
				line = l
			}
		}
		if line == g.list {
			exact++
		} else if !sameList(line, g.list) {
			t.Errorf("%q: ACL LIST\n got %s\nwant %s", g.rules, line, g.list)
		}
		in := user.Info()
		if !sameRules(in.Root.Commands, g.commands) || in.Root.Keys != g.keys || in.Root.Channels != g.channels {
			t.Errorf("%q: GETUSER root = %+v, want %q %q %q", g.rules, in.Root, g.commands, g.keys, g.channels)
		}
		if len(in.Selectors) != len(g.selectors) {
			t.Errorf("%q: %d selectors, want %d", g.rules, len(in.Selectors), len(g.selectors))
			continue
		}
		for i, s := range in.Selectors {
			parts := strings.SplitN(g.selectors[i], "|", 3)
			if !sameRules(s.Commands, parts[0]) || s.Keys != parts[1] || s.Channels != parts[2] {
				t.Errorf("%q: selector %d = %+v, want %q", g.rules, i, s, g.selectors[i])
			}
		}
		// The description rebuilds the same user.
		again, err := NewUsers(u, Options{}).SetUser("u", strings.Fields(user.Describe())...)
		if err != nil {
			t.Errorf("%q: description %q does not parse: %v", g.rules, user.Describe(), err)
			continue
		}
		if d := again.Get("u").Describe(); d != user.Describe() {
			t.Errorf("%q: round trip\n got %s\nwant %s", g.rules, d, user.Describe())
		}
		assertSamePermissions(t, g.rules, user, again.Get("u"))
	}
	t.Logf("%d of %d ACL LIST lines identical to Redis's byte for byte", exact, len(golden))
}

func assertSamePermissions(t *testing.T, what string, a, b *User) {
	t.Helper()
	if len(a.selectors) != len(b.selectors) {
		t.Errorf("%s: %d selectors vs %d", what, len(a.selectors), len(b.selectors))
		return
	}
	for i := range a.selectors {
		x, y := a.selectors[i], b.selectors[i]
		if !x.sameCommands(y) || x.future != y.future || x.flags != y.flags ||
			fmt.Sprint(x.keys) != fmt.Sprint(y.keys) || fmt.Sprint(x.channels) != fmt.Sprint(y.channels) ||
			fmt.Sprint(x.firstArgs) != fmt.Sprint(y.firstArgs) {
			t.Errorf("%s: selector %d differs after round trip", what, i)
		}
	}
}

// TestDifferentialRedis applies random rule lists to this package and to a live
// redis-server 7.0.15 (only with -redis) and compares errors and ACL LIST lines.
func TestDifferentialRedis(t *testing.T) {
	if *redisAddr == "" {
		t.Skip("needs -redis")
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, Protocol: 2})
	defer rdb.Close()
	vocab := []string{
		"on", "off", "nopass", "resetpass", ">p", "<p", ">q", "<q", "#" + HashPassword([]byte("h")), "!" + HashPassword([]byte("h")),
		"~a*", "%R~b", "%W~c", "%RW~d", "%R~a*", "allkeys", "resetkeys", "~*", "&x", "&y*", "allchannels", "resetchannels", "&*",
		"+get", "-get", "+@read", "-@write", "+@all", "-@all", "+client|id", "-client|kill", "+client", "-client",
		"+select|0", "+select|1", "-select", "+config|get|x", "+nosuch", "allcommands", "nocommands", "reset",
		"(+get ~a)", "(-@all +set %W~w*)", "(&z +@pubsub)", "(", ")", "clearselectors", "-config", "+config",
		"+debug|digest", "-debug", "+@dangerous", "-@dangerous", "+@string", "-@slow", "+@fast", "-@keyspace",
		"+memory|doctor", "-memory", "sanitize-payload", "skip-sanitize-payload", "%", "bogus", "",
		"+@pubsub", "+publish", "+mget", "+@hash", "~b*", "&p*", "%W~a*", "(~b* +get +mget)", "(+@all %R~*)",
	}
	seed := uint64(7)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(n))
	}
	users := NewUsers(testUniverse(t), Options{})
	rdb.Do(ctx, "ACL", "DELUSER", "u")
	cases, mismatches := 0, 0
	for range 600 {
		if next(10) == 0 {
			users, _, _ = users.DelUsers("u")
			rdb.Do(ctx, "ACL", "DELUSER", "u")
		}
		rules := make([]string, 1+next(5))
		for i := range rules {
			rules[i] = vocab[next(len(vocab))]
		}
		cmd := []any{"ACL", "SETUSER", "u"}
		for _, r := range rules {
			cmd = append(cmd, r)
		}
		rerr := rdb.Do(ctx, cmd...).Err()
		n, err := users.SetUser("u", rules...)
		cases++
		switch {
		case (rerr == nil) != (err == nil):
			t.Errorf("%q: redis %v, here %v", rules, rerr, err)
			mismatches++
		case rerr != nil && strings.TrimPrefix(rerr.Error(), "ERR ") != err.Error():
			t.Errorf("%q:\nredis %v\n here %v", rules, rerr, err)
			mismatches++
		}
		if err == nil {
			users = n
		}
		list, lerr := rdb.Do(ctx, "ACL", "LIST").StringSlice()
		if lerr != nil {
			t.Fatal(lerr)
		}
		var want string
		for _, l := range list {
			if strings.HasPrefix(l, "user u ") {
				want = l
			}
		}
		var got string
		if u := users.Get("u"); u != nil {
			got = "user u " + u.Describe()
		}
		if !sameList(got, want) {
			t.Fatalf("after %q:\n got %s\nwant %s", rules, got, want)
		}
		if u := users.Get("u"); u != nil {
			for range 3 {
				line := dryRunCalls[next(len(dryRunCalls))]
				a := []any{"ACL", "DRYRUN", "u"}
				for _, w := range strings.Fields(line) {
					a = append(a, w)
				}
				want, derr := rdb.Do(ctx, a...).Text()
				if derr != nil {
					t.Fatalf("DRYRUN %s: %v", line, derr)
				}
				if got := dryRunWithChannels(t, u, line); got != want {
					t.Errorf("user %q, %s:\n got %s\nwant %s", u.Describe(), line, got, want)
					mismatches++
				}
			}
		}
		if mismatches > 10 {
			t.FailNow()
		}
	}
	t.Logf("%d random SETUSER calls agree with redis-server", cases)
}

var dryRunCalls = []string{
	"get a1", "get b1", "set a1 v", "set c1 v", "mget a1 b1 d1", "mget b1 b2", "copy a1 b1", "lpush c1 x",
	"exists d1", "client id", "client kill id 1", "select 0", "select 1", "config get x", "config set x y",
	"debug digest", "publish x m", "publish y1 m", "subscribe x y1", "psubscribe y*", "psubscribe p*", "ping",
	"eval s 1 a1", "memory doctor", "flushall", "hset w1 f v", "hget a1 f", "spublish p1 m",
}

// dryRunWithChannels is dryRun with the channel arguments of the Pub/Sub calls above.
func dryRunWithChannels(t *testing.T, u *User, line string) string {
	f := strings.Fields(line)
	var ch []ChannelRef
	switch f[0] {
	case "publish", "spublish":
		ch = []ChannelRef{{Pos: 1}}
	case "subscribe", "psubscribe":
		for i := 1; i < len(f); i++ {
			ch = append(ch, ChannelRef{Pos: i, Pattern: f[0] == "psubscribe"})
		}
	}
	return dryRun(t, u, line, ch...)
}

// regenerateCommands rewrites testdata/redis-commands.txt from COMMAND INFO.
func regenerateCommands(t *testing.T) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, Protocol: 2})
	defer rdb.Close()
	res, err := rdb.Do(ctx, "COMMAND", "INFO").Slice()
	if err != nil {
		t.Fatal(err)
	}
	var groups [][]string
	for _, c := range res {
		groups = append(groups, commandInfoLines(c.([]any)))
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i][0] < groups[j][0] })
	var b strings.Builder
	b.WriteString(`# The Redis 7.0.15 command universe as its COMMAND INFO reports it, one line per command or
# subcommand: name, categories, noauth, then key specs as key=<access>/<begin>/<find>:
# access r, w, rw or - (neither); begin i<index> or k<keyword>@<startfrom> (? = unknown);
# find r<lastkey>.<step>.<limit> or n<keynumidx>.<firstkey>.<step>. Regenerate with
# go test ./acl -run TestDescribeGolden -redis <addr of a redis-server 7.0.15>.
`)
	for _, g := range groups {
		for _, l := range g {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if err := os.WriteFile("testdata/redis-commands.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commandInfoLines formats one COMMAND INFO entry and its subcommands (sorted).
func commandInfoLines(c []any) []string {
	str := func(v any) string { return fmt.Sprint(v) }
	kv := func(v any) map[string]any {
		m := map[string]any{}
		if x, ok := v.([]any); ok {
			for i := 0; i+1 < len(x); i += 2 {
				m[str(x[i])] = x[i+1]
			}
		}
		return m
	}
	parts := []string{strings.ToLower(str(c[0]))}
	var cats []string
	for _, x := range c[6].([]any) {
		cats = append(cats, strings.TrimPrefix(str(x), "@"))
	}
	parts = append(parts, strings.Join(cats, ","))
	for _, f := range c[2].([]any) {
		if str(f) == "no_auth" {
			parts = append(parts, "noauth")
		}
	}
	for _, ks := range c[8].([]any) {
		m := kv(ks)
		acc, notKey := "", false
		for _, f := range m["flags"].([]any) {
			switch str(f) {
			case "access":
				if !strings.Contains(acc, "r") {
					acc += "r"
				}
			case "insert", "delete", "update":
				if !strings.Contains(acc, "w") {
					acc += "w"
				}
			case "not_key":
				notKey = true
			}
		}
		if notKey {
			continue
		}
		if acc == "" {
			acc = "-"
		}
		bs, fk := kv(m["begin_search"]), kv(m["find_keys"])
		bspec, fspec := kv(bs["spec"]), kv(fk["spec"])
		begin, find := "?", "?"
		switch str(bs["type"]) {
		case "index":
			begin = "i" + str(bspec["index"])
		case "keyword":
			begin = "k" + str(bspec["keyword"]) + "@" + str(bspec["startfrom"])
		}
		switch str(fk["type"]) {
		case "range":
			find = "r" + str(fspec["lastkey"]) + "." + str(fspec["keystep"]) + "." + str(fspec["limit"])
		case "keynum":
			find = "n" + str(fspec["keynumidx"]) + "." + str(fspec["firstkey"]) + "." + str(fspec["keystep"])
		}
		parts = append(parts, "key="+acc+"/"+begin+"/"+find)
	}
	out := []string{strings.Join(parts, " ")}
	if len(c) > 9 {
		var subs []string
		for _, s := range c[9].([]any) {
			subs = append(subs, commandInfoLines(s.([]any))...)
		}
		sort.Strings(subs)
		out = append(out, subs...)
	}
	return out
}
