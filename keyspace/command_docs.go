package keyspace

// This file holds COMMAND DOCS: the documentation of every command in the
// shape of Redis 7.0's reply, argument trees included, so a client (and
// redis-cli's hints) can learn each command's syntax from the server. For
// the commands Redis 7.0 has, the trees and notes are Redis's
// (command_docs_gen.go, generated from its command descriptions); the
// native commands, and the native options of Redis commands, have their
// own, written here.

//go:generate go run ../cmd/gencmddocs -redis-src ${REDIS_SRC} -matrix ../docs/compatibility-matrix.json -o command_docs_gen.go

// Constructors for the hand-written trees below.
