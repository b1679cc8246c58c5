// Command genredisref writes keyspace/testdata/redis-7.0-commands.json: a
// compact summary of what Redis 7.0 reports through COMMAND INFO for every
// command (and subcommand) that the project's command table has. The test
// TestCommandTableMatchesRedis compares the command table with it, so a
// command whose arity, flags, ACL categories, key positions, key specs or
// tips drift from Redis's fails the build.
//
// The input is the directory of per-command JSON files of a Redis 7.0 source
// tree (src/commands); they are read, never copied. The summary derives what
// Redis derives at start-up: implicit ACL categories from the command flags,
// the legacy first/last/step triple and the movablekeys flag from the key
// specs.
//
//	go run ./cmd/genredisref -redis /tmp/redis-7.0.15/src/commands \
//	    -matrix docs/compatibility-matrix.json -o keyspace/testdata/redis-7.0-commands.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// source is the part of one command's JSON description the summary reads.
type source struct {
	Arity        int             `json:"arity"`
	Container    string          `json:"container"`
	CommandFlags []string        `json:"command_flags"`
	ACL          []string        `json:"acl_categories"`
	Tips         []string        `json:"command_tips"`
	KeySpecs     []sourceKeySpec `json:"key_specs"`
}

type sourceKeySpec struct {
	Flags       []string `json:"flags"`
	BeginSearch struct {
		Index *struct {
			Pos int `json:"pos"`
		} `json:"index"`
		Keyword *struct {
			Keyword   string `json:"keyword"`
			StartFrom int    `json:"startfrom"`
		} `json:"keyword"`
	} `json:"begin_search"`
	FindKeys struct {
		Range *struct {
			LastKey int `json:"lastkey"`
			Step    int `json:"step"`
			Limit   int `json:"limit"`
		} `json:"range"`
		KeyNum *struct {
			KeyNumIdx int `json:"keynumidx"`
			FirstKey  int `json:"firstkey"`
			Step      int `json:"step"`
		} `json:"keynum"`
	} `json:"find_keys"`
}

// Entry is one command of the summary, in the vocabulary of COMMAND INFO.
type Entry struct {
	Name          string    `json:"name"`
	Arity         int       `json:"arity"`
	Flags         []string  `json:"flags"`
	ACLCategories []string  `json:"acl_categories"`
	FirstKey      int       `json:"first_key"`
	LastKey       int       `json:"last_key"`
	Step          int       `json:"step"`
	Tips          []string  `json:"tips"`
	KeySpecs      []KeySpec `json:"key_specs"`
}

// KeySpec is one key spec: begin_search is "index:N", "keyword:KW:N" or
// "unknown"; find_keys is "range:LAST:STEP:LIMIT", "keynum:IDX:FIRST:STEP"
// or "unknown".
type KeySpec struct {
	Flags       []string `json:"flags"`
	BeginSearch string   `json:"begin_search"`
	FindKeys    string   `json:"find_keys"`
}

// Doc is the whole summary file.
type Doc struct {
	Comment  string   `json:"_comment"`
	Commands []*Entry `json:"commands"`
}

// flagOrder is the order of COMMAND INFO's flags; may_replicate and the
// other flags Redis hides are absent.
var flagOrder = []string{
	"write", "readonly", "denyoom", "module", "admin", "pubsub", "noscript",
	"blocking", "loading", "stale", "skip_monitor", "skip_slowlog", "asking",
	"fast", "no_auth", "no_mandatory_keys", "no_async_loading", "no_multi",
	"movablekeys", "allow_busy",
}

var aclOrder = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

var keyFlagOrder = []string{
	"RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key",
	"incomplete", "variable_flags",
}

func main() {
	redisDir := flag.String("redis", "/tmp/redis-7.0.15/src/commands", "src/commands of a Redis 7.0 tree")
	matrix := flag.String("matrix", "docs/compatibility-matrix.json", "the compatibility matrix naming the commands to describe")
	out := flag.String("o", "", "file to write (default: standard output)")
	flag.Parse()
	data, err := build(*redisDir, *matrix)
	if err == nil {
		if *out == "" {
			_, err = os.Stdout.Write(data)
		} else {
			err = os.WriteFile(*out, data, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genredisref:", err)
		os.Exit(1)
	}
}

// build reads the Redis descriptions and the matrix and renders the summary.
func build(redisDir, matrixPath string) ([]byte, error) {
	names, err := matrixNames(matrixPath)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(redisDir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no command descriptions in %s", redisDir)
	}
	all := map[string]source{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		var m map[string]source
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("parse %s: %w", f, err)
		}
		for name, s := range m {
			full := strings.ToLower(name)
			if s.Container != "" {
				full = strings.ToLower(s.Container) + "|" + full
			}
			all[full] = s
		}
	}
	doc := Doc{Comment: "Generated by go run ./cmd/genredisref from Redis 7.0's command descriptions, for the commands the command table has. DO NOT EDIT."}
	for _, n := range names {
		s, ok := all[n]
		if !ok {
			continue // a native command, or one Redis 7.0 does not have
		}
		doc.Commands = append(doc.Commands, summarize(n, s))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return buf.Bytes(), nil
}

// matrixNames lists the full names of the matrix's commands and
// subcommands, sorted.
func matrixNames(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read matrix: %w", err)
	}
	var m struct {
		Commands []struct {
			Name        string `json:"name"`
			Subcommands []struct {
				Name string `json:"name"`
			} `json:"subcommands"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("parse matrix: %w", err)
	}
	var names []string
	for _, c := range m.Commands {
		names = append(names, c.Name)
		for _, s := range c.Subcommands {
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// summarize derives one entry as Redis's start-up code would.
func summarize(name string, s source) *Entry {
	e := &Entry{Name: name, Arity: s.Arity, Flags: []string{}, Tips: []string{}, KeySpecs: []KeySpec{}}
	flags := map[string]bool{}
	for _, f := range s.CommandFlags {
		flags[strings.ToLower(f)] = true
	}
	cats := map[string]bool{}
	for _, c := range s.ACL {
		cats[strings.ToLower(c)] = true
	}
	// Implicit categories.
	if flags["write"] {
		cats["write"] = true
	}
	if flags["readonly"] && !cats["scripting"] {
		cats["read"] = true
	}
	if flags["admin"] {
		cats["admin"], cats["dangerous"] = true, true
	}
	if flags["pubsub"] {
		cats["pubsub"] = true
	}
	if flags["fast"] {
		cats["fast"] = true
	}
	if flags["blocking"] {
		cats["blocking"] = true
	}
	if !cats["fast"] {
		cats["slow"] = true
	}
	for _, c := range aclOrder {
		if cats[c] {
			e.ACLCategories = append(e.ACLCategories, "@"+c)
		}
	}
	for _, t := range s.Tips {
		e.Tips = append(e.Tips, strings.ToLower(t))
	}
	// Key specs and the legacy triple.
	first, last, prev := math.MaxInt, 0, 0
	for _, ks := range s.KeySpecs {
		spec := KeySpec{BeginSearch: "unknown", FindKeys: "unknown"}
		kf := map[string]bool{}
		for _, f := range ks.Flags {
			kf[f] = true
		}
		for _, f := range keyFlagOrder {
			if kf[strings.ToUpper(f)] {
				spec.Flags = append(spec.Flags, f)
			}
		}
		bs, fk := ks.BeginSearch, ks.FindKeys
		switch {
		case bs.Index != nil:
			spec.BeginSearch = fmt.Sprintf("index:%d", bs.Index.Pos)
		case bs.Keyword != nil:
			spec.BeginSearch = fmt.Sprintf("keyword:%s:%d", bs.Keyword.Keyword, bs.Keyword.StartFrom)
		}
		switch {
		case fk.Range != nil:
			spec.FindKeys = fmt.Sprintf("range:%d:%d:%d", fk.Range.LastKey, fk.Range.Step, fk.Range.Limit)
		case fk.KeyNum != nil:
			spec.FindKeys = fmt.Sprintf("keynum:%d:%d:%d", fk.KeyNum.KeyNumIdx, fk.KeyNum.FirstKey, fk.KeyNum.Step)
		}
		e.KeySpecs = append(e.KeySpecs, spec)
		plain := bs.Index != nil && fk.Range != nil
		if len(s.KeySpecs) == 1 && plain {
			e.FirstKey = bs.Index.Pos
			e.LastKey = fk.Range.LastKey
			if e.LastKey >= 0 {
				e.LastKey += e.FirstKey
			}
			e.Step = fk.Range.Step
			if kf["INCOMPLETE"] {
				flags["movablekeys"] = true
			}
			break
		}
		if !plain || fk.Range.Step != 1 || (prev != 0 && prev != bs.Index.Pos-1) {
			flags["movablekeys"] = true
			continue
		}
		if kf["INCOMPLETE"] {
			flags["movablekeys"] = true
		}
		first = min(first, bs.Index.Pos)
		abs := fk.Range.LastKey
		if abs >= 0 {
			abs += bs.Index.Pos
		}
		if uint(abs) > uint(last) { // unsigned: a negative lastkey (from the end) wins
			last = abs
		}
		prev = last
	}
	if len(s.KeySpecs) > 1 {
		if first == math.MaxInt {
			flags["movablekeys"] = true
		} else {
			e.FirstKey, e.LastKey, e.Step = first, last, 1
		}
	}
	for _, f := range flagOrder {
		if flags[f] {
			e.Flags = append(e.Flags, f)
		}
	}
	if e.ACLCategories == nil {
		e.ACLCategories = []string{}
	}
	return e
}
