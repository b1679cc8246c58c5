package cluster

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NodeIDsFile is the name of the file, in the data directory, that keeps the node ids.
const NodeIDsFile = "nodes.conf"

// nodeIDsHeader is the first line written to NodeIDsFile.
const nodeIDsHeader = "# Ruvio node ids: line i is shard i's CLUSTER MYID. Keep this file with the data.\n"

// NodeIDLen is the length of a node id in hex characters.
const NodeIDLen = 40

// ValidNodeID reports whether id is 40 lower-case hex characters.
func ValidNodeID(id string) bool {
	if len(id) != NodeIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// NewNodeID returns a random node id from crypto/rand.
func NewNodeID() (string, error) {
	var b [NodeIDLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cluster: generating a node id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// LoadOrCreateNodeIDs returns n node ids, shard i's first, kept in dir/nodes.conf so that
// the same directory gives the same ids after a restart. dir is created if needed. If the
// file holds fewer than n ids, random ones are appended and the file is replaced atomically
// (temporary file, fsync, rename, directory fsync); if it holds more, the first n are returned
// and the file is left as it is, so shrinking and growing again keeps every id. A malformed
// or duplicated id is an error naming the file and line. The file is not locked: one process
// owns a data directory.
func LoadOrCreateNodeIDs(dir string, n int) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("cluster: %d node ids requested, want at least 1", n)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	path := filepath.Join(dir, NodeIDsFile)
	ids, err := readNodeIDs(path)
	if err != nil {
		return nil, err
	}
	if len(ids) >= n {
		return ids[:n:n], nil
	}
	for len(ids) < n {
		id, err := NewNodeID()
		if err != nil {
			return nil, err
		}
		if !containsID(ids, id) {
			ids = append(ids, id)
		}
	}
	if err := writeNodeIDs(dir, path, ids); err != nil {
		return nil, err
	}
	return ids, nil
}

func containsID(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// readNodeIDs reads the ids in path, skipping blank lines and "#" comments. A missing file
// holds no ids.
func readNodeIDs(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		if !ValidNodeID(s) {
			return nil, fmt.Errorf("cluster: %s:%d: %q is not a node id (40 lower-case hex characters)", path, line, s)
		}
		if containsID(ids, s) {
			return nil, fmt.Errorf("cluster: %s:%d: node id %s appears twice", path, line, s)
		}
		ids = append(ids, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cluster: %s: %w", path, err)
	}
	return ids, nil
}

// writeNodeIDs replaces path with ids: write a temporary file in dir, fsync it, rename it
// over path, fsync dir.
func writeNodeIDs(dir, path string, ids []string) (err error) {
	var b strings.Builder
	b.WriteString(nodeIDsHeader)
	for _, id := range ids {
		b.WriteString(id)
		b.WriteByte('\n')
	}
	f, err := os.CreateTemp(dir, NodeIDsFile+".tmp*")
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.WriteString(b.String()); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cluster: writing %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("cluster: syncing %s: %w", dir, err)
	}
	return nil
}
