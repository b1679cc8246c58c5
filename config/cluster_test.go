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
