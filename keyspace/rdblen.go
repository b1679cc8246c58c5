package keyspace

// DEBUG OBJECT reports a string's serializedlength as the size of Redis's
// RDB encoding of it (types/rdb writes it as Redis 7.0 does with
// rdbcompression on, its default), so tools that compare the figure with
// Redis's see the same number.
