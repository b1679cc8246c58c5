package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ruvio/ruvio/internal/app"
)

// importRDB is the "ruvio import-rdb" subcommand: it loads a Redis RDB
// file into the data directory of the configuration, for the server to
// load at its next start (docs/operations.md, migration from Redis).
func importRDB(args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("ruvio import-rdb", flag.ContinueOnError)
	cfgPath := fs.String("config", "config.toml", "path of the TOML configuration file (\"\" for built-in defaults)")
	dir := fs.String("dir", "", "data directory (overrides persistence.dir)")
	shards := fs.Int("shards", 0, "number of shards (overrides server.shards)")
	replace := fs.Bool("replace", false, "replace the data already in the data directory (refused without it)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: ruvio import-rdb [--config file] [--dir path] [--shards n] [--replace] dump.rdb")
		fs.PrintDefaults()
	}
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("one RDB file expected")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o := overrides{config: *cfgPath, dir: *dir, shards: *shards, reactors: -1}
	cfg, _, err := loadConfig(o, set, getenv)
	if err != nil {
		return err
	}
	return app.ImportRDB(cfg, fs.Arg(0), *replace, out)
}
