package keyspace

// The ACL command family. Every shard runs it against the one users
// store, so a change made through any shard's connection applies to all
// shards at once.
