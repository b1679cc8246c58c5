package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
	"github.com/ruvio/ruvio/persistence"
)

// Start-up refusals through the real binary: a damaged WAL or snapshot,
// and a data directory already in use.

// refusedStart runs the binary on dir expecting it to exit during
// start-up; it returns its combined output.
func refusedStart(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--config", "", "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir, "--fsync", "always"}, extra...)
	out, err := exec.CommandContext(ctx, testserver.Binary(t), args...).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 || ctx.Err() != nil {
		t.Fatalf("expected a refused start, got %v\n%s", err, out)
	}
	return string(out)
}

// finalError returns the process's closing error line and checks that the
// output carries no stack trace and the error is one line.
func finalError(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "goroutine ") {
			t.Fatalf("stack trace in the output:\n%s", out)
		}
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "ruvio: ") {
		t.Fatalf("last line is not the error:\n%s", out)
	}
	t.Log(last)
	return last
}

// walRecords lists the offsets of the records in a segment (up to the
// preallocated zeros).
func walRecords(t *testing.T, data []byte) []int {
	t.Helper()
	var offs []int
	for off := 0; off < len(data); {
		_, n, err := persistence.DecodeRecord(data[off:])
		if err != nil {
			break
		}
		offs = append(offs, off)
		off += n
	}
	return offs
}

// newestSegment is the path of shard 0's last WAL segment in dir.
func newestSegment(t *testing.T, dir string) string {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(dir, "shard-000-wal-*.log"))
	if len(segs) == 0 {
		t.Fatal("no WAL segment")
	}
	sort.Strings(segs)
	return segs[len(segs)-1]
}

// writeKeys sets key:i to val:i for i in [from, to) one at a time, so
// record order is key order.
func writeKeys(t *testing.T, p *testserver.Process, prefix string, from, to int) {
	t.Helper()
	c := p.Client(t, 0)
	for i := from; i < to; i += 100 {
		pipe := c.Pipeline()
		for j := i; j < min(i+100, to); j++ {
			pipe.Set(ctxT(t), prefix+strconv.Itoa(j), "val:"+strconv.Itoa(j), 0)
		}
		if _, err := pipe.Exec(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
}

// countKeys reports how many of prefix0..prefix(n-1) exist with their value.
func countKeys(t *testing.T, p *testserver.Process, prefix string, n int) (present int, firstMissing int) {
	t.Helper()
	c := p.Client(t, 0)
	firstMissing = -1
	for i := 0; i < n; i++ {
		v, err := c.Get(ctxT(t), prefix+strconv.Itoa(i)).Result()
		switch {
		case err == nil && v == "val:"+strconv.Itoa(i):
			present++
		case errors.Is(err, redis.Nil):
			if firstMissing < 0 {
				firstMissing = i
			}
		default:
			t.Fatalf("%s%d: %q %v", prefix, i, v, err)
		}
	}
	return present, firstMissing
}

func flipAt(t *testing.T, path string, off int64, xor byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= xor
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// Issue 7 item 2: a flipped length byte in the middle of the newest
// (preallocated) segment after SIGKILL is refused with file and offset;
// --repair cuts there and keeps .broken; a genuinely torn last record is
// still dropped with a plain warning.
func TestNewestSegmentDamageRefusesStart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	const n = 3000
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir})
	writeKeys(t, p, "key:", 0, n)
	p.Kill(t)

	seg := newestSegment(t, dir)
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	offs := walRecords(t, data)
	if len(offs) != n {
		t.Fatalf("%d records in %s, want %d", len(offs), seg, n)
	}
	k := n / 2
	// The third length byte: the record claims 1 MiB more than it has, so
	// its frame covers the later records and ends in the preallocated
	// zeros, which is what made it pass for a torn tail.
	flipAt(t, seg, int64(offs[k]+2), 0x10)
	if len(data) < offs[k]+(1<<20)+64 {
		t.Fatalf("segment of %d bytes is not preallocated", len(data))
	}

	out := refusedStart(t, dir)
	msg := finalError(t, out)
	for _, s := range []string{seg, fmt.Sprintf("at offset %d", offs[k]), "--repair"} {
		if !strings.Contains(msg, s) {
			t.Fatalf("error lacks %q: %s", s, msg)
		}
	}
	if strings.Contains(out, "incomplete record") {
		t.Fatalf("damage taken for a torn tail:\n%s", out)
	}

	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: []string{"--repair"}})
	if present, first := countKeys(t, r, "key:", n); present != k || first != k {
		t.Fatalf("after repair: %d keys, first missing %d; want the %d before the damage", present, first, k)
	}
	if _, err := os.Stat(seg + ".broken"); err != nil {
		t.Fatalf("no .broken copy: %v", err)
	}
	if !strings.Contains(r.Output(), fmt.Sprintf("among them %d intact records", n-k-1)) {
		t.Fatalf("the loss is not counted in the log:\n%s", r.Output())
	}
	r.Kill(t)

	// A torn tail: the last record half written, then zeros.
	dir2 := t.TempDir()
	p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir2})
	writeKeys(t, p, "key:", 0, 100)
	p.Kill(t)
	seg = newestSegment(t, dir2)
	data, _ = os.ReadFile(seg)
	offs = walRecords(t, data)
	last := offs[len(offs)-1]
	_, size, _ := persistence.DecodeRecord(data[last:])
	f, err := os.OpenFile(seg, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, size/2), int64(last+size-size/2)); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir2})
	if present, first := countKeys(t, p, "key:", 100); present != 99 || first != 99 {
		t.Fatalf("torn tail: %d keys, first missing %d", present, first)
	}
	if !strings.Contains(p.Output(), fmt.Sprintf("last WAL segment ends with an incomplete record (%d bytes) written before a crash; dropped", size-size/2)) {
		t.Fatalf("no plain warning for the torn tail:\n%s", p.Output())
	}
	if _, err := os.Stat(seg + ".broken"); err == nil {
		t.Fatal("a torn tail left a .broken copy")
	}
}

// Issue 7 item 4: a second process on the same --dir is refused with a
// message naming the directory and the holder, and the first one keeps
// serving.
func TestSecondProcessOnDataDirRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir})
	c := p.Client(t, 0)
	if err := c.Set(ctxT(t), "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	msg := finalError(t, refusedStart(t, dir))
	for _, s := range []string{dir, "is locked by another ruvio process", fmt.Sprintf("(pid %d)", p.Pid())} {
		if !strings.Contains(msg, s) {
			t.Fatalf("error lacks %q: %s", s, msg)
		}
	}
	if err := c.Set(ctxT(t), "after", "2", 0).Err(); err != nil {
		t.Fatalf("the first process stopped serving: %v", err)
	}
	if v, err := c.Get(ctxT(t), "before").Result(); err != nil || v != "1" {
		t.Fatalf("GET before: %q %v", v, err)
	}
	// Once the holder is gone, the directory is free again.
	p.Kill(t)
	q := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir})
	if v, err := q.Client(t, 0).Get(ctxT(t), "after").Result(); err != nil || v != "2" {
		t.Fatalf("after restart: %q %v", v, err)
	}
}

// Issue 7 item 6: one flipped bit in the only snapshot, with the WAL
// before it gone. Start-up refuses, naming the snapshot and the first bad
// entry in one line; --repair loads the entries before the damage and the
// WAL after the snapshot, counts the loss, and the next start needs no
// repair.
func TestDamagedSnapshotRefusesStart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	const n = 2000
	dir := t.TempDir()
	// Small segments, so the snapshot makes the WAL before it go away.
	cfg := filepath.Join(t.TempDir(), "ruvio.toml")
	if err := os.WriteFile(cfg, []byte("[persistence]\nsegment_size = \"4kb\"\nsnapshot_every = 0\nsnapshot_wal_bytes = 0\nsnapshot_on_shutdown = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bc := testserver.BinaryConfig{Dir: dir, Args: []string{"--config", cfg}}
	p := testserver.StartBinary(t, bc)
	writeKeys(t, p, "key:", 0, n)
	if err := p.Client(t, 0).Save(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	writeKeys(t, p, "after:", 0, 10)
	p.Kill(t)

	snaps, _ := filepath.Glob(filepath.Join(dir, "shard-000-snap-*.snap"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots: %v", snaps)
	}
	st, err := os.Stat(snaps[0])
	if err != nil {
		t.Fatal(err)
	}
	flipAt(t, snaps[0], st.Size()/2, 0x08)

	msg := finalError(t, refusedStart(t, dir, "--config", cfg))
	for _, s := range []string{"snapshot " + snaps[0] + " is damaged at offset", "entries before the damage are intact", "--repair", "backup"} {
		if !strings.Contains(msg, s) {
			t.Fatalf("error lacks %q: %s", s, msg)
		}
	}
	if strings.Contains(msg, "recover WAL") || strings.Contains(msg, fmt.Sprintf("at offset %d ", st.Size()-12)) {
		t.Fatalf("error blames the WAL or the trailing checksum: %s", msg)
	}

	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: []string{"--config", cfg, "--repair"}})
	present, _ := countKeys(t, r, "key:", n)
	if present == 0 || present == n {
		t.Fatalf("salvage kept %d of %d keys", present, n)
	}
	if after, _ := countKeys(t, r, "after:", 10); after != 10 {
		t.Fatalf("WAL after the snapshot: %d of 10 keys", after)
	}
	if want := fmt.Sprintf("lost %d of %d entries", n-present, n); !strings.Contains(r.Output(), want) {
		t.Fatalf("log lacks %q:\n%s", want, r.Output())
	}
	if _, err := os.Stat(snaps[0] + ".broken"); err != nil {
		t.Fatal(err)
	}
	r.Kill(t) // the fresh snapshot was written before serving
	again := testserver.StartBinary(t, bc)
	if got, _ := countKeys(t, again, "key:", n); got != present {
		t.Fatalf("after repair and restart: %d keys, want %d", got, present)
	}
}

// Hardening item 8: a non-final WAL segment cut at a record boundary (a
// gap before the next one). The start is refused naming the segment that
// cannot follow; --repair keeps every record before the gap, moves the
// later segments aside whole and counts their records, and the starts
// after it need no repair and take writes.
func TestRepairWALGap(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	const n = 2000
	dir := t.TempDir()
	cfgFile := filepath.Join(t.TempDir(), "small-segments.toml")
	if err := os.WriteFile(cfgFile, []byte("[persistence]\nsegment_size = \"4kb\"\nsnapshot_wal_bytes = 0\nsnapshot_every = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgArgs := []string{"--config", cfgFile}
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: cfgArgs})
	writeKeys(t, p, "key:", 0, n)
	p.Kill(t)

	segs, err := filepath.Glob(filepath.Join(dir, "shard-000-wal-*.log"))
	if err != nil || len(segs) < 6 {
		t.Fatalf("want several segments, got %d (%v)", len(segs), err)
	}
	sort.Strings(segs)
	// Cut the third segment after its first record.
	cut := segs[2]
	data, err := os.ReadFile(cut)
	if err != nil {
		t.Fatal(err)
	}
	offs := walRecords(t, data)
	if len(offs) < 2 {
		t.Fatalf("%s holds %d records", cut, len(offs))
	}
	if err := os.Truncate(cut, int64(offs[1])); err != nil {
		t.Fatal(err)
	}
	first, _, err := persistence.DecodeRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	kept := int(first.Seq) // key:i is record i+1
	next := segs[3]
	msg := finalError(t, refusedStart(t, dir, cfgArgs...))
	if !strings.Contains(msg, next) || !strings.Contains(msg, "--repair") {
		t.Fatalf("refusal does not name %s: %s", next, msg)
	}

	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: append([]string{"--repair"}, cfgArgs...)})
	if present, firstMissing := countKeys(t, r, "key:", n); present != kept || firstMissing != kept {
		t.Fatalf("after repair: %d keys, first missing %d; want the %d before the gap", present, firstMissing, kept)
	}
	dropped := n - (kept + len(offs) - 1) // records after the lost ones
	if !strings.Contains(r.Output(), fmt.Sprintf("%d intact records with sequences %d to %d) renamed to .broken", dropped, n-dropped+1, n)) {
		t.Fatalf("the loss is not counted exactly (%d records) in the log:\n%s", dropped, r.Output())
	}
	for _, s := range segs[3:] {
		if _, err := os.Stat(s + ".broken"); err != nil {
			t.Fatalf("%s not moved aside: %v", s, err)
		}
	}
	r.Kill(t)
	for i := 0; i < 2; i++ {
		q := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: cfgArgs})
		if present, _ := countKeys(t, q, "key:", n); present != kept+i {
			t.Fatalf("start %d after repair: %d keys, want %d", i+1, present, kept+i)
		}
		writeKeys(t, q, "key:", kept+i, kept+i+1)
		q.Kill(t)
	}
}
