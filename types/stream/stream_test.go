package stream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func fv(kv ...string) [][]byte {
	out := make([][]byte, len(kv))
	for i, s := range kv {
		out[i] = []byte(s)
	}
	return out
}

func dump(s *Stream, rev bool) []string {
	var out []string
	s.Range(MinID, MaxID, rev, func(e Entry) bool {
		var b bytes.Buffer
		b.WriteString(e.ID.String())
		e.Fields(func(f, v []byte) { fmt.Fprintf(&b, " %s=%s", f, v) })
		out = append(out, b.String())
		return true
	})
	return out
}

func TestParseID(t *testing.T) {
	cases := []struct {
		in       string
		want     ID
		auto, ok bool
	}{
		{"5", ID{5, 7}, false, true},
		{"5-3", ID{5, 3}, false, true},
		{"5-*", ID{5, 0}, true, true},
		{"18446744073709551615-18446744073709551615", MaxID, false, true},
		{"18446744073709551616", ID{}, false, false},
		{"-1", ID{}, false, false},
		{"a-1", ID{}, false, false},
		{"1-", ID{}, false, false},
		{"", ID{}, false, false},
		{"1-2-3", ID{}, false, false},
	}
	for _, c := range cases {
		id, auto, ok := ParseID([]byte(c.in), 7, true)
		if ok != c.ok || (ok && (id != c.want || auto != c.auto)) {
			t.Errorf("ParseID(%q) = %v %v %v, want %v %v %v", c.in, id, auto, ok, c.want, c.auto, c.ok)
		}
	}
	if _, _, ok := ParseID([]byte("5-*"), 0, false); ok {
		t.Error("ms-* accepted without autoSeq")
	}
}

func TestAddRangeDelete(t *testing.T) {
	s := New()
	cfg := Config{NodeMaxEntries: 3}
	for i := 1; i <= 10; i++ {
		f := fv("a", strconv.Itoa(i), "b", "x")
		if i%4 == 0 {
			f = fv("c", strconv.Itoa(i))
		}
		if err := s.Add(cfg, ID{uint64(i), 0}, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(cfg, ID{10, 0}, fv("a", "1")); err != ErrIDTooSmall {
		t.Fatalf("equal id: %v", err)
	}
	if s.Len() != 10 || s.Nodes() != 4 {
		t.Fatalf("len %d nodes %d", s.Len(), s.Nodes())
	}
	got := dump(s, false)
	if got[3] != "4-0 c=4" || got[0] != "1-0 a=1 b=x" || len(got) != 10 {
		t.Fatalf("%q", got)
	}
	rev := dump(s, true)
	slices.Reverse(rev)
	if !slices.Equal(rev, got) {
		t.Fatalf("reverse %q", rev)
	}
	if !s.Delete(ID{5, 0}) || s.Delete(ID{5, 0}) || s.Delete(ID{99, 0}) {
		t.Fatal("delete")
	}
	if s.MaxDeletedID() != (ID{5, 0}) || s.Len() != 9 {
		t.Fatal("after delete")
	}
	// Deleting a whole node drops it.
	s.Delete(ID{4, 0})
	s.Delete(ID{6, 0})
	if s.Nodes() != 3 {
		t.Fatalf("nodes %d", s.Nodes())
	}
	var ids []string
	s.Range(ID{3, 0}, ID{8, 0}, false, func(e Entry) bool { ids = append(ids, e.ID.String()); return true })
	if fmt.Sprint(ids) != "[3-0 7-0 8-0]" {
		t.Fatal(ids)
	}
	if s.FirstID() != (ID{1, 0}) || s.LastEntryID() != (ID{10, 0}) {
		t.Fatal("edges")
	}
}

func TestTrim(t *testing.T) {
	s := New()
	for i := 1; i <= 250; i++ {
		s.Add(DefaultConfig, ID{uint64(i), 1}, fv("f", "v"))
	}
	n, last := s.Trim(100, ID{}, false, 0)
	if n != 150 || last != (ID{150, 1}) || s.Len() != 100 || s.FirstID() != (ID{151, 1}) {
		t.Fatalf("maxlen: %d %v %d", n, last, s.Len())
	}
	n, _ = s.Trim(0, ID{200, 0}, true, 10)
	if n != 10 || s.FirstID() != (ID{161, 1}) {
		t.Fatalf("minid limit: %d %v", n, s.FirstID())
	}
	n, _ = s.Trim(0, ID{200, 0}, true, 0)
	if n != 39 || s.FirstID() != (ID{200, 1}) || s.Len() != 51 {
		t.Fatalf("minid: %d %v %d", n, s.FirstID(), s.Len())
	}
	if n, _ := s.Trim(1000, ID{}, false, 0); n != 0 {
		t.Fatal("trim above length")
	}
	s.Trim(0, ID{}, false, 0)
	if s.Len() != 0 || s.Nodes() != 0 || s.LastID() != (ID{250, 1}) {
		t.Fatal("trim to zero")
	}
}

func TestNextIDs(t *testing.T) {
	s := New()
	if id, _ := s.NextSeqID(0); id != (ID{0, 1}) {
		t.Fatal(id)
	}
	s.Add(DefaultConfig, ID{5, 3}, fv("a", "b"))
	if id, _ := s.NextAutoID(4); id != (ID{5, 4}) {
		t.Fatal(id)
	}
	if id, _ := s.NextAutoID(6); id != (ID{6, 0}) {
		t.Fatal(id)
	}
	if id, _ := s.NextSeqID(5); id != (ID{5, 4}) {
		t.Fatal(id)
	}
	if _, ok := s.NextSeqID(4); ok {
		t.Fatal("smaller ms")
	}
}

func TestPEL(t *testing.T) {
	s := New()
	g := s.CreateGroup([]byte("g"), ID{}, 0)
	if s.CreateGroup([]byte("g"), ID{}, 0) != nil {
		t.Fatal("duplicate group")
	}
	a := g.CreateConsumer([]byte("a"), 10)
	b := g.CreateConsumer([]byte("b"), 10)
	for i := 1; i <= 100; i++ {
		g.SetPending(ID{uint64(i), 0}, a, 100, 1)
	}
	// Move odd ids to b, then some back to a.
	for i := 1; i <= 100; i += 2 {
		g.SetPending(ID{uint64(i), 0}, b, 200, 2)
	}
	for i := 1; i <= 20; i += 2 {
		g.SetPending(ID{uint64(i), 0}, a, 300, 3)
	}
	if a.PendingCount() != 60 || b.PendingCount() != 40 || g.PendingCount() != 100 {
		t.Fatalf("%d %d %d", a.PendingCount(), b.PendingCount(), g.PendingCount())
	}
	var got []ID
	a.Pending(MinID, MaxID, func(p *Pending) bool { got = append(got, p.ID); return true })
	if len(got) != 60 || !slices.IsSortedFunc(got, ID.Compare) {
		t.Fatalf("a's pel %v", got)
	}
	for i := 1; i <= 100; i++ {
		if !g.Ack(ID{uint64(i), 0}) {
			t.Fatal("ack", i)
		}
		if i == 50 && (a.PendingCount()+b.PendingCount() != 50) {
			t.Fatal("counts mid-ack")
		}
	}
	if g.Ack(ID{1, 0}) || g.PendingCount() != 0 || a.PendingCount() != 0 {
		t.Fatal("after acks")
	}
	g.SetPending(ID{7, 0}, a, 1, 1)
	g.SetPending(ID{3, 0}, a, 1, 1)
	if n, ok := g.DeleteConsumer([]byte("a")); !ok || n != 2 || g.PendingCount() != 0 {
		t.Fatal("delete consumer")
	}
	var rev []ID
	g.SetPending(ID{1, 0}, b, 1, 1)
	g.SetPending(ID{2, 0}, b, 1, 1)
	g.SetPending(ID{3, 0}, b, 1, 1)
	g.PendingRev(ID{1, 5}, MaxID, func(p *Pending) bool { rev = append(rev, p.ID); return true })
	if fmt.Sprint(rev) != "[3-0 2-0]" {
		t.Fatal(rev)
	}
}

func TestPlanReadHolds(t *testing.T) {
	s := New()
	s.Add(DefaultConfig, ID{1, 0}, fv("n", "1"))
	s.Add(DefaultConfig, ID{2, 0}, fv("n", "2"))
	s.AddHold(ID{2, 0}, 1000)
	s.Add(DefaultConfig, ID{3, 0}, fv("n", "3"))
	g := s.CreateGroup([]byte("g"), ID{}, 0)
	c := g.CreateConsumer([]byte("c"), 0)
	apply := func(r Read, now int64) []ID {
		var ids []ID
		for _, e := range r.Entries {
			ids = append(ids, e.ID)
		}
		g.ApplyRead(c, ids, r.Deferred, r.Resolved, r.LastID, r.EntriesRead, now, false)
		return ids
	}
	if s.HeldCount(500) != 1 {
		t.Fatal("held count")
	}
	got := apply(s.PlanRead(g, 0, 500), 500)
	if fmt.Sprint(got) != "[1-0 3-0]" || fmt.Sprint(g.Deferred) != "[2-0]" || g.LastID != (ID{3, 0}) {
		t.Fatalf("before due: %v %v", got, g.Deferred)
	}
	if got := apply(s.PlanRead(g, 0, 999), 999); len(got) != 0 {
		t.Fatal("delivered early", got)
	}
	s.Add(DefaultConfig, ID{4, 0}, fv("n", "4"))
	got = apply(s.PlanRead(g, 0, 1000), 1000)
	if fmt.Sprint(got) != "[2-0 4-0]" || len(g.Deferred) != 0 {
		t.Fatalf("when due: %v %v", got, g.Deferred)
	}
	if got := apply(s.PlanRead(g, 0, 2000), 2000); len(got) != 0 {
		t.Fatal("delivered twice", got)
	}
	if g.EntriesRead != 4 {
		t.Fatal("entries read", g.EntriesRead)
	}
	// A deferred entry deleted before it is due is resolved away.
	s.Add(DefaultConfig, ID{5, 0}, fv("n", "5"))
	s.AddHold(ID{5, 0}, 3000)
	apply(s.PlanRead(g, 0, 2500), 2500)
	s.Delete(ID{5, 0})
	r := s.PlanRead(g, 0, 4000)
	if len(r.Entries) != 0 || fmt.Sprint(r.Resolved) != "[5-0]" {
		t.Fatal("deleted deferred", r)
	}
	if _, held := s.HoldOf(ID{5, 0}); held {
		t.Fatal("hold of a deleted entry kept")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	s := New()
	cfg := Config{NodeMaxEntries: 4, NodeMaxBytes: 200}
	for i := 1; i <= 50; i++ {
		f := fv("a", strconv.Itoa(i))
		if i%3 == 0 {
			f = fv("x", "y", "z", strconv.Itoa(i))
		}
		s.Add(cfg, ID{uint64(i), uint64(i % 2)}, f)
	}
	s.Delete(ID{10, 0})
	s.Delete(ID{11, 1})
	s.Trim(45, ID{}, false, 0)
	s.AddHold(ID{50, 0}, 12345)
	g := s.CreateGroup([]byte("g1"), ID{20, 0}, 17)
	c1 := g.CreateConsumer([]byte("c1"), 5)
	c2 := g.CreateConsumer([]byte("c2"), 6)
	g.SetPending(ID{12, 0}, c1, 100, 2)
	g.SetPending(ID{13, 1}, c2, 101, 1)
	g.Defer(ID{15, 1})
	s.CreateGroup([]byte("g0"), ID{}, InvalidEntriesRead)
	enc := s.AppendBinary(nil)
	d, err := Unmarshal(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d.AppendBinary(nil), enc) {
		t.Fatal("re-encoding differs")
	}
	if !slices.Equal(dump(d, false), dump(s, false)) || d.Len() != s.Len() {
		t.Fatal("entries differ")
	}
	if !bytes.Equal(s.Clone().AppendBinary(nil), enc) {
		t.Fatal("clone differs")
	}
	// The hold trailer is optional: the encoding without it is a stream.
	noHolds := s.Clone()
	noHolds.PruneHolds(1 << 62)
	trailer := len(noHolds.AppendBinary(nil))
	for i := range enc {
		if _, err := Unmarshal(enc[:i]); err == nil && i != trailer {
			t.Fatalf("prefix of %d bytes accepted", i)
		}
	}
}

// model is the reference the fuzz test checks the stream against.
type model struct {
	ids    []ID
	fields map[ID][]string
	last   ID
}

func FuzzModel(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 200, 201, 202})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := New()
		m := model{fields: map[ID][]string{}}
		cfg := Config{NodeMaxEntries: 5, NodeMaxBytes: 120}
		for i, op := range ops {
			switch op % 7 {
			case 0, 1, 2: // add
				id, _ := s.NextAutoID(m.last.Ms + uint64(op>>5))
				kv := []string{"f", strconv.Itoa(i)}
				if op&8 != 0 {
					kv = []string{"g" + strconv.Itoa(int(op>>4)), "v", "h", strconv.Itoa(i)}
				}
				if err := s.Add(cfg, id, fv(kv...)); err != nil {
					t.Fatal(err)
				}
				m.ids = append(m.ids, id)
				m.fields[id] = kv
				m.last = id
			case 3: // delete
				if len(m.ids) > 0 {
					k := int(op>>3) % len(m.ids)
					if !s.Delete(m.ids[k]) {
						t.Fatal("delete missed")
					}
					m.ids = slices.Delete(m.ids, k, k+1)
				}
			case 4: // maxlen
				n := int64(op >> 3)
				s.Trim(n, ID{}, false, 0)
				if int64(len(m.ids)) > n {
					m.ids = m.ids[len(m.ids)-int(n):]
				}
			case 5: // minid
				if len(m.ids) > 0 {
					k := int(op>>3) % len(m.ids)
					s.Trim(0, m.ids[k], true, 0)
					m.ids = m.ids[k:]
				}
			case 6: // round trip
				d, err := Unmarshal(s.AppendBinary(nil))
				if err != nil {
					t.Fatal(err)
				}
				s = d
			}
			if s.Len() != int64(len(m.ids)) {
				t.Fatalf("len %d, model %d", s.Len(), len(m.ids))
			}
		}
		var want []string
		for _, id := range m.ids {
			want = append(want, id.String()+" "+fmt.Sprint(m.fields[id]))
		}
		var got []string
		s.Range(MinID, MaxID, false, func(e Entry) bool {
			var kv []string
			e.Fields(func(f, v []byte) { kv = append(kv, string(f), string(v)) })
			got = append(got, e.ID.String()+" "+fmt.Sprint(kv))
			return true
		})
		if !slices.Equal(got, want) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
		rev := dump(s, true)
		if len(rev) != len(want) {
			t.Fatal("reverse length")
		}
		// Ranges from every model id.
		for k, id := range m.ids {
			n := 0
			s.Range(id, MaxID, false, func(Entry) bool { n++; return true })
			if n != len(m.ids)-k {
				t.Fatalf("range from %v: %d", id, n)
			}
		}
	})
}

func FuzzUnmarshal(f *testing.F) {
	s := New()
	for i := 1; i < 20; i++ {
		s.Add(Config{NodeMaxEntries: 4}, ID{uint64(i), 0}, fv("a", "b"))
	}
	g := s.CreateGroup([]byte("g"), ID{3, 0}, 3)
	g.SetPending(ID{2, 0}, g.CreateConsumer([]byte("c"), 1), 1, 1)
	s.AddHold(ID{19, 0}, 5)
	f.Add(s.AppendBinary(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Unmarshal(b)
		if err != nil {
			return
		}
		dump(d, false)
		dump(d, true)
		if _, err := Unmarshal(d.AppendBinary(nil)); err != nil {
			t.Fatal("re-encoding rejected:", err)
		}
	})
}

func BenchmarkAdd5Fields(b *testing.B) {
	s := New()
	f := fv("f1", "value-1", "f2", "value-2", "f3", "value-3", "f4", "value-4", "f5", "value-5")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Add(DefaultConfig, ID{uint64(i + 1), 0}, f)
	}
	b.ReportMetric(float64(s.MemoryUsage())/float64(b.N), "bytes/entry")
}

func BenchmarkRange10(b *testing.B) {
	s := New()
	f := fv("f1", "value-1", "f2", "value-2")
	for i := 0; i < 100000; i++ {
		s.Add(DefaultConfig, ID{uint64(i + 1), 0}, f)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		s.Range(ID{uint64(r.IntN(100000)), 0}, MaxID, false, func(e Entry) bool {
			e.Fields(func(_, _ []byte) {})
			n++
			return n < 10
		})
	}
}

func BenchmarkPELAck(b *testing.B) {
	s := New()
	g := s.CreateGroup([]byte("g"), ID{}, 0)
	c := g.CreateConsumer([]byte("c"), 0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		id := ID{uint64(i + 1), 0}
		g.SetPending(id, c, 1, 1)
		if i >= 16 {
			g.Ack(ID{uint64(i - 15), 0})
		}
	}
}

// FuzzGroup checks a group's PEL and consumers against a map model under
// random deliveries, moves, acks and consumer deletions.
func FuzzGroup(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Add([]byte{0, 8, 16, 24, 1, 9, 17, 25, 2, 3, 3, 3, 4, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := New()
		g := s.CreateGroup([]byte("g"), ID{}, 0)
		names := []string{"a", "b", "c"}
		owner := map[ID]string{}
		for i, op := range ops {
			id := ID{uint64(op >> 3), 0}
			name := names[int(op>>1)%len(names)]
			switch op % 4 {
			case 0, 1: // deliver or move
				c := g.Consumer([]byte(name))
				if c == nil {
					c = g.CreateConsumer([]byte(name), int64(i))
				}
				g.SetPending(id, c, int64(i), uint64(i))
				owner[id] = name
			case 2:
				_, had := owner[id]
				if g.Ack(id) != had {
					t.Fatalf("ack %v: model had %v", id, had)
				}
				delete(owner, id)
			case 3:
				n, ok := g.DeleteConsumer([]byte(name))
				want := 0
				for k, o := range owner {
					if o == name {
						want++
						delete(owner, k)
					}
				}
				if ok && n != want || !ok && want != 0 {
					t.Fatalf("delete consumer %s: %d %v, model %d", name, n, ok, want)
				}
			}
			var ids []ID
			g.Pending(MinID, MaxID, func(p *Pending) bool {
				if owner[p.ID] != p.Consumer.Name {
					t.Fatalf("%v owned by %s, model %s", p.ID, p.Consumer.Name, owner[p.ID])
				}
				ids = append(ids, p.ID)
				return true
			})
			if len(ids) != len(owner) || g.PendingCount() != len(owner) || !slices.IsSortedFunc(ids, ID.Compare) {
				t.Fatalf("pel %v, model %v", ids, owner)
			}
			for _, c := range g.Consumers() {
				n := 0
				c.Pending(MinID, MaxID, func(p *Pending) bool {
					if owner[p.ID] != c.Name {
						t.Fatalf("consumer %s lists %v owned by %s", c.Name, p.ID, owner[p.ID])
					}
					n++
					return true
				})
				if n != c.PendingCount() {
					t.Fatalf("consumer %s: %d listed, count %d", c.Name, n, c.PendingCount())
				}
			}
		}
		d, err := Unmarshal(s.AppendBinary(nil))
		if err != nil || d.Group([]byte("g")).PendingCount() != len(owner) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"1-2", "5", "5-*", "18446744073709551615-18446744073709551615", "-", "+", "1-", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, auto, ok := ParseID([]byte(s), 0, true)
		if !ok || auto {
			return
		}
		// A parsed id prints back as a form that parses to itself.
		back, _, ok2 := ParseID([]byte(id.String()), 0, false)
		if !ok2 || back != id {
			t.Fatalf("%q -> %v -> %v", s, id, back)
		}
	})
}
