package config

import (
	"net"
	"strings"
)

// RedisDefaultBind is Redis's default bind: every IPv4 address, and every IPv6 address when
// the host has IPv6 (the '-' makes it optional). A server started from a Redis
// configuration file without a bind directive listens there, as redis-server does.
const RedisDefaultBind = "* -::*"

// BindAddr is one address of a bind list.
type BindAddr struct {
	// Network is "tcp4", "tcp6" or, for a host name, "tcp".
	Network string
	// Host is the address to listen on: an IP address or a host name ("*" is "0.0.0.0",
	// "::*" is "::").
	Host string
	// Optional is set for an address written with a leading '-': it is skipped when the
	// host has no such address or protocol, as Redis skips it.
	Optional bool
}

// ParseBind splits a bind list, in Redis's form (addresses separated by spaces, '*' for
// every IPv4 address, '::*' for every IPv6 one, a leading '-' for an optional address),
// into its addresses. An empty list is valid: no TCP listener.
func ParseBind(s string) []BindAddr {
	var out []BindAddr
	for _, f := range strings.Fields(s) {
		a := BindAddr{Optional: strings.HasPrefix(f, "-")}
		h := strings.TrimPrefix(f, "-")
		switch {
		case h == "*":
			a.Network, a.Host = "tcp4", "0.0.0.0"
		case h == "::*":
			a.Network, a.Host = "tcp6", "::"
		default:
			a.Host = h
			a.Network = "tcp"
			if ip := net.ParseIP(h); ip != nil {
				a.Network = "tcp6"
				if ip.To4() != nil {
					a.Network = "tcp4"
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// validBind reports whether every address of a bind list is an IP address, '*', '::*' or
// a host name (each may carry a leading '-').
func validBind(s string) bool {
	for _, f := range strings.Fields(s) {
		h := strings.TrimPrefix(f, "-")
		if h != "*" && h != "::*" && !validHost(h) {
			return false
		}
	}
	return true
}

// canonicalBind is a bind list with single spaces between its addresses.
func canonicalBind(s string) string { return strings.Join(strings.Fields(s), " ") }

// parseBindParam parses CONFIG SET bind: any list of words is accepted here (Redis too
// leaves the check to the listeners: an address that cannot be bound fails the change).
func parseBindParam(v, _ string) (string, string) {
	if len(strings.Fields(v)) > 16 { // Redis's CONFIG_BINDADDR_MAX
		return "", "Too many bind addresses specified."
	}
	return canonicalBind(v), ""
}

// Host is the address the server names itself by for its peers (cluster topology, the
// control port): the first address of the bind list, "0.0.0.0" for '*', "::" for '::*',
// and "127.0.0.1" when the list is empty.
func (s ServerConfig) Host() string {
	addrs := ParseBind(s.Bind)
	if len(addrs) == 0 {
		return "127.0.0.1"
	}
	return addrs[0].Host
}
