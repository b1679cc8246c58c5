package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"fmt"
)

// This file holds the key specifications and command tips of the command
// table. For the commands Redis 7.0 has they are Redis's, checked against a
// summary of its command descriptions by TestCommandTableMatchesRedis; the
// native commands have their own, listed last.

// rangeSpec is the common key spec: keys from argument index, up to
// lastKey (relative to index; negative counts from the end), every step.
func rangeSpec(flags keyspace.KeyFlag, index, lastKey, step int) keyspace.KeySpec {
	return keyspace.KeySpec{Flags: flags, Index: index, Find: keyspace.FindRange, LastKey: lastKey, KeyStep: step}
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
	keys []keyspace.KeySpec
	tips []string
}

// commandSpecs maps full command names to their key specs and tips.
// Commands absent here have neither.
var commandSpecs = map[string]commandSpec{
	// Commands Redis 7.0 has: its key specs and tips.
	"sadd":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"scard":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"sdiff":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, tips: []string{tipNondeterministicOrder}},
	"sdiffstore":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}},
	"sinter":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, tips: []string{tipNondeterministicOrder}},
	"sintercard":       {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"sinterstore":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}},
	"sismember":        {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"smembers":         {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"smismember":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"smove":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	"spop":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"srandmember":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"srem":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"sscan":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"sunion":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, tips: []string{tipNondeterministicOrder}},
	"sunionstore":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}},
	"zadd":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"zcard":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"zcount":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zdiff":            {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zdiffstore":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zincrby":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"zinter":           {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zintercard":       {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zinterstore":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zlexcount":        {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zmpop":            {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zmscore":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zpopmax":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
	"zpopmin":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
	"zrandmember":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"zrange":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zrangebylex":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zrangebyscore":    {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zrangestore":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}},
	"zrank":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zrem":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"zremrangebylex":   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"zremrangebyrank":  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"zremrangebyscore": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"zrevrange":        {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zrevrangebylex":   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zrevrangebyscore": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zrevrank":         {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zscan":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"zscore":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"zunion":           {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"zunionstore":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"hdel":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"hexists":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"hget":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"hgetall":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"hincrby":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"hincrbyfloat":     {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"hkeys":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"hlen":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"hmget":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"hmset":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"hrandfield":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"hscan":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"hset":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"hsetnx":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"hstrlen":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"hvals":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministicOrder}},
	"lindex":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"linsert":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"llen":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"lmove":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	"lmpop":            {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"lpop":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
	"lpos":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"lpush":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"lpushx":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"lrange":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"lrem":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"lset":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"ltrim":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"rpop":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
	"rpoplpush":        {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	"rpush":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"rpushx":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	// Blocking pops (blocking_cmds.go).
	"blpop":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
	"brpop":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
	"blmove":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	"brpoplpush":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	"blmpop":                {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"bzpopmin":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
	"bzpopmax":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
	"bzmpop":                {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	"append":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"bitcount":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"bitfield":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate|keyspace.KeyVariableFlags, 1, 0, 1)}},
	"bitfield_ro":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"bitop":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 2, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 3, -1, 1)}},
	"bitpos":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
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
	"dump":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"restore":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1)}},
	"copy":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 2, 0, 1)}},
	"dbsize":                {tips: []string{tipAllShards, tipAggSum}},
	"decr":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"decrby":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"del":                   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRM|keyspace.KeyDelete, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"exists":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"expire":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"expireat":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"expiretime":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"flushall":              {tips: []string{tipAllShards, tipAllSucceeded}},
	"flushdb":               {tips: []string{tipAllShards, tipAllSucceeded}},
	"function|flush":        {tips: []string{tipAllShards, tipAllSucceeded}},
	"function|list":         {tips: []string{tipNondeterministicOrder}},
	"get":                   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"getbit":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"getdel":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
	"getex":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"getrange":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"getset":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"incr":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"incrby":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"incrbyfloat":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"info":                  {tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
	"keys":                  {tips: []string{tipAllShards, tipNondeterministicOrder}},
	"lastsave":              {tips: []string{tipNondeterministic}},
	"lcs":                   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 1, 1)}},
	"memory|malloc-stats":   {tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
	"memory|purge":          {tips: []string{tipAllShards, tipAllSucceeded}},
	"module|list":           {tips: []string{tipNondeterministicOrder}},
	"memory|stats":          {tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
	"memory|usage":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}},
	"mget":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, tips: []string{tipMultiShard}},
	"move":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"mset":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, -1, 2)}, tips: []string{tipMultiShard, tipAllSucceeded}},
	"msetnx":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 1, -1, 2)}, tips: []string{tipMultiShard, tipAggMin}},
	"object|encoding":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"object|freq":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"object|idletime":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"object|refcount":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"persist":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"pexpire":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"pexpireat":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"pexpiretime":           {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"pfadd":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"pfcount":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess, 1, -1, 1)}},
	"pfdebug":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess, 2, 0, 1)}},
	"pfmerge":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyInsert, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}},
	"ping":                  {tips: []string{tipAllShards, tipAllSucceeded}},
	"psetex":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1)}},
	"pttl":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"randomkey":             {tips: []string{tipAllShards, tipNondeterministic}},
	"rename":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 2, 0, 1)}},
	"renamenx":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 2, 0, 1)}},
	"scan":                  {tips: []string{tipNondeterministic, tipSpecialRequest}},
	"spublish":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyNotKey, 1, 0, 1)}},
	"ssubscribe":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyNotKey, 1, -1, 1)}},
	"sunsubscribe":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyNotKey, 1, -1, 1)}},
	"set":                   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate|keyspace.KeyVariableFlags, 1, 0, 1)}},
	"setbit":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"setex":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1)}},
	"setnx":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 1, 0, 1)}},
	"setrange":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"strlen":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"substr":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"time":                  {tips: []string{tipNondeterministic}},
	"touch":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"ttl":                   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"type":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"unlink":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRM|keyspace.KeyDelete, 1, -1, 1)}, tips: []string{tipMultiShard, tipAggSum}},
	"wait":                  {tips: []string{tipAllShards, tipAggMin}},
	"watch":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, -1, 1)}},
	// Streams (stream.go).
	"xack":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"xadd":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xautoclaim":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xclaim":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xdel":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"xgroup|create":         {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	"xgroup|createconsumer": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	"xgroup|delconsumer":    {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 2, 0, 1)}},
	"xgroup|destroy":        {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 2, 0, 1)}},
	"xgroup|setid":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 2, 0, 1)}},
	"xinfo|consumers":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}, tips: []string{tipNondeterministic}},
	"xinfo|groups":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}},
	"xinfo|stream":          {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}},
	"xlen":                  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"xpending":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, tips: []string{tipNondeterministic}},
	"xrange":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"xread":                 {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Keyword: "STREAMS", StartFrom: 1, Find: keyspace.FindRange, LastKey: -1, KeyStep: 1, Limit: 2}}},
	"xreadgroup":            {keys: []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Keyword: "STREAMS", StartFrom: 4, Find: keyspace.FindRange, LastKey: -1, KeyStep: 1, Limit: 2}}},
	"xrevrange":             {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"xsetid":                {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"xtrim":                 {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, tips: []string{tipNondeterministic}},

	"geoadd":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"geodist":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"geohash":              {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"geopos":               {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"georadius":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STORE", StartFrom: 6, Find: keyspace.FindRange, KeyStep: 1}, {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STOREDIST", StartFrom: 6, Find: keyspace.FindRange, KeyStep: 1}}},
	"georadius_ro":         {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"georadiusbymember":    {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STORE", StartFrom: 5, Find: keyspace.FindRange, KeyStep: 1}, {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STOREDIST", StartFrom: 5, Find: keyspace.FindRange, KeyStep: 1}}},
	"georadiusbymember_ro": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"geosearch":            {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"geosearchstore":       {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}},

	"sort":    {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess}, {Flags: keyspace.KeyOW | keyspace.KeyUpdate}}},
	"sort_ro": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess}}},

	// Native commands. Each acts on the one key it names, on the shard that
	// owns it, so none needs a request policy. CHANGES reads the feed of the
	// shard it is sent to (a cluster client sends it to each node itself);
	// its output depends on what other clients did.
	"changes":   {tips: []string{tipNondeterministic}},
	"idem":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"lease":     {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"limit":     {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"once":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 1, 0, 1)}},
	"release":   {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
	"semaphore": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
	"setv":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	"take":      {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},

	// Bloom filters, with RedisBloom's command names (a module, not part of
	// Redis 7.0): one key each; additions insert, queries read.
	"bf.add":     {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"bf.card":    {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"bf.exists":  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"bf.info":    {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
	"bf.insert":  {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"bf.madd":    {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
	"bf.mexists": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	"bf.reserve": {keys: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
}

// applyCommandSpecs sets the key specs and tips of every command in t and
// derives the movablekeys flag as Redis does: set when the legacy
// first/last/step triple cannot find every key the specs find. A name in
// commandSpecs that the table lacks is a programming error.
func applyCommandSpecs(t keyspace.CommandTable) {
	for name, spec := range commandSpecs {
		c := commandTableLookupFullName(t, []byte(name))
		if c == nil {
			panic(fmt.Sprintf("keyspace: command specs for unknown command %q", name))
		}
		c.KeySpecs = spec.keys
		c.Tips = spec.tips
		if _, _, _, movable := legacyKeyRange(c.KeySpecs); movable {
			c.Flags |= keyspace.FlagMovableKeys
		}
	}
}

// legacyKeyRange derives COMMAND's first/last/step triple from specs the
// way Redis does (the table's FirstKey, LastKey and Step must equal it),
// and whether the command has movable keys: keys the triple cannot
// describe (a spec that is not an index with a range, a range with a step
// other than 1 among several, specs that do not follow each other, or an
// incomplete spec).
func legacyKeyRange(specs []keyspace.KeySpec) (first, last, step int, movable bool) {
	if len(specs) == 0 {
		return 0, 0, 0, false
	}
	if len(specs) == 1 {
		s := specs[0]
		if s.Index > 0 && s.Find == keyspace.FindRange {
			last = s.LastKey
			if last >= 0 {
				last += s.Index
			}
			return s.Index, last, s.KeyStep, s.Flags&keyspace.KeyIncomplete != 0
		}
		return 0, 0, 0, true
	}
	first, prev := -1, 0
	for _, s := range specs {
		if s.Index <= 0 || s.Find != keyspace.FindRange || s.KeyStep != 1 || (prev != 0 && prev != s.Index-1) {
			movable = true
			continue
		}
		if s.Flags&keyspace.KeyIncomplete != 0 {
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
