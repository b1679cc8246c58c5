// Package redisref reads the inputs the command-table generators share:
// Redis 7.0's command descriptions (src/commands/*.json of a Redis tree,
// read as reference input and never copied into the project) and the
// compatibility matrix that names the commands the table has.
package redisref

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Load reads every description file in dir and decodes each command's
// description into T, the fields its caller needs, by the command's full
// lower-case name ("get", "client|kill").
func Load[T any](dir string) (map[string]T, error) {
	descs, err := descriptions(dir)
	if err != nil {
		return nil, err
	}
	all := make(map[string]T, len(descs))
	for name, raw := range descs {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		all[name] = v
	}
	return all, nil
}

// WriteOutput writes a generator's output to path, or to standard output
// when path is empty.
func WriteOutput(path string, data []byte) error {
	if path == "" {
		_, err := os.Stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// descriptions returns each command's raw JSON description by its full
// lower-case name.
func descriptions(dir string) (map[string]json.RawMessage, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no command descriptions in %s", dir)
	}
	all := map[string]json.RawMessage{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("parse %s: %w", f, err)
		}
		for name, desc := range m {
			var c struct {
				Container string `json:"container"`
			}
			if err := json.Unmarshal(desc, &c); err != nil {
				return nil, fmt.Errorf("parse %s: %s: %w", f, name, err)
			}
			full := strings.ToLower(name)
			if c.Container != "" {
				full = strings.ToLower(c.Container) + "|" + full
			}
			all[full] = desc
		}
	}
	return all, nil
}

// MatrixNames returns the sorted names of the commands and subcommands the
// compatibility matrix at path lists.
func MatrixNames(path string) ([]string, error) {
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
