package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"encoding/json"
	"fmt"
)

//go:generate go run ../cmd/genmatrix -o ../docs/compatibility-matrix.json

// MatrixPath is where the compatibility matrix is checked in, relative to
// the module root.
const MatrixPath = "docs/compatibility-matrix.json"

// matrixEntry is one command of docs/compatibility-matrix.json.
type matrixEntry struct {
	Name          string          `json:"name"`
	Group         string          `json:"group"`
	Arity         int             `json:"arity"`
	Flags         []string        `json:"flags"`
	ACLCategories []string        `json:"acl_categories"`
	FirstKey      int             `json:"first_key"`
	LastKey       int             `json:"last_key"`
	Step          int             `json:"step"`
	Since         string          `json:"since"`
	Summary       string          `json:"summary"`
	Complexity    string          `json:"complexity,omitempty"`
	Tips          []string        `json:"tips,omitempty"`
	KeySpecs      []matrixKeySpec `json:"key_specs,omitempty"`
	Subcommands   []*matrixEntry  `json:"subcommands,omitempty"`
}

// matrixKeySpec is one key spec of a matrix entry, written compactly:
// begin_search is "index:N", "keyword:KW:N" or "unknown"; find_keys is
// "range:LASTKEY:STEP:LIMIT", "keynum:IDX:FIRST:STEP" or "unknown".
type matrixKeySpec struct {
	Flags       []string `json:"flags"`
	BeginSearch string   `json:"begin_search"`
	FindKeys    string   `json:"find_keys"`
}

// newMatrixKeySpec renders ks in the matrix's compact form, which is also
// the form of commands/testdata/redis-7.0-commands.json.
func newMatrixKeySpec(ks *keyspace.KeySpec) matrixKeySpec {
	m := matrixKeySpec{Flags: ks.Flags.Names(), BeginSearch: "unknown", FindKeys: "unknown"}
	switch {
	case ks.Index > 0:
		m.BeginSearch = fmt.Sprintf("index:%d", ks.Index)
	case ks.Keyword != "":
		m.BeginSearch = fmt.Sprintf("keyword:%s:%d", ks.Keyword, ks.StartFrom)
	}
	switch ks.Find {
	case keyspace.FindRange:
		m.FindKeys = fmt.Sprintf("range:%d:%d:%d", ks.LastKey, ks.KeyStep, ks.Limit)
	case keyspace.FindKeyNum:
		m.FindKeys = fmt.Sprintf("keynum:%d:%d:%d", ks.KeyNumIdx, ks.FirstKey, ks.KeyStep)
	}
	return m
}

// matrixDoc is the whole file.
type matrixDoc struct {
	Comment      string         `json:"_comment"`
	RedisVersion string         `json:"redis_version"`
	RuvioVersion string         `json:"ruvio_version"`
	Commands     []*matrixEntry `json:"commands"`
}

// CompatibilityMatrix renders docs/compatibility-matrix.json from the
// command table: every command, sorted by name, with the metadata COMMAND
// reports (subcommands sorted under their container). The output is
// indented by two spaces and ends in a newline; it changes only when the
// table does.
func CompatibilityMatrix() ([]byte, error) {
	doc := matrixDoc{
		Comment:      "Generated from the command table in commands/ by go generate ./commands (cmd/genmatrix). DO NOT EDIT.",
		RedisVersion: keyspace.RedisVersion,
		RuvioVersion: keyspace.Version,
	}
	for _, c := range sortedCommands(newCommandTable()) {
		doc.Commands = append(doc.Commands, newMatrixEntry(c))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func newMatrixEntry(c *keyspace.Command) *matrixEntry {
	e := &matrixEntry{
		Name:          c.FullName(),
		Group:         c.Group,
		Arity:         c.Arity,
		Flags:         c.Flags.Names(),
		ACLCategories: orderedCategories(c),
		FirstKey:      c.FirstKey,
		LastKey:       c.LastKey,
		Step:          c.Step,
		Since:         c.Since,
		Summary:       c.Summary,
		Complexity:    c.Complexity,
		Tips:          c.Tips,
	}
	for i := range c.KeySpecs {
		e.KeySpecs = append(e.KeySpecs, newMatrixKeySpec(&c.KeySpecs[i]))
	}
	if e.Flags == nil {
		e.Flags = []string{}
	}
	for _, sc := range sortedSubcommands(c) {
		e.Subcommands = append(e.Subcommands, newMatrixEntry(sc))
	}
	return e
}
