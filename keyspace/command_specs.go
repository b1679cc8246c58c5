package keyspace

import (
	"fmt"
	"strconv"
)

// This file holds the key specifications and command tips of the command
// table. For the commands Redis 7.0 has they are Redis's, checked against a
// summary of its command descriptions by TestCommandTableMatchesRedis; the
// native commands have their own, listed last.

// KeyFlag is a key-spec flag; the names are those COMMAND reports.
type KeyFlag uint16

// Key-spec flags.
const (
	KeyRO            KeyFlag = 1 << iota // read only
	KeyRW                                // read and write
	KeyOW                                // overwrite: written without being read
	KeyRM                                // removed without being read
	KeyAccess                            // the command returns or uses the value
	KeyUpdate                            // the value is updated
	KeyInsert                            // data is added, never modified or deleted
	KeyDelete                            // data or the key is deleted
	KeyNotKey                            // looks like a key but is not one
	KeyIncomplete                        // the spec may miss keys
	KeyVariableFlags                     // the flags depend on the arguments
)

var keyFlagNames = [...]struct {
	f    KeyFlag
	name string
}{
	{KeyRO, "RO"}, {KeyRW, "RW"}, {KeyOW, "OW"}, {KeyRM, "RM"},
	{KeyAccess, "access"}, {KeyUpdate, "update"}, {KeyInsert, "insert"},
	{KeyDelete, "delete"}, {KeyNotKey, "not_key"}, {KeyIncomplete, "incomplete"},
	{KeyVariableFlags, "variable_flags"},
}

// Names lists the flag names in COMMAND order.
func (f KeyFlag) Names() []string {
	out := []string{}
	for _, fn := range keyFlagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// FindKind tells how a key spec finds its keys once the search began.
type FindKind uint8

// Find-keys kinds.
const (
	FindUnknown FindKind = iota
	FindRange            // LastKey, KeyStep, Limit
	FindKeyNum           // KeyNumIdx, FirstKey, KeyStep
)

// KeySpec is one Redis 7 key specification: where the search for keys
// begins and how the keys are found from there.
type KeySpec struct {
	Flags KeyFlag
	// Begin search: Index > 0 is an argument position; otherwise a
	// non-empty Keyword is searched for from StartFrom (negative: from the
	// end, backwards); neither means unknown.
	Index     int
	Keyword   string
	StartFrom int
	// Find keys. Range: LastKey relative to the first key (negative: from
	// the end), every KeyStep, Limit as Redis's. KeyNum: the key count is
	// at KeyNumIdx and the keys start at FirstKey, both relative to the
	// begin-search position.
	Find      FindKind
	LastKey   int
	KeyStep   int
	Limit     int
	KeyNumIdx int
	FirstKey  int
}

// rangeSpec is the common key spec: keys from argument index, up to
// lastKey (relative to index; negative counts from the end), every step.
func rangeSpec(flags KeyFlag, index, lastKey, step int) KeySpec {
	return KeySpec{Flags: flags, Index: index, Find: FindRange, LastKey: lastKey, KeyStep: step}
}

// Command tips, as COMMAND reports them.
const (
	tipNondeterministic      = "nondeterministic_output"
	tipNondeterministicOrder = "nondeterministic_output_order"
	tipAllNodes              = "request_policy:all_nodes"
	tipAllShards             = "request_policy:all_shards"
	tipMultiShard            = "request_policy:multi_shard"
	tipSpecialRequest        = "request_policy:special"
	tipAggSum                = "response_policy:agg_sum"
	tipAggMin                = "response_policy:agg_min"
	tipAllSucceeded          = "response_policy:all_succeeded"
	tipSpecialResponse       = "response_policy:special"
)

// commandSpec is what command_specs.go adds to one command of the table.
type commandSpec struct {
	keys []KeySpec
	tips []string
}

// commandSpecs maps full command names to their key specs and tips.
// Commands absent here have neither.
var commandSpecs = map[string]commandSpec{
	// Commands Redis 7.0 has: its key specs and tips.
	"sadd":             {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"scard":            {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"sdiff":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, -1, 1)}, tips: []string{tipNondeterministicOrder}},
	"sdiffstore":       {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1), rangeSpec(KeyRO|KeyAccess, 2, -1, 1)}},
	"sinter":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, -1, 1)}, tips: []string{tipNondeterministicOrder}},
	"sintercard":       {keys: []KeySpec{{Flags: KeyRO | KeyAccess, Index: 1, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"sinterstore":      {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1), rangeSpec(KeyRO|KeyAccess, 2, -1, 1)}},
	"sismember":        {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"smembers":         {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"smismember":       {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"smove":            {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1), rangeSpec(KeyRW|KeyInsert, 2, 0, 1)}},
	"spop":             {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"srandmember":      {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"srem":             {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"sscan":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"sunion":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, -1, 1)}, tips: []string{tipNondeterministicOrder}},
	"sunionstore":      {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1), rangeSpec(KeyRO|KeyAccess, 2, -1, 1)}},
	"zadd":             {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"zcard":            {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"zcount":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zdiff":            {keys: []KeySpec{{Flags: KeyRO | KeyAccess, Index: 1, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zdiffstore":       {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1), {Flags: KeyRO | KeyAccess, Index: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zincrby":          {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"zinter":           {keys: []KeySpec{{Flags: KeyRO | KeyAccess, Index: 1, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zintercard":       {keys: []KeySpec{{Flags: KeyRO | KeyAccess, Index: 1, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zinterstore":      {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1), {Flags: KeyRO | KeyAccess, Index: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zlexcount":        {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zmpop":            {keys: []KeySpec{{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zmscore":          {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zpopmax":          {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1)}},
	"zpopmin":          {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1)}},
	"zrandmember":      {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"zrange":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zrangebylex":      {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zrangebyscore":    {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zrangestore":      {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1), rangeSpec(KeyRO|KeyAccess, 2, 0, 1)}},
	"zrank":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zrem":             {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"zremrangebylex":   {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"zremrangebyrank":  {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"zremrangebyscore": {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"zrevrange":        {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zrevrangebylex":   {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zrevrangebyscore": {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zrevrank":         {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zscan":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"zscore":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"zunion":           {keys: []KeySpec{{Flags: KeyRO | KeyAccess, Index: 1, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zunionstore":      {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1), {Flags: KeyRO | KeyAccess, Index: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"hdel":             {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"hexists":          {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"hget":             {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"hgetall":          {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"hincrby":          {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"hincrbyfloat":     {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"hkeys":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"hlen":             {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"hmget":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"hmset":            {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"hrandfield":       {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"hscan":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"hset":             {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"hsetnx":           {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"hstrlen":          {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"hvals":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"lindex":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"linsert":          {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"llen":             {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"lmove":            {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1), rangeSpec(KeyRW|KeyInsert, 2, 0, 1)}},
	"lmpop":            {keys: []KeySpec{{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"lpop":             {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1)}},
	"lpos":             {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"lpush":            {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"lpushx":           {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"lrange":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"lrem":             {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"lset":             {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"ltrim":            {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"rpop":             {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1)}},
	"rpoplpush":        {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1), rangeSpec(KeyRW|KeyInsert, 2, 0, 1)}},
	"rpush":            {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"rpushx":           {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	// Blocking pops (blocking_cmds.go).
	"blpop":                 {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, -2, 1)}},
	"brpop":                 {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, -2, 1)}},
	"blmove":                {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1), rangeSpec(KeyRW|KeyInsert, 2, 0, 1)}},
	"brpoplpush":            {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1), rangeSpec(KeyRW|KeyInsert, 2, 0, 1)}},
	"blmpop":                {keys: []KeySpec{{Flags: KeyRW | KeyAccess | KeyDelete, Index: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"bzpopmin":              {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, -2, 1)}},
	"bzpopmax":              {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, -2, 1)}},
	"bzmpop":                {keys: []KeySpec{{Flags: KeyRW | KeyAccess | KeyDelete, Index: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"append":                {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"bitcount":              {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"bitfield":              {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate|KeyVariableFlags, 1, 0, 1)}},
	"bitfield_ro":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"bitop":                 {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 2, 0, 1), rangeSpec(KeyRO|KeyAccess, 3, -1, 1)}},
	"bitpos":                {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"client|info":           {tips: []string{tipNondeterministic}},
	"client|list":           {tips: []string{tipNondeterministic}},
	"cluster|getkeysinslot": {tips: []string{tipNondeterministic}},
	"cluster|info":          {tips: []string{tipNondeterministic}},
	"cluster|nodes":         {tips: []string{tipNondeterministic}},
	"cluster|shards":        {tips: []string{tipNondeterministic}},
	"cluster|slots":         {tips: []string{tipNondeterministic}},
	"command":               {tips: []string{tipNondeterministicOrder}},
	"command|docs":          {tips: []string{tipNondeterministicOrder}},
	"command|info":          {tips: []string{tipNondeterministicOrder}},
	"command|list":          {tips: []string{tipNondeterministicOrder}},
	"config|set":            {tips: []string{tipAllNodes, tipAllSucceeded}},
	"dump":                  {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"restore":               {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1)}},
	"copy":                  {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1), rangeSpec(KeyOW|KeyUpdate, 2, 0, 1)}},
	"dbsize":                {tips: []string{tipAllShards, tipAggSum}},
	"decr":                  {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"decrby":                {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"del":                   {keys: []KeySpec{rangeSpec(KeyRM|KeyDelete, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"exists":                {keys: []KeySpec{rangeSpec(KeyRO, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"expire":                {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"expireat":              {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"expiretime":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"flushall":              {tips: []string{tipAllShards, tipAllSucceeded}},
	"flushdb":               {tips: []string{tipAllShards, tipAllSucceeded}},
	"function|flush":        {tips: []string{tipAllShards, tipAllSucceeded}},
	"function|list":         {tips: []string{tipNondeterministicOrder}},
	"get":                   {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"getbit":                {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"getdel":                {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1)}},
	"getex":                 {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"getrange":              {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"getset":                {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"incr":                  {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"incrby":                {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"incrbyfloat":           {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"info":                  {tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
	"keys":                  {tips: []string{tipAllShards, tipNondeterministicOrder}},
	"lastsave":              {tips: []string{tipNondeterministic}},
	"lcs":                   {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 1, 1)}},
	"memory|malloc-stats":   {tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
	"memory|purge":          {tips: []string{tipAllShards, tipAllSucceeded}},
	"module|list":           {tips: []string{tipNondeterministicOrder}},
	"memory|stats":          {tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
	"memory|usage":          {keys: []KeySpec{rangeSpec(KeyRO, 2, 0, 1)}},
	"mget":                  {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, -1, 1)}, tips: []string{tipMultiShard}},
	"move":                  {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"mset":                  {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, -1, 2)}, tips: []string{tipMultiShard, tipAllSucceeded}},
	"msetnx":                {keys: []KeySpec{rangeSpec(KeyOW|KeyInsert, 1, -1, 2)}, tips: []string{tipMultiShard, tipAggMin}},
	"object|encoding":       {keys: []KeySpec{rangeSpec(KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"object|freq":           {keys: []KeySpec{rangeSpec(KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"object|idletime":       {keys: []KeySpec{rangeSpec(KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"object|refcount":       {keys: []KeySpec{rangeSpec(KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"persist":               {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"pexpire":               {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"pexpireat":             {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"pexpiretime":           {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"pfadd":                 {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"pfcount":               {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess, 1, -1, 1)}},
	"pfdebug":               {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess, 2, 0, 1)}},
	"pfmerge":               {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyInsert, 1, 0, 1), rangeSpec(KeyRO|KeyAccess, 2, -1, 1)}},
	"ping":                  {tips: []string{tipAllShards, tipAllSucceeded}},
	"psetex":                {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1)}},
	"pttl":                  {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"randomkey":             {tips: []string{tipAllShards, tipNondeterministic}},
	"rename":                {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1), rangeSpec(KeyOW|KeyUpdate, 2, 0, 1)}},
	"renamenx":              {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyDelete, 1, 0, 1), rangeSpec(KeyOW|KeyInsert, 2, 0, 1)}},
	"scan":                  {tips: []string{tipNondeterministic, tipSpecialRequest}},
	"spublish":              {keys: []KeySpec{rangeSpec(KeyNotKey, 1, 0, 1)}},
	"ssubscribe":            {keys: []KeySpec{rangeSpec(KeyNotKey, 1, -1, 1)}},
	"sunsubscribe":          {keys: []KeySpec{rangeSpec(KeyNotKey, 1, -1, 1)}},
	"set":                   {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate|KeyVariableFlags, 1, 0, 1)}},
	"setbit":                {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"setex":                 {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1)}},
	"setnx":                 {keys: []KeySpec{rangeSpec(KeyOW|KeyInsert, 1, 0, 1)}},
	"setrange":              {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"strlen":                {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"substr":                {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"time":                  {tips: []string{tipNondeterministic}},
	"touch":                 {keys: []KeySpec{rangeSpec(KeyRO, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"ttl":                   {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"type":                  {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"unlink":                {keys: []KeySpec{rangeSpec(KeyRM|KeyDelete, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"wait":                  {tips: []string{tipAllShards, tipAggMin}},
	"watch":                 {keys: []KeySpec{rangeSpec(KeyRO, 1, -1, 1)}},
	// Streams (stream.go).
	"xack":                  {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"xadd":                  {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xautoclaim":            {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xclaim":                {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xdel":                  {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"xgroup|create":         {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 2, 0, 1)}},
	"xgroup|createconsumer": {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 2, 0, 1)}},
	"xgroup|delconsumer":    {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 2, 0, 1)}},
	"xgroup|destroy":        {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 2, 0, 1)}},
	"xgroup|setid":          {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 2, 0, 1)}},
	"xinfo|consumers":       {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"xinfo|groups":          {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 2, 0, 1)}},
	"xinfo|stream":          {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 2, 0, 1)}},
	"xlen":                  {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"xpending":              {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xrange":                {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"xread":                 {keys: []KeySpec{{Flags: KeyRO | KeyAccess, Keyword: "STREAMS", StartFrom: 1, Find: FindRange, LastKey: -1, KeyStep: 1, Limit: 2}}},
	"xreadgroup":            {keys: []KeySpec{{Flags: KeyRO | KeyAccess, Keyword: "STREAMS", StartFrom: 4, Find: FindRange, LastKey: -1, KeyStep: 1, Limit: 2}}},
	"xrevrange":             {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"xsetid":                {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"xtrim":                 {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}, tips: []string{tipNondeterministic}},

	"geoadd":               {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"geodist":              {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"geohash":              {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"geopos":               {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"georadius":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1), {Flags: KeyOW | KeyUpdate, Keyword: "STORE", StartFrom: 6, Find: FindRange, KeyStep: 1}, {Flags: KeyOW | KeyUpdate, Keyword: "STOREDIST", StartFrom: 6, Find: FindRange, KeyStep: 1}}},
	"georadius_ro":         {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"georadiusbymember":    {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1), {Flags: KeyOW | KeyUpdate, Keyword: "STORE", StartFrom: 5, Find: FindRange, KeyStep: 1}, {Flags: KeyOW | KeyUpdate, Keyword: "STOREDIST", StartFrom: 5, Find: FindRange, KeyStep: 1}}},
	"georadiusbymember_ro": {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"geosearch":            {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"geosearchstore":       {keys: []KeySpec{rangeSpec(KeyOW|KeyUpdate, 1, 0, 1), rangeSpec(KeyRO|KeyAccess, 2, 0, 1)}},

	"sort":    {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1), {Flags: KeyRO | KeyAccess}, {Flags: KeyOW | KeyUpdate}}},
	"sort_ro": {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1), {Flags: KeyRO | KeyAccess}}},

	// Native commands. Each acts on the one key it names, on the shard that
	// owns it, so none needs a request policy. CHANGES reads the feed of the
	// shard it is sent to (a cluster client sends it to each node itself);
	// its output depends on what other clients did.
	"changes":   {tips: []string{tipNondeterministic}},
	"idem":      {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"lease":     {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"limit":     {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"once":      {keys: []KeySpec{rangeSpec(KeyOW|KeyInsert, 1, 0, 1)}},
	"release":   {keys: []KeySpec{rangeSpec(KeyRW|KeyDelete, 1, 0, 1)}},
	"semaphore": {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},
	"setv":      {keys: []KeySpec{rangeSpec(KeyRW|KeyUpdate, 1, 0, 1)}},
	"take":      {keys: []KeySpec{rangeSpec(KeyRW|KeyAccess|KeyUpdate, 1, 0, 1)}},

	// Bloom filters, with RedisBloom's command names (a module, not part of
	// Redis 7.0): one key each; additions insert, queries read.
	"bf.add":     {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"bf.card":    {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"bf.exists":  {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"bf.info":    {keys: []KeySpec{rangeSpec(KeyRO, 1, 0, 1)}},
	"bf.insert":  {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"bf.madd":    {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
	"bf.mexists": {keys: []KeySpec{rangeSpec(KeyRO|KeyAccess, 1, 0, 1)}},
	"bf.reserve": {keys: []KeySpec{rangeSpec(KeyRW|KeyInsert, 1, 0, 1)}},
}

// applyCommandSpecs sets the key specs and tips of every command in t and
// derives the movablekeys flag as Redis does: set when the legacy
// first/last/step triple cannot find every key the specs find. A name in
// commandSpecs that the table lacks is a programming error.
func applyCommandSpecs(t commandTable) {
	for name, spec := range commandSpecs {
		c := t.lookupFullName([]byte(name))
		if c == nil {
			panic(fmt.Sprintf("keyspace: command specs for unknown command %q", name))
		}
		c.KeySpecs = spec.keys
		c.Tips = spec.tips
		if _, _, _, movable := legacyKeyRange(c.KeySpecs); movable {
			c.Flags |= FlagMovableKeys
		}
	}
}

// legacyKeyRange derives COMMAND's first/last/step triple from specs the
// way Redis does (the table's FirstKey, LastKey and Step must equal it),
// and whether the command has movable keys: keys the triple cannot
// describe (a spec that is not an index with a range, a range with a step
// other than 1 among several, specs that do not follow each other, or an
// incomplete spec).
func legacyKeyRange(specs []KeySpec) (first, last, step int, movable bool) {
	if len(specs) == 0 {
		return 0, 0, 0, false
	}
	if len(specs) == 1 {
		s := specs[0]
		if s.Index > 0 && s.Find == FindRange {
			last = s.LastKey
			if last >= 0 {
				last += s.Index
			}
			return s.Index, last, s.KeyStep, s.Flags&KeyIncomplete != 0
		}
		return 0, 0, 0, true
	}
	first, prev := -1, 0
	for _, s := range specs {
		if s.Index <= 0 || s.Find != FindRange || s.KeyStep != 1 || (prev != 0 && prev != s.Index-1) {
			movable = true
			continue
		}
		if s.Flags&KeyIncomplete != 0 {
			movable = true
		}
		if first < 0 || s.Index < first {
			first = s.Index
		}
		abs := s.LastKey
		if abs >= 0 {
			abs += s.Index
		}
		if uint(abs) > uint(last) { // unsigned: a negative lastkey (from the end) wins
			last = abs
		}
		prev = last
	}
	if first < 0 {
		return 0, 0, 0, true
	}
	return first, last, 1, movable
}

// keyRef is one key a call names: its argument index and flags.
type keyRef struct {
	pos   int
	flags KeyFlag
}

// callKeys appends the keys of a call of c (args[0] is the command name) as
// its key specs find them, with each key's flags; ok is false when the
// arguments do not fit the specs. Specs of fake keys (not_key) are skipped.
func (c *Command) callKeys(args [][]byte, dst []keyRef) (_ []keyRef, ok bool) {
	argc := len(args)
	base := len(dst)
	for _, s := range c.KeySpecs {
		if s.Flags&KeyNotKey != 0 {
			continue
		}
		first := 0
		switch {
		case s.Index > 0:
			first = s.Index
		case s.Keyword != "":
			first = keywordKeys(args, s.Keyword, s.StartFrom)
			if first == 0 {
				continue // keyword absent: no keys from this spec
			}
		default:
			if c.getKeys != nil {
				// An unknown spec: the command's own key finder decides.
				return c.getKeys(args, dst[:base]), true
			}
			return dst, false
		}
		var last, step int
		switch s.Find {
		case FindRange:
			step = s.KeyStep
			switch {
			case s.LastKey >= 0:
				last = first + s.LastKey
			case s.Limit == 0:
				last = argc + s.LastKey
			default:
				last = first + (argc-first)/s.Limit + s.LastKey
			}
		case FindKeyNum:
			step = s.KeyStep
			if first+s.KeyNumIdx >= argc {
				return dst, false
			}
			n, err := strconv.ParseInt(string(args[first+s.KeyNumIdx]), 10, 32)
			if err != nil || n < 0 {
				return dst, false
			}
			first += s.FirstKey
			last = first + int(n) - 1
		default:
			return dst, false
		}
		if last >= argc || last < first || first >= argc {
			return dst, false
		}
		for i := first; i <= last; i += max(step, 1) {
			dst = append(dst, keyRef{pos: i, flags: s.Flags})
		}
	}
	return dst, true
}

// keywordKeys is the begin-search step of a keyword key spec: the
// position after the first argument equal to keyword (ASCII case
// ignored), searched from startFrom towards the end, or, when startFrom
// is negative, from that far before the end towards the start; 0 when
// absent. As in Redis, the search stops before the last argument (going
// forward) or before argument 1 (going backward), so a keyword with no
// argument after it, or the command's first argument, is never found.
func keywordKeys(args [][]byte, keyword string, startFrom int) int {
	argc := len(args)
	start, end, step := startFrom, argc-1, 1
	if startFrom <= 0 {
		start, end, step = argc+startFrom, 1, -1
	}
	for i := start; i != end && i >= 1 && i < argc; i += step {
		if equalFoldASCII(args[i], keyword) {
			return i + 1
		}
	}
	return 0
}

// equalFoldASCII compares b and s ignoring ASCII case in both (eqFold
// wants s in lower case; key-spec keywords are upper case, as COMMAND
// shows them).
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// callKeyFlags returns the flags of the key at position pos of a call of
// c, resolving variable flags from the arguments as Redis does: SET
// overwrites its key without reading it unless GET asks for the old value;
// BITFIELD only reads when every operation is a GET (OVERFLOW aside), and
// is taken to write when an operation is malformed.
func (c *Command) callKeyFlags(args [][]byte, k keyRef) KeyFlag {
	if k.flags&KeyVariableFlags == 0 {
		return k.flags
	}
	switch c.FullName() {
	case "set":
		for _, a := range args[3:] {
			if eqFold(a, "get") {
				return KeyRW | KeyAccess | KeyUpdate
			}
		}
		return KeyOW | KeyUpdate
	case "bitfield":
		for i := 2; i < len(args); i++ {
			left := len(args) - i - 1
			switch {
			case eqFold(args[i], "get") && left >= 2:
				i += 2
			case eqFold(args[i], "overflow") && left >= 1:
				i++
			default:
				return KeyRW | KeyAccess | KeyUpdate
			}
		}
		return KeyRO | KeyAccess
	}
	return k.flags
}
