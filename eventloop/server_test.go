package eventloop

import (
	"net"
	"testing"
)

func TestRefusedByProtectedMode(t *testing.T) {
	remote, local := net.ParseIP("192.0.2.7"), net.ParseIP("127.0.0.1")
	cases := []struct {
		name                              string
		loopbackBind, protected, password bool
		ip                                net.IP
		refused                           bool
	}{
		{"remote client, open bind, no password", false, true, false, remote, true},
		{"local client is always served", false, true, false, local, false},
		{"loopback bind", true, true, false, remote, false},
		{"protected mode off", false, false, false, remote, false},
		{"password set", false, true, true, remote, false},
		{"IPv6 loopback client", false, true, false, net.IPv6loopback, false},
	}
	for _, tc := range cases {
		if got := refusedByProtectedMode(tc.loopbackBind, tc.protected, tc.password, tc.ip); got != tc.refused {
			t.Errorf("%s: refused=%v, want %v", tc.name, got, tc.refused)
		}
	}
}
