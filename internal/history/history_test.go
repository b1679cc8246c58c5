package history

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// ms is a short way to write the hand-made histories' times.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// w is an acknowledged write or read of a register from call to ret (in ms).
func w(client int, kind Kind, key, value string, call, ret int) Op {
	op := Op{Client: client, Kind: kind, Key: key, Call: ms(call), Return: ms(ret), Outcome: OK}
	switch kind {
	case KindSet, KindXAdd, KindRelease:
		op.Value = value
	default:
		op.Output = value
		op.Nil = value == "<nil>"
		if op.Nil {
			op.Output = ""
		}
	}
	return op
}

func with(op Op, f func(*Op)) Op {
	f(&op)
	return op
}

func unknown(op Op) Op {
	return with(op, func(o *Op) { o.Outcome, o.Output, o.Err = Unknown, "", "i/o timeout" })
}
func failed(op Op) Op {
	return with(op, func(o *Op) { o.Outcome, o.Output, o.Err = Failed, "", "TRYAGAIN" })
}

func TestRecorder(t *testing.T) {
	r := NewRecorder()
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				h := r.Invoke(Op{Client: c, Kind: KindSet, Key: "k", Value: "v"})
				switch i % 3 {
				case 0:
					r.Complete(h, OK, "OK", false, "", nil)
				case 1:
					r.Complete(h, Failed, "", false, "", errors.New("ERR no"))
				}
			}
		}()
	}
	wg.Wait()
	ops := r.Ops()
	if len(ops) != 200 {
		t.Fatalf("got %d ops, want 200", len(ops))
	}
	for _, op := range ops {
		if op.Return < op.Call {
			t.Fatalf("%v returns before its call", op)
		}
	}
	n := Count(ops)[KindSet]
	if n != [3]int{4 * 17, 4 * 17, 4 * 16} {
		t.Errorf("counts %v", n)
	}
	// Each client's i-th op completed by i%3; the goroutines interleave, so
	// the checks follow each client's own sequence.
	var seq [4]int
	for _, op := range ops {
		i := seq[op.Client]
		seq[op.Client]++
		switch want := [3]Outcome{OK, Failed, Unknown}[i%3]; {
		case op.Outcome != want:
			t.Errorf("client %d op %d: outcome %v, want %v (%v)", op.Client, i, op.Outcome, want, op)
		case want == Unknown && op.Err == "":
			t.Errorf("an op never completed has no error: %v", op)
		}
	}

	var buf bytes.Buffer
	if err := WriteJSON(&buf, ops); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(ops) {
		t.Fatalf("JSON round trip: %d ops, want %d", len(back), len(ops))
	}
	for i := range ops {
		if back[i] != ops[i] {
			t.Fatalf("JSON round trip changed op %d: %v vs %v", i, back[i], ops[i])
		}
	}
	if _, err := ReadJSON(strings.NewReader(`{"outcome":"maybe"}`)); err == nil {
		t.Error("an unknown outcome was read")
	}
}

func TestLinearizable(t *testing.T) {
	cases := []struct {
		name string
		ops  []Op
		ok   bool
	}{
		{"sequential", []Op{
			w(0, KindGet, "x", "<nil>", 0, 1),
			w(0, KindSet, "x", "a", 2, 3),
			w(1, KindGet, "x", "a", 4, 5),
			w(1, KindIncr, "c", "1", 4, 5),
			w(0, KindIncr, "c", "2", 6, 7),
			w(2, KindGet, "c", "2", 8, 9),
		}, true},
		{"concurrent read sees either", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			w(1, KindSet, "x", "b", 2, 10),
			w(2, KindGet, "x", "a", 3, 4),
			w(2, KindGet, "x", "b", 5, 6),
		}, true},
		{"stale read", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			w(1, KindSet, "x", "b", 2, 3),
			w(2, KindGet, "x", "a", 4, 5),
		}, false},
		{"read of a value never written", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			w(2, KindGet, "x", "zzz", 4, 5),
		}, false},
		{"value flips back", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			w(1, KindSet, "x", "b", 2, 20),
			w(2, KindGet, "x", "b", 3, 4),
			w(2, KindGet, "x", "a", 5, 6),
		}, false},
		{"unknown write may land late", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			unknown(w(1, KindSet, "x", "b", 2, 3)),
			w(2, KindGet, "x", "a", 4, 5),
			w(2, KindGet, "x", "b", 50, 51),
		}, true},
		{"unknown write may never land", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			unknown(w(1, KindSet, "x", "b", 2, 3)),
			w(2, KindGet, "x", "a", 50, 51),
		}, true},
		{"failed write must not land", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			failed(w(1, KindSet, "x", "b", 2, 3)),
			w(2, KindGet, "x", "b", 50, 51),
		}, false},
		{"unread unknown write does not hide a stale read", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			unknown(w(1, KindSet, "x", "c", 1, 2)),
			w(1, KindSet, "x", "b", 2, 3),
			w(2, KindGet, "x", "a", 4, 5),
		}, false},
		{"unknown read constrains nothing", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			unknown(w(2, KindGet, "x", "zzz", 4, 5)),
		}, true},
		{"lost increment", []Op{
			w(0, KindIncr, "c", "1", 0, 1),
			w(1, KindIncr, "c", "2", 2, 3),
			w(2, KindIncr, "c", "2", 4, 5),
		}, false},
		{"unknown increment counts or not", []Op{
			w(0, KindIncr, "c", "1", 0, 1),
			unknown(w(1, KindIncr, "c", "", 2, 3)),
			w(2, KindGet, "c", "1", 4, 5),
			w(2, KindIncr, "c", "3", 6, 7),
		}, true},
		{"keys are independent, one bad", []Op{
			w(0, KindSet, "x", "a", 0, 1),
			w(1, KindSet, "y", "b", 0, 1),
			w(2, KindGet, "y", "<nil>", 4, 5),
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := CheckLinearizable(c.ops, 10*time.Second)
			if res.OK() != c.ok || res.Inconclusive != "" {
				t.Errorf("got %v %v, want ok=%v", res, res.Violations, c.ok)
			}
			if !c.ok && !strings.Contains(res.Violations[0], "key") {
				t.Errorf("the violation names no key: %v", res.Violations)
			}
		})
	}
}

func TestDurability(t *testing.T) {
	ops := []Op{
		w(0, KindSet, "d:1", "v1", 0, 1),
		w(0, KindSet, "d:2", "v2", 0, 1),
		unknown(w(0, KindSet, "d:3", "v3", 0, 1)),
		unknown(w(0, KindSet, "d:4", "v4", 0, 1)),
		failed(w(0, KindSet, "d:5", "v5", 0, 1)),
		w(0, KindSet, "r", "a", 0, 1), // written twice: not this checker's
		w(0, KindSet, "r", "b", 2, 3),
		w(0, KindSet, "d:6", "v6", 0, 1), // not read back
	}
	good := Final{Values: map[string]Read{
		"d:1": {Value: "v1"}, "d:2": {Value: "v2"}, "d:3": {Nil: true}, "d:4": {Value: "v4"},
		"d:5": {Nil: true}, "r": {Value: "a"},
	}}
	res := CheckDurability(ops, good)
	if !res.OK() || res.Checked != 5 || res.Skipped != 1 {
		t.Errorf("good: %v %v", res, res.Violations)
	}
	for name, f := range map[string]func(m map[string]Read){
		"lost":          func(m map[string]Read) { m["d:2"] = Read{Nil: true} },
		"foreign value": func(m map[string]Read) { m["d:3"] = Read{Value: "x"} },
		"failed landed": func(m map[string]Read) { m["d:5"] = Read{Value: "v5"} },
	} {
		bad := Final{Values: map[string]Read{}}
		for k, v := range good.Values {
			bad.Values[k] = v
		}
		f(bad.Values)
		res := CheckDurability(ops, bad)
		if res.OK() || len(res.Violations) != 1 || (name == "lost") != (res.Lost == 1) {
			t.Errorf("%s: %v %v", name, res, res.Violations)
		}
	}
}

func lease(client int, key, token string, ttl, call, ret int) Op {
	op := w(client, KindLease, key, token, call, ret)
	op.TTL = ms(ttl)
	return op
}

func TestLeases(t *testing.T) {
	cases := []struct {
		name string
		ops  []Op
		ok   bool
	}{
		{"released then granted", []Op{
			lease(0, "l", "1", 1000, 0, 10),
			w(0, KindRelease, "l", "1", 100, 110),
			lease(1, "l", "2", 1000, 105, 120),
		}, true},
		{"expired then granted", []Op{
			lease(0, "l", "1", 100, 0, 10),
			lease(1, "l", "2", 100, 105, 120),
		}, true},
		{"refused while held", []Op{
			lease(0, "l", "1", 1000, 0, 10),
			lease(1, "l", "<nil>", 1000, 20, 30),
		}, true},
		{"unknown grant is not relied on", []Op{
			unknown(lease(0, "l", "", 1000, 0, 10)),
			lease(1, "l", "2", 1000, 20, 30),
		}, true},
		{"other keys are independent", []Op{
			lease(0, "l", "1", 1000, 0, 10),
			lease(1, "m", "1", 1000, 20, 30),
		}, true},
		{"granted while held", []Op{
			lease(0, "l", "1", 1000, 0, 10),
			lease(1, "l", "2", 1000, 20, 30),
		}, false},
		{"granted before the TTL ran out", []Op{
			lease(0, "l", "1", 100, 0, 10),
			lease(1, "l", "2", 100, 50, 60),
		}, false},
		{"another client's release does not end a hold", []Op{
			lease(0, "l", "1", 1000, 0, 10),
			w(1, KindRelease, "l", "1", 20, 30),
			lease(1, "l", "2", 1000, 40, 50),
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := CheckLeases(c.ops, ms(5))
			if res.OK() != c.ok {
				t.Errorf("got %v %v, want ok=%v", res, res.Violations, c.ok)
			}
		})
	}
}

func idem(client int, kind Kind, key, owner, output, result string, call, ret int) Op {
	return Op{Client: client, Kind: kind, Key: key, Value: "fp", Owner: owner, TTL: ms(60000),
		Output: output, Result: result, Call: ms(call), Return: ms(ret), Outcome: OK}
}

func TestIdem(t *testing.T) {
	good := []Op{
		idem(0, KindIdemBegin, "i", "a", "acquired", "", 0, 1),
		idem(1, KindIdemBegin, "i", "b", "pending", "", 2, 3),
		idem(0, KindIdemComplete, "i", "a", "1", "ra", 4, 5),
		idem(1, KindIdemBegin, "i", "b", "completed", "ra", 6, 7),
		idem(1, KindIdemComplete, "i", "b", "0", "rb", 8, 9),
		unknown(idem(2, KindIdemComplete, "j", "c", "", "rc", 8, 9)),
	}
	if res := CheckIdem(good); !res.OK() {
		t.Errorf("good: %v %v", res, res.Violations)
	}
	twoResults := append(good[:4:4], idem(1, KindIdemBegin, "i", "b", "completed", "rb", 10, 11))
	if res := CheckIdem(twoResults); res.OK() {
		t.Errorf("two results passed: %v", res)
	}
	twoAcquires := []Op{
		idem(0, KindIdemBegin, "i", "a", "acquired", "", 0, 1),
		idem(1, KindIdemBegin, "i", "b", "acquired", "", 2, 3),
	}
	if res := CheckIdem(twoAcquires); res.OK() {
		t.Errorf("two acquires passed: %v", res)
	}
	expired := []Op{
		with(idem(0, KindIdemBegin, "i", "a", "acquired", "", 0, 1), func(o *Op) { o.TTL = ms(10) }),
		idem(1, KindIdemBegin, "i", "b", "acquired", "", 20, 21),
	}
	if res := CheckIdem(expired); !res.OK() {
		t.Errorf("an acquire after retention failed: %v", res.Violations)
	}
}

func xadd(client int, key, value, id string, call, ret int) Op {
	return with(w(client, KindXAdd, key, value, call, ret), func(o *Op) { o.Output = id })
}

func TestStreams(t *testing.T) {
	ops := []Op{
		xadd(0, "s", "a", "5-0", 0, 1),
		xadd(1, "s", "b", "5-1", 2, 3),
		unknown(xadd(1, "s", "c", "", 4, 5)),
		unknown(xadd(2, "s", "d", "", 4, 5)),
		failed(xadd(2, "s", "e", "", 6, 7)),
		xadd(0, "s", "f", "9-0", 8, 9),
		xadd(0, "t", "x", "1-0", 8, 9), // stream never read back
	}
	final := Final{Streams: map[string][]Entry{"s": {{"5-0", "a"}, {"5-1", "b"}, {"6-0", "d"}, {"9-0", "f"}}}}
	res := CheckStreams(ops, final)
	if !res.OK() || res.Checked != 1 || res.Skipped != 1 {
		t.Errorf("good: %v %v", res, res.Violations)
	}
	bad := map[string]struct {
		ops   []Op
		final []Entry
	}{
		"lost":        {ops, []Entry{{"5-0", "a"}, {"9-0", "f"}}},
		"other id":    {ops, []Entry{{"5-0", "a"}, {"5-2", "b"}, {"9-0", "f"}}},
		"failed seen": {ops, []Entry{{"5-0", "a"}, {"5-1", "b"}, {"7-0", "e"}, {"9-0", "f"}}},
		"unordered":   {ops, []Entry{{"5-0", "a"}, {"5-1", "b"}, {"9-0", "f"}, {"8-0", "d"}}},
		"real time": {[]Op{xadd(0, "s", "a", "5-0", 0, 1), xadd(1, "s", "b", "4-0", 2, 3)},
			[]Entry{{"4-0", "b"}, {"5-0", "a"}}},
	}
	for name, c := range bad {
		res := CheckStreams(c.ops, Final{Streams: map[string][]Entry{"s": c.final}})
		if res.OK() {
			t.Errorf("%s passed", name)
		}
		if (name == "lost") != (res.Lost > 0) {
			t.Errorf("%s: lost = %d", name, res.Lost)
		}
	}
}
