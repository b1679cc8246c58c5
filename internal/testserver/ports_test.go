package testserver

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestFreePortsOutsideEphemeralRange: the ports handed to servers are never
// ones the kernel may give an outgoing connection meanwhile.
func TestFreePortsOutsideEphemeralRange(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skip("no ip_local_port_range here")
	}
	f := strings.Fields(string(b))
	lo, _ := strconv.Atoi(f[0])
	hi, _ := strconv.Atoi(f[1])
	for range 50 {
		const n = 3
		base, err := FreePorts(n)
		if err != nil {
			t.Fatal(err)
		}
		if base+n-1 >= lo && base <= hi {
			t.Fatalf("ports %d-%d overlap the ephemeral range %d-%d", base, base+n-1, lo, hi)
		}
		if base < 1024 || base+n-1 > 65535 {
			t.Fatalf("ports %d-%d out of bounds", base, base+n-1)
		}
	}
}

func TestTestPortRanges(t *testing.T) {
	for _, r := range testPortRanges(4) {
		if r[0] > r[1] || r[0] < 1024 || r[1]+3 > 65535 {
			t.Errorf("range %v", r)
		}
	}
}
