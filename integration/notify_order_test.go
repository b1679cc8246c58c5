package integration_test

import (
	"slices"
	"testing"

	"github.com/ruvio/ruvio/internal/testserver"
)

// RENAME, MOVE and COPY announce the key under its new name (new) before
// the generic events, as Redis 7.0 does; RENAME onto an existing key
// announces new too.
func TestKeyspaceNotificationsRenameMoveCopyOrder(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "En$g")
	sub := dialRaw(t, s.Addr())
	sub.send("PSUBSCRIBE", "__keyevent@*")
	sub.read()
	expect(t, c, "OK", "SET", "a", "1")
	expect(t, c, "OK", "RENAME", "a", "b")
	expect(t, c, "OK", "SET", "c", "1")
	expect(t, c, "OK", "RENAME", "b", "c")
	expect(t, c, int64(1), "MOVE", "c", "1")
	expect(t, c, "OK", "SET", "d", "1")
	expect(t, c, int64(1), "COPY", "d", "e")
	want := []string{
		"__keyevent@0__:new a", "__keyevent@0__:set a",
		"__keyevent@0__:new b", "__keyevent@0__:rename_from a", "__keyevent@0__:rename_to b",
		"__keyevent@0__:new c", "__keyevent@0__:set c",
		"__keyevent@0__:new c", "__keyevent@0__:rename_from b", "__keyevent@0__:rename_to c",
		"__keyevent@1__:new c", "__keyevent@0__:move_from c", "__keyevent@1__:move_to c",
		"__keyevent@0__:new d", "__keyevent@0__:set d",
		"__keyevent@0__:new e", "__keyevent@0__:copy_to e",
	}
	if got := readEvents(t, sub, len(want)); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
