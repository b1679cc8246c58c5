// Package config holds Ruvio's configuration: the TOML schema read at start-up, its defaults,
// validation with messages that name the offending key, the zap logger built from the [log]
// section, and the runtime parameters that CONFIG GET and CONFIG SET read and change.
//
// # Files
//
// A file has the sections [server], [limits], [log], [persistence] and [keyspace], with
// snake_case keys. [Load] starts from [Default] and overlays what the file sets, so a file
// may hold any subset of keys. A key the schema does not know is an error that names every
// unknown key; a typo never silently falls back to a default. [Load] does not validate: the
// caller applies its command-line overrides and then calls [Config.Validate], which reports
// every bad value at once, each as "config: <section.key>: <problem>".
//
// Byte sizes (limits.*, persistence.segment_size, persistence.snapshot_wal_bytes) are an
// integer number of bytes or a string with a unit, parsed as Redis parses memory values: "b",
// "k" (1000), "kb" (1024), "m" (1000²), "mb" (1024²), "g" (1000³) and "gb" (1024³), case
// insensitive, e.g. "64mb" or "1GB". See [ParseSize].
//
// # Runtime parameters
//
// [Live] is the process-wide, concurrency-safe set of parameters behind CONFIG GET/SET. It is
// created from a validated [Config] by [NewLive]. Its parameter table is immutable and uses
// Redis 7's names, defaults, aliases (list-max-ziplist-size for list-max-listpack-size and the
// like) and error texts, so Redis client libraries and the Redis test suite can read and set
// what they expect. Parameters that the server reads on its paths have typed getters backed
// by atomics, cheap enough to call per command.
package config
