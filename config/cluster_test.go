package config

import (
	"strings"
	"testing"
)

func TestClusterEnabled(t *testing.T) {
	for _, tc := range []struct {
		toml   string
		shards int
		want   bool
	}{
		{"", 1, false},
		{"", 4, true},
		{"[cluster]\nenabled = \"auto\"\n", 1, false},
		{"[cluster]\nenabled = \"auto\"\n", 2, true},
		{"[cluster]\nenabled = true\n", 1, true},
		{"[cluster]\nenabled = true\n", 3, true},
		{"[cluster]\nenabled = false\n", 1, false},
	} {
		c, err := Parse("t.toml", []byte(tc.toml))
		if err != nil {
			t.Fatalf("%q: %v", tc.toml, err)
		}
		c.Server.Shards = tc.shards
		if err := c.Validate(); err != nil {
			t.Fatalf("%q with %d shards: %v", tc.toml, tc.shards, err)
		}
		if got := c.ClusterEnabled(); got != tc.want {
			t.Errorf("%q with %d shards: ClusterEnabled %v, want %v", tc.toml, tc.shards, got, tc.want)
		}
		live := NewLive(c)
		if v, _ := live.Value("cluster-enabled"); v != map[bool]string{true: "yes", false: "no"}[tc.want] {
			t.Errorf("%q with %d shards: CONFIG GET cluster-enabled %q", tc.toml, tc.shards, v)
		}
	}
}

func TestClusterEnabledErrors(t *testing.T) {
	if _, err := Parse("t.toml", []byte("[cluster]\nenabled = \"yes\"\n")); err == nil || !strings.Contains(err.Error(), "enabled") {
		t.Errorf("enabled = \"yes\": %v", err)
	}
	c, err := Parse("t.toml", []byte("[server]\nshards = 4\n[cluster]\nenabled = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate()
	if err == nil || !strings.Contains(err.Error(), "cluster.enabled: false needs server.shards = 1") {
		t.Errorf("four shards with cluster off: %v", err)
	}
}

// TestClusterAnnounce: the topology names the shards by cluster.announce,
// else by server.bind's first address; a member of a cluster across hosts
// bound to a wildcard address must announce one the others can reach.
func TestClusterAnnounce(t *testing.T) {
	c, err := Parse("t.toml", []byte("[server]\nbind = \"0.0.0.0\"\nshards = 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("one host bound to 0.0.0.0: %v", err)
	}
	if got := c.AnnounceHost(); got != "0.0.0.0" {
		t.Errorf("AnnounceHost without announce: %q", got)
	}
	c.Cluster.Announce = "10.0.0.5"
	if got := c.AnnounceHost(); got != "10.0.0.5" {
		t.Errorf("AnnounceHost with announce: %q", got)
	}
	const member = "[server]\nbind = \"0.0.0.0\"\n[cluster]\nname = \"m1\"\nmembers = [\"m1=10.0.0.5:16379\", \"m2=10.0.0.6:16379\", \"m3=10.0.0.7:16379\"]\n"
	c, err = Parse("t.toml", []byte(member))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "cluster.announce: is needed when server.bind is a wildcard address") {
		t.Errorf("member bound to 0.0.0.0 without announce: %v", err)
	}
	c.Cluster.Announce = "10.0.0.5"
	if err := c.Validate(); err != nil {
		t.Errorf("member bound to 0.0.0.0 announcing 10.0.0.5: %v", err)
	}
}
