package commands

// redisCommandDocs holds, by full command name, what COMMAND DOCS reports
// beyond the command table's summary, since, group and complexity for the
// commands Redis 7.0 has.
var redisCommandDocs = map[string]*commandDoc{
	"acl": {},
	"acl|cat": {args: []commandArg{
		{name: "categoryname", typ: argString, flags: argOptional},
	}},
	"acl|deluser": {args: []commandArg{
		{name: "username", typ: argString, flags: argMultiple},
	}},
	"acl|dryrun": {args: []commandArg{
		{name: "username", typ: argString},
		{name: "command", typ: argString},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"acl|genpass": {args: []commandArg{
		{name: "bits", typ: argInteger, flags: argOptional},
	}},
	"acl|getuser": {history: [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and changed the format of key and channel patterns from a list to their rule representation."}}, args: []commandArg{
		{name: "username", typ: argString},
	}},
	"acl|help": {},
	"acl|list": {},
	"acl|load": {},
	"acl|log": {args: []commandArg{
		{name: "operation", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger},
			{name: "reset", typ: argPureToken, token: "RESET"},
		}},
	}},
	"acl|save": {},
	"acl|setuser": {history: [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and key based permissions."}}, args: []commandArg{
		{name: "username", typ: argString},
		{name: "rule", typ: argString, flags: argOptional | argMultiple},
	}},
	"acl|users":  {},
	"acl|whoami": {},
	"append": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "value", typ: argString},
	}},
	"auth": {history: [][2]string{{"6.0.0", "Added ACL style (username and password)."}}, args: []commandArg{
		{name: "username", typ: argString, since: "6.0.0", flags: argOptional},
		{name: "password", typ: argString},
	}},
	"bgrewriteaof": {},
	"bgsave": {history: [][2]string{{"3.2.2", "Added the `SCHEDULE` option."}}, args: []commandArg{
		{name: "schedule", typ: argPureToken, token: "SCHEDULE", since: "3.2.2", flags: argOptional},
	}},
	"bitcount": {history: [][2]string{{"7.0.0", "Added the `BYTE|BIT` option."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "index", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "start", typ: argInteger},
			{name: "end", typ: argInteger},
			{name: "index_unit", typ: argOneOf, since: "7.0.0", flags: argOptional, args: []commandArg{
				{name: "byte", typ: argPureToken, token: "BYTE"},
				{name: "bit", typ: argPureToken, token: "BIT"},
			}},
		}},
	}},
	"bitfield": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "operation", typ: argOneOf, flags: argOptional | argMultiple, args: []commandArg{
			{name: "encoding_offset", typ: argBlock, token: "GET", args: []commandArg{
				{name: "encoding", typ: argString},
				{name: "offset", typ: argInteger},
			}},
			{name: "write", typ: argBlock, args: []commandArg{
				{name: "wrap_sat_fail", typ: argOneOf, token: "OVERFLOW", flags: argOptional, args: []commandArg{
					{name: "wrap", typ: argPureToken, token: "WRAP"},
					{name: "sat", typ: argPureToken, token: "SAT"},
					{name: "fail", typ: argPureToken, token: "FAIL"},
				}},
				{name: "write_operation", typ: argOneOf, args: []commandArg{
					{name: "encoding_offset_value", typ: argBlock, token: "SET", args: []commandArg{
						{name: "encoding", typ: argString},
						{name: "offset", typ: argInteger},
						{name: "value", typ: argInteger},
					}},
					{name: "encoding_offset_increment", typ: argBlock, token: "INCRBY", args: []commandArg{
						{name: "encoding", typ: argString},
						{name: "offset", typ: argInteger},
						{name: "increment", typ: argInteger},
					}},
				}},
			}},
		}},
	}},
	"bitfield_ro": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "encoding_offset", typ: argBlock, token: "GET", flags: argOptional | argMultiple | argMultipleToken, args: []commandArg{
			{name: "encoding", typ: argString},
			{name: "offset", typ: argInteger},
		}},
	}},
	"bitop": {args: []commandArg{
		{name: "operation", typ: argString},
		{name: "destkey", typ: argKey, keySpec: 1},
		{name: "key", typ: argKey, keySpec: 2, flags: argMultiple},
	}},
	"bitpos": {history: [][2]string{{"7.0.0", "Added the `BYTE|BIT` option."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "bit", typ: argInteger},
		{name: "index", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "start", typ: argInteger},
			{name: "end_index", typ: argBlock, flags: argOptional, args: []commandArg{
				{name: "end", typ: argInteger},
				{name: "index_unit", typ: argOneOf, since: "7.0.0", flags: argOptional, args: []commandArg{
					{name: "byte", typ: argPureToken, token: "BYTE"},
					{name: "bit", typ: argPureToken, token: "BIT"},
				}},
			}},
		}},
	}},
	"blmove": {args: []commandArg{
		{name: "source", typ: argKey, keySpec: 1},
		{name: "destination", typ: argKey, keySpec: 2},
		{name: "wherefrom", typ: argOneOf, args: []commandArg{
			{name: "left", typ: argPureToken, token: "LEFT"},
			{name: "right", typ: argPureToken, token: "RIGHT"},
		}},
		{name: "whereto", typ: argOneOf, args: []commandArg{
			{name: "left", typ: argPureToken, token: "LEFT"},
			{name: "right", typ: argPureToken, token: "RIGHT"},
		}},
		{name: "timeout", typ: argDouble},
	}},
	"blmpop": {args: []commandArg{
		{name: "timeout", typ: argDouble},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "where", typ: argOneOf, args: []commandArg{
			{name: "left", typ: argPureToken, token: "LEFT"},
			{name: "right", typ: argPureToken, token: "RIGHT"},
		}},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"blpop": {history: [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "timeout", typ: argDouble},
	}},
	"brpop": {history: [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "timeout", typ: argDouble},
	}},
	"brpoplpush": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`BLMOVE` with the `RIGHT` and `LEFT` arguments", history: [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}}, args: []commandArg{
		{name: "source", typ: argKey, keySpec: 1},
		{name: "destination", typ: argKey, keySpec: 2},
		{name: "timeout", typ: argDouble},
	}},
	"bzmpop": {args: []commandArg{
		{name: "timeout", typ: argDouble},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "where", typ: argOneOf, args: []commandArg{
			{name: "min", typ: argPureToken, token: "MIN"},
			{name: "max", typ: argPureToken, token: "MAX"},
		}},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"bzpopmax": {history: [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "timeout", typ: argDouble},
	}},
	"bzpopmin": {history: [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "timeout", typ: argDouble},
	}},
	"client": {},
	"client|caching": {args: []commandArg{
		{name: "mode", typ: argOneOf, args: []commandArg{
			{name: "yes", typ: argPureToken, token: "YES"},
			{name: "no", typ: argPureToken, token: "NO"},
		}},
	}},
	"client|getname":  {},
	"client|getredir": {},
	"client|help":     {},
	"client|id":       {},
	"client|info":     {},
	"client|kill": {history: [][2]string{{"2.8.12", "Added new filter format."}, {"2.8.12", "`ID` option."}, {"3.2.0", "Added `master` type in for `TYPE` option."}, {"5.0.0", "Replaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility."}, {"6.2.0", "`LADDR` option."}}, args: []commandArg{
		{name: "filter", typ: argOneOf, args: []commandArg{
			{name: "ip:port", typ: argString, deprecatedSince: "2.8.12"},
			{name: "new-format", typ: argOneOf, flags: argMultiple, args: []commandArg{
				{name: "client-id", typ: argInteger, token: "ID", since: "2.8.12", flags: argOptional},
				{name: "normal_master_slave_pubsub", typ: argOneOf, token: "TYPE", since: "2.8.12", flags: argOptional, args: []commandArg{
					{name: "normal", typ: argPureToken, token: "NORMAL"},
					{name: "master", typ: argPureToken, token: "MASTER", since: "3.2.0"},
					{name: "slave", typ: argPureToken, token: "SLAVE"},
					{name: "replica", typ: argPureToken, token: "REPLICA", since: "5.0.0"},
					{name: "pubsub", typ: argPureToken, token: "PUBSUB"},
				}},
				{name: "username", typ: argString, token: "USER", flags: argOptional},
				{name: "ip:port", typ: argString, token: "ADDR", flags: argOptional},
				{name: "ip:port", typ: argString, token: "LADDR", since: "6.2.0", flags: argOptional},
				{name: "yes/no", typ: argString, token: "SKIPME", flags: argOptional},
			}},
		}},
	}},
	"client|list": {history: [][2]string{{"2.8.12", "Added unique client `id` field."}, {"5.0.0", "Added optional `TYPE` filter."}, {"6.0.0", "Added `user` field."}, {"6.2.0", "Added `argv-mem`, `tot-mem`, `laddr` and `redir` fields and the optional `ID` filter."}, {"7.0.0", "Added `resp`, `multi-mem`, `rbs` and `rbp` fields."}, {"7.0.3", "Added `ssub` field."}}, args: []commandArg{
		{name: "normal_master_replica_pubsub", typ: argOneOf, token: "TYPE", since: "5.0.0", flags: argOptional, args: []commandArg{
			{name: "normal", typ: argPureToken, token: "NORMAL"},
			{name: "master", typ: argPureToken, token: "MASTER"},
			{name: "replica", typ: argPureToken, token: "REPLICA"},
			{name: "pubsub", typ: argPureToken, token: "PUBSUB"},
		}},
		{name: "id", typ: argBlock, token: "ID", since: "6.2.0", flags: argOptional, args: []commandArg{
			{name: "client-id", typ: argInteger, flags: argMultiple},
		}},
	}},
	"client|no-evict": {args: []commandArg{
		{name: "enabled", typ: argOneOf, args: []commandArg{
			{name: "on", typ: argPureToken, token: "ON"},
			{name: "off", typ: argPureToken, token: "OFF"},
		}},
	}},
	"client|pause": {history: [][2]string{{"6.2.0", "`CLIENT PAUSE WRITE` mode added along with the `mode` option."}}, args: []commandArg{
		{name: "timeout", typ: argInteger},
		{name: "mode", typ: argOneOf, since: "6.2.0", flags: argOptional, args: []commandArg{
			{name: "write", typ: argPureToken, token: "WRITE"},
			{name: "all", typ: argPureToken, token: "ALL"},
		}},
	}},
	"client|reply": {args: []commandArg{
		{name: "on_off_skip", typ: argOneOf, args: []commandArg{
			{name: "on", typ: argPureToken, token: "ON"},
			{name: "off", typ: argPureToken, token: "OFF"},
			{name: "skip", typ: argPureToken, token: "SKIP"},
		}},
	}},
	"client|setname": {args: []commandArg{
		{name: "connection-name", typ: argString},
	}},
	"client|tracking": {args: []commandArg{
		{name: "status", typ: argOneOf, args: []commandArg{
			{name: "on", typ: argPureToken, token: "ON"},
			{name: "off", typ: argPureToken, token: "OFF"},
		}},
		{name: "client-id", typ: argInteger, token: "REDIRECT", flags: argOptional},
		{name: "prefix", typ: argString, token: "PREFIX", flags: argOptional | argMultiple | argMultipleToken},
		{name: "bcast", typ: argPureToken, token: "BCAST", flags: argOptional},
		{name: "optin", typ: argPureToken, token: "OPTIN", flags: argOptional},
		{name: "optout", typ: argPureToken, token: "OPTOUT", flags: argOptional},
		{name: "noloop", typ: argPureToken, token: "NOLOOP", flags: argOptional},
	}},
	"client|trackinginfo": {},
	"client|unblock": {args: []commandArg{
		{name: "client-id", typ: argInteger},
		{name: "timeout_error", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "timeout", typ: argPureToken, token: "TIMEOUT"},
			{name: "error", typ: argPureToken, token: "ERROR"},
		}},
	}},
	"client|unpause": {},
	"cluster":        {},
	"cluster|countkeysinslot": {args: []commandArg{
		{name: "slot", typ: argInteger},
	}},
	"cluster|getkeysinslot": {args: []commandArg{
		{name: "slot", typ: argInteger},
		{name: "count", typ: argInteger},
	}},
	"cluster|help": {},
	"cluster|info": {},
	"cluster|keyslot": {args: []commandArg{
		{name: "key", typ: argString},
	}},
	"cluster|myid":   {},
	"cluster|nodes":  {},
	"cluster|shards": {},
	"cluster|slots":  {docFlags: docDeprecated, deprecatedSince: "7.0.0", replacedBy: "`CLUSTER SHARDS`", history: [][2]string{{"4.0.0", "Added node IDs."}, {"7.0.0", "Added additional networking metadata field."}}},
	"command":        {},
	"command|count":  {},
	"command|docs": {args: []commandArg{
		{name: "command-name", typ: argString, flags: argOptional | argMultiple},
	}},
	"command|getkeys":         {},
	"command|getkeysandflags": {},
	"command|help":            {},
	"command|info": {history: [][2]string{{"7.0.0", "Allowed to be called with no argument to get info on all commands."}}, args: []commandArg{
		{name: "command-name", typ: argString, flags: argOptional | argMultiple},
	}},
	"command|list": {args: []commandArg{
		{name: "filterby", typ: argOneOf, token: "FILTERBY", flags: argOptional, args: []commandArg{
			{name: "module-name", typ: argString, token: "MODULE"},
			{name: "category", typ: argString, token: "ACLCAT"},
			{name: "pattern", typ: argPattern, token: "PATTERN"},
		}},
	}},
	"config": {},
	"config|get": {history: [][2]string{{"7.0.0", "Added the ability to pass multiple pattern parameters in one call"}}, args: []commandArg{
		{name: "parameter", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "parameter", typ: argString},
		}},
	}},
	"config|help":      {},
	"config|resetstat": {},
	"config|rewrite":   {},
	"config|set": {history: [][2]string{{"7.0.0", "Added the ability to set multiple parameters in one call."}}, args: []commandArg{
		{name: "parameter_value", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "parameter", typ: argString},
			{name: "value", typ: argString},
		}},
	}},
	"copy": {args: []commandArg{
		{name: "source", typ: argKey, keySpec: 1},
		{name: "destination", typ: argKey, keySpec: 2},
		{name: "destination-db", typ: argInteger, token: "DB", flags: argOptional},
		{name: "replace", typ: argPureToken, token: "REPLACE", flags: argOptional},
	}},
	"dbsize": {},
	"debug":  {docFlags: docSysCmd},
	"decr": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"decrby": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "decrement", typ: argInteger},
	}},
	"del": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"discard": {},
	"dump": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"echo": {args: []commandArg{
		{name: "message", typ: argString},
	}},
	"eval": {args: []commandArg{
		{name: "script", typ: argString},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argOptional | argMultiple},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"eval_ro": {args: []commandArg{
		{name: "script", typ: argString},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argOptional | argMultiple},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"evalsha": {args: []commandArg{
		{name: "sha1", typ: argString},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argOptional | argMultiple},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"evalsha_ro": {args: []commandArg{
		{name: "sha1", typ: argString},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argOptional | argMultiple},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"exec": {},
	"exists": {history: [][2]string{{"3.0.3", "Accepts multiple `key` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"expire": {history: [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "seconds", typ: argInteger},
		{name: "condition", typ: argOneOf, since: "7.0.0", flags: argOptional, args: []commandArg{
			{name: "nx", typ: argPureToken, token: "NX"},
			{name: "xx", typ: argPureToken, token: "XX"},
			{name: "gt", typ: argPureToken, token: "GT"},
			{name: "lt", typ: argPureToken, token: "LT"},
		}},
	}},
	"expireat": {history: [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "unix-time-seconds", typ: argUnixTime},
		{name: "condition", typ: argOneOf, since: "7.0.0", flags: argOptional, args: []commandArg{
			{name: "nx", typ: argPureToken, token: "NX"},
			{name: "xx", typ: argPureToken, token: "XX"},
			{name: "gt", typ: argPureToken, token: "GT"},
			{name: "lt", typ: argPureToken, token: "LT"},
		}},
	}},
	"expiretime": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"fcall": {args: []commandArg{
		{name: "function", typ: argString},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argOptional | argMultiple},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"fcall_ro": {args: []commandArg{
		{name: "function", typ: argString},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argOptional | argMultiple},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"flushall": {history: [][2]string{{"4.0.0", "Added the `ASYNC` flushing mode modifier."}, {"6.2.0", "Added the `SYNC` flushing mode modifier."}}, args: []commandArg{
		{name: "async", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "async", typ: argPureToken, token: "ASYNC", since: "4.0.0"},
			{name: "sync", typ: argPureToken, token: "SYNC", since: "6.2.0"},
		}},
	}},
	"flushdb": {history: [][2]string{{"4.0.0", "Added the `ASYNC` flushing mode modifier."}, {"6.2.0", "Added the `SYNC` flushing mode modifier."}}, args: []commandArg{
		{name: "async", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "async", typ: argPureToken, token: "ASYNC", since: "4.0.0"},
			{name: "sync", typ: argPureToken, token: "SYNC", since: "6.2.0"},
		}},
	}},
	"function": {},
	"function|delete": {args: []commandArg{
		{name: "library-name", typ: argString},
	}},
	"function|dump": {},
	"function|flush": {args: []commandArg{
		{name: "async", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "async", typ: argPureToken, token: "ASYNC"},
			{name: "sync", typ: argPureToken, token: "SYNC"},
		}},
	}},
	"function|help": {},
	"function|kill": {},
	"function|list": {args: []commandArg{
		{name: "library-name-pattern", typ: argString, token: "LIBRARYNAME", flags: argOptional},
		{name: "withcode", typ: argPureToken, token: "WITHCODE", flags: argOptional},
	}},
	"function|load": {args: []commandArg{
		{name: "replace", typ: argPureToken, token: "REPLACE", flags: argOptional},
		{name: "function-code", typ: argString},
	}},
	"function|restore": {args: []commandArg{
		{name: "serialized-value", typ: argString},
		{name: "policy", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "flush", typ: argPureToken, token: "FLUSH"},
			{name: "append", typ: argPureToken, token: "APPEND"},
			{name: "replace", typ: argPureToken, token: "REPLACE"},
		}},
	}},
	"function|stats": {},
	"geoadd": {history: [][2]string{{"6.2.0", "Added the `CH`, `NX` and `XX` options."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "condition", typ: argOneOf, since: "6.2.0", flags: argOptional, args: []commandArg{
			{name: "nx", typ: argPureToken, token: "NX"},
			{name: "xx", typ: argPureToken, token: "XX"},
		}},
		{name: "change", typ: argPureToken, token: "CH", since: "6.2.0", flags: argOptional},
		{name: "longitude_latitude_member", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "longitude", typ: argDouble},
			{name: "latitude", typ: argDouble},
			{name: "member", typ: argString},
		}},
	}},
	"geodist": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member1", typ: argString},
		{name: "member2", typ: argString},
		{name: "unit", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "m", typ: argPureToken, token: "M"},
			{name: "km", typ: argPureToken, token: "KM"},
			{name: "ft", typ: argPureToken, token: "FT"},
			{name: "mi", typ: argPureToken, token: "MI"},
		}},
	}},
	"geohash": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString, flags: argMultiple},
	}},
	"geopos": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString, flags: argMultiple},
	}},
	"georadius": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument", history: [][2]string{{"6.2.0", "Added the `ANY` option for `COUNT`."}, {"7.0.0", "Added support for uppercase unit names."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "longitude", typ: argDouble},
		{name: "latitude", typ: argDouble},
		{name: "radius", typ: argDouble},
		{name: "unit", typ: argOneOf, args: []commandArg{
			{name: "m", typ: argPureToken, token: "M"},
			{name: "km", typ: argPureToken, token: "KM"},
			{name: "ft", typ: argPureToken, token: "FT"},
			{name: "mi", typ: argPureToken, token: "MI"},
		}},
		{name: "withcoord", typ: argPureToken, token: "WITHCOORD", flags: argOptional},
		{name: "withdist", typ: argPureToken, token: "WITHDIST", flags: argOptional},
		{name: "withhash", typ: argPureToken, token: "WITHHASH", flags: argOptional},
		{name: "count", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger, token: "COUNT"},
			{name: "any", typ: argPureToken, token: "ANY", since: "6.2.0", flags: argOptional},
		}},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
		{name: "key", typ: argKey, keySpec: 2, token: "STORE", flags: argOptional},
		{name: "key", typ: argKey, keySpec: 3, token: "STOREDIST", flags: argOptional},
	}},
	"georadius_ro": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`GEOSEARCH` with the `BYRADIUS` argument", history: [][2]string{{"6.2.0", "Added the `ANY` option for `COUNT`."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "longitude", typ: argDouble},
		{name: "latitude", typ: argDouble},
		{name: "radius", typ: argDouble},
		{name: "unit", typ: argOneOf, args: []commandArg{
			{name: "m", typ: argPureToken, token: "M"},
			{name: "km", typ: argPureToken, token: "KM"},
			{name: "ft", typ: argPureToken, token: "FT"},
			{name: "mi", typ: argPureToken, token: "MI"},
		}},
		{name: "withcoord", typ: argPureToken, token: "WITHCOORD", flags: argOptional},
		{name: "withdist", typ: argPureToken, token: "WITHDIST", flags: argOptional},
		{name: "withhash", typ: argPureToken, token: "WITHHASH", flags: argOptional},
		{name: "count", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger, token: "COUNT"},
			{name: "any", typ: argPureToken, token: "ANY", since: "6.2.0", flags: argOptional},
		}},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
	}},
	"georadiusbymember": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments", history: [][2]string{{"7.0.0", "Added support for uppercase unit names."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString},
		{name: "radius", typ: argDouble},
		{name: "unit", typ: argOneOf, args: []commandArg{
			{name: "m", typ: argPureToken, token: "M"},
			{name: "km", typ: argPureToken, token: "KM"},
			{name: "ft", typ: argPureToken, token: "FT"},
			{name: "mi", typ: argPureToken, token: "MI"},
		}},
		{name: "withcoord", typ: argPureToken, token: "WITHCOORD", flags: argOptional},
		{name: "withdist", typ: argPureToken, token: "WITHDIST", flags: argOptional},
		{name: "withhash", typ: argPureToken, token: "WITHHASH", flags: argOptional},
		{name: "count", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger, token: "COUNT"},
			{name: "any", typ: argPureToken, token: "ANY", flags: argOptional},
		}},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
		{name: "key", typ: argKey, keySpec: 2, token: "STORE", flags: argOptional},
		{name: "key", typ: argKey, keySpec: 3, token: "STOREDIST", flags: argOptional},
	}},
	"georadiusbymember_ro": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments", args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString},
		{name: "radius", typ: argDouble},
		{name: "unit", typ: argOneOf, args: []commandArg{
			{name: "m", typ: argPureToken, token: "M"},
			{name: "km", typ: argPureToken, token: "KM"},
			{name: "ft", typ: argPureToken, token: "FT"},
			{name: "mi", typ: argPureToken, token: "MI"},
		}},
		{name: "withcoord", typ: argPureToken, token: "WITHCOORD", flags: argOptional},
		{name: "withdist", typ: argPureToken, token: "WITHDIST", flags: argOptional},
		{name: "withhash", typ: argPureToken, token: "WITHHASH", flags: argOptional},
		{name: "count", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger, token: "COUNT"},
			{name: "any", typ: argPureToken, token: "ANY", flags: argOptional},
		}},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
	}},
	"geosearch": {history: [][2]string{{"7.0.0", "Added support for uppercase unit names."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "from", typ: argOneOf, args: []commandArg{
			{name: "member", typ: argString, token: "FROMMEMBER"},
			{name: "longitude_latitude", typ: argBlock, token: "FROMLONLAT", args: []commandArg{
				{name: "longitude", typ: argDouble},
				{name: "latitude", typ: argDouble},
			}},
		}},
		{name: "by", typ: argOneOf, args: []commandArg{
			{name: "circle", typ: argBlock, args: []commandArg{
				{name: "radius", typ: argDouble, token: "BYRADIUS"},
				{name: "unit", typ: argOneOf, args: []commandArg{
					{name: "m", typ: argPureToken, token: "M"},
					{name: "km", typ: argPureToken, token: "KM"},
					{name: "ft", typ: argPureToken, token: "FT"},
					{name: "mi", typ: argPureToken, token: "MI"},
				}},
			}},
			{name: "box", typ: argBlock, args: []commandArg{
				{name: "width", typ: argDouble, token: "BYBOX"},
				{name: "height", typ: argDouble},
				{name: "unit", typ: argOneOf, args: []commandArg{
					{name: "m", typ: argPureToken, token: "M"},
					{name: "km", typ: argPureToken, token: "KM"},
					{name: "ft", typ: argPureToken, token: "FT"},
					{name: "mi", typ: argPureToken, token: "MI"},
				}},
			}},
		}},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
		{name: "count", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger, token: "COUNT"},
			{name: "any", typ: argPureToken, token: "ANY", flags: argOptional},
		}},
		{name: "withcoord", typ: argPureToken, token: "WITHCOORD", flags: argOptional},
		{name: "withdist", typ: argPureToken, token: "WITHDIST", flags: argOptional},
		{name: "withhash", typ: argPureToken, token: "WITHHASH", flags: argOptional},
	}},
	"geosearchstore": {history: [][2]string{{"7.0.0", "Added support for uppercase unit names."}}, args: []commandArg{
		{name: "destination", typ: argKey, keySpec: 1},
		{name: "source", typ: argKey, keySpec: 2},
		{name: "from", typ: argOneOf, args: []commandArg{
			{name: "member", typ: argString, token: "FROMMEMBER"},
			{name: "longitude_latitude", typ: argBlock, token: "FROMLONLAT", args: []commandArg{
				{name: "longitude", typ: argDouble},
				{name: "latitude", typ: argDouble},
			}},
		}},
		{name: "by", typ: argOneOf, args: []commandArg{
			{name: "circle", typ: argBlock, args: []commandArg{
				{name: "radius", typ: argDouble, token: "BYRADIUS"},
				{name: "unit", typ: argOneOf, args: []commandArg{
					{name: "m", typ: argPureToken, token: "M"},
					{name: "km", typ: argPureToken, token: "KM"},
					{name: "ft", typ: argPureToken, token: "FT"},
					{name: "mi", typ: argPureToken, token: "MI"},
				}},
			}},
			{name: "box", typ: argBlock, args: []commandArg{
				{name: "width", typ: argDouble, token: "BYBOX"},
				{name: "height", typ: argDouble},
				{name: "unit", typ: argOneOf, args: []commandArg{
					{name: "m", typ: argPureToken, token: "M"},
					{name: "km", typ: argPureToken, token: "KM"},
					{name: "ft", typ: argPureToken, token: "FT"},
					{name: "mi", typ: argPureToken, token: "MI"},
				}},
			}},
		}},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
		{name: "count", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger, token: "COUNT"},
			{name: "any", typ: argPureToken, token: "ANY", flags: argOptional},
		}},
		{name: "storedist", typ: argPureToken, token: "STOREDIST", flags: argOptional},
	}},
	"get": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"getbit": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "offset", typ: argInteger},
	}},
	"getdel": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"getex": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "expiration", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "seconds", typ: argInteger, token: "EX"},
			{name: "milliseconds", typ: argInteger, token: "PX"},
			{name: "unix-time-seconds", typ: argUnixTime, token: "EXAT"},
			{name: "unix-time-milliseconds", typ: argUnixTime, token: "PXAT"},
			{name: "persist", typ: argPureToken, token: "PERSIST"},
		}},
	}},
	"getrange": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argInteger},
		{name: "end", typ: argInteger},
	}},
	"getset": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`SET` with the `!GET` argument", args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "value", typ: argString},
	}},
	"hdel": {history: [][2]string{{"2.4.0", "Accepts multiple `field` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString, flags: argMultiple},
	}},
	"hello": {history: [][2]string{{"6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context."}}, args: []commandArg{
		{name: "arguments", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "protover", typ: argInteger},
			{name: "username_password", typ: argBlock, token: "AUTH", flags: argOptional, args: []commandArg{
				{name: "username", typ: argString},
				{name: "password", typ: argString},
			}},
			{name: "clientname", typ: argString, token: "SETNAME", flags: argOptional},
		}},
	}},
	"hexists": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString},
	}},
	"hget": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString},
	}},
	"hgetall": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"hincrby": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString},
		{name: "increment", typ: argInteger},
	}},
	"hincrbyfloat": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString},
		{name: "increment", typ: argDouble},
	}},
	"hkeys": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"hlen": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"hmget": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString, flags: argMultiple},
	}},
	"hmset": {docFlags: docDeprecated, deprecatedSince: "4.0.0", replacedBy: "`HSET` with multiple field-value pairs", args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field_value", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "field", typ: argString},
			{name: "value", typ: argString},
		}},
	}},
	"hrandfield": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "options", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger},
			{name: "withvalues", typ: argPureToken, token: "WITHVALUES", flags: argOptional},
		}},
	}},
	"hscan": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "cursor", typ: argInteger},
		{name: "pattern", typ: argPattern, token: "MATCH", flags: argOptional},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"hset": {history: [][2]string{{"4.0.0", "Accepts multiple `field` and `value` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field_value", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "field", typ: argString},
			{name: "value", typ: argString},
		}},
	}},
	"hsetnx": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString},
		{name: "value", typ: argString},
	}},
	"hstrlen": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "field", typ: argString},
	}},
	"hvals": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"incr": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"incrby": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "increment", typ: argInteger},
	}},
	"incrbyfloat": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "increment", typ: argDouble},
	}},
	"info": {history: [][2]string{{"7.0.0", "Added support for taking multiple section arguments."}}, args: []commandArg{
		{name: "section", typ: argString, flags: argOptional | argMultiple},
	}},
	"keys": {args: []commandArg{
		{name: "pattern", typ: argPattern},
	}},
	"lastsave": {},
	"lcs": {args: []commandArg{
		{name: "key1", typ: argKey, keySpec: 1},
		{name: "key2", typ: argKey, keySpec: 1},
		{name: "len", typ: argPureToken, token: "LEN", flags: argOptional},
		{name: "idx", typ: argPureToken, token: "IDX", flags: argOptional},
		{name: "len", typ: argInteger, token: "MINMATCHLEN", flags: argOptional},
		{name: "withmatchlen", typ: argPureToken, token: "WITHMATCHLEN", flags: argOptional},
	}},
	"lindex": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "index", typ: argInteger},
	}},
	"linsert": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "where", typ: argOneOf, args: []commandArg{
			{name: "before", typ: argPureToken, token: "BEFORE"},
			{name: "after", typ: argPureToken, token: "AFTER"},
		}},
		{name: "pivot", typ: argString},
		{name: "element", typ: argString},
	}},
	"llen": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"lmove": {args: []commandArg{
		{name: "source", typ: argKey, keySpec: 1},
		{name: "destination", typ: argKey, keySpec: 2},
		{name: "wherefrom", typ: argOneOf, args: []commandArg{
			{name: "left", typ: argPureToken, token: "LEFT"},
			{name: "right", typ: argPureToken, token: "RIGHT"},
		}},
		{name: "whereto", typ: argOneOf, args: []commandArg{
			{name: "left", typ: argPureToken, token: "LEFT"},
			{name: "right", typ: argPureToken, token: "RIGHT"},
		}},
	}},
	"lmpop": {args: []commandArg{
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "where", typ: argOneOf, args: []commandArg{
			{name: "left", typ: argPureToken, token: "LEFT"},
			{name: "right", typ: argPureToken, token: "RIGHT"},
		}},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"lolwut": {args: []commandArg{
		{name: "version", typ: argInteger, token: "VERSION", flags: argOptional},
	}},
	"lpop": {history: [][2]string{{"6.2.0", "Added the `count` argument."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger, since: "6.2.0", flags: argOptional},
	}},
	"lpos": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "element", typ: argString},
		{name: "rank", typ: argInteger, token: "RANK", flags: argOptional},
		{name: "num-matches", typ: argInteger, token: "COUNT", flags: argOptional},
		{name: "len", typ: argInteger, token: "MAXLEN", flags: argOptional},
	}},
	"lpush": {history: [][2]string{{"2.4.0", "Accepts multiple `element` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "element", typ: argString, flags: argMultiple},
	}},
	"lpushx": {history: [][2]string{{"4.0.0", "Accepts multiple `element` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "element", typ: argString, flags: argMultiple},
	}},
	"lrange": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argInteger},
		{name: "stop", typ: argInteger},
	}},
	"lrem": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger},
		{name: "element", typ: argString},
	}},
	"lset": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "index", typ: argInteger},
		{name: "element", typ: argString},
	}},
	"ltrim": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argInteger},
		{name: "stop", typ: argInteger},
	}},
	"memory":              {},
	"memory|help":         {},
	"memory|malloc-stats": {},
	"memory|purge":        {},
	"memory|stats":        {},
	"memory|usage": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger, token: "SAMPLES", flags: argOptional},
	}},
	"mget": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"module":      {},
	"module|help": {},
	"module|list": {},
	"module|load": {args: []commandArg{
		{name: "path", typ: argString},
		{name: "arg", typ: argString, flags: argOptional | argMultiple},
	}},
	"module|loadex": {args: []commandArg{
		{name: "path", typ: argString},
		{name: "configs", typ: argBlock, token: "CONFIG", flags: argOptional | argMultiple | argMultipleToken, args: []commandArg{
			{name: "name", typ: argString},
			{name: "value", typ: argString},
		}},
		{name: "args", typ: argBlock, token: "ARGS", flags: argOptional | argMultiple, args: []commandArg{
			{name: "arg", typ: argString},
		}},
	}},
	"module|unload": {args: []commandArg{
		{name: "name", typ: argString},
	}},
	"monitor": {},
	"move": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "db", typ: argInteger},
	}},
	"mset": {args: []commandArg{
		{name: "key_value", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "key", typ: argKey, keySpec: 1},
			{name: "value", typ: argString},
		}},
	}},
	"msetnx": {args: []commandArg{
		{name: "key_value", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "key", typ: argKey, keySpec: 1},
			{name: "value", typ: argString},
		}},
	}},
	"multi":  {},
	"object": {},
	"object|encoding": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"object|freq": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"object|help": {},
	"object|idletime": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"object|refcount": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"persist": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"pexpire": {history: [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "milliseconds", typ: argInteger},
		{name: "condition", typ: argOneOf, since: "7.0.0", flags: argOptional, args: []commandArg{
			{name: "nx", typ: argPureToken, token: "NX"},
			{name: "xx", typ: argPureToken, token: "XX"},
			{name: "gt", typ: argPureToken, token: "GT"},
			{name: "lt", typ: argPureToken, token: "LT"},
		}},
	}},
	"pexpireat": {history: [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "unix-time-milliseconds", typ: argUnixTime},
		{name: "condition", typ: argOneOf, since: "7.0.0", flags: argOptional, args: []commandArg{
			{name: "nx", typ: argPureToken, token: "NX"},
			{name: "xx", typ: argPureToken, token: "XX"},
			{name: "gt", typ: argPureToken, token: "GT"},
			{name: "lt", typ: argPureToken, token: "LT"},
		}},
	}},
	"pexpiretime": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"pfadd": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "element", typ: argString, flags: argOptional | argMultiple},
	}},
	"pfcount": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"pfdebug": {docFlags: docSysCmd, args: []commandArg{
		{name: "subcommand", typ: argString},
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"pfmerge": {args: []commandArg{
		{name: "destkey", typ: argKey, keySpec: 1},
		{name: "sourcekey", typ: argKey, keySpec: 2, flags: argMultiple},
	}},
	"pfselftest": {docFlags: docSysCmd},
	"ping": {args: []commandArg{
		{name: "message", typ: argString, flags: argOptional},
	}},
	"psetex": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "milliseconds", typ: argInteger},
		{name: "value", typ: argString},
	}},
	"psubscribe": {args: []commandArg{
		{name: "pattern", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "pattern", typ: argPattern},
		}},
	}},
	"pttl": {history: [][2]string{{"2.8.0", "Added the -2 reply."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"publish": {args: []commandArg{
		{name: "channel", typ: argString},
		{name: "message", typ: argString},
	}},
	"pubsub": {},
	"pubsub|channels": {args: []commandArg{
		{name: "pattern", typ: argPattern, flags: argOptional},
	}},
	"pubsub|help":   {},
	"pubsub|numpat": {},
	"pubsub|numsub": {args: []commandArg{
		{name: "channel", typ: argString, flags: argOptional | argMultiple},
	}},
	"pubsub|shardchannels": {args: []commandArg{
		{name: "pattern", typ: argPattern, flags: argOptional},
	}},
	"pubsub|shardnumsub": {args: []commandArg{
		{name: "shardchannel", typ: argString, flags: argOptional | argMultiple},
	}},
	"punsubscribe": {args: []commandArg{
		{name: "pattern", typ: argPattern, flags: argOptional | argMultiple},
	}},
	"quit":      {},
	"randomkey": {},
	"readonly":  {},
	"readwrite": {},
	"rename": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "newkey", typ: argKey, keySpec: 2},
	}},
	"renamenx": {history: [][2]string{{"3.2.0", "The command no longer returns an error when source and destination names are the same."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "newkey", typ: argKey, keySpec: 2},
	}},
	"replconf": {docFlags: docSysCmd},
	"replicaof": {args: []commandArg{
		{name: "args", typ: argOneOf, args: []commandArg{
			{name: "host-port", typ: argBlock, args: []commandArg{
				{name: "host", typ: argString},
				{name: "port", typ: argInteger},
			}},
			{name: "no-one", typ: argBlock, args: []commandArg{
				{name: "no", typ: argPureToken, token: "NO"},
				{name: "one", typ: argPureToken, token: "ONE"},
			}},
		}},
	}},
	"reset": {},
	"restore": {history: [][2]string{{"3.0.0", "Added the `REPLACE` modifier."}, {"5.0.0", "Added the `ABSTTL` modifier."}, {"5.0.0", "Added the `IDLETIME` and `FREQ` options."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "ttl", typ: argInteger},
		{name: "serialized-value", typ: argString},
		{name: "replace", typ: argPureToken, token: "REPLACE", since: "3.0.0", flags: argOptional},
		{name: "absttl", typ: argPureToken, token: "ABSTTL", since: "5.0.0", flags: argOptional},
		{name: "seconds", typ: argInteger, token: "IDLETIME", since: "5.0.0", flags: argOptional},
		{name: "frequency", typ: argInteger, token: "FREQ", since: "5.0.0", flags: argOptional},
	}},
	"role": {},
	"rpop": {history: [][2]string{{"6.2.0", "Added the `count` argument."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger, since: "6.2.0", flags: argOptional},
	}},
	"rpoplpush": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`LMOVE` with the `RIGHT` and `LEFT` arguments", args: []commandArg{
		{name: "source", typ: argKey, keySpec: 1},
		{name: "destination", typ: argKey, keySpec: 2},
	}},
	"rpush": {history: [][2]string{{"2.4.0", "Accepts multiple `element` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "element", typ: argString, flags: argMultiple},
	}},
	"rpushx": {history: [][2]string{{"4.0.0", "Accepts multiple `element` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "element", typ: argString, flags: argMultiple},
	}},
	"sadd": {history: [][2]string{{"2.4.0", "Accepts multiple `member` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString, flags: argMultiple},
	}},
	"save": {},
	"scan": {history: [][2]string{{"6.0.0", "Added the `TYPE` subcommand."}}, args: []commandArg{
		{name: "cursor", typ: argInteger},
		{name: "pattern", typ: argPattern, token: "MATCH", flags: argOptional},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
		{name: "type", typ: argString, token: "TYPE", since: "6.0.0", flags: argOptional},
	}},
	"scard": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"script": {},
	"script|exists": {args: []commandArg{
		{name: "sha1", typ: argString, flags: argMultiple},
	}},
	"script|flush": {history: [][2]string{{"6.2.0", "Added the `ASYNC` and `SYNC` flushing mode modifiers."}}, args: []commandArg{
		{name: "async", typ: argOneOf, since: "6.2.0", flags: argOptional, args: []commandArg{
			{name: "async", typ: argPureToken, token: "ASYNC"},
			{name: "sync", typ: argPureToken, token: "SYNC"},
		}},
	}},
	"script|help": {},
	"script|kill": {},
	"script|load": {args: []commandArg{
		{name: "script", typ: argString},
	}},
	"sdiff": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"sdiffstore": {args: []commandArg{
		{name: "destination", typ: argKey, keySpec: 1},
		{name: "key", typ: argKey, keySpec: 2, flags: argMultiple},
	}},
	"select": {args: []commandArg{
		{name: "index", typ: argInteger},
	}},
	"set": {history: [][2]string{{"2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options."}, {"6.0.0", "Added the `KEEPTTL` option."}, {"6.2.0", "Added the `GET`, `EXAT` and `PXAT` option."}, {"7.0.0", "Allowed the `NX` and `GET` options to be used together."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "value", typ: argString},
		{name: "condition", typ: argOneOf, since: "2.6.12", flags: argOptional, args: []commandArg{
			{name: "nx", typ: argPureToken, token: "NX"},
			{name: "xx", typ: argPureToken, token: "XX"},
		}},
		{name: "get", typ: argPureToken, token: "GET", since: "6.2.0", flags: argOptional},
		{name: "expiration", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "seconds", typ: argInteger, token: "EX", since: "2.6.12"},
			{name: "milliseconds", typ: argInteger, token: "PX", since: "2.6.12"},
			{name: "unix-time-seconds", typ: argUnixTime, token: "EXAT", since: "6.2.0"},
			{name: "unix-time-milliseconds", typ: argUnixTime, token: "PXAT", since: "6.2.0"},
			{name: "keepttl", typ: argPureToken, token: "KEEPTTL", since: "6.0.0"},
		}},
	}},
	"setbit": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "offset", typ: argInteger},
		{name: "value", typ: argInteger},
	}},
	"setex": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "seconds", typ: argInteger},
		{name: "value", typ: argString},
	}},
	"setnx": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "value", typ: argString},
	}},
	"setrange": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "offset", typ: argInteger},
		{name: "value", typ: argString},
	}},
	"shutdown": {history: [][2]string{{"7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers."}}, args: []commandArg{
		{name: "nosave_save", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "nosave", typ: argPureToken, token: "NOSAVE"},
			{name: "save", typ: argPureToken, token: "SAVE"},
		}},
		{name: "now", typ: argPureToken, token: "NOW", since: "7.0.0", flags: argOptional},
		{name: "force", typ: argPureToken, token: "FORCE", since: "7.0.0", flags: argOptional},
		{name: "abort", typ: argPureToken, token: "ABORT", since: "7.0.0", flags: argOptional},
	}},
	"sinter": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"sintercard": {args: []commandArg{
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "limit", typ: argInteger, token: "LIMIT", flags: argOptional},
	}},
	"sinterstore": {args: []commandArg{
		{name: "destination", typ: argKey, keySpec: 1},
		{name: "key", typ: argKey, keySpec: 2, flags: argMultiple},
	}},
	"sismember": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString},
	}},
	"slaveof": {docFlags: docDeprecated, deprecatedSince: "5.0.0", replacedBy: "`REPLICAOF`", args: []commandArg{
		{name: "args", typ: argOneOf, args: []commandArg{
			{name: "host-port", typ: argBlock, args: []commandArg{
				{name: "host", typ: argString},
				{name: "port", typ: argInteger},
			}},
			{name: "no-one", typ: argBlock, args: []commandArg{
				{name: "no", typ: argPureToken, token: "NO"},
				{name: "one", typ: argPureToken, token: "ONE"},
			}},
		}},
	}},
	"slowlog": {},
	"slowlog|get": {history: [][2]string{{"4.0.0", "Added client IP address, port and name to the reply."}}, args: []commandArg{
		{name: "count", typ: argInteger, flags: argOptional},
	}},
	"slowlog|help":  {},
	"slowlog|len":   {},
	"slowlog|reset": {},
	"smembers": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"smismember": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString, flags: argMultiple},
	}},
	"smove": {args: []commandArg{
		{name: "source", typ: argKey, keySpec: 1},
		{name: "destination", typ: argKey, keySpec: 2},
		{name: "member", typ: argString},
	}},
	"sort": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "pattern", typ: argPattern, keySpec: 2, token: "BY", flags: argOptional},
		{name: "offset_count", typ: argBlock, token: "LIMIT", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
		{name: "pattern", typ: argPattern, keySpec: 2, token: "GET", flags: argOptional | argMultiple | argMultipleToken},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
		{name: "sorting", typ: argPureToken, token: "ALPHA", flags: argOptional},
		{name: "destination", typ: argKey, keySpec: 3, token: "STORE", flags: argOptional},
	}},
	"sort_ro": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "pattern", typ: argPattern, keySpec: 2, token: "BY", flags: argOptional},
		{name: "offset_count", typ: argBlock, token: "LIMIT", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
		{name: "pattern", typ: argPattern, keySpec: 2, token: "GET", flags: argOptional | argMultiple | argMultipleToken},
		{name: "order", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "asc", typ: argPureToken, token: "ASC"},
			{name: "desc", typ: argPureToken, token: "DESC"},
		}},
		{name: "sorting", typ: argPureToken, token: "ALPHA", flags: argOptional},
	}},
	"spop": {history: [][2]string{{"3.2.0", "Added the `count` argument."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger, since: "3.2.0", flags: argOptional},
	}},
	"spublish": {args: []commandArg{
		{name: "shardchannel", typ: argString},
		{name: "message", typ: argString},
	}},
	"srandmember": {history: [][2]string{{"2.6.0", "Added the optional `count` argument."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger, since: "2.6.0", flags: argOptional},
	}},
	"srem": {history: [][2]string{{"2.4.0", "Accepts multiple `member` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString, flags: argMultiple},
	}},
	"sscan": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "cursor", typ: argInteger},
		{name: "pattern", typ: argPattern, token: "MATCH", flags: argOptional},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"ssubscribe": {args: []commandArg{
		{name: "shardchannel", typ: argString, flags: argMultiple},
	}},
	"strlen": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"subscribe": {args: []commandArg{
		{name: "channel", typ: argString, flags: argMultiple},
	}},
	"substr": {docFlags: docDeprecated, deprecatedSince: "2.0.0", replacedBy: "`GETRANGE`", args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argInteger},
		{name: "end", typ: argInteger},
	}},
	"sunion": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"sunionstore": {args: []commandArg{
		{name: "destination", typ: argKey, keySpec: 1},
		{name: "key", typ: argKey, keySpec: 2, flags: argMultiple},
	}},
	"sunsubscribe": {args: []commandArg{
		{name: "shardchannel", typ: argString, flags: argOptional | argMultiple},
	}},
	"swapdb": {args: []commandArg{
		{name: "index1", typ: argInteger},
		{name: "index2", typ: argInteger},
	}},
	"time": {},
	"touch": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"ttl": {history: [][2]string{{"2.8.0", "Added the -2 reply."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"type": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"unlink": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"unsubscribe": {args: []commandArg{
		{name: "channel", typ: argString, flags: argOptional | argMultiple},
	}},
	"unwatch": {},
	"wait": {args: []commandArg{
		{name: "numreplicas", typ: argInteger},
		{name: "timeout", typ: argInteger},
	}},
	"watch": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
	}},
	"xack": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "group", typ: argString},
		{name: "id", typ: argString, flags: argMultiple},
	}},
	"xadd": {history: [][2]string{{"6.2.0", "Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` option."}, {"7.0.0", "Added support for the `<ms>-*` explicit ID form."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "nomkstream", typ: argPureToken, token: "NOMKSTREAM", since: "6.2.0", flags: argOptional},
		{name: "trim", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "strategy", typ: argOneOf, args: []commandArg{
				{name: "maxlen", typ: argPureToken, token: "MAXLEN"},
				{name: "minid", typ: argPureToken, token: "MINID", since: "6.2.0"},
			}},
			{name: "operator", typ: argOneOf, flags: argOptional, args: []commandArg{
				{name: "equal", typ: argPureToken, token: "="},
				{name: "approximately", typ: argPureToken, token: "~"},
			}},
			{name: "threshold", typ: argString},
			{name: "count", typ: argInteger, token: "LIMIT", since: "6.2.0", flags: argOptional},
		}},
		{name: "id_or_auto", typ: argOneOf, args: []commandArg{
			{name: "auto_id", typ: argPureToken, token: "*"},
			{name: "id", typ: argString},
		}},
		{name: "field_value", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "field", typ: argString},
			{name: "value", typ: argString},
		}},
	}},
	"xautoclaim": {history: [][2]string{{"7.0.0", "Added an element to the reply array, containing deleted entries the command cleared from the PEL"}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "group", typ: argString},
		{name: "consumer", typ: argString},
		{name: "min-idle-time", typ: argString},
		{name: "start", typ: argString},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
		{name: "justid", typ: argPureToken, token: "JUSTID", flags: argOptional},
	}},
	"xclaim": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "group", typ: argString},
		{name: "consumer", typ: argString},
		{name: "min-idle-time", typ: argString},
		{name: "id", typ: argString, flags: argMultiple},
		{name: "ms", typ: argInteger, token: "IDLE", flags: argOptional},
		{name: "unix-time-milliseconds", typ: argUnixTime, token: "TIME", flags: argOptional},
		{name: "count", typ: argInteger, token: "RETRYCOUNT", flags: argOptional},
		{name: "force", typ: argPureToken, token: "FORCE", flags: argOptional},
		{name: "justid", typ: argPureToken, token: "JUSTID", flags: argOptional},
		{name: "id", typ: argString, token: "LASTID", flags: argOptional},
	}},
	"xdel": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "id", typ: argString, flags: argMultiple},
	}},
	"xgroup": {},
	"xgroup|create": {history: [][2]string{{"7.0.0", "Added the `entries_read` named argument."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "groupname", typ: argString},
		{name: "id", typ: argOneOf, args: []commandArg{
			{name: "id", typ: argString},
			{name: "new_id", typ: argPureToken, token: "$"},
		}},
		{name: "mkstream", typ: argPureToken, token: "MKSTREAM", flags: argOptional},
		{name: "entries_read", typ: argInteger, token: "ENTRIESREAD", flags: argOptional},
	}},
	"xgroup|createconsumer": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "groupname", typ: argString},
		{name: "consumername", typ: argString},
	}},
	"xgroup|delconsumer": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "groupname", typ: argString},
		{name: "consumername", typ: argString},
	}},
	"xgroup|destroy": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "groupname", typ: argString},
	}},
	"xgroup|help": {},
	"xgroup|setid": {history: [][2]string{{"7.0.0", "Added the optional `entries_read` argument."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "groupname", typ: argString},
		{name: "id", typ: argOneOf, args: []commandArg{
			{name: "id", typ: argString},
			{name: "new_id", typ: argPureToken, token: "$"},
		}},
		{name: "entries_read", typ: argInteger, token: "ENTRIESREAD", flags: argOptional},
	}},
	"xinfo": {},
	"xinfo|consumers": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "groupname", typ: argString},
	}},
	"xinfo|groups": {history: [][2]string{{"7.0.0", "Added the `entries-read` and `lag` fields"}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"xinfo|help": {},
	"xinfo|stream": {history: [][2]string{{"6.0.0", "Added the `FULL` modifier."}, {"7.0.0", "Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields"}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "full", typ: argBlock, token: "FULL", flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
		}},
	}},
	"xlen": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"xpending": {history: [][2]string{{"6.2.0", "Added the `IDLE` option and exclusive range intervals."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "group", typ: argString},
		{name: "filters", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "min-idle-time", typ: argInteger, token: "IDLE", since: "6.2.0", flags: argOptional},
			{name: "start", typ: argString},
			{name: "end", typ: argString},
			{name: "count", typ: argInteger},
			{name: "consumer", typ: argString, flags: argOptional},
		}},
	}},
	"xrange": {history: [][2]string{{"6.2.0", "Added exclusive ranges."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argString},
		{name: "end", typ: argString},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"xread": {args: []commandArg{
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
		{name: "milliseconds", typ: argInteger, token: "BLOCK", flags: argOptional},
		{name: "streams", typ: argBlock, token: "STREAMS", args: []commandArg{
			{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
			{name: "id", typ: argString, flags: argMultiple},
		}},
	}},
	"xreadgroup": {args: []commandArg{
		{name: "group_consumer", typ: argBlock, token: "GROUP", args: []commandArg{
			{name: "group", typ: argString},
			{name: "consumer", typ: argString},
		}},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
		{name: "milliseconds", typ: argInteger, token: "BLOCK", flags: argOptional},
		{name: "noack", typ: argPureToken, token: "NOACK", flags: argOptional},
		{name: "streams", typ: argBlock, token: "STREAMS", args: []commandArg{
			{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
			{name: "id", typ: argString, flags: argMultiple},
		}},
	}},
	"xrevrange": {history: [][2]string{{"6.2.0", "Added exclusive ranges."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "end", typ: argString},
		{name: "start", typ: argString},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"xsetid": {history: [][2]string{{"7.0.0", "Added the `entries_added` and `max_deleted_entry_id` arguments."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "last-id", typ: argString},
		{name: "entries_added", typ: argInteger, token: "ENTRIESADDED", since: "7.0.0", flags: argOptional},
		{name: "max_deleted_entry_id", typ: argString, token: "MAXDELETEDID", since: "7.0.0", flags: argOptional},
	}},
	"xtrim": {history: [][2]string{{"6.2.0", "Added the `MINID` trimming strategy and the `LIMIT` option."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "trim", typ: argBlock, args: []commandArg{
			{name: "strategy", typ: argOneOf, args: []commandArg{
				{name: "maxlen", typ: argPureToken, token: "MAXLEN"},
				{name: "minid", typ: argPureToken, token: "MINID", since: "6.2.0"},
			}},
			{name: "operator", typ: argOneOf, flags: argOptional, args: []commandArg{
				{name: "equal", typ: argPureToken, token: "="},
				{name: "approximately", typ: argPureToken, token: "~"},
			}},
			{name: "threshold", typ: argString},
			{name: "count", typ: argInteger, token: "LIMIT", since: "6.2.0", flags: argOptional},
		}},
	}},
	"zadd": {history: [][2]string{{"2.4.0", "Accepts multiple elements."}, {"3.0.2", "Added the `XX`, `NX`, `CH` and `INCR` options."}, {"6.2.0", "Added the `GT` and `LT` options."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "condition", typ: argOneOf, since: "3.0.2", flags: argOptional, args: []commandArg{
			{name: "nx", typ: argPureToken, token: "NX"},
			{name: "xx", typ: argPureToken, token: "XX"},
		}},
		{name: "comparison", typ: argOneOf, since: "6.2.0", flags: argOptional, args: []commandArg{
			{name: "gt", typ: argPureToken, token: "GT"},
			{name: "lt", typ: argPureToken, token: "LT"},
		}},
		{name: "change", typ: argPureToken, token: "CH", since: "3.0.2", flags: argOptional},
		{name: "increment", typ: argPureToken, token: "INCR", since: "3.0.2", flags: argOptional},
		{name: "score_member", typ: argBlock, flags: argMultiple, args: []commandArg{
			{name: "score", typ: argDouble},
			{name: "member", typ: argString},
		}},
	}},
	"zcard": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
	}},
	"zcount": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "min", typ: argDouble},
		{name: "max", typ: argDouble},
	}},
	"zdiff": {args: []commandArg{
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "withscores", typ: argPureToken, token: "WITHSCORES", flags: argOptional},
	}},
	"zdiffstore": {args: []commandArg{
		{name: "destination", typ: argKey, keySpec: 1},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 2, flags: argMultiple},
	}},
	"zincrby": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "increment", typ: argInteger},
		{name: "member", typ: argString},
	}},
	"zinter": {args: []commandArg{
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "weight", typ: argInteger, token: "WEIGHTS", flags: argOptional | argMultiple},
		{name: "aggregate", typ: argOneOf, token: "AGGREGATE", flags: argOptional, args: []commandArg{
			{name: "sum", typ: argPureToken, token: "SUM"},
			{name: "min", typ: argPureToken, token: "MIN"},
			{name: "max", typ: argPureToken, token: "MAX"},
		}},
		{name: "withscores", typ: argPureToken, token: "WITHSCORES", flags: argOptional},
	}},
	"zintercard": {args: []commandArg{
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "limit", typ: argInteger, token: "LIMIT", flags: argOptional},
	}},
	"zinterstore": {args: []commandArg{
		{name: "destination", typ: argKey, keySpec: 1},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 2, flags: argMultiple},
		{name: "weight", typ: argInteger, token: "WEIGHTS", flags: argOptional | argMultiple},
		{name: "aggregate", typ: argOneOf, token: "AGGREGATE", flags: argOptional, args: []commandArg{
			{name: "sum", typ: argPureToken, token: "SUM"},
			{name: "min", typ: argPureToken, token: "MIN"},
			{name: "max", typ: argPureToken, token: "MAX"},
		}},
	}},
	"zlexcount": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "min", typ: argString},
		{name: "max", typ: argString},
	}},
	"zmpop": {args: []commandArg{
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "where", typ: argOneOf, args: []commandArg{
			{name: "min", typ: argPureToken, token: "MIN"},
			{name: "max", typ: argPureToken, token: "MAX"},
		}},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"zmscore": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString, flags: argMultiple},
	}},
	"zpopmax": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger, flags: argOptional},
	}},
	"zpopmin": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "count", typ: argInteger, flags: argOptional},
	}},
	"zrandmember": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "options", typ: argBlock, flags: argOptional, args: []commandArg{
			{name: "count", typ: argInteger},
			{name: "withscores", typ: argPureToken, token: "WITHSCORES", flags: argOptional},
		}},
	}},
	"zrange": {history: [][2]string{{"6.2.0", "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argString},
		{name: "stop", typ: argString},
		{name: "sortby", typ: argOneOf, since: "6.2.0", flags: argOptional, args: []commandArg{
			{name: "byscore", typ: argPureToken, token: "BYSCORE"},
			{name: "bylex", typ: argPureToken, token: "BYLEX"},
		}},
		{name: "rev", typ: argPureToken, token: "REV", since: "6.2.0", flags: argOptional},
		{name: "offset_count", typ: argBlock, token: "LIMIT", since: "6.2.0", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
		{name: "withscores", typ: argPureToken, token: "WITHSCORES", flags: argOptional},
	}},
	"zrangebylex": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`ZRANGE` with the `BYLEX` argument", args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "min", typ: argString},
		{name: "max", typ: argString},
		{name: "offset_count", typ: argBlock, token: "LIMIT", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
	}},
	"zrangebyscore": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`ZRANGE` with the `BYSCORE` argument", history: [][2]string{{"2.0.0", "Added the `WITHSCORES` modifier."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "min", typ: argDouble},
		{name: "max", typ: argDouble},
		{name: "withscores", typ: argPureToken, token: "WITHSCORES", since: "2.0.0", flags: argOptional},
		{name: "offset_count", typ: argBlock, token: "LIMIT", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
	}},
	"zrangestore": {args: []commandArg{
		{name: "dst", typ: argKey, keySpec: 1},
		{name: "src", typ: argKey, keySpec: 2},
		{name: "min", typ: argString},
		{name: "max", typ: argString},
		{name: "sortby", typ: argOneOf, flags: argOptional, args: []commandArg{
			{name: "byscore", typ: argPureToken, token: "BYSCORE"},
			{name: "bylex", typ: argPureToken, token: "BYLEX"},
		}},
		{name: "rev", typ: argPureToken, token: "REV", flags: argOptional},
		{name: "offset_count", typ: argBlock, token: "LIMIT", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
	}},
	"zrank": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString},
	}},
	"zrem": {history: [][2]string{{"2.4.0", "Accepts multiple elements."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString, flags: argMultiple},
	}},
	"zremrangebylex": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "min", typ: argString},
		{name: "max", typ: argString},
	}},
	"zremrangebyrank": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argInteger},
		{name: "stop", typ: argInteger},
	}},
	"zremrangebyscore": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "min", typ: argDouble},
		{name: "max", typ: argDouble},
	}},
	"zrevrange": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`ZRANGE` with the `REV` argument", args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "start", typ: argInteger},
		{name: "stop", typ: argInteger},
		{name: "withscores", typ: argPureToken, token: "WITHSCORES", flags: argOptional},
	}},
	"zrevrangebylex": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`ZRANGE` with the `REV` and `BYLEX` arguments", args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "max", typ: argString},
		{name: "min", typ: argString},
		{name: "offset_count", typ: argBlock, token: "LIMIT", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
	}},
	"zrevrangebyscore": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "`ZRANGE` with the `REV` and `BYSCORE` arguments", history: [][2]string{{"2.1.6", "`min` and `max` can be exclusive."}}, args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "max", typ: argDouble},
		{name: "min", typ: argDouble},
		{name: "withscores", typ: argPureToken, token: "WITHSCORES", flags: argOptional},
		{name: "offset_count", typ: argBlock, token: "LIMIT", flags: argOptional, args: []commandArg{
			{name: "offset", typ: argInteger},
			{name: "count", typ: argInteger},
		}},
	}},
	"zrevrank": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString},
	}},
	"zscan": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "cursor", typ: argInteger},
		{name: "pattern", typ: argPattern, token: "MATCH", flags: argOptional},
		{name: "count", typ: argInteger, token: "COUNT", flags: argOptional},
	}},
	"zscore": {args: []commandArg{
		{name: "key", typ: argKey, keySpec: 1},
		{name: "member", typ: argString},
	}},
	"zunion": {args: []commandArg{
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 1, flags: argMultiple},
		{name: "weight", typ: argInteger, token: "WEIGHTS", flags: argOptional | argMultiple},
		{name: "aggregate", typ: argOneOf, token: "AGGREGATE", flags: argOptional, args: []commandArg{
			{name: "sum", typ: argPureToken, token: "SUM"},
			{name: "min", typ: argPureToken, token: "MIN"},
			{name: "max", typ: argPureToken, token: "MAX"},
		}},
		{name: "withscores", typ: argPureToken, token: "WITHSCORES", flags: argOptional},
	}},
	"zunionstore": {args: []commandArg{
		{name: "destination", typ: argKey, keySpec: 1},
		{name: "numkeys", typ: argInteger},
		{name: "key", typ: argKey, keySpec: 2, flags: argMultiple},
		{name: "weight", typ: argInteger, token: "WEIGHTS", flags: argOptional | argMultiple},
		{name: "aggregate", typ: argOneOf, token: "AGGREGATE", flags: argOptional, args: []commandArg{
			{name: "sum", typ: argPureToken, token: "SUM"},
			{name: "min", typ: argPureToken, token: "MIN"},
			{name: "max", typ: argPureToken, token: "MAX"},
		}},
	}},
}
