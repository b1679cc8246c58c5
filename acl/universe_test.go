package acl

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	redisUniverseOnce sync.Once
	redisUniverse     *Universe
	redisUniverseErr  error
)

// testUniverse is Redis 7.0.15's own command universe (testdata/redis-commands.txt), so
// that descriptions can be compared with what Redis prints for the same rules.
func testUniverse(t testing.TB) *Universe {
	t.Helper()
	redisUniverseOnce.Do(func() {
		specs, err := loadCommandSpecs("testdata/redis-commands.txt")
		if err != nil {
			redisUniverseErr = err
			return
		}
		redisUniverse, redisUniverseErr = NewUniverse(specs)
	})
	if redisUniverseErr != nil {
		t.Fatal(redisUniverseErr)
	}
	return redisUniverse
}

func loadCommandSpecs(path string) ([]CommandSpec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var specs []CommandSpec
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		spec := CommandSpec{Name: fields[0]}
		if len(fields) > 1 && fields[1] != "" && !strings.Contains(fields[1], "=") && fields[1] != "noauth" {
			spec.Categories = strings.Split(fields[1], ",")
		}
		for _, f := range fields[1:] {
			if f == "noauth" {
				spec.NoAuth = true
			}
			if ks, ok := strings.CutPrefix(f, "key="); ok {
				if k, ok := parseKeySpec(ks); ok {
					spec.Keys = append(spec.Keys, k)
				}
			}
		}
		if parent, sub, ok := strings.Cut(spec.Name, "|"); ok {
			spec.Name = sub
			p := &specs[len(specs)-1]
			if p.Name != parent {
				return nil, os.ErrInvalid
			}
			p.Subcommands = append(p.Subcommands, spec)
			continue
		}
		specs = append(specs, spec)
	}
	return specs, sc.Err()
}

func parseKeySpec(s string) (KeySpec, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || strings.Contains(s, "?") {
		return KeySpec{}, false
	}
	var k KeySpec
	switch parts[0] {
	case "r":
		k.Access = Read
	case "w":
		k.Access = Write
	case "rw":
		k.Access = ReadWrite
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if b, ok := strings.CutPrefix(parts[1], "i"); ok {
		k.Index = atoi(b)
	} else if b, ok := strings.CutPrefix(parts[1], "k"); ok {
		kw, from, _ := strings.Cut(b, "@")
		k.Keyword, k.StartFrom = kw, atoi(from)
	}
	nums := strings.Split(parts[2][1:], ".")
	if parts[2][0] == 'r' {
		k.LastKey, k.KeyStep, k.Limit = atoi(nums[0]), atoi(nums[1]), atoi(nums[2])
	} else {
		k.KeyNum = true
		k.KeyNumIdx, k.FirstKey, k.KeyStep = atoi(nums[0]), atoi(nums[1]), atoi(nums[2])
	}
	return k, true
}

func TestUniverse(t *testing.T) {
	u := testUniverse(t)
	if u.Len() < 300 {
		t.Fatalf("universe has %d commands", u.Len())
	}
	for _, name := range []string{"get", "GET", "config|get", "CONFIG|Get", "client|kill"} {
		if _, ok := u.Lookup(name); !ok {
			t.Errorf("Lookup(%q) failed", name)
		}
	}
	for _, name := range []string{"", "nosuch", "get|x", "config|", "config|nosuch", "config|get|x", "|get"} {
		if _, ok := u.Lookup(name); ok {
			t.Errorf("Lookup(%q) succeeded", name)
		}
	}
	get, _ := u.Lookup("get")
	if c := u.Categories(get); c != CatRead|CatString|CatFast {
		t.Errorf("get categories %v", c.Names())
	}
	cfg, _ := u.Lookup("config")
	cget, _ := u.Lookup("config|get")
	if u.Parent(cget) != cfg || u.Parent(cfg) != -1 || u.FullName(cget) != "config|get" {
		t.Error("parent/fullname wrong")
	}
	tx := u.InCategory(CatTransaction)
	if !contains(tx, "multi") || contains(u.InCategory(CatKeyspace), "set") || !contains(u.InCategory(CatScripting), "function|list") {
		t.Errorf("InCategory wrong: %v", tx)
	}
	if _, err := NewUniverse([]CommandSpec{{Name: "x", Categories: []string{"nosuch"}}}); err == nil {
		t.Error("unknown category accepted")
	}
	if _, err := NewUniverse([]CommandSpec{{Name: "x"}, {Name: "X"}}); err == nil {
		t.Error("duplicate accepted")
	}
	if _, err := NewUniverse([]CommandSpec{{Name: "a|b"}}); err == nil {
		t.Error("name with | accepted")
	}
	if got := CategoryNames(); len(got) != 21 || got[0] != "keyspace" || got[20] != "scripting" {
		t.Errorf("CategoryNames %v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func args(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

func TestAppendKeys(t *testing.T) {
	u := testUniverse(t)
	cases := []struct {
		call []string
		want []KeyRef
	}{
		{[]string{"get", "k"}, []KeyRef{{1, Read}}},
		{[]string{"set", "k", "v"}, []KeyRef{{1, ReadWrite}}},
		{[]string{"mset", "a", "1", "b", "2"}, []KeyRef{{1, Write}, {3, Write}}},
		{[]string{"mget", "a", "b"}, []KeyRef{{1, Read}, {2, Read}}},
		{[]string{"copy", "a", "b"}, []KeyRef{{1, Read}, {2, Write}}},
		{[]string{"eval", "s", "2", "a", "b", "x"}, []KeyRef{{3, ReadWrite}, {4, ReadWrite}}},
		{[]string{"eval", "s", "0", "read"}, nil},
		{[]string{"eval", "s", "-1", "read"}, nil},
		{[]string{"eval", "s", "3", "a", "b"}, nil}, // out of range: no keys, as Redis
		{[]string{"zunionstore", "d", "2", "a", "b"}, []KeyRef{{1, Write}, {3, Read}, {4, Read}}},
		{[]string{"georadius", "src", "0", "0", "1", "m", "STORE", "dst"}, []KeyRef{{1, Read}, {7, Write}}},
		{[]string{"georadius", "src", "0", "0", "1", "m"}, []KeyRef{{1, Read}}},
		{[]string{"migrate", "h", "p", "", "0", "5", "KEYS", "a", "b"}, []KeyRef{{3, ReadWrite}, {7, ReadWrite}, {8, ReadWrite}}},
		{[]string{"hexists", "h", "f"}, []KeyRef{{1, 0}}},
		{[]string{"sintercard", "2", "a", "b"}, []KeyRef{{2, Read}, {3, Read}}},
	}
	for _, c := range cases {
		id, ok := u.Lookup(c.call[0])
		if !ok {
			t.Fatalf("no command %s", c.call[0])
		}
		got := u.AppendKeys(nil, id, args(c.call...))
		if len(got) != len(c.want) {
			t.Errorf("%v: keys %v, want %v", c.call, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%v: keys %v, want %v", c.call, got, c.want)
				break
			}
		}
	}
}

func TestResolve(t *testing.T) {
	u := testUniverse(t)
	for _, c := range []struct {
		call []string
		want string
	}{
		{[]string{"GET", "k"}, "get"},
		{[]string{"Config", "GET", "x"}, "config|get"},
		{[]string{"config"}, "config"},
		{[]string{"config", "nosuch"}, ""},
		{[]string{"nosuch"}, ""},
		{[]string{"select", "0"}, "select"},
	} {
		got := ""
		if id, ok := u.Resolve(args(c.call...)); ok {
			got = u.FullName(id)
		}
		if got != c.want {
			t.Errorf("%v: %q, want %q", c.call, got, c.want)
		}
	}
	a := args("client", "kill", "id", "1")
	if n := testing.AllocsPerRun(100, func() { u.Resolve(a) }); n != 0 {
		t.Errorf("Resolve allocates %v times", n)
	}
}
