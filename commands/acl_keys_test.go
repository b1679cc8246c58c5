package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/acl"
)

// keyAuditCalls holds one representative call of every command and
// subcommand of the table. Every key is named "app:…" and no other
// argument starts with "app:", so the positions of the keys are known
// without asking any key finder. A command added to the table without an
// entry here fails TestKeyExtractionAudit, so it gets audited too.
var keyAuditCalls = map[string]string{
	"acl": "ACL", "acl|cat": "ACL CAT", "acl|deluser": "ACL DELUSER u", "acl|dryrun": "ACL DRYRUN u get x",
	"acl|genpass": "ACL GENPASS", "acl|getuser": "ACL GETUSER u", "acl|help": "ACL HELP", "acl|list": "ACL LIST",
	"acl|load": "ACL LOAD", "acl|log": "ACL LOG", "acl|save": "ACL SAVE", "acl|setuser": "ACL SETUSER u on",
	"acl|users": "ACL USERS", "acl|whoami": "ACL WHOAMI",
	"append": "APPEND app:k v", "auth": "AUTH pw", "bgrewriteaof": "BGREWRITEAOF", "bgsave": "BGSAVE",
	"bitcount": "BITCOUNT app:k 0 1", "bitfield": "BITFIELD app:k SET u8 0 1 GET u8 0", "bitfield_ro": "BITFIELD_RO app:k GET u8 0",
	"bitop": "BITOP AND app:d app:a app:b", "bitpos": "BITPOS app:k 1",
	"blmove": "BLMOVE app:a app:b LEFT RIGHT 0", "blmpop": "BLMPOP 0 2 app:a app:b LEFT COUNT 1",
	"blpop": "BLPOP app:a app:b 0", "brpop": "BRPOP app:a app:b 0", "brpoplpush": "BRPOPLPUSH app:a app:b 0",
	"bzmpop": "BZMPOP 0 2 app:a app:b MIN", "bzpopmax": "BZPOPMAX app:a app:b 0", "bzpopmin": "BZPOPMIN app:a app:b 0",
	"client": "CLIENT", "client|caching": "CLIENT CACHING yes", "client|getname": "CLIENT GETNAME",
	"client|getredir": "CLIENT GETREDIR", "client|help": "CLIENT HELP", "client|id": "CLIENT ID", "client|info": "CLIENT INFO",
	"client|kill": "CLIENT KILL ID 9", "client|list": "CLIENT LIST", "client|no-evict": "CLIENT NO-EVICT on",
	"client|no-touch": "CLIENT NO-TOUCH on", "client|pause": "CLIENT PAUSE 10", "client|reply": "CLIENT REPLY on",
	"client|setinfo": "CLIENT SETINFO lib-name x", "client|setname": "CLIENT SETNAME n", "client|tracking": "CLIENT TRACKING on",
	"client|trackinginfo": "CLIENT TRACKINGINFO", "client|unblock": "CLIENT UNBLOCK 9", "client|unpause": "CLIENT UNPAUSE",
	"cluster": "CLUSTER", "cluster|countkeysinslot": "CLUSTER COUNTKEYSINSLOT 1", "cluster|getkeysinslot": "CLUSTER GETKEYSINSLOT 1 1",
	"cluster|help": "CLUSTER HELP", "cluster|info": "CLUSTER INFO", "cluster|keyslot": "CLUSTER KEYSLOT x", "cluster|myid": "CLUSTER MYID", "cluster|myshardid": "CLUSTER MYSHARDID",
	"cluster|replicas": "CLUSTER REPLICAS x", "cluster|slaves": "CLUSTER SLAVES x", "cluster|count-failure-reports": "CLUSTER COUNT-FAILURE-REPORTS x",
	"cluster|links": "CLUSTER LINKS", "cluster|failover": "CLUSTER FAILOVER", "cluster|meet": "CLUSTER MEET 127.0.0.1 1",
	"cluster|forget": "CLUSTER FORGET x", "cluster|replicate": "CLUSTER REPLICATE x",
	"cluster|nodes": "CLUSTER NODES", "cluster|shards": "CLUSTER SHARDS", "cluster|slots": "CLUSTER SLOTS",
	"command": "COMMAND", "command|count": "COMMAND COUNT", "command|docs": "COMMAND DOCS get",
	"command|getkeys": "COMMAND GETKEYS get x", "command|getkeysandflags": "COMMAND GETKEYSANDFLAGS get x",
	"command|help": "COMMAND HELP", "command|info": "COMMAND INFO get", "command|list": "COMMAND LIST",
	"config": "CONFIG", "config|get": "CONFIG GET maxmemory", "config|help": "CONFIG HELP", "config|resetstat": "CONFIG RESETSTAT",
	"config|rewrite": "CONFIG REWRITE", "config|set": "CONFIG SET maxmemory 0",
	"copy": "COPY app:a app:b REPLACE", "dbsize": "DBSIZE", "debug": "DEBUG help",
	"asking": "ASKING", "migrate": "MIGRATE 127.0.0.1 1 app:k 0 10 COPY AUTH2 u p", "restore-asking": "RESTORE-ASKING app:k 0 payload REPLACE",
	"decr": "DECR app:k", "decrby": "DECRBY app:k 2", "del": "DEL app:a app:b", "discard": "DISCARD", "dump": "DUMP app:k",
	"echo":       "ECHO x",
	"eval":       "EVAL return 2 app:a app:b x",
	"eval_ro":    "EVAL_RO return 1 app:a x",
	"evalsha":    "EVALSHA 0000000000000000000000000000000000000000 2 app:a app:b",
	"evalsha_ro": "EVALSHA_RO 0000000000000000000000000000000000000000 1 app:a",
	"exec":       "EXEC", "exists": "EXISTS app:a app:b", "expire": "EXPIRE app:k 10 NX", "expireat": "EXPIREAT app:k 10",
	"expiretime": "EXPIRETIME app:k",
	"fcall":      "FCALL f 2 app:a app:b x", "fcall_ro": "FCALL_RO f 1 app:a x",
	"flushall": "FLUSHALL", "flushdb": "FLUSHDB",
	"function": "FUNCTION", "function|delete": "FUNCTION DELETE lib", "function|dump": "FUNCTION DUMP",
	"function|flush": "FUNCTION FLUSH", "function|help": "FUNCTION HELP", "function|kill": "FUNCTION KILL",
	"function|list": "FUNCTION LIST", "function|load": "FUNCTION LOAD code", "function|restore": "FUNCTION RESTORE payload",
	"function|stats": "FUNCTION STATS",
	"geoadd":         "GEOADD app:k 1 2 m", "geodist": "GEODIST app:k m n km", "geohash": "GEOHASH app:k m", "geopos": "GEOPOS app:k m",
	"georadius":            "GEORADIUS app:k 1 2 10 km COUNT 3 STORE app:d",
	"georadius_ro":         "GEORADIUS_RO app:k 1 2 10 km",
	"georadiusbymember":    "GEORADIUSBYMEMBER app:k m 10 km COUNT 3 STOREDIST app:d",
	"georadiusbymember_ro": "GEORADIUSBYMEMBER_RO app:k m 10 km",
	"geosearch":            "GEOSEARCH app:k FROMMEMBER m BYRADIUS 10 km",
	"geosearchstore":       "GEOSEARCHSTORE app:d app:k FROMMEMBER m BYRADIUS 10 km",
	"get":                  "GET app:k", "getbit": "GETBIT app:k 1", "getdel": "GETDEL app:k", "getex": "GETEX app:k PX 10",
	"getrange": "GETRANGE app:k 0 1", "getset": "GETSET app:k v",
	"hdel": "HDEL app:k f", "hello": "HELLO 3", "hexists": "HEXISTS app:k f", "hget": "HGET app:k f", "hgetall": "HGETALL app:k",
	"hincrby": "HINCRBY app:k f 1", "hincrbyfloat": "HINCRBYFLOAT app:k f 1", "hkeys": "HKEYS app:k", "hlen": "HLEN app:k",
	"hmget": "HMGET app:k f g", "hmset": "HMSET app:k f v", "hrandfield": "HRANDFIELD app:k 2", "hscan": "HSCAN app:k 0",
	"hexpire": "HEXPIRE app:k 10 FIELDS 1 f", "hpexpire": "HPEXPIRE app:k 10 NX FIELDS 1 f",
	"hexpireat": "HEXPIREAT app:k 10 FIELDS 1 f", "hpexpireat": "HPEXPIREAT app:k 10 FIELDS 1 f",
	"httl": "HTTL app:k FIELDS 1 f", "hpttl": "HPTTL app:k FIELDS 1 f",
	"hexpiretime": "HEXPIRETIME app:k FIELDS 1 f", "hpexpiretime": "HPEXPIRETIME app:k FIELDS 1 f",
	"hpersist": "HPERSIST app:k FIELDS 1 f", "hgetdel": "HGETDEL app:k FIELDS 1 f",
	"hgetex": "HGETEX app:k EX 10 FIELDS 1 f", "hsetex": "HSETEX app:k EX 10 FIELDS 1 f v",
	"hset": "HSET app:k f v", "hsetnx": "HSETNX app:k f v", "hstrlen": "HSTRLEN app:k f", "hvals": "HVALS app:k",
	"incr": "INCR app:k", "incrby": "INCRBY app:k 1", "incrbyfloat": "INCRBYFLOAT app:k 1", "info": "INFO", "keys": "KEYS *",
	"lastsave": "LASTSAVE", "lcs": "LCS app:a app:b LEN",
	"lindex": "LINDEX app:k 0", "linsert": "LINSERT app:k BEFORE p v", "llen": "LLEN app:k",
	"lmove": "LMOVE app:a app:b LEFT RIGHT", "lmpop": "LMPOP 2 app:a app:b LEFT", "lpop": "LPOP app:k",
	"lpos": "LPOS app:k v", "lpush": "LPUSH app:k v", "lpushx": "LPUSHX app:k v", "lrange": "LRANGE app:k 0 1",
	"lrem": "LREM app:k 0 v", "lset": "LSET app:k 0 v", "ltrim": "LTRIM app:k 0 1",
	"lolwut": "LOLWUT VERSION 5",
	"memory": "MEMORY", "memory|doctor": "MEMORY DOCTOR", "memory|help": "MEMORY HELP", "memory|malloc-stats": "MEMORY MALLOC-STATS", "memory|purge": "MEMORY PURGE", "memory|stats": "MEMORY STATS",
	"module": "MODULE", "module|help": "MODULE HELP", "module|list": "MODULE LIST", "module|load": "MODULE LOAD /m.so a",
	"module|loadex": "MODULE LOADEX /m.so CONFIG n v ARGS a", "module|unload": "MODULE UNLOAD m",
	"memory|usage": "MEMORY USAGE app:k", "mget": "MGET app:a app:b", "monitor": "MONITOR", "move": "MOVE app:k 1",
	"mset": "MSET app:a 1 app:b 2", "msetnx": "MSETNX app:a 1 app:b 2", "multi": "MULTI",
	"object": "OBJECT", "object|encoding": "OBJECT ENCODING app:k", "object|freq": "OBJECT FREQ app:k",
	"object|help": "OBJECT HELP", "object|idletime": "OBJECT IDLETIME app:k", "object|refcount": "OBJECT REFCOUNT app:k",
	"persist": "PERSIST app:k", "pexpire": "PEXPIRE app:k 10", "pexpireat": "PEXPIREAT app:k 10", "pexpiretime": "PEXPIRETIME app:k",
	"pfadd": "PFADD app:k a", "pfcount": "PFCOUNT app:a app:b", "pfdebug": "PFDEBUG GETREG app:k",
	"pfmerge": "PFMERGE app:d app:a app:b", "pfselftest": "PFSELFTEST", "ping": "PING", "psetex": "PSETEX app:k 10 v",
	"psubscribe": "PSUBSCRIBE c*", "pttl": "PTTL app:k", "publish": "PUBLISH c m",
	"pubsub": "PUBSUB", "pubsub|channels": "PUBSUB CHANNELS", "pubsub|help": "PUBSUB HELP", "pubsub|numpat": "PUBSUB NUMPAT",
	"pubsub|numsub": "PUBSUB NUMSUB c", "pubsub|shardchannels": "PUBSUB SHARDCHANNELS", "pubsub|shardnumsub": "PUBSUB SHARDNUMSUB c",
	"punsubscribe": "PUNSUBSCRIBE", "quit": "QUIT", "randomkey": "RANDOMKEY", "readonly": "READONLY", "readwrite": "READWRITE",
	"rename": "RENAME app:a app:b", "renamenx": "RENAMENX app:a app:b", "replconf": "REPLCONF ack 0", "replicaof": "REPLICAOF NO ONE",
	"reset": "RESET", "restore": "RESTORE app:k 0 payload REPLACE", "role": "ROLE",
	"rpop": "RPOP app:k 2", "rpoplpush": "RPOPLPUSH app:a app:b", "rpush": "RPUSH app:k v", "rpushx": "RPUSHX app:k v",
	"sadd": "SADD app:k m", "save": "SAVE", "scan": "SCAN 0 MATCH x", "scard": "SCARD app:k",
	"script": "SCRIPT", "script|exists": "SCRIPT EXISTS 00", "script|flush": "SCRIPT FLUSH", "script|help": "SCRIPT HELP",
	"script|kill": "SCRIPT KILL", "script|load": "SCRIPT LOAD return",
	"sdiff": "SDIFF app:a app:b", "sdiffstore": "SDIFFSTORE app:d app:a app:b", "select": "SELECT 1",
	"set": "SET app:k v EX 10", "setbit": "SETBIT app:k 1 1", "setex": "SETEX app:k 10 v", "setnx": "SETNX app:k v",
	"setrange": "SETRANGE app:k 0 v", "shutdown": "SHUTDOWN NOSAVE", "sinter": "SINTER app:a app:b",
	"sintercard": "SINTERCARD 2 app:a app:b LIMIT 1", "sinterstore": "SINTERSTORE app:d app:a app:b",
	"sismember": "SISMEMBER app:k m", "slaveof": "SLAVEOF NO ONE",
	"slowlog": "SLOWLOG", "slowlog|get": "SLOWLOG GET", "slowlog|help": "SLOWLOG HELP", "slowlog|len": "SLOWLOG LEN", "slowlog|reset": "SLOWLOG RESET",
	"latency": "LATENCY", "latency|doctor": "LATENCY DOCTOR", "latency|graph": "LATENCY GRAPH command", "latency|help": "LATENCY HELP",
	"latency|histogram": "LATENCY HISTOGRAM get", "latency|history": "LATENCY HISTORY command", "latency|latest": "LATENCY LATEST", "latency|reset": "LATENCY RESET",
	"smembers": "SMEMBERS app:k", "smismember": "SMISMEMBER app:k a b", "smove": "SMOVE app:a app:b m",
	"sort":    "SORT app:k LIMIT 0 1 ALPHA STORE app:d",
	"sort_ro": "SORT_RO app:k LIMIT 0 1 ALPHA",
	"spop":    "SPOP app:k", "spublish": "SPUBLISH c m", "srandmember": "SRANDMEMBER app:k 2", "srem": "SREM app:k m",
	"sscan": "SSCAN app:k 0", "ssubscribe": "SSUBSCRIBE c", "strlen": "STRLEN app:k", "subscribe": "SUBSCRIBE c",
	"substr": "SUBSTR app:k 0 1", "sunion": "SUNION app:a app:b", "sunionstore": "SUNIONSTORE app:d app:a app:b",
	"sunsubscribe": "SUNSUBSCRIBE c", "swapdb": "SWAPDB 0 1", "time": "TIME", "touch": "TOUCH app:a app:b", "ttl": "TTL app:k",
	"type": "TYPE app:k", "unlink": "UNLINK app:a app:b", "unsubscribe": "UNSUBSCRIBE", "unwatch": "UNWATCH", "wait": "WAIT 0 0", "waitaof": "WAITAOF 0 0 0",
	"watch": "WATCH app:a app:b",
	"xack":  "XACK app:s g 1-1", "xadd": "XADD app:s * f v", "xautoclaim": "XAUTOCLAIM app:s g c 0 0-0",
	"xclaim": "XCLAIM app:s g c 0 1-1", "xdel": "XDEL app:s 1-1",
	"xgroup": "XGROUP", "xgroup|create": "XGROUP CREATE app:s g $ MKSTREAM", "xgroup|createconsumer": "XGROUP CREATECONSUMER app:s g c",
	"xgroup|delconsumer": "XGROUP DELCONSUMER app:s g c", "xgroup|destroy": "XGROUP DESTROY app:s g", "xgroup|help": "XGROUP HELP",
	"xgroup|setid": "XGROUP SETID app:s g $",
	"xinfo":        "XINFO", "xinfo|consumers": "XINFO CONSUMERS app:s g", "xinfo|groups": "XINFO GROUPS app:s", "xinfo|help": "XINFO HELP",
	"xinfo|stream": "XINFO STREAM app:s FULL",
	"xlen":         "XLEN app:s", "xpending": "XPENDING app:s g", "xrange": "XRANGE app:s - +",
	"xread":      "XREAD COUNT 2 BLOCK 0 STREAMS app:s app:t 0 0",
	"xreadgroup": "XREADGROUP GROUP g c COUNT 1 NOACK STREAMS app:s app:t > >",
	"xrevrange":  "XREVRANGE app:s + -", "xsetid": "XSETID app:s 1-1", "xtrim": "XTRIM app:s MAXLEN 1",
	"zadd": "ZADD app:k 1 m", "zcard": "ZCARD app:k", "zcount": "ZCOUNT app:k 0 1", "zdiff": "ZDIFF 2 app:a app:b",
	"zdiffstore": "ZDIFFSTORE app:d 2 app:a app:b", "zincrby": "ZINCRBY app:k 1 m", "zinter": "ZINTER 2 app:a app:b WITHSCORES",
	"zintercard": "ZINTERCARD 2 app:a app:b", "zinterstore": "ZINTERSTORE app:d 2 app:a app:b", "zlexcount": "ZLEXCOUNT app:k - +",
	"zmpop": "ZMPOP 2 app:a app:b MIN", "zmscore": "ZMSCORE app:k a b", "zpopmax": "ZPOPMAX app:k", "zpopmin": "ZPOPMIN app:k",
	"zrandmember": "ZRANDMEMBER app:k", "zrange": "ZRANGE app:k 0 1", "zrangebylex": "ZRANGEBYLEX app:k - +",
	"zrangebyscore": "ZRANGEBYSCORE app:k 0 1", "zrangestore": "ZRANGESTORE app:d app:k 0 1", "zrank": "ZRANK app:k m",
	"zrem": "ZREM app:k m", "zremrangebylex": "ZREMRANGEBYLEX app:k - +", "zremrangebyrank": "ZREMRANGEBYRANK app:k 0 1",
	"zremrangebyscore": "ZREMRANGEBYSCORE app:k 0 1", "zrevrange": "ZREVRANGE app:k 0 1", "zrevrangebylex": "ZREVRANGEBYLEX app:k + -",
	"zrevrangebyscore": "ZREVRANGEBYSCORE app:k 1 0", "zrevrank": "ZREVRANK app:k m", "zscan": "ZSCAN app:k 0",
	"zscore": "ZSCORE app:k m", "zunion": "ZUNION 2 app:a app:b", "zunionstore": "ZUNIONSTORE app:d 2 app:a app:b",

	// Native commands.
	"changes": "CHANGES START", "idem": "IDEM app:k BEGIN tok fp 1000", "lease": "LEASE app:k 1000",
	"delifeq": "DELIFEQ app:k v", "cl.throttle": "CL.THROTTLE app:k 15 30 60",
	"limit": "LIMIT app:k 10 1000", "once": "ONCE app:k 1000", "release": "RELEASE app:k 1",
	"semaphore": "SEMAPHORE app:k 3 1000", "setv": "SETV app:k v 1", "take": "TAKE app:k 1",
	"ruvio": "RUVIO", "ruvio|help": "RUVIO HELP", "ruvio|owner": "RUVIO OWNER x", "ruvio|hotkeys": "RUVIO HOTKEYS", "replsync": "REPLSYNC 0 0 0 0", "slotmove": "SLOTMOVE SEQ 1",
	"bf.add": "BF.ADD app:k i", "bf.card": "BF.CARD app:k", "bf.exists": "BF.EXISTS app:k i", "bf.info": "BF.INFO app:k",
	"bf.insert": "BF.INSERT app:k ITEMS i", "bf.madd": "BF.MADD app:k i j", "bf.mexists": "BF.MEXISTS app:k i j",
	"bf.reserve": "BF.RESERVE app:k 0.01 100",
}

// keyAuditFlags gives the flags of each key (in argument order) where the
// reference summary cannot: the native commands, Redis's "unknown" specs
// (SORT) and the variable flags Redis resolves from the arguments.
var keyAuditFlags = map[string][]string{
	"set":         {"OW update"},              // no GET: written without being read
	"bitfield":    {"RW access update"},       // a SET among the operations
	"sort":        {"RO access", "OW update"}, // STORE
	"sort_ro":     {"RO access"},              // no BY or GET patterns
	"idem":        {"RW access update"},       // replies the stored outcome
	"lease":       {"RW access update"},       // replies the token
	"limit":       {"RW access update"},       // replies the allowance left
	"delifeq":     {"RM access delete"},       // compares, then deletes
	"cl.throttle": {"RW access update"},       // replies the allowance left
	// Hash-field expiry (Redis 7.4 and 8.0), as Redis's key specs.
	"hexpire": {"RW update"}, "hpexpire": {"RW update"}, "hexpireat": {"RW update"}, "hpexpireat": {"RW update"},
	"httl": {"RO access"}, "hpttl": {"RO access"}, "hexpiretime": {"RO access"}, "hpexpiretime": {"RO access"},
	"hpersist": {"RW update"}, "hgetdel": {"RW access delete"}, "hgetex": {"RW access update"}, "hsetex": {"RW update"},
	"once":      {"OW insert"},        // 1 or 0, like SETNX
	"release":   {"RW delete"},        // 1 or 0
	"semaphore": {"RW access update"}, // replies a token
	"setv":      {"RW update"},        // replies the new version
	"take":      {"RW access update"}, // replies the remainder
	"bf.add":    {"RW insert"}, "bf.card": {"RO"}, "bf.exists": {"RO access"}, "bf.info": {"RO"},
	"bf.insert": {"RW insert"}, "bf.madd": {"RW insert"}, "bf.mexists": {"RO access"}, "bf.reserve": {"RW insert"},
}

// keyAuditVariableFlags are further calls of the commands whose key flags
// depend on the arguments, with the flags Redis 7.0 gives.
var keyAuditVariableFlags = []struct {
	call  string
	flags string
}{
	{"SET app:k v GET", "RW access update"},
	{"SET app:k v get EX 1", "RW access update"},
	{"SET app:k get", "OW update"},
	{"SET app:k v IFEQ old", "RW access update"}, // compares the value
	{"BITFIELD app:k GET u8 0", "RO access"},
	{"BITFIELD app:k GET u8 0 OVERFLOW SAT GET i4 1", "RO access"},
	{"BITFIELD app:k INCRBY u8 0 1", "RW access update"},
	{"BITFIELD app:k GET u8", "RW access update"}, // malformed: assumed to write, as Redis does
}

// refKeySpec is one key spec of the reference summary, parsed.
type refKeySpec struct {
	flags                []string
	bsKind               string // index, keyword, unknown
	index, startFrom     int
	keyword              string
	fkKind               string // range, keynum, unknown
	lastKey, step, limit int
	keyNumIdx, firstKey  int
}

// parseRefKeySpec parses "index:1" / "keyword:STREAMS:1" and
// "range:-1:1:2" / "keynum:0:1:1" as cmd/genredisref writes them.
func parseRefKeySpec(t *testing.T, name string, m matrixKeySpec) refKeySpec {
	t.Helper()
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s: key spec number %q: %v", name, s, err)
		}
		return n
	}
	s := refKeySpec{flags: m.Flags}
	bs := strings.Split(m.BeginSearch, ":")
	switch s.bsKind = bs[0]; s.bsKind {
	case "index":
		s.index = atoi(bs[1])
	case "keyword":
		s.keyword, s.startFrom = bs[1], atoi(bs[2])
	}
	fk := strings.Split(m.FindKeys, ":")
	switch s.fkKind = fk[0]; s.fkKind {
	case "range":
		s.lastKey, s.step, s.limit = atoi(fk[1]), atoi(fk[2]), atoi(fk[3])
	case "keynum":
		s.keyNumIdx, s.firstKey, s.step = atoi(fk[1]), atoi(fk[2]), atoi(fk[3])
	}
	return s
}

// refKeys finds the keys of args by the reference specs, written from
// Redis 7.0's documented key-spec semantics independently of callKeys.
// It returns the positions and each key's flags, and whether every spec
// could be evaluated.
func refKeys(specs []refKeySpec, args []string) (pos []int, flags [][]string, ok bool) {
	argc := len(args)
	for _, s := range specs {
		if slices.Contains(s.flags, "not_key") {
			continue
		}
		var first int
		switch s.bsKind {
		case "index":
			first = s.index
		case "keyword":
			if s.startFrom > 0 {
				for i := s.startFrom; i < argc-1; i++ {
					if strings.EqualFold(args[i], s.keyword) {
						first = i + 1
						break
					}
				}
			} else {
				for i := min(argc+s.startFrom, argc-1); i > 1; i-- {
					if strings.EqualFold(args[i], s.keyword) {
						first = i + 1
						break
					}
				}
			}
			if first == 0 {
				continue
			}
		default:
			return nil, nil, false
		}
		var last, step int
		switch s.fkKind {
		case "range":
			step = s.step
			switch {
			case s.lastKey >= 0:
				last = first + s.lastKey
			case s.limit == 0:
				last = argc + s.lastKey
			default:
				last = first + (argc-first)/s.limit + s.lastKey
			}
		case "keynum":
			step = s.step
			if first+s.keyNumIdx >= argc {
				return nil, nil, false
			}
			n, err := strconv.Atoi(args[first+s.keyNumIdx])
			if err != nil || n < 0 {
				return nil, nil, false
			}
			first += s.firstKey
			last = first + n - 1
		default:
			return nil, nil, false
		}
		if last >= argc || first >= argc || last < first {
			return nil, nil, false
		}
		for i := first; i <= last; i += step {
			pos = append(pos, i)
			flags = append(flags, s.flags)
		}
	}
	return pos, flags, true
}

// loadRedisRef reads the reference summary, by command name.
func loadRedisRef(t *testing.T) map[string]redisRefEntry {
	t.Helper()
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
	out := make(map[string]redisRefEntry, len(doc.Commands))
	for _, c := range doc.Commands {
		out[c.Name] = c
	}
	return out
}

// markedKeys are the positions of the "app:" arguments of a call.
func markedKeys(args []string) []int {
	var out []int
	for i, a := range args {
		if strings.HasPrefix(a, "app:") {
			out = append(out, i)
		}
	}
	return out
}

// getKeysAndFlags runs COMMAND GETKEYSANDFLAGS for args on sh and returns
// the key positions (matched back to args) and flags, or the error.
func getKeysAndFlags(t *testing.T, sh *keyspace.Shard, args []string) (pos []int, flags []string, errMsg string) {
	t.Helper()
	reply := srvRun(sh, 2, append([]string{"COMMAND", "GETKEYSANDFLAGS"}, args...)...)
	if strings.HasPrefix(reply, "-") {
		return nil, nil, strings.TrimSpace(reply[1:])
	}
	v, rest := parseRESP(t, reply)
	if rest != "" {
		t.Fatalf("%q: trailing reply bytes %q", args, rest)
	}
	used := map[int]bool{}
	for _, e := range v.([]any) {
		pair := e.([]any)
		key := pair[0].(string)
		at := -1
		for i := 1; i < len(args); i++ {
			if args[i] == key && !used[i] {
				at = i
				break
			}
		}
		if at < 0 {
			t.Fatalf("%q: GETKEYS named %q, not an argument", args, key)
		}
		used[at] = true
		pos = append(pos, at)
		var fs []string
		for _, f := range pair[1].([]any) {
			fs = append(fs, f.(string))
		}
		flags = append(flags, strings.Join(fs, " "))
	}
	return pos, flags, ""
}

// parseRESP parses one RESP2 value of bulk strings, simple strings,
// integers and arrays.
func parseRESP(t *testing.T, s string) (any, string) {
	t.Helper()
	line, rest, _ := strings.Cut(s, "\r\n")
	switch line[0] {
	case '+', ':':
		return line[1:], rest
	case '$':
		n, _ := strconv.Atoi(line[1:])
		return rest[:n], rest[n+2:]
	case '*':
		n, _ := strconv.Atoi(line[1:])
		out := make([]any, 0, n)
		for range n {
			var v any
			v, rest = parseRESP(t, rest)
			out = append(out, v)
		}
		return out, rest
	}
	t.Fatalf("unexpected reply %q", s)
	return nil, ""
}

// accessOf is the ACL access the flag names ask for, as Redis decides it.
func accessOf(names []string) acl.Access {
	var a acl.Access
	for _, n := range names {
		switch n {
		case "access":
			a |= acl.Read
		case "insert", "update", "delete":
			a |= acl.Write
		}
	}
	return a
}

// auditExpect gives the keys of the representative call args of name and
// their flags: the "app:" arguments, which must be what Redis 7.0's key
// specs (the reference summary) find, with the specs' flags or those of
// keyAuditFlags.
func auditExpect(t *testing.T, ref map[string]redisRefEntry, name string, args []string) (want []int, wantFlags []string, ok bool) {
	t.Helper()
	want = markedKeys(args)
	line := strings.Join(args, " ")
	if e, isRedis := ref[name]; isRedis {
		specs := make([]refKeySpec, len(e.KeySpecs))
		for i, m := range e.KeySpecs {
			specs[i] = parseRefKeySpec(t, name, m)
		}
		pos, fl, ok := refKeys(specs, args)
		if ok {
			if !slices.Equal(pos, want) {
				t.Errorf("%s: Redis 7.0's key specs find %v in %q, the call names %v", name, pos, line, want)
			}
			for _, f := range fl {
				wantFlags = append(wantFlags, strings.Join(f, " "))
			}
		} else if keyAuditFlags[name] == nil {
			t.Errorf("%s: Redis 7.0's key specs cannot be evaluated for %q and keyAuditFlags has no entry", name, line)
		}
	}
	if f, ok := keyAuditFlags[name]; ok {
		wantFlags = f
	}
	if len(wantFlags) != len(want) {
		t.Errorf("%s: %d expected key flags for %d keys", name, len(wantFlags), len(want))
		return nil, nil, false
	}
	return want, wantFlags, true
}

// TestKeyExtractionAudit checks, for a representative call of every
// command in the table, that the keys the ACL check sees (with their
// access), the keys COMMAND GETKEYSANDFLAGS reports (with their flags),
// the keys Redis 7.0's key specs give (from the reference summary), the
// keys routing uses and the keys the call names ("app:…") are the same.
func TestKeyExtractionAudit(t *testing.T) {
	ref := loadRedisRef(t)
	sh := newTestShard(t)
	cmds := allCommands(sh.Srv.Cmds)
	for name := range keyAuditCalls {
		if cmds[name] == nil {
			t.Errorf("%s: in keyAuditCalls but not a command", name)
		}
	}
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c := cmds[name]
		line, ok := keyAuditCalls[name]
		if !ok {
			t.Errorf("%s: no representative call in keyAuditCalls; add one so its keys are audited", name)
			continue
		}
		args := strings.Fields(line)
		if got := commandTableLookupCall(sh.Srv.Cmds, toArgv(args...)); got != c && !(len(c.Subcommands) > 0 && len(args) == 1) {
			t.Errorf("%s: %q runs %v", name, line, got.FullName())
			continue
		}
		if !keyspace.ArityOK(c.Arity, len(args)) && len(c.Subcommands) == 0 {
			t.Errorf("%s: %q does not fit arity %d", name, line, c.Arity)
			continue
		}
		want, wantFlags, ok := auditExpect(t, ref, name, args)
		if !ok {
			continue
		}

		// What the ACL check sees.
		req := sh.ACLRequest(c, toArgv(args...))
		var aclPos []int
		for i, k := range req.Keys {
			aclPos = append(aclPos, k.Pos)
			if i < len(wantFlags) {
				if w := accessOf(strings.Fields(wantFlags[i])); k.Access != w {
					t.Errorf("%s: ACL checks key %d of %q for access %v, its flags %q ask for %v", name, k.Pos, line, k.Access, wantFlags[i], w)
				}
			}
		}
		if !slices.Equal(aclPos, want) {
			t.Errorf("%s: the ACL check sees keys %v in %q, the call names %v", name, aclPos, line, want)
		}

		// COMMAND GETKEYSANDFLAGS (a call of one word cannot be asked
		// about; it names no key, as the ACL check found).
		onlyNotKeys := len(c.KeySpecs) > 0 && !slices.ContainsFunc(c.KeySpecs, func(ks keyspace.KeySpec) bool { return ks.Flags&keyspace.KeyNotKey == 0 })
		gpos, gflags, gerr := getKeysAndFlags(t, sh, args)
		switch {
		case len(args) < 2:
		case onlyNotKeys:
			// Shard channels look like keys to routing but are not keys.
			if gerr != "ERR Invalid arguments specified for command" {
				t.Errorf("%s: GETKEYS %q: %v %s, want Redis's invalid arguments error", name, line, gpos, gerr)
			}
			continue
		case len(want) == 0 && gerr == "":
			if len(gpos) != 0 {
				t.Errorf("%s: GETKEYS finds %v in %q", name, gpos, line)
			}
		case len(want) == 0:
			if gerr != "ERR The command has no key arguments" && gerr != "ERR Invalid command specified" &&
				!(c.Flags&keyspace.FlagNoMandatoryKeys != 0) {
				t.Errorf("%s: GETKEYS %q: %s", name, line, gerr)
			}
		case gerr != "":
			t.Errorf("%s: GETKEYS %q: %s, want %v", name, line, gerr, want)
		default:
			if !slices.Equal(gpos, want) {
				t.Errorf("%s: GETKEYS finds %v in %q, the call names %v", name, gpos, line, want)
			}
			if !slices.Equal(gflags, wantFlags) {
				t.Errorf("%s: GETKEYSANDFLAGS flags %q for %q, want %q", name, gflags, line, wantFlags)
			}
		}

		// Routing (and the handler) must act on the same keys, or the
		// ACL check would be about other keys than those touched. EVAL
		// and FCALL route their declared keys themselves.
		if c.FirstKey > 0 || c.NumKeysAt > 0 || c.MovableKeys != nil {
			route := c.KeyIndexes(toArgv(args...), nil)
			slices.Sort(route)
			if !slices.Equal(route, want) {
				t.Errorf("%s: routing finds keys %v in %q, the call names %v", name, route, line, want)
			}
		}
	}

	for _, v := range keyAuditVariableFlags {
		args := strings.Fields(v.call)
		_, gflags, gerr := getKeysAndFlags(t, sh, args)
		if gerr != "" || len(gflags) != 1 || gflags[0] != v.flags {
			t.Errorf("GETKEYSANDFLAGS %q: %q %s, want %q", v.call, gflags, gerr, v.flags)
		}
		c := commandTableLookupCall(sh.Srv.Cmds, toArgv(args...))
		req := sh.ACLRequest(c, toArgv(args...))
		if len(req.Keys) != 1 || req.Keys[0].Access != accessOf(strings.Fields(v.flags)) {
			t.Errorf("ACL keys of %q: %+v, want access of %q", v.call, req.Keys, v.flags)
		}
	}
}

// errKeyPerm is Redis's reply to a call that names a key its user may not
// use, and keyPermScript the end of the error a script gets for such a
// redis.call.
const (
	errKeyPerm    = "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n"
	keyPermScript = "can't access at least one of the keys mentioned in the command"
)

// TestKeyPermissionAudit runs the representative call of every command
// that has keys as restricted users, with one key at a time moved out of
// the user's patterns: "~app:*" must refuse any other key, and
// "%R~r:* %W~w:*" must refuse an r: key exactly when the key is written
// and a w: key exactly when it is read, both at top level, when queued in
// MULTI, from EVAL (redis.call) and from FCALL. A refused call never runs.
func TestKeyPermissionAudit(t *testing.T) {
	ref := loadRedisRef(t)
	sh := newTestShard(t)
	for _, setup := range [][]string{
		{"ACL", "SETUSER", "u1", "on", "nopass", "+@all", "~app:*"},
		{"ACL", "SETUSER", "u2", "on", "nopass", "+@all", "%R~r:*", "%W~w:*", "~app:*"},
		{"FUNCTION", "LOAD", "#!lua name=audit\nredis.register_function('call', function(keys, args) return redis.call(unpack(args)) end)"},
	} {
		if got := srvRun(sh, 2, setup...); strings.HasPrefix(got, "-") {
			t.Fatalf("%q: %q", setup, got)
		}
	}
	as := func(user string) {
		t.Helper()
		if got := srvRun(sh, 2, "AUTH", user, "x"); got != rOK {
			t.Fatalf("AUTH %s: %q", user, got)
		}
	}
	cmds := allCommands(sh.Srv.Cmds)
	names := make([]string, 0, len(keyAuditCalls))
	for name := range keyAuditCalls {
		names = append(names, name)
	}
	slices.Sort(names)
	checked := 0
	for _, name := range names {
		c := cmds[name]
		args := strings.Fields(keyAuditCalls[name])
		want, wantFlags, ok := auditExpect(t, ref, name, args)
		if !ok {
			continue
		}
		for i, pos := range want {
			k := acl.KeyRef{Pos: pos, Access: accessOf(strings.Fields(wantFlags[i]))}
			suffix := args[k.Pos][len("app:"):]
			for _, v := range []struct {
				user, key string
				denied    bool
			}{
				{"u1", "app:" + suffix, false},
				{"u1", "zz:" + suffix, true},
				{"u2", "r:" + suffix, k.Access&acl.Write != 0},
				{"u2", "w:" + suffix, k.Access&acl.Read != 0},
			} {
				call := slices.Clone(args)
				call[k.Pos] = v.key
				as(v.user)
				checked++
				if !v.denied {
					// Allowed: ask the check only, so the command does not run.
					r := sh.ACLRequest(c, toArgv(call...))
					d := sh.Ctx.C.ACLUser.Check(r)
					r.Args = nil
					if !d.OK() {
						t.Errorf("%s as %s: %q refused (%v), want allowed", name, v.user, call, d.Reason)
					}
					continue
				}
				if got := srvRun(sh, 2, call...); got != errKeyPerm {
					t.Errorf("%s as %s: %q replied %q, want NOPERM", name, v.user, call, got)
				}
				if c.Flags&keyspace.FlagNoMulti == 0 && name != "multi" {
					srvRun(sh, 2, "MULTI")
					if got := srvRun(sh, 2, call...); got != errKeyPerm {
						t.Errorf("%s as %s in MULTI: %q replied %q, want NOPERM", name, v.user, call, got)
					}
					if got := srvRun(sh, 2, "EXEC"); !strings.HasPrefix(got, "-EXECABORT") {
						t.Errorf("%s as %s: EXEC after a refused command replied %q", name, v.user, got)
					}
				}
				if c.Flags&keyspace.FlagNoScript == 0 && c.Group != "scripting" {
					for _, script := range [][]string{
						{"EVAL", "return redis.call(unpack(ARGV))", "0"},
						{"FCALL", "call", "0"},
					} {
						got := srvRun(sh, 2, append(script, call...)...)
						if !strings.HasPrefix(got, "-") || !strings.Contains(got, keyPermScript) {
							t.Errorf("%s as %s from %s: %q replied %q, want the script ACL error", name, v.user, script[0], call, got)
						}
					}
				}
			}
		}
		as("default")
	}
	t.Logf("%d commands, %d restricted calls checked", len(names), checked)
	if checked < 500 {
		t.Errorf("only %d calls checked", checked)
	}
	// Nothing refused ran: no zz:, r: or w: key exists.
	if got := srvRun(sh, 2, "DBSIZE"); got != ":0\r\n" {
		t.Errorf("DBSIZE after refused calls: %q (%q)", got, srvRun(sh, 2, "KEYS", "*"))
	}
}
