package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// redisRefPath is the summary of Redis 7.0's command descriptions for the
// commands the table has, written by cmd/genredisref.
const redisRefPath = "testdata/redis-7.0-commands.json"

// redisRefEntry is one command of the summary.
type redisRefEntry struct {
	Name          string          `json:"name"`
	Arity         int             `json:"arity"`
	Flags         []string        `json:"flags"`
	ACLCategories []string        `json:"acl_categories"`
	FirstKey      int             `json:"first_key"`
	LastKey       int             `json:"last_key"`
	Step          int             `json:"step"`
	Tips          []string        `json:"tips"`
	KeySpecs      []matrixKeySpec `json:"key_specs"`
}

// nativeCommands are the commands of the table that Redis 7.0 does not
// have: the native key jobs and RUVIO, commands of later Redis and Valkey
// versions (WAITAOF, DELIFEQ, CLIENT subcommands, hash-field expiry), redis-cell's
// CL.THROTTLE, and the Bloom filter commands (RedisBloom's names).
var nativeCommands = map[string]bool{
	"changes": true, "idem": true, "lease": true, "limit": true, "once": true,
	"release": true, "semaphore": true, "setv": true, "take": true,
	"ruvio": true, "ruvio|help": true, "ruvio|owner": true, "ruvio|hotkeys": true, "replsync": true, "slotmove": true,
	"delifeq": true, "cl.throttle": true, "waitaof": true,
	"hexpire": true, "hpexpire": true, "hexpireat": true, "hpexpireat": true,
	"httl": true, "hpttl": true, "hexpiretime": true, "hpexpiretime": true, "hpersist": true,
	"hgetdel": true, "hgetex": true, "hsetex": true,
	"client|no-touch": true, "client|setinfo": true, "cluster|myshardid": true,
	"bf.add": true, "bf.card": true, "bf.exists": true, "bf.info": true,
	"bf.insert": true, "bf.madd": true, "bf.mexists": true, "bf.reserve": true,
}

// deliberateDifferences lists the fields in which a command differs from
// Redis 7.0 on purpose, with the reason.
var deliberateDifferences = map[string]map[string]string{
	"incrby": {"arity": "INCRBY key increment MAX max is a native extension (contract: INCRBY … MAX)"},
}

// tableEntry describes c in the summary's vocabulary.
func tableEntry(c *keyspace.Command) redisRefEntry {
	e := redisRefEntry{
		Name: c.FullName(), Arity: c.Arity, Flags: c.Flags.Names(), ACLCategories: []string{},
		FirstKey: c.FirstKey, LastKey: c.LastKey, Step: c.Step, Tips: c.Tips, KeySpecs: []matrixKeySpec{},
	}
	if e.Flags == nil {
		e.Flags = []string{}
	}
	if e.Tips == nil {
		e.Tips = []string{}
	}
	for _, cat := range orderedCategories(c) {
		e.ACLCategories = append(e.ACLCategories, "@"+cat)
	}
	for i := range c.KeySpecs {
		e.KeySpecs = append(e.KeySpecs, newMatrixKeySpec(&c.KeySpecs[i]))
	}
	return e
}

// allCommands lists every command and subcommand of t by full name.
func allCommands(t keyspace.CommandTable) map[string]*keyspace.Command {
	out := map[string]*keyspace.Command{}
	for _, c := range t {
		out[c.FullName()] = c
		for _, sc := range c.Subcommands {
			out[sc.FullName()] = sc
		}
	}
	return out
}

// TestCommandTableMatchesRedis compares every command Redis 7.0 has with
// the summary of Redis's own description: arity, flags, ACL categories,
// legacy key positions, tips and key specs (notes aside) must be equal,
// except for the deliberate differences listed above.
func TestCommandTableMatchesRedis(t *testing.T) {
	raw, err := os.ReadFile(filepath.FromSlash(redisRefPath))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Commands []redisRefEntry `json:"commands"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	cmds := allCommands(newCommandTable())
	seen := map[string]bool{}
	for _, want := range doc.Commands {
		seen[want.Name] = true
		c := cmds[want.Name]
		if c == nil {
			t.Errorf("%s: in %s but not in the table (regenerate it with go run ./cmd/genredisref)", want.Name, redisRefPath)
			continue
		}
		got := tableEntry(c)
		allowed := deliberateDifferences[want.Name]
		check := func(field string, g, w any) {
			if reflect.DeepEqual(g, w) {
				if allowed[field] != "" {
					t.Errorf("%s: %s no longer differs from Redis; drop it from deliberateDifferences", want.Name, field)
				}
				return
			}
			if allowed[field] == "" {
				t.Errorf("%s: %s is %v, Redis 7.0 has %v", want.Name, field, g, w)
			}
		}
		check("arity", got.Arity, want.Arity)
		check("flags", got.Flags, want.Flags)
		check("acl_categories", got.ACLCategories, want.ACLCategories)
		check("key_range", [3]int{got.FirstKey, got.LastKey, got.Step}, [3]int{want.FirstKey, want.LastKey, want.Step})
		check("tips", got.Tips, want.Tips)
		check("key_specs", got.KeySpecs, want.KeySpecs)
	}
	for name := range cmds {
		if !seen[name] && !nativeCommands[name] {
			t.Errorf("%s: not in %s and not a native command: regenerate the summary with go run ./cmd/genredisref", name, redisRefPath)
		}
	}
	if len(doc.Commands) < 100 {
		t.Errorf("summary has %d commands; expected the whole table", len(doc.Commands))
	}
}

// TestKeySpecsMatchKeyPositions checks every command, native ones
// included: the legacy key triple the dispatcher routes by must be what
// the key specs give, as Redis derives it, and a command with key
// positions must have key specs.
func TestKeySpecsMatchKeyPositions(t *testing.T) {
	for name, c := range allCommands(newCommandTable()) {
		first, last, step, movable := legacyKeyRange(c.KeySpecs)
		if first != c.FirstKey || last != c.LastKey || step != c.Step {
			t.Errorf("%s: table keys %d,%d,%d but key specs give %d,%d,%d", name, c.FirstKey, c.LastKey, c.Step, first, last, step)
		}
		if movable != (c.Flags&keyspace.FlagMovableKeys != 0) {
			t.Errorf("%s: movablekeys flag %v, key specs say %v", name, !movable, movable)
		}
		for _, ks := range c.KeySpecs {
			n := 0
			for _, f := range []keyspace.KeyFlag{keyspace.KeyRO, keyspace.KeyRW, keyspace.KeyOW, keyspace.KeyRM} {
				if ks.Flags&f != 0 {
					n++
				}
			}
			// A not_key spec (a shard channel) has no access flag, as in Redis.
			if n != 1 && ks.Flags != keyspace.KeyNotKey {
				t.Errorf("%s: key spec needs exactly one of RO, RW, OW, RM: %v", name, ks.Flags.Names())
			}
		}
	}
}

// TestCommandInfoTipsAndKeySpecsWire checks COMMAND INFO's exact bytes
// against redis-server 7.0.15's reply for a command with tips and a key
// spec with overwrite flags.
func TestCommandInfoTipsAndKeySpecsWire(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "*1\r\n*10\r\n$4\r\nmset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:-1\r\n:2\r\n*3\r\n+@write\r\n+@string\r\n+@slow\r\n"+
		"*2\r\n$26\r\nrequest_policy:multi_shard\r\n$29\r\nresponse_policy:all_succeeded\r\n"+
		"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+OW\r\n+update\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n"+
		"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:2\r\n$5\r\nlimit\r\n:0\r\n*0\r\n",
		"COMMAND", "INFO", "mset")
	srvExpect(t, sh, "*1\r\n*10\r\n$5\r\ntouch\r\n:-2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:-1\r\n:1\r\n*3\r\n+@keyspace\r\n+@read\r\n+@fast\r\n"+
		"*2\r\n$26\r\nrequest_policy:multi_shard\r\n$23\r\nresponse_policy:agg_sum\r\n"+
		"*1\r\n*6\r\n$5\r\nflags\r\n*1\r\n+RO\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n"+
		"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n",
		"COMMAND", "INFO", "touch")
}
