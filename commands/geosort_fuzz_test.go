package commands

import (
	"bytes"
	"testing"
)

// FuzzGeoAndSortArgs runs SORT, SORT_RO and the geo commands with
// arbitrary arguments against a fixed data set: whatever the arguments,
// the command replies one well-formed reply and the read-only forms
// change nothing.
func FuzzGeoAndSortArgs(f *testing.F) {
	for _, seed := range []string{
		"SORT l BY w_* GET # GET h_*->f LIMIT 0 2",
		"SORT l BY nosort DESC STORE d",
		"SORT_RO z ALPHA LIMIT -1 5",
		"SORT s BY h_*-> GET *",
		"GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD WITHDIST WITHHASH COUNT 3 ANY",
		"GEOSEARCH g FROMMEMBER Palermo BYBOX 400 400 km DESC",
		"GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS inf m STOREDIST",
		"GEORADIUS g 15 37 1e300 mi STORE d",
		"GEORADIUSBYMEMBER_RO g Catania 0 ft ASC",
		"GEOADD g XX CH 1 2 a",
		"GEODIST g Palermo Catania km",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		args := bytes.Fields(line)
		if len(args) == 0 || len(args) > 40 {
			return
		}
		sh := newTestServer(t, 1)
		for _, c := range [][]string{
			{"RPUSH", "l", "3", "1", "2", "x"}, {"SADD", "s", "1", "b", "2"}, {"ZADD", "z", "1", "a", "2", "b"},
			{"MSET", "w_1", "5", "w_2", "x", "w_3", "-1"}, {"HSET", "h_1", "f", "v"},
			{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		} {
			execArgv(sh, toArgv(c...))
		}
		before := durState(sh)
		reply := execArgv(sh, args)
		if len(reply) == 0 || !bytes.ContainsRune([]byte("+-:$*_,#%~>("), rune(reply[0])) || !bytes.HasSuffix(reply, []byte("\r\n")) {
			t.Fatalf("%q: malformed reply %q", args, reply)
		}
		name := string(bytes.ToLower(args[0]))
		readOnly := name == "sort_ro" || name == "geosearch" || name == "geodist" || name == "geopos" ||
			name == "geohash" || name == "georadius_ro" || name == "georadiusbymember_ro"
		if readOnly || reply[0] == '-' {
			if after := durState(sh); after != before {
				t.Fatalf("%q (reply %q) changed the data:\n%s\nto\n%s", args, reply, before, after)
			}
		}
	})
}
