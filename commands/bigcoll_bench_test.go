package commands

import (
	"fmt"
	"testing"
)

// One collection grown large and written to by every request, the way
// redis-benchmark -t hset/sadd/zadd/rpush/lpush -r 100000 loads it: one
// key, random members. Once the collection has grown, a command must not
// allocate (a list allocates only when it starts a new node).
//
//	go test ./commands -run '^$' -bench BigCollection -benchmem

const bigCollectionMembers = 100000

// benchmarkBigCollection grows key with setup(i) for every member i, then
// times cmd(i) on members in a scattered order.
func benchmarkBigCollection(b *testing.B, setup, cmd func(i int) []string) {
	sh := benchShard(b)
	for i := 0; i < bigCollectionMembers; i++ {
		sh.Ctx.W.Reset()
		sh.Exec(&sh.Ctx, toArgv(setup(i)...))
	}
	// The requests are encoded up front so that the loop times the
	// command alone: parse, dispatch, the collection and the reply.
	const distinct = bigCollectionMembers
	reqs := make([][]byte, distinct)
	for j := range reqs {
		// A multiplicative step spreads consecutive requests over the
		// collection, as random members do.
		reqs[j] = resp(cmd((j * 40503) % bigCollectionMembers)...)
	}
	timeRequests(b, sh, reqs)
}

func elementName(i int) string { return fmt.Sprintf("element:%012d", i) }

func BenchmarkBigCollectionHSET(b *testing.B) {
	f := func(i int) []string { return []string{"HSET", "myhash", elementName(i), "xxx"} }
	benchmarkBigCollection(b, f, f)
}

func BenchmarkBigCollectionSADD(b *testing.B) {
	f := func(i int) []string { return []string{"SADD", "myset", elementName(i)} }
	benchmarkBigCollection(b, f, f)
}

func BenchmarkBigCollectionZADD(b *testing.B) {
	f := func(i int) []string {
		return []string{"ZADD", "myzset", fmt.Sprint(i), elementName(i)}
	}
	// Random scores, as redis-benchmark's: each ZADD moves its member
	// elsewhere in the skiplist.
	g := func(i int) []string {
		return []string{"ZADD", "myzset", fmt.Sprint((i * 7919) % bigCollectionMembers), elementName(i)}
	}
	benchmarkBigCollection(b, f, g)
}

func BenchmarkBigCollectionRPUSH(b *testing.B) {
	f := func(int) []string { return []string{"RPUSH", "mylist", "xxx"} }
	benchmarkBigCollection(b, f, f)
}

func BenchmarkBigCollectionLPUSH(b *testing.B) {
	f := func(int) []string { return []string{"LPUSH", "mylist", "xxx"} }
	benchmarkBigCollection(b, f, f)
}
