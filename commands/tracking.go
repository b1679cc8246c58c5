package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"slices"
	"strings"
)

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
func clientTrackingCommand(x *keyspace.Ctx) {
	var redir int64
	var bcast, optin, optout, noloop bool
	var prefixes []string
	args := x.Args
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case keyspace.EqFold(args[j], "redirect") && more:
			j++
			if redir != 0 {
				x.W.Error("ERR A client can only redirect to a single other client")
				return
			}
			n, ok := keyspace.ParseInt(args[j])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			t := x.S.Srv.ClientRegistry.LookupClient(n)
			if t == nil {
				x.W.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			if t.Shard != x.C.Shard {
				x.W.Error("ERR The client ID you want redirect to is connected to another shard; redirect to a client of the same port")
				return
			}
			redir = n
		case keyspace.EqFold(args[j], "bcast"):
			bcast = true
		case keyspace.EqFold(args[j], "optin"):
			optin = true
		case keyspace.EqFold(args[j], "optout"):
			optout = true
		case keyspace.EqFold(args[j], "noloop"):
			noloop = true
		case keyspace.EqFold(args[j], "prefix") && more:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	c := x.C
	switch {
	case keyspace.EqFold(args[2], "on"):
		if !bcast && len(prefixes) > 0 {
			x.W.Error("ERR PREFIX option requires BCAST mode to be enabled")
			return
		}
		if c.Trk != nil && c.Trk.Bcast != bcast {
			x.W.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if bcast && (optin || optout) {
			x.W.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
			return
		}
		if optin && optout {
			x.W.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
			return
		}
		if c.Trk != nil && (optin && c.Trk.Optout || optout && c.Trk.Optin) {
			x.W.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if bcast {
			if msg := prefixCollision(c.Trk, prefixes); msg != "" {
				x.W.Error(msg)
				return
			}
		}
		x.S.TrackOn(c, keyspace.ClientTracking{Redirect: redir, Bcast: bcast, Optin: optin, Optout: optout, Noloop: noloop}, prefixes)
	case keyspace.EqFold(args[2], "off"):
		x.S.TrackOff(c)
	default:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	x.W.OK()
}

// prefixCollision returns Redis's error when a new prefix is a prefix of
// another one, of the client's or of the new ones.
func prefixCollision(cur *keyspace.ClientTracking, prefixes []string) string {
	overlap := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range prefixes {
		if cur != nil {
			for _, q := range cur.Prefixes {
				if p != q && overlap(p, q) {
					return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + q + "'. Prefixes for a single client must not overlap."
				}
			}
		}
		for j := i + 1; j < len(prefixes); j++ {
			if p != prefixes[j] && overlap(p, prefixes[j]) {
				return "ERR Prefix '" + p + "' overlaps with another provided prefix '" + prefixes[j] + "'. Prefixes for a single client must not overlap."
			}
		}
	}
	return ""
}

// CLIENT CACHING YES|NO
func clientCachingCommand(x *keyspace.Ctx) {
	ct := x.C.Trk
	if ct == nil {
		x.W.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case keyspace.EqFold(x.Args[2], "yes"):
		if !ct.Optin {
			x.W.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case keyspace.EqFold(x.Args[2], "no"):
		if !ct.Optout {
			x.W.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	ct.Caching = true
	x.W.OK()
}

// CLIENT GETREDIR
func clientGetredirCommand(x *keyspace.Ctx) {
	if x.C.Trk == nil {
		x.W.Int(-1)
		return
	}
	x.W.Int(x.C.Trk.Redirect)
}

// CLIENT TRACKINGINFO
func clientTrackinginfoCommand(x *keyspace.Ctx) {
	ct := x.C.Trk
	flags := []string{"off"}
	redir := int64(-1)
	var prefixes []string
	if ct != nil {
		flags[0] = "on"
		if ct.Bcast {
			flags = append(flags, "bcast")
		}
		if ct.Optin {
			flags = append(flags, "optin")
			if ct.Caching {
				flags = append(flags, "caching-yes")
			}
		}
		if ct.Optout {
			flags = append(flags, "optout")
			if ct.Caching {
				flags = append(flags, "caching-no")
			}
		}
		if ct.Noloop {
			flags = append(flags, "noloop")
		}
		if ct.BrokenRedir {
			flags = append(flags, "broken_redirect")
		}
		redir = ct.Redirect
		prefixes = slices.Clone(ct.Prefixes)
		slices.Sort(prefixes)
	}
	w := x.W
	w.MapHeader(3)
	w.BulkString("flags")
	w.SetHeader(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("redirect")
	w.Int(redir)
	w.BulkString("prefixes")
	w.BulkStrings(prefixes)
}
