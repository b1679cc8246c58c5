package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
)

// rdbFile builds an RDB file: per key its database, deadline and value.
func rdbFile(entries ...struct {
	db  int
	key string
	at  int64
	v   rdb.Value
}) []byte {
	b := []byte("REDIS0010")
	for _, e := range entries {
		b = append(b, 0xFE)
		b = rdb.AppendLength(b, uint64(e.db))
		if e.at != 0 {
			b = binary.LittleEndian.AppendUint64(append(b, 0xFC), uint64(e.at))
		}
		p := rdb.AppendValue(nil, &e.v)
		b = append(b, p[0])
		b = rdb.AppendString(b, []byte(e.key))
		b = append(b, p[1:]...)
	}
	b = append(b, 0xFF)
	return binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b))
}

func TestImportRDBSnapshots(t *testing.T) {
	now := time.UnixMilli(testNowMs)
	type ent = struct {
		db  int
		key string
		at  int64
		v   rdb.Value
	}
	file := rdbFile(
		ent{0, "gone", testNowMs - 1, rdb.Value{Kind: rdb.KindString, Str: []byte("x")}},
		ent{0, "s", testNowMs + 5000, rdb.Value{Kind: rdb.KindString, Str: []byte("v")}},
		ent{2, "h", 0, rdb.Value{Kind: rdb.KindHash, Pairs: [][]byte{[]byte("f"), []byte("v")}}},
	)
	fs := persistence.NewMemFS()
	opts := keyspace.ImportOptions{FS: fs, Dir: "data", Shards: 1, Databases: 16, Now: func() time.Time { return now }}
	rep, err := keyspace.ImportRDB(bytes.NewReader(file), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Expired != 1 || rep.Keys["string"] != 1 || rep.Keys["hash"] != 1 || rep.PerDB[2] != 1 || rep.Total() != 2 {
		t.Fatalf("report %+v", rep)
	}
	// The snapshot holds the keys as the server loads them.
	var got []string
	_, found, err := persistence.LoadSnapshot(fs, "data", 0, nil, func(db uint16, kind uint8, key, value []byte, at int64) error {
		_, obj, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), kind, value)
		if err != nil {
			return err
		}
		desc := string(value)
		if obj != nil {
			desc = obj.(interface{ String() string }).String()
		}
		ttl := "none"
		if at != 0 {
			ttl = time.UnixMilli(at).Sub(now).String()
		}
		got = append(got, strings.Join([]string{string(rune('0' + db)), string(key), desc, ttl}, " "))
		return nil
	})
	if err != nil || !found {
		t.Fatalf("load: %v (found %v)", err, found)
	}
	if strings.Join(got, "|") != `0 s v 5s|2 h hash{"f"="v"} none` {
		t.Fatalf("snapshot: %q", got)
	}
	if _, err := keyspace.ImportRDB(bytes.NewReader(file), opts); !errors.Is(err, keyspace.ErrDataDirNotEmpty) {
		t.Fatalf("second import: %v", err)
	}
	// Too few databases: refused, and nothing is left behind.
	opts.Dir, opts.Databases = "data2", 2
	if _, err := keyspace.ImportRDB(bytes.NewReader(file), opts); err == nil || !strings.Contains(err.Error(), `key "h" is in database 2, but 2 databases are configured`) {
		t.Fatalf("database out of range: %v", err)
	}
	if names, _ := fs.List("data2"); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
	// A truncated file: refused.
	opts.Dir, opts.Databases = "data3", 16
	if _, err := keyspace.ImportRDB(bytes.NewReader(file[:len(file)-12]), opts); !errors.Is(err, rdb.ErrBadFormat) {
		t.Fatalf("truncated: %v", err)
	}
}
