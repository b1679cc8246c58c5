package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"maps"
	"slices"
	"strings"
)

// This file holds COMMAND DOCS: the documentation of every command in the
// shape of Redis 7.0's reply, argument trees included, so a client (and
// redis-cli's hints) can learn each command's syntax from the server. For
// the commands Redis 7.0 has, the trees and notes are Redis's
// (command_docs_gen*.go, generated from its command descriptions); the
// native commands, and the native options of Redis commands, have their
// own, written here.

// The generator writes Redis's table in parts of at most 900 lines, a
// file each: command_docs_gen.go, command_docs_gen_2.go, …
//go:generate go run ../cmd/gencmddocs -redis-src ${REDIS_SRC} -matrix ../docs/compatibility-matrix.json -o command_docs_gen.go

// Constructors for the hand-written trees below.

// argType is the type of a command argument, as COMMAND DOCS names it.
type argType uint8

// Argument types.
const (
	argString argType = iota
	argInteger
	argDouble
	argKey
	argPattern
	argUnixTime
	argPureToken // a token with no value
	argOneOf     // exactly one of the nested arguments
	argBlock     // the nested arguments, in order
)

var argTypeNames = [...]string{
	argString: "string", argInteger: "integer", argDouble: "double", argKey: "key",
	argPattern: "pattern", argUnixTime: "unix-time", argPureToken: "pure-token",
	argOneOf: "oneof", argBlock: "block",
}

// argFlag is a flag of a command argument.
type argFlag uint8

// Argument flags.
const (
	argOptional      argFlag = 1 << iota
	argMultiple              // may repeat
	argMultipleToken         // the token repeats with each value
)

var argFlagNames = [...]struct {
	f    argFlag
	name string
}{{argOptional, "optional"}, {argMultiple, "multiple"}, {argMultipleToken, "multiple_token"}}

// docFlag is a documentation flag of a command.
type docFlag uint8

// Documentation flags.
const (
	docDeprecated docFlag = 1 << iota
	docSysCmd             // a system command, not meant for users
)

var docFlagNames = [...]struct {
	f    docFlag
	name string
}{{docDeprecated, "deprecated"}, {docSysCmd, "syscmd"}}

// commandArg is one argument of a command's syntax.
type commandArg struct {
	name string
	typ  argType
	// keySpec is 1 + the index of the key spec that finds this argument;
	// 0 for an argument that is not a key.
	keySpec         int
	token           string
	summary         string
	since           string
	deprecatedSince string
	flags           argFlag
	args            []commandArg // for argOneOf and argBlock
}

// commandDoc is what COMMAND DOCS reports of a command beyond the command
// table's summary, since, group and complexity.
type commandDoc struct {
	docFlags        docFlag
	deprecatedSince string
	replacedBy      string
	history         [][2]string // (version, change)
	args            []commandArg
}

func keyArg(name string, spec int) commandArg {
	return commandArg{name: name, typ: argKey, keySpec: spec + 1}
}

func strArg(name string) commandArg { return commandArg{name: name, typ: argString} }

func intArg(name string) commandArg { return commandArg{name: name, typ: argInteger} }

func dblArg(name string) commandArg { return commandArg{name: name, typ: argDouble} }

func unixTimeArg(name string) commandArg { return commandArg{name: name, typ: argUnixTime} }

// fieldsBlock is the FIELDS numfields field [field ...] block of the
// hash-field expiry commands.
func fieldsBlock() commandArg {
	return block("fields", intArg("numfields"), strArg("field").with(argMultiple)).withToken("FIELDS")
}

// hashFieldsDocArgs is key FIELDS numfields field [field ...].
func hashFieldsDocArgs() []commandArg { return []commandArg{keyArg("key", 0), fieldsBlock()} }

// hexpireDocArgs is HEXPIRE's tree with its time argument t.
func hexpireDocArgs(t commandArg) []commandArg {
	return []commandArg{
		keyArg("key", 0), t,
		oneOf("condition", pureToken("NX"), pureToken("XX"), pureToken("GT"), pureToken("LT")).with(argOptional),
		fieldsBlock(),
	}
}

// pureToken is a token without a value; its name is the token in lower
// case, as Redis names them.
func pureToken(token string) commandArg {
	return commandArg{name: strings.ToLower(token), typ: argPureToken, token: token}
}

// withToken returns a with a leading token (EXPANSION expansion).
func (a commandArg) withToken(token string) commandArg { a.token = token; return a }

// with returns a with flags added.
func (a commandArg) with(f argFlag) commandArg { a.flags |= f; return a }

func oneOf(name string, args ...commandArg) commandArg {
	return commandArg{name: name, typ: argOneOf, args: args}
}

func block(name string, args ...commandArg) commandArg {
	return commandArg{name: name, typ: argBlock, args: args}
}

// nativeCommandDocs holds the docs of the commands Redis 7.0 does not have:
// the native key jobs, RUVIO and REPLSYNC, the CLIENT subcommands of later
// Redis versions and the Bloom filter commands (RedisBloom's syntax).
var nativeCommandDocs = map[string]*commandDoc{
	"cluster|myshardid": {},
	"lease":             {args: []commandArg{keyArg("key", 0), intArg("ttl_ms")}},
	"release":           {args: []commandArg{keyArg("key", 0), intArg("token")}},
	"semaphore":         {args: []commandArg{keyArg("key", 0), intArg("max"), intArg("ttl_ms")}},
	"limit":             {args: []commandArg{keyArg("key", 0), intArg("max"), intArg("window_ms")}},
	// WAITAOF numlocal numreplicas timeout (Redis 7.2).
	"waitaof": {args: []commandArg{intArg("numlocal"), intArg("numreplicas"), intArg("timeout")}},
	"cl.throttle": {args: []commandArg{
		keyArg("key", 0), intArg("max_burst"), intArg("count_per_period"), intArg("period"),
		intArg("quantity").with(argOptional),
	}},
	"once": {args: []commandArg{keyArg("key", 0), intArg("ttl_ms")}},
	"take": {args: []commandArg{keyArg("key", 0), intArg("count")}},
	"setv": {args: []commandArg{keyArg("key", 0), strArg("value"), intArg("version").with(argOptional)}},
	"idem": {args: []commandArg{
		keyArg("key", 0),
		oneOf("action",
			block("begin", strArg("fingerprint"), strArg("owner"), intArg("ttl_ms")).withToken("BEGIN"),
			block("complete", strArg("fingerprint"), strArg("owner"), strArg("result")).withToken("COMPLETE"),
		),
	}},
	// Hash-field expiry: Redis 7.4's HEXPIRE family, HTTL family and
	// HPERSIST, Redis 8.0's HGETDEL, HGETEX and HSETEX (their trees as
	// Redis documents them).
	"hexpire":      {args: hexpireDocArgs(intArg("seconds"))},
	"hpexpire":     {args: hexpireDocArgs(intArg("milliseconds"))},
	"hexpireat":    {args: hexpireDocArgs(unixTimeArg("unix-time-seconds"))},
	"hpexpireat":   {args: hexpireDocArgs(unixTimeArg("unix-time-milliseconds"))},
	"httl":         {args: hashFieldsDocArgs()},
	"hpttl":        {args: hashFieldsDocArgs()},
	"hexpiretime":  {args: hashFieldsDocArgs()},
	"hpexpiretime": {args: hashFieldsDocArgs()},
	"hpersist":     {args: hashFieldsDocArgs()},
	"hgetdel":      {args: hashFieldsDocArgs()},
	"hgetex": {args: []commandArg{
		keyArg("key", 0),
		oneOf("expiration",
			intArg("seconds").withToken("EX"), intArg("milliseconds").withToken("PX"),
			unixTimeArg("unix-time-seconds").withToken("EXAT"), unixTimeArg("unix-time-milliseconds").withToken("PXAT"),
			pureToken("PERSIST"),
		).with(argOptional),
		fieldsBlock(),
	}},
	"hsetex": {args: []commandArg{
		keyArg("key", 0),
		oneOf("condition", pureToken("FNX"), pureToken("FXX")).with(argOptional),
		oneOf("expiration",
			intArg("seconds").withToken("EX"), intArg("milliseconds").withToken("PX"),
			unixTimeArg("unix-time-seconds").withToken("EXAT"), unixTimeArg("unix-time-milliseconds").withToken("PXAT"),
			pureToken("KEEPTTL"),
		).with(argOptional),
		block("fields", intArg("numfields"), block("data", strArg("field"), strArg("value")).with(argMultiple)).withToken("FIELDS"),
	}},
	// DELIFEQ key value (Valkey 9.0).
	"delifeq": {args: []commandArg{keyArg("key", 0), strArg("value")}},
	"changes": {args: []commandArg{oneOf("from", pureToken("START"), intArg("cursor"))}},

	"ruvio":       {},
	"ruvio|help":  {},
	"ruvio|owner": {args: []commandArg{strArg("key")}},
	"ruvio|hotkeys": {args: []commandArg{
		oneOf("what", intArg("count"), pureToken("RESET")).with(argOptional),
	}},
	"replsync": {docFlags: docSysCmd, args: []commandArg{
		intArg("shards"), intArg("shard"), intArg("after-sequence"), strArg("history-id"),
	}},
	"slotmove": {docFlags: docSysCmd, args: []commandArg{
		oneOf("step", pureToken("SYNC"), pureToken("SEQ"), pureToken("FREEZE")), intArg("id"),
	}},

	"client|no-touch": {args: []commandArg{oneOf("enabled", pureToken("ON"), pureToken("OFF"))}},
	"client|setinfo": {args: []commandArg{oneOf("attr",
		strArg("libname").withToken("LIB-NAME"),
		strArg("libver").withToken("LIB-VER"),
	)}},

	"bf.add":     {args: []commandArg{keyArg("key", 0), strArg("item")}},
	"bf.card":    {args: []commandArg{keyArg("key", 0)}},
	"bf.exists":  {args: []commandArg{keyArg("key", 0), strArg("item")}},
	"bf.madd":    {args: []commandArg{keyArg("key", 0), strArg("item").with(argMultiple)}},
	"bf.mexists": {args: []commandArg{keyArg("key", 0), strArg("item").with(argMultiple)}},
	"bf.info": {args: []commandArg{keyArg("key", 0), oneOf("single_value",
		pureToken("CAPACITY"), pureToken("SIZE"), pureToken("FILTERS"),
		pureToken("ITEMS"), pureToken("EXPANSION"),
	).with(argOptional)}},
	"bf.reserve": {args: []commandArg{
		keyArg("key", 0), dblArg("error_rate"), intArg("capacity"),
		intArg("expansion").withToken("EXPANSION").with(argOptional),
		pureToken("NONSCALING").with(argOptional),
	}},
	"bf.insert": {args: []commandArg{
		keyArg("key", 0),
		intArg("capacity").withToken("CAPACITY").with(argOptional),
		dblArg("error").withToken("ERROR").with(argOptional),
		intArg("expansion").withToken("EXPANSION").with(argOptional),
		pureToken("NOCREATE").with(argOptional),
		pureToken("NONSCALING").with(argOptional),
		strArg("item").withToken("ITEMS").with(argMultiple),
	}},
}

// extendedCommandDocs holds the docs of the Redis commands that take native
// options: Redis's tree with the native argument added.
var extendedCommandDocs = map[string]*commandDoc{
	// INCRBY key increment [MAX limit]: adds only up to limit.
	"incrby": extendArgs("incrby", len(redisCommandDocs["incrby"].args), intArg("limit").withToken("MAX").with(argOptional)),
	// XADD key ... [DELAY delay_ms] id field value ...: the entry is hidden
	// from XREADGROUP until the delay passes; like the other options it
	// comes before the id.
	"xadd": extendArgs("xadd", docArgIndex("xadd", "id_or_auto"), intArg("delay_ms").withToken("DELAY").with(argOptional)),
	// GETEX key milliseconds: a bare number is one more choice of the
	// expiration.
	"getex": extendChoice("getex", "expiration", intArg("milliseconds")),
	// SET key value [NX|XX|IFEQ comparison-value] ... (Valkey 8.1): one more
	// choice of the condition.
	"set": withHistory(extendChoice("set", "condition", commandArg{name: "comparison-value", typ: argString, token: "IFEQ", since: "8.1.0"}),
		"8.1.0", "Added the `IFEQ` option."),
}

// extendChoice returns a copy of Redis's docs of name with arg added to the
// choices of its top-level oneof argument choice.
func extendChoice(name, choice string, arg commandArg) *commandDoc {
	d := *redisCommandDocs[name]
	d.args = slices.Clone(d.args)
	i := docArgIndex(name, choice)
	d.args[i].args = append(slices.Clone(d.args[i].args), arg)
	return &d
}

// withHistory returns d with one more entry in its history.
func withHistory(d *commandDoc, version, change string) *commandDoc {
	d.history = append(slices.Clone(d.history), [2]string{version, change})
	return d
}

// extendArgs returns a copy of Redis's docs of name with arg inserted at
// position at of the top-level arguments.
func extendArgs(name string, at int, arg commandArg) *commandDoc {
	d := *redisCommandDocs[name]
	d.args = slices.Insert(slices.Clone(d.args), at, arg)
	return &d
}

// docArgIndex returns the position of the top-level argument named arg in
// Redis's docs of name; the tables are fixed, so a miss is a programming
// error.
func docArgIndex(name, arg string) int {
	for i, a := range redisCommandDocs[name].args {
		if a.name == arg {
			return i
		}
	}
	panic("keyspace: " + name + " has no argument " + arg)
}

// mergeCommandDocs returns one map holding the entries of every part of
// Redis's table (command_docs_gen*.go); the parts are disjoint.
func mergeCommandDocs(parts ...map[string]*commandDoc) map[string]*commandDoc {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	all := make(map[string]*commandDoc, n)
	for _, p := range parts {
		maps.Copy(all, p)
	}
	return all
}

// commandDocsOf returns the docs of the command with the given full name;
// nil when there are none.
func commandDocsOf(name string) *commandDoc {
	if d := extendedCommandDocs[name]; d != nil {
		return d
	}
	if d := nativeCommandDocs[name]; d != nil {
		return d
	}
	return redisCommandDocs[name]
}

// COMMAND DOCS [name ...]
func commandDocsCommand(x *keyspace.Ctx) {
	if len(x.Args) == 2 {
		cmds := sortedCommands(x.S.Srv.Cmds)
		x.W.MapHeader(len(cmds))
		for _, c := range cmds {
			x.W.BulkString(c.FullName())
			writeCommandDocs(x, c)
		}
		return
	}
	var found []*keyspace.Command
	for _, name := range x.Args[2:] {
		if c := commandTableLookupFullName(x.S.Srv.Cmds, name); c != nil {
			found = append(found, c)
		}
	}
	x.W.MapHeader(len(found))
	for _, c := range found {
		x.W.BulkString(c.FullName())
		writeCommandDocs(x, c)
	}
}

// writeCommandDocs writes the docs map of one command with Redis 7.0's
// fields, in its order: summary, since, group, complexity, doc_flags,
// deprecated_since, replaced_by, history, arguments and, for containers,
// the subcommands' docs. Fields a command lacks are left out.
func writeCommandDocs(x *keyspace.Ctx, c *keyspace.Command) {
	w := x.W
	d := commandDocsOf(c.FullName())
	if d == nil {
		d = &commandDoc{}
	}
	n := 1
	for _, present := range []bool{
		c.Summary != "", c.Since != "", c.Complexity != "", d.docFlags != 0,
		d.deprecatedSince != "", d.replacedBy != "", len(d.history) > 0,
		len(d.args) > 0, len(c.Subcommands) > 0,
	} {
		if present {
			n++
		}
	}
	w.MapHeader(n)
	if c.Summary != "" {
		w.BulkString("summary")
		w.BulkString(c.Summary)
	}
	if c.Since != "" {
		w.BulkString("since")
		w.BulkString(c.Since)
	}
	w.BulkString("group")
	w.BulkString(c.Group)
	if c.Complexity != "" {
		w.BulkString("complexity")
		w.BulkString(c.Complexity)
	}
	if d.docFlags != 0 {
		w.BulkString("doc_flags")
		var names []string
		for _, fn := range docFlagNames {
			if d.docFlags&fn.f != 0 {
				names = append(names, fn.name)
			}
		}
		writeStatusSet(x, names)
	}
	if d.deprecatedSince != "" {
		w.BulkString("deprecated_since")
		w.BulkString(d.deprecatedSince)
	}
	if d.replacedBy != "" {
		w.BulkString("replaced_by")
		w.BulkString(d.replacedBy)
	}
	if len(d.history) > 0 {
		w.BulkString("history")
		w.SetHeader(len(d.history))
		for _, h := range d.history {
			w.ArrayHeader(2)
			w.BulkString(h[0])
			w.BulkString(h[1])
		}
	}
	if len(d.args) > 0 {
		w.BulkString("arguments")
		writeCommandArgs(x, d.args)
	}
	if len(c.Subcommands) > 0 {
		subs := sortedSubcommands(c)
		w.BulkString("subcommands")
		w.MapHeader(len(subs))
		for _, sc := range subs {
			w.BulkString(sc.FullName())
			writeCommandDocs(x, sc)
		}
	}
}

// writeCommandArgs writes an argument list as Redis 7.0 does: an array of
// maps with name, type, key_spec_index, token, summary, since,
// deprecated_since, flags and, for oneof and block, the nested arguments
// (always, even when empty).
func writeCommandArgs(x *keyspace.Ctx, args []commandArg) {
	w := x.W
	w.ArrayHeader(len(args))
	for i := range args {
		a := &args[i]
		nested := a.typ == argOneOf || a.typ == argBlock
		n := 2
		for _, present := range []bool{
			a.keySpec > 0, a.token != "", a.summary != "", a.since != "",
			a.deprecatedSince != "", a.flags != 0, nested,
		} {
			if present {
				n++
			}
		}
		w.MapHeader(n)
		w.BulkString("name")
		w.BulkString(a.name)
		w.BulkString("type")
		w.BulkString(argTypeNames[a.typ])
		if a.keySpec > 0 {
			w.BulkString("key_spec_index")
			w.Int(int64(a.keySpec - 1))
		}
		for _, f := range [...]struct{ name, v string }{
			{"token", a.token}, {"summary", a.summary}, {"since", a.since},
			{"deprecated_since", a.deprecatedSince},
		} {
			if f.v != "" {
				w.BulkString(f.name)
				if f.v == `""` {
					// MIGRATE's empty-key token: Redis's generator writes
					// it as the C literal """", an empty string.
					w.BulkString("")
					continue
				}
				w.BulkString(f.v)
			}
		}
		if a.flags != 0 {
			w.BulkString("flags")
			var names []string
			for _, fn := range argFlagNames {
				if a.flags&fn.f != 0 {
					names = append(names, fn.name)
				}
			}
			writeStatusSet(x, names)
		}
		if nested {
			w.BulkString("arguments")
			writeCommandArgs(x, a.args)
		}
	}
}

// writeStatusSet writes names as a set of status replies, as Redis writes
// flags.
func writeStatusSet(x *keyspace.Ctx, names []string) {
	x.W.SetHeader(len(names))
	for _, s := range names {
		x.W.SimpleString(s)
	}
}
