package integration_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// wantErr fails unless err's text is want (or starts with it when want
// ends with '*').
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %q", what, want)
	}
	got := err.Error()
	if strings.HasSuffix(want, "*") {
		if !strings.HasPrefix(got, strings.TrimSuffix(want, "*")) {
			t.Fatalf("%s: error %q, want %q", what, got, want)
		}
		return
	}
	if got != want {
		t.Fatalf("%s: error %q, want %q", what, got, want)
	}
}

// TestEvalCommands covers EVAL, EVALSHA, their _RO forms and SCRIPT, with
// their error paths.
func TestEvalCommands(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)

	v, err := c.Eval(ctxT(t), "return redis.call('SET', KEYS[1], ARGV[1])", []string{"k"}, "v").Result()
	if err != nil || v != "OK" {
		t.Fatalf("EVAL SET: %v %v", v, err)
	}
	v, err = c.Eval(ctxT(t), "return {KEYS[1], ARGV[1], redis.call('GET', KEYS[1])}", []string{"k"}, "a").Result()
	if err != nil || fmt.Sprint(v) != "[k a v]" {
		t.Fatalf("EVAL GET: %v %v", v, err)
	}
	wantErr(t, "too many keys", c.Do(ctxT(t), "EVAL", "return 1", "2", "a").Err(), "ERR Number of keys can't be greater than number of args")
	wantErr(t, "negative keys", c.Do(ctxT(t), "EVAL", "return 1", "-1").Err(), "ERR Number of keys can't be negative")
	wantErr(t, "numkeys not a number", c.Do(ctxT(t), "EVAL", "return 1", "x").Err(), "ERR value is not an integer or out of range")
	wantErr(t, "arity", c.Do(ctxT(t), "EVAL", "return 1").Err(), "ERR wrong number of arguments for 'eval' command")
	wantErr(t, "NOSCRIPT", c.EvalSha(ctxT(t), "ffffffffffffffffffffffffffffffffffffffff", nil).Err(), "NOSCRIPT No matching script. Please use EVAL.")
	wantErr(t, "NOSCRIPT short", c.EvalSha(ctxT(t), "abc", nil).Err(), "NOSCRIPT No matching script. Please use EVAL.")
	wantErr(t, "compile", c.Eval(ctxT(t), "return (", nil).Err(), "ERR Error compiling script*")

	body := "return redis.call('INCR', KEYS[1])"
	sha, err := c.ScriptLoad(ctxT(t), body).Result()
	if err != nil || sha != "4e6d8fc8bb01276962cce5371fa795a7763657ae" && len(sha) != 40 {
		t.Fatalf("SCRIPT LOAD: %v %v", sha, err)
	}
	if n, err := c.EvalSha(ctxT(t), sha, []string{"n"}).Int(); err != nil || n != 1 {
		t.Fatalf("EVALSHA: %v %v", n, err)
	}
	if n, err := c.EvalSha(ctxT(t), strings.ToUpper(sha), []string{"n"}).Int(); err != nil || n != 2 {
		t.Fatalf("EVALSHA upper case: %v %v", n, err)
	}
	ex, err := c.ScriptExists(ctxT(t), sha, "ffffffffffffffffffffffffffffffffffffffff").Result()
	if err != nil || fmt.Sprint(ex) != "[true false]" {
		t.Fatalf("SCRIPT EXISTS: %v %v", ex, err)
	}
	if n := infoInt(t, c, "memory", "number_of_cached_scripts"); n < 2 {
		t.Fatalf("number_of_cached_scripts = %d", n)
	}
	wantErr(t, "EVALSHA_RO of a writer", c.EvalShaRO(ctxT(t), sha, []string{"n"}).Err(), "ERR Write commands are not allowed from read-only scripts.*")
	wantErr(t, "EVAL_RO shebang writer", c.EvalRO(ctxT(t), "#!lua\nreturn 1", nil).Err(), "ERR Can not execute a script with write flag using *_ro command.")
	if v, err := c.EvalRO(ctxT(t), "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", []string{"k"}).Result(); err != nil || v != "v" {
		t.Fatalf("EVAL_RO no-writes: %v %v", v, err)
	}
	wantErr(t, "no-writes script writing", c.Eval(ctxT(t), "#!lua flags=no-writes\nreturn redis.call('SET', 'x', 1)", nil).Err(), "ERR Write commands are not allowed from read-only scripts.*")
	wantErr(t, "unknown command", c.Eval(ctxT(t), "return redis.call('nosuch')", nil).Err(), "ERR Unknown Redis command called from script*")
	wantErr(t, "wrong arity", c.Eval(ctxT(t), "return redis.call('GET')", nil).Err(), "ERR Wrong number of args calling Redis command from script*")
	for _, cmd := range []string{"MULTI", "EXEC", "WATCH', 'x", "SCRIPT', 'FLUSH", "EVAL', 'return 1', '0", "FUNCTION', 'FLUSH"} {
		wantErr(t, cmd, c.Eval(ctxT(t), "return redis.call('"+cmd+"')", nil).Err(), "ERR This Redis command is not allowed from script*")
	}
	wantErr(t, "wrong type", c.Eval(ctxT(t), "return redis.call('INCR', KEYS[1])", []string{"k"}).Err(), "ERR value is not an integer or out of range*")
	if v, err := c.Eval(ctxT(t), "local r = redis.pcall('INCR', KEYS[1]); return r['err']", []string{"k"}).Result(); err != nil || v != "ERR value is not an integer or out of range" {
		t.Fatalf("pcall error table: %v %v", v, err)
	}
	// SELECT inside a script does not change the caller's database.
	if _, err := c.Eval(ctxT(t), "redis.call('SELECT', 1); return redis.call('SET', 'indb1', 'x')", nil).Result(); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(ctxT(t), "indb1").Val(); n != 0 {
		t.Fatal("SELECT in a script changed the caller's database")
	}
	// Commands of scripts are counted in commandstats.
	stats, err := c.Info(ctxT(t), "commandstats").Result()
	if err != nil || !strings.Contains(stats, "cmdstat_incr:calls=") {
		t.Fatalf("commandstats: %v", err)
	}

	if err := c.ScriptFlush(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "flushed", c.EvalSha(ctxT(t), sha, []string{"n"}).Err(), "NOSCRIPT No matching script. Please use EVAL.")
	if err := c.Do(ctxT(t), "SCRIPT", "FLUSH", "ASYNC").Err(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "flush option", c.Do(ctxT(t), "SCRIPT", "FLUSH", "x").Err(), "ERR SCRIPT FLUSH only support SYNC|ASYNC option")
	wantErr(t, "script sub", c.Do(ctxT(t), "SCRIPT", "nosuch").Err(), "ERR unknown subcommand 'nosuch'. Try SCRIPT HELP.")
	if h, err := c.Do(ctxT(t), "SCRIPT", "HELP").StringSlice(); err != nil || len(h) < 5 {
		t.Fatalf("SCRIPT HELP: %v %v", h, err)
	}
	// MULTI with EVAL inside: one transaction.
	res, err := c.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
		p.Eval(ctxT(t), "return redis.call('INCRBY', KEYS[1], 10)", []string{"m"})
		p.Incr(ctxT(t), "m")
		return nil
	})
	if err != nil || len(res) != 2 || res[1].(*redis.IntCmd).Val() != 11 {
		t.Fatalf("EVAL in MULTI: %v %v", res, err)
	}
}

// TestFunctionCommands covers FUNCTION and FCALL with their error paths.
func TestFunctionCommands(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	lib := "#!lua name=mylib\n" +
		"redis.register_function('incr1', function(keys, args) return redis.call('INCR', keys[1]) end)\n" +
		"redis.register_function{function_name='echo', callback=function(keys, args) return args[1] end, flags={'no-writes'}, description='says it'}"
	if name, err := c.FunctionLoad(ctxT(t), lib).Result(); err != nil || name != "mylib" {
		t.Fatalf("FUNCTION LOAD: %v %v", name, err)
	}
	wantErr(t, "load twice", c.FunctionLoad(ctxT(t), lib).Err(), "ERR Library 'mylib' already exists")
	if err := c.FunctionLoadReplace(ctxT(t), lib).Err(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "load option", c.Do(ctxT(t), "FUNCTION", "LOAD", "NOPE", lib).Err(), "ERR Unknown option given: NOPE")
	wantErr(t, "load no name", c.FunctionLoad(ctxT(t), "return 1").Err(), "ERR Missing library metadata")
	if n, err := c.FCall(ctxT(t), "incr1", []string{"f"}).Int(); err != nil || n != 1 {
		t.Fatalf("FCALL: %v %v", n, err)
	}
	if v, err := c.FCallRO(ctxT(t), "echo", nil, "hi").Result(); err != nil || v != "hi" {
		t.Fatalf("FCALL_RO: %v %v", v, err)
	}
	wantErr(t, "FCALL_RO writer", c.FCallRO(ctxT(t), "incr1", []string{"f"}).Err(), "ERR Can not execute a script with write flag using *_ro command.")
	wantErr(t, "no function", c.FCall(ctxT(t), "nosuch", nil).Err(), "ERR Function not found")
	wantErr(t, "fcall keys", c.Do(ctxT(t), "FCALL", "incr1", "3", "a").Err(), "ERR Number of keys can't be greater than number of args")
	wantErr(t, "fcall negative", c.Do(ctxT(t), "FCALL", "incr1", "-2").Err(), "ERR Number of keys can't be negative")
	wantErr(t, "fcall numkeys", c.Do(ctxT(t), "FCALL", "incr1", "x").Err(), "ERR Bad number of keys provided")
	wantErr(t, "fcall unknown first", c.Do(ctxT(t), "FCALL", "nosuch", "x").Err(), "ERR Function not found")
	wantErr(t, "load REPLACE alone", c.Do(ctxT(t), "FUNCTION", "LOAD", "REPLACE").Err(), "ERR Missing library metadata")

	libs, err := c.FunctionList(ctxT(t), redis.FunctionListQuery{LibraryNamePattern: "my*", WithCode: true}).Result()
	if err != nil || len(libs) != 1 || libs[0].Name != "mylib" || libs[0].Engine != "LUA" || libs[0].Code != lib || len(libs[0].Functions) != 2 {
		t.Fatalf("FUNCTION LIST: %+v %v", libs, err)
	}
	if f := libs[0].Functions[0]; f.Name != "echo" || f.Description != "says it" || fmt.Sprint(f.Flags) != "[no-writes]" {
		t.Fatalf("FUNCTION LIST function: %+v", f)
	}
	if libs, _ := c.FunctionList(ctxT(t), redis.FunctionListQuery{LibraryNamePattern: "zz*"}).Result(); len(libs) != 0 {
		t.Fatalf("FUNCTION LIST pattern: %+v", libs)
	}
	st, err := c.FunctionStats(ctxT(t)).Result()
	if err != nil || st.Engines[0].LibrariesCount != 1 || st.Engines[0].FunctionsCount != 2 || st.Running() {
		t.Fatalf("FUNCTION STATS: %+v %v", st, err)
	}
	if n := infoInt(t, c, "memory", "number_of_functions"); n != 2 {
		t.Fatalf("number_of_functions = %d", n)
	}

	dump, err := c.FunctionDump(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "restore existing", c.FunctionRestore(ctxT(t), dump).Err(), "ERR Library mylib already exists")
	wantErr(t, "restore bad", c.FunctionRestore(ctxT(t), dump[:len(dump)-1]+"x").Err(), "ERR DUMP payload version or checksum are wrong")
	wantErr(t, "restore policy", c.Do(ctxT(t), "FUNCTION", "RESTORE", dump, "MERGE").Err(), "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
	if err := c.FunctionDelete(ctxT(t), "mylib").Err(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "delete missing", c.FunctionDelete(ctxT(t), "mylib").Err(), "ERR Library not found")
	wantErr(t, "deleted", c.FCall(ctxT(t), "incr1", []string{"f"}).Err(), "ERR Function not found")
	if err := c.FunctionRestore(ctxT(t), dump).Err(); err != nil {
		t.Fatalf("FUNCTION RESTORE: %v", err)
	}
	if err := c.Do(ctxT(t), "FUNCTION", "RESTORE", dump, "REPLACE").Err(); err != nil {
		t.Fatalf("FUNCTION RESTORE REPLACE: %v", err)
	}
	if n, err := c.FCall(ctxT(t), "incr1", []string{"f"}).Int(); err != nil || n != 2 {
		t.Fatalf("FCALL after restore: %v %v", n, err)
	}
	if err := c.FunctionFlush(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	if libs, _ := c.FunctionList(ctxT(t), redis.FunctionListQuery{}).Result(); len(libs) != 0 {
		t.Fatalf("after FLUSH: %+v", libs)
	}
	if err := c.FunctionRestore(ctxT(t), dump).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctxT(t), "FUNCTION", "RESTORE", dump, "FLUSH").Err(); err != nil {
		t.Fatal(err)
	}
	if h, err := c.Do(ctxT(t), "FUNCTION", "HELP").StringSlice(); err != nil || len(h) < 10 {
		t.Fatalf("FUNCTION HELP: %v", err)
	}
	wantErr(t, "function kill idle", c.FunctionKill(ctxT(t)).Err(), "NOTBUSY No scripts in execution right now.")
}

// TestScriptAtomicity: a script and a transaction each move a unit between
// two keys while 50 other clients read both; no reader ever sees the sum
// change.
func TestScriptAtomicity(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	if err := c.MSet(ctxT(t), "a", 1000, "b", 0).Err(); err != nil {
		t.Fatal(err)
	}
	move := redis.NewScript("redis.call('DECR', KEYS[1]); for i = 1, 200 do redis.call('GET', KEYS[1]) end; return redis.call('INCR', KEYS[2])")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 64)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := s.Client(t)
			for {
				select {
				case <-stop:
					return
				default:
				}
				vs, err := rc.MGet(ctxT(t), "a", "b").Result()
				if err != nil {
					errs <- err
					return
				}
				x, _ := strconv.Atoi(vs[0].(string))
				y, _ := strconv.Atoi(vs[1].(string))
				if x+y != 1000 {
					errs <- fmt.Errorf("saw a=%d b=%d", x, y)
					return
				}
			}
		}()
	}
	w1, w2 := s.Client(t), s.Client(t)
	for i := 0; i < 200; i++ {
		if err := move.Run(ctxT(t), w1, []string{"a", "b"}).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := w2.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
			p.Decr(ctxT(t), "b")
			p.Incr(ctxT(t), "a")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestScriptCluster: with several shards, declared keys of several slots
// are CROSSSLOT, keys of another shard MOVED, and undeclared keys of
// another shard or slot are refused inside the script.
func TestScriptCluster(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(2))
	c0 := s.ClientOf(t, 0)
	wantErr(t, "crossslot", c0.Eval(ctxT(t), "return 1", []string{"a", "b"}).Err(), "CROSSSLOT Keys in request don't hash to the same slot")
	// Find a key of shard 0 and one of shard 1.
	var local, remote string
	for i := 0; local == "" || remote == ""; i++ {
		k := "k" + strconv.Itoa(i)
		err := c0.Eval(ctxT(t), "return 1", []string{k}).Err()
		if err == nil && local == "" {
			local = k
		} else if err != nil && strings.HasPrefix(err.Error(), "MOVED") && remote == "" {
			remote = k
		}
	}
	wantErr(t, "undeclared remote", c0.Eval(ctxT(t), "return redis.call('GET', ARGV[1])", []string{local}, remote).Err(), "ERR Script attempted to access a non local key in a cluster node*")
	wantErr(t, "no-cluster", c0.Eval(ctxT(t), "#!lua flags=no-cluster\nreturn 1", nil).Err(), "ERR Can not run script on cluster, 'no-cluster' flag is set.")
	cc := s.ClusterClient(t)
	if n, err := cc.Eval(ctxT(t), "return redis.call('INCR', KEYS[1])", []string{remote}).Int(); err != nil || n != 1 {
		t.Fatalf("cluster client EVAL: %v %v", n, err)
	}
}

// TestScriptMonitor: MONITOR shows EVAL before the commands of its script,
// which appear with the "lua" source, as Redis shows them.
func TestScriptMonitor(t *testing.T) {
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	rc.expect("+OK\r\n", "MONITOR")
	c := s.Client(t)
	if err := c.Eval(ctxT(t), "redis.call('SET', KEYS[1], 'v'); return redis.call('GET', KEYS[1])", []string{"mk"}).Err(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for len(lines) < 3 {
		l := rc.read()
		if strings.Contains(l, "\"hello\"") || strings.Contains(l, "\"client\"") || strings.Contains(l, "\"ping\"") {
			continue // go-redis connection set-up
		}
		lines = append(lines, l)
	}
	if !strings.Contains(lines[0], `"eval"`) || !strings.Contains(lines[1], `[0 lua] "SET" "mk" "v"`) || !strings.Contains(lines[2], `[0 lua] "GET" "mk"`) {
		t.Fatalf("MONITOR lines:\n%s", strings.Join(lines, ""))
	}
}
