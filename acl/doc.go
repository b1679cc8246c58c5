// Package acl holds Ruvio's access control rules: users, passwords, command categories, and
// key and channel patterns, with Redis 7.0's ACL semantics. It knows nothing of shards,
// connections, RESP or the keyspace: the command table injects the commands the rules talk
// about, and the server asks it questions.
//
// # Pieces
//
//   - [Universe]: the commands, built once from [CommandSpec] values (name, subcommands,
//     categories, no-auth flag, key specs). Each command and subcommand gets a dense
//     [CommandID]; "+@category" resolves against the categories given here. The 21
//     categories are Redis 7.0's ([CategoryNames]). [Universe.AppendKeys] finds a call's keys
//     and their access with the key specs (index/keyword begin search, range/keynum find).
//   - [User]: an immutable user: on/off, nopass, SHA-256 password hashes, root permissions
//     and "(…)" selectors. [User.Check] decides a call; [User.Describe] and [User.Info] print
//     the rules back as ACL LIST and ACL GETUSER do.
//   - [Users]: an immutable snapshot of every user, with the default user. Changes
//     ([Users.SetUser], [Users.DelUsers], [Users.WithRequirePass], [Users.LoadFile],
//     [Users.ApplySpecs]) return a new snapshot and leave the old one untouched (copy on
//     write); [Store] publishes snapshots through an atomic pointer, so a check on any shard
//     costs no lock.
//   - [Log]: the ACL LOG entries with Redis's grouping, as a plain structure with an
//     injected clock. [GenPass] is ACL GENPASS. [Match] is Redis's glob matcher, shared with
//     KEYS and SCAN.
//
// # Checking a call
//
// The caller resolves the command (or "container|sub" subcommand) to its ID once, builds a
// [Request] from the call's arguments with the key positions and access (AppendKeys, or the
// command's own key finder) and the channels it publishes or subscribes to, and calls
// Check. Nothing allocates when the call is allowed. The default user's "+@all ~* &*" is a
// flag test ([User.Unrestricted]). Otherwise the root permissions are tried, then each
// selector; the first that allows the whole call wins, and a denial names the command, key
// or channel as Redis picks it ([Denial.Object], [Denial.Error], [Denial.DryRunMessage]).
// Commands flagged NoAuth (AUTH, HELLO) pass the command rules, as in Redis.
//
// Keys: a pattern applies when it grants every access the key needs (%R~ grants Read, %W~
// Write, ~ both); a key with no access (existence tests such as EXISTS, TYPE, HEXISTS) is
// granted by any pattern. Channels: PUBLISH and SUBSCRIBE channel names are matched as
// globs against the channel rules; a PSUBSCRIBE pattern must equal a rule literally.
//
// # Rules
//
// ACL SETUSER's rules, parsed as Redis 7.0 parses them and failing with its texts (see the
// Err* values and [RuleError]): on, off, >pass, <pass, #hash, !hash, nopass, resetpass,
// ~pattern, %R~ %W~ %RW~pattern, allkeys, resetkeys, &pattern, allchannels, resetchannels,
// +cmd, -cmd, +cmd|sub, -cmd|sub, +cmd|first-arg, +@category, -@category, allcommands,
// nocommands, reset, sanitize-payload, skip-sanitize-payload, "(…)" selectors (also when
// written over several arguments) and clearselectors. Every rule of one SETUSER applies to
// a copy, so a failure changes nothing.
//
// # Descriptions
//
// ACL LIST lists flags, "#hash" passwords, keys, channels ("resetchannels" before channel
// rules, as Redis 7.0 does), then command rules, then each selector in parentheses. The
// command rules are computed with Redis 7.0's algorithm: +@all or -@all, then greedily the
// category that best fits the remaining differences, then single commands and first
// arguments. For the Redis command universe this gives Redis's output (testdata holds
// goldens taken from redis-server 7.0.15), with one difference: single-command rules come in
// universe order, where Redis follows its hash table's (unspecified) order.
//
// # Differences from Redis 7.0.15
//
//   - Unbalanced quotes inside a "(…)" selector are a syntax error; Redis silently creates
//     an empty selector.
//   - "%~pattern" (no R or W) is a syntax error, as the reference redis-server 7.0.15 build
//     answers (the 7.0.15 source would accept it).
//   - An ACL file line with an unclosed selector is reported and loading goes on with the
//     next line (Redis's behaviour there is undefined).
//   - As in Redis, a key or channel pattern containing a parenthesis or quote inside a
//     selector does not survive ACL LIST / ACL SAVE, and "%RW~*" prints as "~*", which
//     reads back as allkeys (which also grants the empty key name; "*" does not match it).
//   - Commands whose keys need more than key specs (SORT … STORE, MIGRATE … KEYS with an
//     empty key argument) or whose key access depends on the arguments (SET without GET only
//     writes; BITFIELD with only GET only reads: Redis's VARIABLE_FLAGS commands) get their
//     keys from the command table's own finder; AppendKeys only reads key specs.
//   - TOML users ([Spec]) take passwords as "sha256:<hex>" or "plain:<text>".
package acl
