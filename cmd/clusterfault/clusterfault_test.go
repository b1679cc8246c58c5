package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/cluster"
)

// These tests need neither root nor a server: they cover the pieces the
// cluster-mode integration will adjust.

func testProcs() []*proc {
	n := &network{subnet: "10.77.9", hosts: []host{{"h1", "10.77.9.1"}, {"h2", "10.77.9.2"}, {"h3", "10.77.9.3"}}}
	return layoutProcs(n, "/w", false, false)
}

func TestRenderConfigVotersOnThreeHosts(t *testing.T) {
	procs := testProcs()
	cfg := renderConfig(procs[0], clusterSpec{members: procs, replicas: 1, nodeTimeout: 2 * time.Second, syncReplicas: 1, syncTimeout: 5 * time.Second})
	want := `members = ["n1=10.77.9.1:17000", "n3=10.77.9.2:17000", "n5=10.77.9.3:17000", "n2=10.77.9.1:17001"`
	for _, s := range []string{want, `name = "n1"`, "node_timeout_ms = 2000", "sync_replicas = 1", "protected_mode = false"} {
		if !strings.Contains(cfg, s) {
			t.Errorf("config lacks %q:\n%s", s, cfg)
		}
	}
	solo := renderConfig(procs[0], clusterSpec{standalone: true})
	if strings.Contains(solo, "[cluster]") {
		t.Errorf("a standalone config has cluster keys:\n%s", solo)
	}
}

func TestKeyIn(t *testing.T) {
	g := group{slots: [][2]int{{100, 200}, {9000, 9001}}}
	k := keyIn(g, "probe")
	if s := int(cluster.KeySlot([]byte(k))); !g.owns(s) {
		t.Errorf("%s is in slot %d", k, s)
	}
}

func TestRecovery(t *testing.T) {
	pr := &probe{g: group{id: "a"}, acks: []time.Duration{time.Second, 5 * time.Second, 6 * time.Second}}
	recs := []faultRecord{
		{target: "n1", group: "a", injected: 2 * time.Second, recovery: -1},
		{target: "n2", group: "a", injected: 5500 * time.Millisecond, recovery: -1},
		{target: "n3", group: "a", injected: 7 * time.Second, recovery: -1},
	}
	measureRecovery(recs, []*probe{pr})
	med, worst, missing := recoveryStats(recs)
	if recs[0].recovery != 3*time.Second || med != 3*time.Second || worst != 3*time.Second || missing != 1 {
		t.Errorf("recoveries %v %v %v: median %v worst %v missing %d", recs[0].recovery, recs[1].recovery, recs[2].recovery, med, worst, missing)
	}
}
