package rdb

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// streamCase is a stream built by commands on redis-server 7.0.15 whose
// DUMP payload is committed in testdata/dumps/<name>.bin.
type streamCase struct {
	name string
	cmds [][]any // run with the key as the second argument
	// exact: redis-server's bytes are what appendStream writes for the
	// decoded contents. Streams with deleted entries are not: Redis keeps
	// the deleted entries in their nodes, and which nodes they leave
	// depends on the history, not on the contents.
	exact bool
	check func(t *testing.T, s *Stream)
}

func streamGoldenCases() []streamCase {
	xadd := func(id string, fv ...string) []any {
		a := []any{"XADD", nil, id}
		for _, s := range fv {
			a = append(a, s)
		}
		return a
	}
	var big [][]any
	for i := range 700 {
		v := strconv.Itoa(i * 37)
		id := strconv.Itoa(1000+i*i) + "-" + strconv.Itoa(i%3)
		switch {
		case i%50 == 7:
			big = append(big, xadd(id, "other", strings.Repeat("x", i), "n", v))
		case i%3 == 0:
			big = append(big, xadd(id, "name", "user-"+v, "n", v, "blob", strings.Repeat("abcd", i%40)))
		default:
			big = append(big, xadd(id, "name", "user-"+v, "n", v))
		}
	}
	big = append(big, []any{"XGROUP_CREATE", nil, "readers", "0"},
		[]any{"XREADGROUP", "GROUP", "readers", "r1", "COUNT", "300", "STREAMS", nil, ">"})
	groups := [][]any{
		xadd("1-1", "a", "1", "b", "2"),
		xadd("1-2", "a", "3", "b", "hello"),
		xadd("2-0", "c", "x"),
		xadd("3-0", "a", "-70000", "b", "4"),
		xadd("4-0", "a", "5", "b", "6"),
		{"XGROUP_CREATE", nil, "g1", "0"},
		{"XGROUP_CREATE", nil, "g2", "$"},
		{"XGROUP_CREATE", nil, "g3", "0"},
		{"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", nil, ">"},
		{"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "2", "STREAMS", nil, ">"},
		{"XACK", nil, "g1", "1-2"},
		{"XREADGROUP", "GROUP", "g1", "alice", "STREAMS", nil, "0"},
		{"XCLAIM", nil, "g1", "carol", "0", "2-0"},
		{"XGROUP_SETID", nil, "g3", "2-0"},
		{"XGROUP_CREATECONSUMER", nil, "g2", "idle"},
	}
	return []streamCase{
		{name: "stream-simple", exact: true, cmds: [][]any{
			xadd("1-1", "a", "1", "b", "2"),
			xadd("1-2", "a", "3", "b", "4"),
			xadd("2-0", "c", "some text"),
			xadd("2-5", "a", strings.Repeat("long value ", 10), "b", "9223372036854775807"),
		}, check: func(t *testing.T, s *Stream) {
			if len(s.Entries) != 4 || s.LastID != (StreamID{2, 5}) || s.EntriesAdded != 4 || s.FirstID != (StreamID{1, 1}) {
				t.Fatalf("%+v", s)
			}
			if got := string(bytes.Join(s.Entries[2].Fields, []byte(","))); got != "c,some text" {
				t.Fatalf("entry 3: %s", got)
			}
		}},
		{name: "stream-empty-after-xdel", exact: true, cmds: [][]any{
			xadd("5-0", "f", "v"),
			{"XDEL", nil, "5-0"},
		}, check: func(t *testing.T, s *Stream) {
			if len(s.Entries) != 0 || s.LastID != (StreamID{5, 0}) || s.MaxDeletedID != (StreamID{5, 0}) || s.EntriesAdded != 1 || s.FirstID != (StreamID{}) {
				t.Fatalf("%+v", s)
			}
		}},
		{name: "stream-groups", exact: true, cmds: groups, check: func(t *testing.T, s *Stream) {
			if len(s.Groups) != 3 {
				t.Fatalf("%d groups", len(s.Groups))
			}
			g1, g2, g3 := s.Groups[0], s.Groups[1], s.Groups[2]
			if string(g1.Name) != "g1" || g1.LastID != (StreamID{3, 0}) || g1.EntriesRead != 4 || len(g1.PEL) != 3 || len(g1.Consumers) != 3 {
				t.Fatalf("g1 %+v", g1)
			}
			if c := g1.Consumers[0]; string(c.Name) != "alice" || len(c.PEL) != 1 || c.PEL[0] != (StreamID{1, 1}) {
				t.Fatalf("alice %+v", c)
			}
			if p := g1.PEL[0]; p.ID != (StreamID{1, 1}) || p.DeliveryCount != 2 {
				t.Fatalf("pel %+v", p)
			}
			if c := g1.Consumers[2]; string(c.Name) != "carol" || len(c.PEL) != 1 || c.PEL[0] != (StreamID{2, 0}) {
				t.Fatalf("carol %+v", c)
			}
			if g2.LastID != (StreamID{4, 0}) || g2.EntriesRead != -1 || len(g2.Consumers) != 1 || len(g2.PEL) != 0 {
				t.Fatalf("g2 %+v", g2)
			}
			if g3.LastID != (StreamID{2, 0}) || g3.EntriesRead != -1 {
				t.Fatalf("g3 %+v", g3)
			}
		}},
		{name: "stream-deleted", cmds: func() [][]any {
			var c [][]any
			for i := 1; i <= 250; i++ {
				c = append(c, xadd(strconv.Itoa(i)+"-0", "k", strconv.Itoa(i)))
			}
			for _, id := range []string{"1-0", "2-0", "50-0", "150-0", "250-0"} {
				c = append(c, []any{"XDEL", nil, id})
			}
			for i := 101; i <= 200; i++ {
				if i != 150 {
					c = append(c, []any{"XDEL", nil, strconv.Itoa(i) + "-0"})
				}
			}
			c = append(c, []any{"XTRIM", nil, "MINID", "10-0"})
			return c
		}(), check: func(t *testing.T, s *Stream) {
			// 250 added; 1..9 trimmed (1, 2 were deleted), 50, 101..200 and 250 deleted.
			if len(s.Entries) != 250-9-1-100-1 || s.EntriesAdded != 250 || s.LastID != (StreamID{250, 0}) ||
				s.MaxDeletedID != (StreamID{250, 0}) || s.FirstID != (StreamID{10, 0}) || s.Entries[0].ID != (StreamID{10, 0}) {
				t.Fatalf("%d entries, %+v %+v %+v %d", len(s.Entries), s.LastID, s.MaxDeletedID, s.FirstID, s.EntriesAdded)
			}
		}},
		{name: "stream-big", exact: true, cmds: big, check: func(t *testing.T, s *Stream) {
			if len(s.Entries) != 700 || len(s.Groups) != 1 || len(s.Groups[0].PEL) != 300 {
				t.Fatalf("%d entries, %d groups", len(s.Entries), len(s.Groups))
			}
		}},
	}
}

// streamDumpNodes is the number of nodes of a type 19 payload.
func streamDumpNodes(p []byte) int {
	n, _, _ := newDecoder(bytes.NewReader(p[1:])).length()
	return int(n)
}

// TestGoldenStreamDumps decodes redis-server's stream payloads and
// encodes their contents again.
func TestGoldenStreamDumps(t *testing.T) {
	for _, c := range streamGoldenCases() {
		p, err := os.ReadFile(goldenPath(c.name))
		if err != nil {
			t.Fatalf("%s: %v (capture with go test -run TestRedisServerStreamDumps -update)", c.name, err)
		}
		typ, v, err := ParseDump(p)
		if err != nil || typ != TypeStreamListpacks2 || v.Kind != KindStream {
			t.Fatalf("%s: type %d: %v", c.name, typ, err)
		}
		c.check(t, v.Stream)
		mine := AppendDump(nil, &v)
		if c.exact && !bytes.Equal(mine, p) {
			t.Errorf("%s: encoding differs from redis-server's:\n%x\n%x", c.name, mine, p)
		}
		_, back, err := ParseDump(mine)
		if err != nil || normalizeStream(back.Stream) != normalizeStream(v.Stream) {
			t.Fatalf("%s: own dump does not round-trip: %v", c.name, err)
		}
		if c.name == "stream-big" && streamDumpNodes(p) < 5 {
			t.Fatalf("stream-big has %d nodes only", streamDumpNodes(p))
		}
	}
}

// normalizeStream is a stream's contents as text; with noTimes the
// delivery and seen times are left out.
func normalizeStream(s *Stream, noTimes ...bool) string {
	var b strings.Builder
	for _, e := range s.Entries {
		b.WriteString(e.ID.String() + " " + strconv.Quote(string(bytes.Join(e.Fields, []byte{0}))) + "\n")
	}
	b.WriteString("last " + s.LastID.String() + " first " + s.FirstID.String() + " maxdel " + s.MaxDeletedID.String() + " added " + strconv.FormatUint(s.EntriesAdded, 10) + "\n")
	times := len(noTimes) == 0 || !noTimes[0]
	for _, g := range s.Groups {
		b.WriteString("group " + string(g.Name) + " " + g.LastID.String() + " " + strconv.FormatInt(g.EntriesRead, 10) + "\n")
		for _, p := range g.PEL {
			b.WriteString(" pel " + p.ID.String() + " " + strconv.FormatUint(p.DeliveryCount, 10))
			if times {
				b.WriteString(" " + strconv.FormatInt(p.DeliveryTime, 10))
			}
		}
		for _, c := range g.Consumers {
			b.WriteString(" consumer " + string(c.Name))
			if times {
				b.WriteString(" " + strconv.FormatInt(c.SeenTime, 10))
			}
			for _, id := range c.PEL {
				b.WriteString(" " + id.String())
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestRedisServerStreamDumps compares the committed stream payloads with
// what the installed redis-server produces (rewriting them with -update),
// and restores this package's payloads into it.
func TestRedisServerStreamDumps(t *testing.T) {
	c := startRedis(t)
	ctx := context.Background()
	if ver := c.Info(ctx, "server").Val(); !strings.Contains(ver, "redis_version:7.0.") {
		t.Skip("redis-server is not 7.0")
	}
	for _, sc := range streamGoldenCases() {
		key := "k:" + sc.name
		for _, cmd := range sc.cmds {
			args := slices.Clone(cmd)
			if s, ok := args[0].(string); ok && strings.HasPrefix(s, "XGROUP_") {
				args = append([]any{"XGROUP", strings.TrimPrefix(s, "XGROUP_")}, args[1:]...)
			}
			for i := range args {
				if args[i] == nil {
					args[i] = key
				}
			}
			if err := c.Do(ctx, args...).Err(); err != nil {
				t.Fatalf("%s: %v: %v", sc.name, args, err)
			}
		}
		p, err := c.Dump(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(goldenPath(sc.name), []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		committed, err := os.ReadFile(goldenPath(sc.name))
		if err != nil {
			t.Fatal(err)
		}
		_, v1, err1 := ParseDump(committed)
		_, v2, err2 := ParseDump([]byte(p))
		if err1 != nil || err2 != nil || normalizeStream(v1.Stream, true) != normalizeStream(v2.Stream, true) {
			t.Fatalf("%s: redis-server's payload differs from the committed one (%v, %v)", sc.name, err1, err2)
		}
		mine := AppendDump(nil, &v2)
		rkey := "r:" + sc.name
		if err := c.Do(ctx, "RESTORE", rkey, 0, string(mine)).Err(); err != nil {
			t.Fatalf("%s: redis-server refused our payload: %v", sc.name, err)
		}
		back, err := c.Dump(ctx, rkey).Result()
		if err != nil {
			t.Fatal(err)
		}
		_, v3, err := ParseDump([]byte(back))
		if err != nil || normalizeStream(v3.Stream) != normalizeStream(v2.Stream) {
			t.Fatalf("%s: restored into redis-server as something else (%v)", sc.name, err)
		}
	}
}

// legacyStream is a type 15 payload written by Redis 5 (RDB version 9):
// entries 1-0 … 6-0 with "data", 3-0 deleted, groups g1 and g2 at 0,
// four entries read by g1's consumer c11, then trimmed to two entries.
const legacyStream = "\x0F\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\xC3\x40\x4A\x40\x57\x16\x57\x00\x00\x00\x23\x00\x02\x01\x04\x01\x01\x01\x84\x64\x61\x74\x61\x05\x00\x01\x03\x01\x00\x20\x01\x03\x81\x61\x02\x04\x20\x0A\x00\x01\x40\x0A\x00\x62\x60\x0A\x00\x02\x40\x0A\x00\x63\x60\x0A\x40\x22\x01\x81\x64\x20\x0A\x40\x39\x20\x0A\x00\x65\x60\x0A\x00\x05\x40\x0A\x00\x66\x20\x0A\x00\xFF\x02\x06\x00\x02\x02\x67\x31\x05\x00\x04\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x01\x03\x63\x31\x31\x3E\xF7\x83\x43\x7A\x01\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x02\x67\x32\x00\x00\x00\x00\x09\x00\x3D\x52\xEF\x68\x67\x52\x1D\xFA"

func TestLegacyStream(t *testing.T) {
	typ, v, err := ParseDump([]byte(legacyStream))
	if err != nil || typ != TypeStreamListpacks {
		t.Fatalf("type %d: %v", typ, err)
	}
	s := v.Stream
	got := normalizeStream(s)
	want := "5-0 \"data\\x00e\"\n6-0 \"data\\x00f\"\n" +
		"last 6-0 first 5-0 maxdel 0-0 added 2\n" +
		"group g1 5-0 1\n pel 1-0 1 1624630359870 pel 2-0 1 1624630359870 pel 4-0 1 1624630359870 pel 5-0 1 1624630359870 consumer c11 1624630359870 1-0 2-0 4-0 5-0\n" +
		"group g2 0-0 0\n\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestStreamDecodeErrors checks malformed streams are refused.
func TestStreamDecodeErrors(t *testing.T) {
	good := AppendValue(nil, &Value{Kind: KindStream, Stream: &Stream{
		Entries: []StreamEntry{{ID: StreamID{1, 0}, Fields: bs("a", "1")}, {ID: StreamID{2, 0}, Fields: bs("b", "2")}},
		LastID:  StreamID{2, 0}, FirstID: StreamID{1, 0}, EntriesAdded: 2,
		Groups: []StreamGroup{{Name: []byte("g"), LastID: StreamID{2, 0}, EntriesRead: 2,
			PEL:       []StreamPending{{ID: StreamID{1, 0}, DeliveryTime: 5, DeliveryCount: 1}},
			Consumers: []StreamConsumer{{Name: []byte("c"), SeenTime: 5, PEL: []StreamID{{1, 0}}}}}},
	}})
	if _, _, err := ParseDump(AppendFooter(bytes.Clone(good), 0)); err != nil {
		t.Fatal(err)
	}
	// Every truncation fails.
	for i := range good {
		if _, _, err := ParseDump(AppendFooter(bytes.Clone(good[:i]), 0)); err == nil {
			t.Fatalf("truncated at %d: accepted", i)
		}
	}
	// A consumer owning an id the group does not have pending.
	bad := bytes.Clone(good)
	bad[len(bad)-1] = 9 // seq of the consumer's PEL id
	if _, _, err := ParseDump(AppendFooter(bad, 0)); err == nil {
		t.Fatal("consumer PEL id outside the group's PEL accepted")
	}
	// Length contradicting the entries.
	lenOff := bytes.Index(good, []byte{0x02, 0x02, 0x00, 0x01, 0x00}) // length 2, last 2-0, first 1-0
	if lenOff < 0 {
		t.Fatal("no metadata")
	}
	bad = bytes.Clone(good)
	bad[lenOff] = 3
	if _, _, err := ParseDump(AppendFooter(bad, 0)); err == nil {
		t.Fatal("wrong length accepted")
	}
}

// FuzzStream feeds stream bodies (after the type byte) to the decoder:
// no panic, and what decodes encodes and decodes to the same contents.
func FuzzStream(f *testing.F) {
	for _, c := range streamGoldenCases() {
		if p, err := os.ReadFile(goldenPath(c.name)); err == nil && len(p) < 4096 {
			f.Add(byte(TypeStreamListpacks2), p[1:len(p)-10])
		}
	}
	f.Add(byte(TypeStreamListpacks), []byte(legacyStream[1:len(legacyStream)-10]))
	f.Fuzz(func(t *testing.T, typ byte, body []byte) {
		if typ != byte(TypeStreamListpacks) {
			typ = byte(TypeStreamListpacks2)
		}
		_, v, err := ParseDump(AppendFooter(append([]byte{typ}, body...), 0))
		if err != nil {
			return
		}
		_, back, err := ParseDump(AppendDump(nil, &v))
		if err != nil || normalizeStream(back.Stream) != normalizeStream(v.Stream) {
			t.Fatalf("round trip: %v\n%s\n%s", err, normalizeStream(v.Stream), normalizeStream(back.Stream))
		}
	})
}
