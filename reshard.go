package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ruvio/ruvio/internal/app"
)

// reshard is the "ruvio reshard" subcommand: with the server stopped, it
// rewrites the data directory, written by one shard count, into the
// layout of --shards (docs/operations.md, changing the shard count).
func reshard(args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("ruvio reshard", flag.ContinueOnError)
	cfgPath := fs.String("config", "config.toml", "path of the TOML configuration file (\"\" for built-in defaults)")
	dir := fs.String("dir", "", "data directory (overrides persistence.dir)")
	shards := fs.Int("shards", 0, "the new number of shards (required)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: ruvio reshard [--config file] [--dir path] --shards n")
		fs.PrintDefaults()
	}
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errors.New("unexpected arguments")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["shards"] {
		fs.Usage()
		return errors.New("--shards is required: the shard count to rewrite the data directory into")
	}
	o := overrides{config: *cfgPath, dir: *dir, shards: *shards, reactors: -1}
	cfg, _, err := loadConfig(o, set, getenv)
	if err != nil {
		return err
	}
	return app.Reshard(cfg, out)
}
