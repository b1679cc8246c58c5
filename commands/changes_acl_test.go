package commands

import (
	"strconv"
	"testing"
)

// TestChangesFilteredByKeyPatterns: CHANGES shows a restricted user only
// the notes of keys it may read (from scripts too, with the caller's
// rights), and a reader whose keys are seldom written moves past the
// notes hidden from it instead of falling out of the ring.
func TestChangesFilteredByKeyPatterns(t *testing.T) {
	sh := newTestShard(t)
	sh.Srv.Opts.Config.Keyspace.ChangesCapacity = 8
	for _, setup := range [][]string{
		{"ACL", "SETUSER", "app", "on", "nopass", "+@all", "~app:*"},
		{"ACL", "SETUSER", "ro", "on", "nopass", "+@all", "%R~r:*", "%W~w:*"},
		{"ACL", "SETUSER", "all", "on", "nopass", "+@all", "%R~*"},
	} {
		expect(t, sh, rOK, setup...)
	}
	c0 := kjInt(t, run(t, sh, "CHANGES", "START"))
	cur := func(n int64) string { return strconv.FormatInt(c0+n, 10) }
	for _, k := range []string{"app:a", "admin:b", "app:c", "r:d", "w:e"} {
		expect(t, sh, rOK, "SET", k, "v")
	}
	note := func(n int64, key string) string { return rArr(rInt(c0+n), rBulk("SET"), rBulk(key), rNull) }
	as := func(user string) { t.Helper(); expect(t, sh, rOK, "AUTH", user, "x") }

	everything := rArr(note(1, "app:a"), note(2, "admin:b"), note(3, "app:c"), note(4, "r:d"), note(5, "w:e"))
	expect(t, sh, everything, "CHANGES", cur(0))
	as("all")
	expect(t, sh, everything, "CHANGES", cur(0))
	as("app")
	expect(t, sh, rArr(note(1, "app:a"), note(3, "app:c")), "CHANGES", cur(0))
	expect(t, sh, rArr(note(3, "app:c")), "CHANGES", cur(1))
	expect(t, sh, rArr(), "CHANGES", cur(3))
	// (Only the keys: a Lua number cannot hold a cursor exactly.)
	expect(t, sh, rArr(rBulk("app:a"), rBulk("app:c")), "EVAL",
		"local out = {} for i, n in ipairs(redis.call('CHANGES', ARGV[1])) do out[i] = n[3] end return out", "0", cur(0))
	as("ro") // reading the feed needs read permission: w: keys are hidden
	expect(t, sh, rArr(note(4, "r:d")), "CHANGES", cur(0))

	// A reader of app: keys while only other keys are written: its
	// cursor stays, yet it never falls out of the ring of 8 notes.
	as("app")
	expect(t, sh, rArr(), "CHANGES", cur(3))
	as("default")
	for i := range 12 {
		expect(t, sh, rOK, "SET", "admin:"+strconv.Itoa(i), "v")
		if i%4 == 3 {
			as("app")
			expect(t, sh, rArr(), "CHANGES", cur(3))
			as("default")
		}
	}
	expect(t, sh, rOK, "SET", "app:z", "v")
	as("app")
	expect(t, sh, rArr(note(18, "app:z")), "CHANGES", cur(3))
	expect(t, sh, rArr(), "CHANGES", cur(18))

	// Without polling, the ring passes the reader by: it is told so.
	as("default")
	for i := range 9 {
		expect(t, sh, rOK, "SET", "admin:"+strconv.Itoa(i), "v")
	}
	as("app")
	expect(t, sh, rErr("ERR CHANGES cursor "+cur(18)+" has fallen out of the buffer (oldest held "+cur(20)+"); resync and call CHANGES START"), "CHANGES", cur(18))
	expect(t, sh, rInt(c0+27), "CHANGES", "START")

	// Changed permissions apply to the next call.
	as("default")
	expect(t, sh, rOK, "SET", "admin:new", "v")
	as("app")
	expect(t, sh, rArr(), "CHANGES", cur(27))
	as("default")
	expect(t, sh, rOK, "ACL", "SETUSER", "app", "~admin:*")
	as("app")
	expect(t, sh, rArr(note(28, "admin:new")), "CHANGES", cur(27))
}

// TestChangesFilteredScanIsBounded: one call of a filtered reader looks at
// changesScanMax notes at most; the next call goes on from there.
func TestChangesFilteredScanIsBounded(t *testing.T) {
	sh := newTestShard(t)
	sh.Srv.Opts.Config.Keyspace.ChangesCapacity = changesScanMax + 100
	expect(t, sh, rOK, "ACL", "SETUSER", "app", "on", "nopass", "+@all", "~app:*")
	c0 := kjInt(t, run(t, sh, "CHANGES", "START"))
	for range changesScanMax + 10 {
		shardNoteChange(sh, noteSet, "admin:k", 0, false)
	}
	expect(t, sh, rOK, "SET", "app:k", "v")
	expect(t, sh, rOK, "AUTH", "app", "x")
	from := strconv.FormatInt(c0, 10)
	expect(t, sh, rArr(), "CHANGES", from)
	expect(t, sh, rArr(rArr(rInt(c0+changesScanMax+11), rBulk("SET"), rBulk("app:k"), rNull)), "CHANGES", from)
}
