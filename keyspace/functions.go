package keyspace

// FUNCTION and FCALL. Libraries live in the shard's scripting engine, in
// memory only: a restart drops them (docs/scripting.md), and with several
// shards each shard has its own set, as each master of a Redis Cluster
// does; FUNCTION LOAD is sent to every shard by cluster clients that
// follow the all_shards tip. FCALL runs like EVAL (scripting.go): same key
// checks, same WAL unit, same busy handling.
