package commands

import (
	"strconv"
	"testing"
)

// SORT and the sorted set operations (ZUNION, ZINTER, ZDIFF and kin) on
// collections of 100 elements, with allocations reported, so that a change
// to how they are built shows in allocs/op:
//
//	go test ./commands -run '^$' -bench 'Sort|ZSetOps' -benchmem

// sortBenchSetup holds a list and a set of the numbers 0…99 in a shuffled
// order, a sorted set of 100 members, a weight key w_<n> and a hash h_<n>
// for each number.
func sortBenchSetup() [][]string {
	l := []string{"RPUSH", "l"}
	s := []string{"SADD", "s"}
	z := []string{"ZADD", "z"}
	setup := [][]string{}
	for i := 0; i < 100; i++ {
		n := strconv.Itoa(i * 37 % 100)
		l = append(l, n)
		s = append(s, "m"+n)
		z = append(z, n, "m"+n)
		setup = append(setup, []string{"SET", "w_" + n, strconv.Itoa(i)}, []string{"HSET", "h_" + n, "f", "v" + n})
	}
	return append(setup, l, s, z)
}

func BenchmarkSort(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"list", []string{"SORT", "l"}},
		{"list_alpha_limit", []string{"SORT", "l", "ALPHA", "DESC", "LIMIT", "10", "20"}},
		{"by_get", []string{"SORT", "l", "BY", "w_*", "GET", "#", "GET", "h_*->f"}},
		{"set_alpha", []string{"SORT_RO", "s", "ALPHA"}},
		{"zset_nosort_limit", []string{"SORT", "z", "BY", "nosort", "LIMIT", "5", "10"}},
		{"store", []string{"SORT", "l", "STORE", "dst"}},
	} {
		b.Run(c.name, func(b *testing.B) { benchmarkHotPath(b, sortBenchSetup(), c.args...) })
	}
}

func BenchmarkZSetOps(b *testing.B) {
	setup := [][]string{{"ZADD", "a"}, {"ZADD", "b"}}
	for i := 0; i < 100; i++ {
		setup[0] = append(setup[0], strconv.Itoa(i), "m"+strconv.Itoa(i))
		setup[1] = append(setup[1], strconv.Itoa(i), "m"+strconv.Itoa(i+50))
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"union", []string{"ZUNION", "2", "a", "b", "WITHSCORES"}},
		{"inter", []string{"ZINTER", "2", "a", "b", "AGGREGATE", "MAX"}},
		{"diff", []string{"ZDIFF", "2", "a", "b"}},
		{"unionstore", []string{"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"}},
		{"intercard", []string{"ZINTERCARD", "2", "a", "b", "LIMIT", "10"}},
	} {
		b.Run(c.name, func(b *testing.B) { benchmarkHotPath(b, setup, c.args...) })
	}
}
