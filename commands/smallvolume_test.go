package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// Hardening item 9: a volume with less free space than the segment size.
// The preallocation that does not fit is given back and the segment grows
// as it is written, so the server starts and its writes survive a crash;
// a start that the volume cannot hold at all is refused for the real
// reason and leaves the directory as it was.
func TestDiskStartsOnSmallVolume(t *testing.T) {
	mem := persistence.NewMemFS()
	mem.SetCapacity(1 << 20) // the segment size is 64 MiB
	clock := newDurClock()
	mod := func(o *keyspace.DiskOptions) { o.SegmentSize = 64 << 20 }
	d, err := durOpenErr(t, mem, clock, 1, mod)
	if err != nil {
		t.Fatalf("start on a 1 MiB volume with 64 MiB segments: %v", err)
	}
	sh := d.shard(0)
	if got := d.do(sh, "SET", "k", strings.Repeat("v", 1000)); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	for _, name := range durFiles(t, mem) {
		if size, _ := mem.Stat(durDir + "/" + name); size > 4096 {
			t.Fatalf("%s holds %d bytes: the preallocation that did not fit was kept", name, size)
		}
	}
	c := durOpen(t, mem.CrashClone(), clock, 1, mod)
	if got := c.do(c.shard(0), "STRLEN", "k"); got != ":1000\r\n" {
		t.Fatalf("after a crash: STRLEN k = %q", got)
	}
}

func TestDiskRefusedStartOnFullVolumeChangesNothing(t *testing.T) {
	mem := persistence.NewMemFS()
	if err := mem.MkdirAll(durDir); err != nil {
		t.Fatal(err)
	}
	// Room for one shard's history id, not for the second's.
	mem.SetCapacity(60)
	clock := newDurClock()
	sopts := testOptions(t, 2, clock.now)
	sopts.Persistence = keyspace.NewDisk(keyspace.DiskOptions{FS: mem, Dir: durDir, Policy: persistence.FsyncAlways, SegmentSize: 64 << 20})
	s := newTestServerOpts(t, sopts)
	err := s.Start()
	if err == nil {
		_ = s.Close()
		t.Fatal("started on a volume without room for the second shard")
	}
	if !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "shard 1") {
		t.Fatalf("error %q does not give the real cause", err)
	}
	if names := durFiles(t, mem); len(names) != 0 {
		t.Fatalf("the refused start left %v", names)
	}
}
