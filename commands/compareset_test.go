package commands

import (
	"testing"

	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
)

// SET … IFEQ (Valkey 8.1) and DELIFEQ (Valkey 9.0), as Valkey's own
// tests/unit/type/string.tcl checks them.
func TestSetIfeq(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	wrong := rErr(keyspace.ErrWrongType)
	syntax := rErr(keyspace.ErrSyntax)

	expect(t, sh, rOK, "set", "foo", "initial_value")
	j.take()
	expect(t, sh, rOK, "set", "foo", "new_value", "ifeq", "initial_value")
	expectOps(t, j, "a matching IFEQ", persistence.OpSet)
	expect(t, sh, rBulk("new_value"), "get", "foo")
	expect(t, sh, rNull, "set", "foo", "should_not_set", "IFEQ", "wrong_value")
	expectOps(t, j, "a differing IFEQ")
	expect(t, sh, rBulk("new_value"), "get", "foo")
	// The comparison is of bytes, case and all.
	expect(t, sh, rNull, "set", "foo", "x", "ifeq", "NEW_VALUE")

	// A missing key is never created.
	expect(t, sh, rNull, "set", "missing", "v", "ifeq", "")
	expect(t, sh, rInt(0), "exists", "missing")
	expectOps(t, j, "IFEQ on a missing key")

	// With GET: the old value (nil when missing), set only on a match.
	expect(t, sh, rNull, "set", "missing", "v", "ifeq", "x", "get")
	expect(t, sh, rInt(0), "exists", "missing")
	expect(t, sh, rOK, "set", "foo", "initial_value")
	expect(t, sh, rBulk("initial_value"), "set", "foo", "new_value", "ifeq", "initial_value", "get")
	expect(t, sh, rBulk("new_value"), "get", "foo")
	expect(t, sh, rBulk("new_value"), "set", "foo", "other", "get", "ifeq", "nope")
	expect(t, sh, rBulk("new_value"), "get", "foo")

	// Another type: WRONGTYPE, with or without GET, and nothing changes.
	expect(t, sh, rInt(1), "sadd", "s", "some_set_value")
	j.take()
	expect(t, sh, wrong, "set", "s", "v", "ifeq", "some_set_value")
	expect(t, sh, wrong, "set", "s", "v", "ifeq", "x", "get")
	expectOps(t, j, "IFEQ against a set")
	expect(t, sh, "+set\r\n", "type", "s")

	// Expiry options combine; KEEPTTL keeps the deadline.
	expect(t, sh, rOK, "set", "e", "a", "px", "100000")
	expect(t, sh, rOK, "set", "e", "b", "ifeq", "a", "keepttl")
	if ttl := run(t, sh, "pttl", "e"); ttl == rInt(-1) {
		t.Fatalf("KEEPTTL lost the deadline: %q", ttl)
	}
	expect(t, sh, rOK, "set", "e", "c", "ex", "1000", "ifeq", "b")
	expect(t, sh, rInt(1000), "ttl", "e")
	expect(t, sh, rOK, "set", "e", "d", "ifeq", "c")
	expect(t, sh, rInt(-1), "ttl", "e")
	expect(t, sh, rOK, "set", "e", "x", "ifeq", "d", "pxat", "1")
	expect(t, sh, rInt(0), "exists", "e")

	// IFEQ conflicts with NX and XX, and needs its value.
	j.take()
	for _, args := range [][]string{
		{"set", "foo", "v", "ifeq", "a", "xx"},
		{"set", "foo", "v", "ifeq", "a", "nx"},
		{"set", "foo", "v", "nx", "ifeq", "a"},
		{"set", "foo", "v", "xx", "ifeq", "a"},
		{"set", "foo", "v", "ifeq"},
		{"set", "foo", "v", "get", "ifeq"},
	} {
		expect(t, sh, syntax, args...)
	}
	expectOps(t, j, "refused SETs")
	// Repeated, the last comparison value counts, as the last expiry does.
	expect(t, sh, rOK, "set", "foo", "z", "ifeq", "nope", "ifeq", "new_value")
	expect(t, sh, rBulk("z"), "get", "foo")

	// A versioned string compares as the string it reads as.
	expect(t, sh, rInt(1), "setv", "sv", "one")
	expect(t, sh, rOK, "set", "sv", "two", "ifeq", "one")
	expect(t, sh, rBulk("two"), "get", "sv")
}

func TestDelifeq(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rInt(0), "delifeq", "foo", "test")
	expect(t, sh, rOK, "set", "foo", "nope")
	j.take()
	expect(t, sh, rInt(0), "delifeq", "foo", "test")
	expectOps(t, j, "DELIFEQ of another value")
	expect(t, sh, rBulk("nope"), "get", "foo")
	expect(t, sh, rInt(1), "delifeq", "foo", "nope")
	expectOps(t, j, "DELIFEQ of the value", persistence.OpDel)
	expect(t, sh, rInt(0), "exists", "foo")
	expect(t, sh, rInt(1), "sadd", "s", "test")
	expect(t, sh, rErr(keyspace.ErrWrongType), "delifeq", "s", "test")
	expect(t, sh, rInt(1), "exists", "s")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("delifeq")), "delifeq", "foo")
}
