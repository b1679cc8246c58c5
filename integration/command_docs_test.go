package integration_test

import (
	"context"
	"fmt"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestCommandDocsArgumentsThroughGoRedis reads the argument trees through a
// client library: IDEM's oneof of token blocks and LEASE's plain arguments,
// in RESP3 (maps) and RESP2 (flat arrays).
func TestCommandDocsArgumentsThroughGoRedis(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	for _, proto := range []int{2, 3} {
		c := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: proto, MaxRetries: -1, DisableIdentity: true}))
		t.Cleanup(func() { _ = c.Close() })
		docs := value(t, c, "COMMAND", "DOCS", "lease", "idem")
		got := normalize(docs)
		key := map[string]any{"name": "key", "type": "key", "key_spec_index": int64(0)}
		want := map[string]any{
			"lease": []any{key, map[string]any{"name": "ttl_ms", "type": "integer"}},
			"idem": []any{key, map[string]any{"name": "action", "type": "oneof", "arguments": []any{
				map[string]any{"name": "begin", "type": "block", "token": "BEGIN", "arguments": []any{
					map[string]any{"name": "fingerprint", "type": "string"},
					map[string]any{"name": "owner", "type": "string"},
					map[string]any{"name": "ttl_ms", "type": "integer"},
				}},
				map[string]any{"name": "complete", "type": "block", "token": "COMPLETE", "arguments": []any{
					map[string]any{"name": "fingerprint", "type": "string"},
					map[string]any{"name": "owner", "type": "string"},
					map[string]any{"name": "result", "type": "string"},
				}},
			}}},
		}
		m, ok := got.(map[string]any)
		if !ok {
			t.Fatalf("RESP%d COMMAND DOCS: %#v", proto, docs)
		}
		for name, args := range want {
			doc, _ := m[name].(map[string]any)
			if doc == nil || !equalTrees(doc["arguments"], args) {
				t.Errorf("RESP%d COMMAND DOCS %s arguments:\n got %#v\nwant %#v", proto, name, doc["arguments"], args)
			}
		}
	}
}

// normalize turns a COMMAND DOCS reply into nested maps: RESP3 maps as
// go-redis decodes them, and RESP2's flat key/value arrays where a map is
// due (a docs entry, an argument).
func normalize(v any) any {
	switch v := v.(type) {
	case map[interface{}]interface{}:
		out := map[string]any{}
		for k, e := range v {
			out[k.(string)] = normalize(e)
		}
		return out
	case []interface{}:
		if isFlatMap(v) {
			out := map[string]any{}
			for i := 0; i < len(v); i += 2 {
				out[v[i].(string)] = normalize(v[i+1])
			}
			return out
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// isFlatMap reports whether a RESP2 array is a map laid flat: a docs map
// (command names or docs fields as keys) or an argument (name first).
func isFlatMap(v []interface{}) bool {
	if len(v) == 0 || len(v)%2 != 0 {
		return false
	}
	first, ok := v[0].(string)
	if !ok {
		return false
	}
	switch first {
	case "name", "summary", "since", "group":
		return true
	}
	_, nested := v[1].([]interface{})
	return nested && !strings.Contains(first, " ")
}

// equalTrees compares normalized trees.
func equalTrees(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if !equalTrees(v, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equalTrees(a[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// TestRedisCliHelpShowsArguments runs redis-cli 7.0 interactively (in a
// pseudo-terminal, with a dumb terminal so line editing stays off) and asks
// it for help: redis-cli builds its help and hints from COMMAND DOCS, so
// each command's syntax line comes from the argument trees, and a reply
// that breaks its expectations would abort it.
func TestRedisCliHelpShowsArguments(t *testing.T) {
	t.Parallel()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script (util-linux) not installed")
	}
	s := testserver.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-q", "-e", "-c", cli+" -h 127.0.0.1 -p "+strconv.Itoa(s.Port()), "/dev/null")
	cmd.Env = append(cmd.Environ(), "TERM=dumb")
	cmd.Stdin = strings.NewReader("help idem\nhelp lease\nhelp set\nhelp xadd\nhelp incrby\nquit\n")
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "pseudo-terminal") {
		t.Skipf("script cannot open a pseudo-terminal here: %s", out)
	}
	if err != nil {
		t.Fatalf("redis-cli: %v\n%s", err, out)
	}
	text := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(string(out), "")
	for _, line := range []string{
		"IDEM key BEGIN fingerprint owner ttl_ms|COMPLETE fingerprint owner result",
		"LEASE key ttl_ms",
		"SET key value [NX|XX|IFEQ comparison-value] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]",
		"XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] [DELAY delay_ms] *|id field value [field value ...]",
		"INCRBY key increment [MAX limit]",
	} {
		if !strings.Contains(text, "  "+line+"\r") {
			t.Errorf("redis-cli help lacks %q:\n%s", line, text)
		}
	}
}

// TestCommandDocsMatchRedis compares COMMAND DOCS with a real Redis 7.0
// server's for every command both have: since, group, doc flags,
// deprecation, history and the whole argument tree must be Redis's, field
// for field and in order (RESP2 keeps the order), subcommands included.
// Summary and complexity are the project's own words and are not compared;
// the commands with native options must differ.
func TestCommandDocsMatchRedis(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	s := testserver.Start(t)
	docsOf := func(addr string) map[string][]any {
		c := redis.NewClient(clientTimeouts(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, DisableIdentity: true}))
		defer c.Close()
		flat, ok := value(t, c, "COMMAND", "DOCS").([]any)
		if !ok || len(flat)%2 != 0 {
			t.Fatalf("COMMAND DOCS from %s: %#v", addr, flat)
		}
		out := map[string][]any{}
		for i := 0; i < len(flat); i += 2 {
			out[flat[i].(string)] = flat[i+1].([]any)
		}
		return out
	}
	want, got := docsOf(ref.Options().Addr), docsOf(s.Addr())
	native := map[string]bool{"incrby": true, "getex": true, "xadd": true, "set": true}
	compared := 0
	var compare func(name string, g, w []any)
	compare = func(name string, g, w []any) {
		gRest, gSubs := docsWithoutProse(g)
		wRest, wSubs := docsWithoutProse(w)
		switch {
		case native[name]:
			if reflect.DeepEqual(gRest, wRest) {
				t.Errorf("%s: has Redis's docs; the native option is missing", name)
			}
		case !reflect.DeepEqual(gRest, wRest):
			t.Errorf("%s:\n got %v\nwant %v", name, gRest, wRest)
		}
		compared++
		for sub, gs := range gSubs {
			if ws, ok := wSubs[sub]; ok {
				compare(sub, gs, ws)
			}
		}
	}
	for name, g := range got {
		if w, ok := want[name]; ok {
			compare(name, g, w)
		}
	}
	t.Logf("compared the docs of %d commands and subcommands with Redis 7.0", compared)
	if compared < 300 {
		t.Errorf("compared %d commands with Redis; expected the whole table", compared)
	}
}

// docsWithoutProse splits a RESP2 docs map into its fields other than the
// prose ones (summary, complexity), in order, and its subcommands' docs by
// name.
func docsWithoutProse(docs []any) ([]any, map[string][]any) {
	var rest []any
	subs := map[string][]any{}
	for i := 0; i+1 < len(docs); i += 2 {
		switch k := fmt.Sprint(docs[i]); k {
		case "summary", "complexity":
		case "subcommands":
			flat, _ := docs[i+1].([]any)
			for j := 0; j+1 < len(flat); j += 2 {
				subs[fmt.Sprint(flat[j])], _ = flat[j+1].([]any)
			}
		default:
			rest = append(rest, k, docs[i+1])
		}
	}
	return rest, subs
}
