// Command bullmq runs the Lua scripts of the BullMQ job-queue library against
// Ruvio and redis-server side by side and reports every reply that differs.
//
// The scripts are read from a BullMQ checkout (its src/commands directory;
// they are never part of this repository). Each top-level script has its
// `--- @include "…"` lines expanded the way BullMQ's own loader does (the
// path is relative to the including file, ".lua" appended, each file
// included once per script), is loaded with SCRIPT LOAD on both servers,
// then a job lifecycle (add standard, prioritized and delayed jobs, count,
// states, change delay and priority, logs, data and progress, take, extend
// the lock, complete, fail, reprocess, promote, pause, resume, list,
// remove, drain, obliterate) runs step by step with the same arguments and
// fixed timestamps on both. A step's replies must be equal; after the run the
// two keyspaces must hold the same keys with the same contents (stream entry
// ids, which carry the wall clock, are compared by count only).
//
//	go run ./conformance/bullmq -src /path/to/bullmq/src/commands \
//	    -ruvio 127.0.0.1:6380 -redis 127.0.0.1:6379
//
// Both servers are flushed first. The exit status is 1 when anything
// differs.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

func main() {
	src := flag.String("src", "", "BullMQ's src/commands directory")
	ruvioAddr := flag.String("ruvio", "127.0.0.1:6380", "Ruvio's address")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "redis-server's address")
	verbose := flag.Bool("v", false, "print every step's reply")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "bullmq: -src is required (BullMQ's src/commands directory)")
		os.Exit(2)
	}
	scripts, err := loadScripts(*src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bullmq:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	r := &run{
		ctx:     ctx,
		ruvio:   redis.NewClient(&redis.Options{Addr: *ruvioAddr, Protocol: 2}),
		redis:   redis.NewClient(&redis.Options{Addr: *redisAddr, Protocol: 2}),
		scripts: scripts,
		verbose: *verbose,
	}
	for _, c := range []*redis.Client{r.ruvio, r.redis} {
		if err := c.FlushAll(ctx).Err(); err != nil {
			fmt.Fprintf(os.Stderr, "bullmq: FLUSHALL on %s: %v\n", c.Options().Addr, err)
			os.Exit(2)
		}
	}
	r.loadAll()
	r.lifecycle()
	r.compareKeyspaces()
	fmt.Printf("scripts: %d loaded on both, %d differ; steps: %d run, %d differ; keys: %d compared, %d differ; %d equal but for JSON key order\n",
		r.loaded, r.loadDiffs, r.steps, r.stepDiffs, r.keys, r.keyDiffs, r.jsonOrder)
	if r.loadDiffs+r.stepDiffs+r.keyDiffs > 0 {
		os.Exit(1)
	}
}

// script is one expanded top-level script.
type script struct {
	name    string // file name without ".lua", e.g. "addStandardJob-9"
	numKeys int    // from the name's "-N" suffix
	body    string
	sha     string
}

var includeLine = regexp.MustCompile(`(?m)^-{2,3}[ \t]*@include[ \t]+["'](.+?)["'][; \t]*$`)

// loadScripts reads and expands every *.lua file directly in dir.
func loadScripts(dir string) (map[string]*script, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.lua files in %s", dir)
	}
	out := make(map[string]*script, len(files))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".lua")
		dash := strings.LastIndexByte(name, '-')
		n, err := strconv.Atoi(name[dash+1:])
		if dash < 0 || err != nil {
			return nil, fmt.Errorf("%s: the name does not end in -<number of keys>", f)
		}
		body, err := expand(f, map[string]bool{})
		if err != nil {
			return nil, err
		}
		out[name] = &script{name: name, numKeys: n, body: body}
	}
	return out, nil
}

// expand returns file with its includes replaced by their expanded text;
// seen holds the files already included in this script.
func expand(file string, seen map[string]bool) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var failed error
	text := includeLine.ReplaceAllStringFunc(string(b), func(line string) string {
		ref := includeLine.FindStringSubmatch(line)[1]
		path := filepath.Join(filepath.Dir(file), ref+".lua")
		if seen[path] {
			return ""
		}
		seen[path] = true
		inc, err := expand(path, seen)
		if err != nil && failed == nil {
			failed = fmt.Errorf("%s: %w", file, err)
		}
		return inc
	})
	return text, failed
}

type run struct {
	ctx          context.Context
	ruvio, redis *redis.Client
	scripts      map[string]*script
	verbose      bool

	loaded, loadDiffs int
	steps, stepDiffs  int
	keys, keyDiffs    int
	// jsonOrder counts replies and keys that differ only in the order of
	// JSON object keys inside strings.
	jsonOrder int
}

func (r *run) loadAll() {
	names := make([]string, 0, len(r.scripts))
	for n := range r.scripts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := r.scripts[n]
		shaR, errR := r.redis.ScriptLoad(r.ctx, s.body).Result()
		shaV, errV := r.ruvio.ScriptLoad(r.ctx, s.body).Result()
		if errR != nil || errV != nil || shaR != shaV {
			r.loadDiffs++
			fmt.Printf("LOAD %s: redis %q %v, ruvio %q %v\n", n, shaR, errR, shaV, errV)
			continue
		}
		s.sha = shaR
		r.loaded++
	}
}

// step runs script name with keys and args on both servers and compares
// the replies; it returns redis-server's reply.
func (r *run) step(label, name string, keys []string, args ...any) any {
	s := r.scripts[name]
	if s == nil {
		fmt.Printf("STEP %s: no script %s in this BullMQ version\n", label, name)
		r.stepDiffs++
		return nil
	}
	if len(keys) != s.numKeys {
		panic(fmt.Sprintf("%s: %d keys given, the script takes %d", name, len(keys), s.numKeys))
	}
	r.steps++
	want, errR := r.redis.EvalSha(r.ctx, s.sha, keys, args...).Result()
	got, errV := r.ruvio.EvalSha(r.ctx, s.sha, keys, args...).Result()
	w, g := show(want, errR), show(got, errV)
	if w != g && show(canonicalJSON(want), errR) == show(canonicalJSON(got), errV) {
		// Lua's table iteration order decides the order of cjson's object
		// keys; Ruvio's interpreter iterates in another order. Same JSON.
		r.jsonOrder++
		if r.verbose {
			fmt.Printf("step %s (%s): same JSON, other key order:\n  redis: %s\n  ruvio: %s\n", label, name, w, g)
		}
	} else if w != g {
		r.stepDiffs++
		fmt.Printf("STEP %s (%s):\n  redis: %s\n  ruvio: %s\n", label, name, w, g)
	} else if r.verbose {
		fmt.Printf("step %s (%s): %s\n", label, name, w)
	}
	return want
}

// canonicalJSON returns v with every string that holds a JSON object or
// array re-encoded with its object keys sorted.
func canonicalJSON(v any) any {
	switch x := v.(type) {
	case string:
		return canonicalJSONString(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = canonicalJSON(x[i])
		}
		return out
	}
	return v
}

func canonicalJSONString(s string) string {
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return s
	}
	var j any
	if json.Unmarshal([]byte(s), &j) != nil {
		return s
	}
	b, err := json.Marshal(j) // encoding/json writes map keys sorted
	if err != nil {
		return s
	}
	return string(b)
}

func show(v any, err error) string {
	if err != nil && err != redis.Nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%#v", v)
}

// Queue "q" with BullMQ's default prefix.
const prefix = "bull:q:"

func k(name string) string { return prefix + name }

// now is the fixed clock of the run (ms).
const now = 1_700_000_000_000

func (r *run) lifecycle() {
	jobArgs := func(id, name string, ts int64) []byte {
		return pack([]any{prefix, id, name, ts, nil, nil, nil, nil, nil})
	}
	addStd := func(label, id string, opts map[string]any) any {
		return r.step(label, "addStandardJob-9",
			[]string{k("wait"), k("paused"), k("meta"), k("id"), k("completed"), k("delayed"), k("active"), k("events"), k("marker")},
			jobArgs(id, "job", now), `{"n":1}`, pack(opts))
	}
	addStd("add job 1", "", map[string]any{"attempts": 3})
	addStd("add job 2", "", map[string]any{"attempts": 1, "removeOnComplete": true})
	addStd("add lifo job 3", "", map[string]any{"lifo": true})
	addStd("add custom id", "custom-7", map[string]any{})
	addStd("add duplicate custom id", "custom-7", map[string]any{})
	r.step("add prioritized", "addPrioritizedJob-9",
		[]string{k("marker"), k("meta"), k("id"), k("prioritized"), k("delayed"), k("completed"), k("active"), k("events"), k("pc")},
		jobArgs("", "prio", now), `{"p":5}`, pack(map[string]any{"priority": 5}))
	r.step("add delayed", "addDelayedJob-6",
		[]string{k("marker"), k("meta"), k("id"), k("delayed"), k("completed"), k("events")},
		jobArgs("", "later", now), `{"d":1}`, pack(map[string]any{"delay": 5000}))

	counts := func(label string) {
		r.step(label, "getCounts-1", []string{prefix},
			"wait", "paused", "active", "delayed", "prioritized", "completed", "failed", "waiting-children")
	}
	counts("counts after adding")
	stateKeys := []string{k("completed"), k("failed"), k("delayed"), k("active"), k("wait"), k("paused"), k("waiting-children"), k("prioritized")}
	for _, id := range []string{"1", "6", "7", "custom-7", "404"} {
		r.step("state of job "+id, "getStateV2-8", stateKeys, id)
	}
	r.step("change delay", "changeDelay-4", []string{k("delayed"), k("meta"), k("marker"), k("events")}, 8000, now, "7", k("7"))
	r.step("change priority", "changePriority-7",
		[]string{k("wait"), k("paused"), k("meta"), k("prioritized"), k("active"), k("pc"), k("marker")}, 2, prefix, "6", 0)
	r.step("counts per priority", "getCountsPerPriority-2", []string{k("wait"), k("prioritized")}, 0, 2, 5)
	r.step("add a log line", "addLog-2", []string{k("1"), k("1:logs")}, "1", "hello", 10)
	r.step("update data", "updateData-1", []string{k("1")}, `{"n":2}`)
	r.step("update progress", "updateProgress-3", []string{k("1"), k("events"), k("meta")}, "1", "50")

	activeKeys := []string{k("wait"), k("active"), k("prioritized"), k("events"), k("stalled"), k("limiter"),
		k("delayed"), k("paused"), k("meta"), k("pc"), k("marker")}
	take := func(label, token string, ts int64) any {
		return r.step(label, "moveToActive-11", activeKeys, prefix, ts,
			pack(map[string]any{"token": token, "lockDuration": 30000}))
	}
	first := take("take a job", "tok-1", now+10)
	id1 := jobIDOf(first)
	r.step("extend lock", "extendLock-2", []string{k(id1 + ":lock"), k("stalled")}, "tok-1", 30000, id1)
	r.step("extend lock with a wrong token", "extendLock-2", []string{k(id1 + ":lock"), k("stalled")}, "nope", 30000, id1)

	finish := func(label, id, token, target, prop, val string, fetchNext int, ts int64) any {
		keys := []string{k("wait"), k("active"), k("prioritized"), k("events"), k("stalled"), k("limiter"),
			k("delayed"), k("paused"), k("meta"), k("pc"), k(target), k(id), k("metrics:" + target), k("marker")}
		return r.step(label, "moveToFinished-14", keys, id, ts, prop, val, target, fetchNext, prefix,
			pack(map[string]any{"token": token, "keepJobs": map[string]any{"count": -1}, "lockDuration": 30000,
				"attempts": 0, "maxMetricsSize": "", "fpof": false, "cpof": false, "idof": false, "rdof": false}))
	}
	next := finish("complete and fetch next", id1, "tok-1", "completed", "returnvalue", `"done"`, 1, now+20)
	id2 := jobIDOf(next)
	finish("fail", id2, "tok-1", "failed", "failedReason", "boom", 0, now+30)
	finish("complete without the lock", id2, "tok-1", "completed", "returnvalue", "x", 0, now+31)
	r.step("is finished", "isFinished-3", []string{k("completed"), k("failed"), k(id1)}, id1, "1")
	for _, id := range []string{id1, id2} {
		r.step("state of finished job "+id, "getStateV2-8", stateKeys, id)
	}
	r.step("reprocess the failed job", "reprocessJob-8",
		[]string{k(id2), k("events"), k("failed"), k("wait"), k("meta"), k("paused"), k("active"), k("marker")},
		id2, "LPUSH", "failedReason", "failed", "1", "1")
	counts("counts after finishing")

	r.step("promote the delayed job", "promote-9",
		[]string{k("delayed"), k("wait"), k("paused"), k("meta"), k("prioritized"), k("active"), k("pc"), k("events"), k("marker")},
		prefix, "7")
	r.step("pause", "pause-7",
		[]string{k("wait"), k("paused"), k("meta"), k("prioritized"), k("events"), k("delayed"), k("marker")}, "paused", "1")
	counts("counts while paused")
	r.step("resume", "pause-7",
		[]string{k("paused"), k("wait"), k("meta"), k("prioritized"), k("events"), k("delayed"), k("marker")}, "resumed", "1")
	r.step("ranges", "getRanges-1", []string{prefix}, 0, -1, 1, "completed", "failed", "wait", "delayed", "prioritized", "paused")
	r.step("ranges desc", "getRanges-1", []string{prefix}, 0, 1, 0, "wait", "completed")
	take("take another", "tok-2", now+40)
	r.step("remove a finished job", "removeJob-2", []string{k(id2), k("repeat")}, id2, "0", prefix)
	r.step("remove a missing job", "removeJob-2", []string{k("999"), k("repeat")}, "999", "0", prefix)
	counts("counts before draining")
	r.compareKeyspaces()
	r.step("drain", "drain-5", []string{k("wait"), k("paused"), k("delayed"), k("prioritized"), k("repeat")}, prefix, "1")
	counts("counts after draining")
	r.step("pause again", "pause-7",
		[]string{k("wait"), k("paused"), k("meta"), k("prioritized"), k("events"), k("delayed"), k("marker")}, "paused", "1")
	r.step("obliterate", "obliterate-2", []string{k("meta"), prefix}, 1000, "1")
}

// jobIDOf is the job id in moveToActive's and moveToFinished's reply:
// [jobData, jobId, …] in the BullMQ versions this runs against.
func jobIDOf(reply any) string {
	if a, ok := reply.([]any); ok && len(a) > 1 {
		if s, ok := a[1].(string); ok {
			return s
		}
	}
	return "0"
}

// compareKeyspaces compares every key of the two servers by type and
// contents.
func (r *run) compareKeyspaces() {
	keysR, errR := r.redis.Keys(r.ctx, "*").Result()
	keysV, errV := r.ruvio.Keys(r.ctx, "*").Result()
	if errR != nil || errV != nil {
		fmt.Printf("KEYS: redis %v, ruvio %v\n", errR, errV)
		r.keyDiffs++
		return
	}
	sort.Strings(keysR)
	sort.Strings(keysV)
	if strings.Join(keysR, "\n") != strings.Join(keysV, "\n") {
		r.keyDiffs++
		fmt.Printf("KEYS differ:\n  redis: %v\n  ruvio: %v\n", keysR, keysV)
	}
	for _, key := range keysR {
		r.keys++
		w, g := r.contents(r.redis, key), r.contents(r.ruvio, key)
		if w != g && r.contents(r.redis, key, canonicalJSONString) == r.contents(r.ruvio, key, canonicalJSONString) {
			r.jsonOrder++
		} else if w != g {
			r.keyDiffs++
			fmt.Printf("KEY %s:\n  redis: %s\n  ruvio: %s\n", key, w, g)
		}
	}
}

// contents describes key's type, whether it has a TTL and its contents;
// each string of a hash passes through norm when given.
func (r *run) contents(c *redis.Client, key string, norm ...func(string) string) string {
	typ, err := c.Type(r.ctx, key).Result()
	if err != nil {
		return "error: " + err.Error()
	}
	var v any
	switch typ {
	case "string":
		v, err = c.Get(r.ctx, key).Result()
	case "list":
		v, err = c.LRange(r.ctx, key, 0, -1).Result()
	case "set":
		var m []string
		m, err = c.SMembers(r.ctx, key).Result()
		sort.Strings(m)
		v = m
	case "zset":
		v, err = c.ZRangeWithScores(r.ctx, key, 0, -1).Result()
	case "hash":
		// HGETALL's order is the encoding's; small hashes keep insertion
		// order in both servers, so it is compared as is.
		var h []any
		h, err = c.Do(r.ctx, "HGETALL", key).Slice()
		for i := range h {
			if s, ok := h[i].(string); ok && len(norm) > 0 {
				h[i] = norm[0](s)
			}
		}
		v = h
	case "stream":
		v, err = c.XLen(r.ctx, key).Result()
	}
	ttl, _ := c.PTTL(r.ctx, key).Result()
	hasTTL := ttl > 0
	return fmt.Sprintf("%s ttl=%v %v err=%v", typ, hasTTL, v, err)
}
