// Package commands holds every command family of the server: one file a
// family (strings, keys, lists with their blocking pops, hashes, sets,
// sorted sets, streams, geo, Bloom, the key jobs, scripting, Pub/Sub,
// transactions, and the server, connection, INFO, ACL, CLUSTER and COMMAND
// commands), each command's metadata (key specs, tips and argument docs),
// and the table assembled from the families' registrations.
//
// The families sit on the engine, package keyspace, and only on it for
// what a shard holds: keyspace never imports this package. Table is handed
// to keyspace.NewServer; internal/app and the generators under cmd/ are
// the only importers.
package commands

import "github.com/ruvio/ruvio/keyspace"

// Table builds a fresh command table: every family of commandFamilies
// registers its commands, in order, then the key specs and tips are
// applied. Each server gets its own table.
func Table() keyspace.CommandTable { return newCommandTable() }
