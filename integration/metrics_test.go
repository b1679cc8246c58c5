package integration_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// metricsServer starts a server of shards shards with the metrics
// endpoint on a free loopback port and returns it and the endpoint's URL.
func metricsServer(t *testing.T, shards int) (*testserver.Server, string) {
	t.Helper()
	s := testserver.Start(t, testserver.Shards(shards), testserver.Config(func(c *config.Config) {
		c.Metrics.Listen = "127.0.0.1:0"
	}))
	addr := s.App().MetricsAddr()
	if addr == "" {
		t.Fatal("no metrics endpoint")
	}
	return s, "http://" + addr
}

// httpDo sends one request with its own deadline and returns the status
// and the body.
func httpDo(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp.StatusCode, string(body)
}

// scrape fetches /metrics and parses it.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := httpDo(t, http.MethodGet, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return mfs
}

// labelled returns the metric of family name whose label has value, nil
// when there is none.
func labelled(mfs map[string]*dto.MetricFamily, name, label, value string) *dto.Metric {
	mf := mfs[name]
	if mf == nil {
		return nil
	}
	for _, m := range mf.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				return m
			}
		}
	}
	return nil
}

// single returns the value of the unlabelled gauge or counter name.
func single(t *testing.T, mfs map[string]*dto.MetricFamily, name string) float64 {
	t.Helper()
	mf := mfs[name]
	if mf == nil || len(mf.GetMetric()) != 1 {
		t.Fatalf("%s: missing or not single", name)
	}
	m := mf.GetMetric()[0]
	if m.GetGauge() != nil {
		return m.GetGauge().GetValue()
	}
	return m.GetCounter().GetValue()
}

// commandstatCalls sums cmdstat_<cmd> calls over the shards' INFO.
func commandstatCalls(t *testing.T, clients []*redis.Client, cmd string) int64 {
	t.Helper()
	var total int64
	for _, c := range clients {
		info, err := c.Info(ctxT(t), "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			rest, ok := strings.CutPrefix(line, "cmdstat_"+cmd+":calls=")
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
			if err != nil {
				t.Fatalf("INFO commandstats line %q: %v", line, err)
			}
			total += n
		}
	}
	return total
}

// TestMetricsEndpoint scrapes /metrics while clients write to two shards,
// then checks the figures against INFO once they stop: the documented
// families are there, command counts equal INFO commandstats, the latency
// histograms are cumulative, and the endpoint answers nothing but GET and
// HEAD /metrics.
func TestMetricsEndpoint(t *testing.T) {
	s, base := metricsServer(t, 2)
	clients := []*redis.Client{s.ClientOf(t, 0), s.ClientOf(t, 1)}
	cc := s.ClusterClient(t)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		c := cc
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				key := fmt.Sprintf("w%d:%d", w, i%50)
				// One pipeline, one request, one deadline.
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				p := c.Pipeline()
				p.Set(ctx, key, i, 0)
				p.Get(ctx, key)
				p.Incr(ctx, fmt.Sprintf("counter%d", i%4))
				p.Expire(ctx, key, time.Hour)
				_, err := p.Exec(ctx)
				cancel()
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// Scrapes during the load parse and see the figures grow.
	var last float64
	for range 3 {
		mfs := scrape(t, base)
		n := single(t, mfs, "redis_commands_processed_total")
		if n < last {
			t.Errorf("redis_commands_processed_total went down: %v after %v", n, last)
		}
		last = n
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// An error reply, counted per code.
	if err := cc.Set(ctxT(t), "notanumber", "a", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cc.Incr(ctxT(t), "notanumber").Err(); err == nil {
		t.Fatal("INCR of a string succeeded")
	}

	mfs := scrape(t, base)
	for _, name := range []string{
		"redis_up", "redis_connected_clients", "redis_memory_used_bytes", "redis_commands_total",
		"redis_commands_duration_seconds_total", "redis_commands_latencies_usec", "redis_db_keys",
		"redis_db_keys_expiring", "redis_expired_keys_total", "redis_evicted_keys_total",
		"redis_errors_total", "redis_blocked_clients", "redis_pubsub_channels",
		"ruvio_shard_keys", "ruvio_shard_memory_used_bytes", "ruvio_shard_metrics_stale",
		"ruvio_snapshot_last_success_timestamp_seconds", "go_goroutines", "go_memstats_heap_alloc_bytes",
	} {
		if mfs[name] == nil {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for _, cmd := range []string{"set", "get", "incr", "expire"} {
		m := labelled(mfs, "redis_commands_total", "cmd", cmd)
		if m == nil {
			t.Errorf("no redis_commands_total{cmd=%q}", cmd)
			continue
		}
		want := commandstatCalls(t, clients, cmd)
		if got := int64(m.GetCounter().GetValue()); got != want {
			t.Errorf("redis_commands_total{cmd=%q} = %d, INFO commandstats says %d", cmd, got, want)
		}
		if cmd == "set" && want < 800 {
			t.Errorf("SET calls %d, want at least 800", want)
		}
	}
	for _, m := range mfs["redis_commands_latencies_usec"].GetMetric() {
		h := m.GetHistogram()
		prev := uint64(0)
		for _, b := range h.GetBucket() {
			if b.GetCumulativeCount() < prev {
				t.Errorf("%v: bucket le=%v holds %d, below the previous %d", m.GetLabel(), b.GetUpperBound(), b.GetCumulativeCount(), prev)
			}
			prev = b.GetCumulativeCount()
		}
		if prev > h.GetSampleCount() {
			t.Errorf("%v: buckets hold %d, count %d", m.GetLabel(), prev, h.GetSampleCount())
		}
	}
	// Every call is timed while the slow log is on (the default): the
	// histogram holds them all.
	if m := labelled(mfs, "redis_commands_latencies_usec", "cmd", "get"); m == nil {
		t.Error("no latency histogram for GET")
	} else if got, want := int64(m.GetHistogram().GetSampleCount()), commandstatCalls(t, clients, "get"); got != want {
		t.Errorf("GET latency histogram count %d, calls %d", got, want)
	}
	var keys int64
	for _, c := range clients {
		n, err := c.DBSize(ctxT(t)).Result()
		if err != nil {
			t.Fatal(err)
		}
		keys += n
	}
	if m := labelled(mfs, "redis_db_keys", "db", "db0"); m == nil || int64(m.GetGauge().GetValue()) != keys {
		t.Errorf("redis_db_keys{db=\"db0\"} = %v, DBSIZE says %d", m, keys)
	}
	if m := labelled(mfs, "redis_errors_total", "err", "ERR"); m == nil || m.GetCounter().GetValue() < 1 {
		t.Errorf("redis_errors_total{err=\"ERR\"} = %v, want at least 1", m)
	}
	if n := single(t, mfs, "redis_connected_clients"); n < 2 {
		t.Errorf("redis_connected_clients = %v, want at least 2", n)
	}
	for _, m := range mfs["ruvio_shard_metrics_stale"].GetMetric() {
		if m.GetGauge().GetValue() != 0 {
			t.Errorf("shard %v stale on an idle server", m.GetLabel())
		}
	}

	if code, _ := httpDo(t, http.MethodHead, base+"/metrics"); code != http.StatusOK {
		t.Errorf("HEAD /metrics: %d", code)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/metrics"}, {http.MethodPut, "/metrics"}, {http.MethodDelete, "/metrics"},
	} {
		if code, _ := httpDo(t, c.method, base+c.path); code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d, want 405", c.method, c.path, code)
		}
	}
	for _, p := range []string{"/", "/metrics/", "/debug/pprof/", "/metricsx"} {
		if code, _ := httpDo(t, http.MethodGet, base+p); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
}

// TestMetricsSlowScraperDoesNotBlockShards: scrapers that send a request
// and never read the answer (with a small receive buffer) hold only their
// connections: the figures were copied before the answer is written, so
// the shards go on serving and another scrape is answered.
func TestMetricsSlowScraperDoesNotBlockShards(t *testing.T) {
	s, base := metricsServer(t, 2)
	host := strings.TrimPrefix(base, "http://")
	c := s.ClusterClient(t)
	// Keys on a shard, so that its copy is not empty.
	for i := range 20 {
		args := []interface{}{"MSET"}
		for j := range 100 {
			args = append(args, fmt.Sprintf("{k}%d:%d", i, j), "v")
		}
		if err := c.Do(ctxT(t), args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		d := net.Dialer{Timeout: 5 * time.Second}
		conn, err := d.DialContext(ctxT(t), "tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(1024)
		}
		if _, err := io.WriteString(conn, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		if err := c.Set(ctxT(t), fmt.Sprintf("after:%d", i), i, 0).Err(); err != nil {
			t.Fatalf("SET while scrapers stall: %v", err)
		}
	}
	mfs := scrape(t, base)
	if mfs["redis_commands_total"] == nil {
		t.Error("a scrape beside the stalled ones lacks redis_commands_total")
	}
}

// TestLatencyCommandsShapes checks the LATENCY replies' shapes through
// go-redis, in RESP2 and RESP3.
func TestLatencyCommandsShapes(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	for range 10 {
		if err := c.Set(ctxT(t), "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.ConfigSet(ctxT(t), "latency-monitor-threshold", "100").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctxT(t), "DEBUG", "SLEEP", "0.2").Err(); err != nil {
		t.Fatal(err)
	}
	latest, err := c.Do(ctxT(t), "LATENCY", "LATEST").Slice()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range latest {
		ev, ok := e.([]interface{})
		if !ok || len(ev) != 4 {
			t.Fatalf("LATENCY LATEST entry: %#v", e)
		}
		if ev[0] == "command" {
			found = true
			if ev[2].(int64) < 200 || ev[3].(int64) < 200 {
				t.Errorf("LATENCY LATEST command entry below DEBUG SLEEP 0.2: %#v", ev)
			}
		}
	}
	if !found {
		t.Fatalf("LATENCY LATEST after DEBUG SLEEP 0.2 lacks the command event: %v", latest)
	}
	hist, err := c.Do(ctxT(t), "LATENCY", "HISTORY", "command").Slice()
	if err != nil || len(hist) != 1 {
		t.Fatalf("LATENCY HISTORY command: %v %v", hist, err)
	}
	if doc, err := c.Do(ctxT(t), "LATENCY", "DOCTOR").Text(); err != nil || !strings.Contains(doc, ". command: 1 latency spikes") {
		t.Errorf("LATENCY DOCTOR: %q %v", doc, err)
	}
	if g, err := c.Do(ctxT(t), "LATENCY", "GRAPH", "command").Text(); err != nil || !strings.HasPrefix(g, "command - high ") {
		t.Errorf("LATENCY GRAPH: %q %v", g, err)
	}
	if n, err := c.Do(ctxT(t), "LATENCY", "RESET").Int(); err != nil || n < 1 {
		t.Errorf("LATENCY RESET: %d %v", n, err)
	}

	// HISTOGRAM: RESP2 is flat arrays, RESP3 maps.
	c2 := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true}))
	t.Cleanup(func() { _ = c2.Close() })
	r2, err := c2.Do(ctxT(t), "LATENCY", "HISTOGRAM", "set").Slice()
	if err != nil || len(r2) != 2 || r2[0] != "set" {
		t.Fatalf("RESP2 LATENCY HISTOGRAM set: %#v %v", r2, err)
	}
	body, ok := r2[1].([]interface{})
	if !ok || len(body) != 4 || body[0] != "calls" || body[1] != int64(10) || body[2] != "histogram_usec" {
		t.Errorf("RESP2 LATENCY HISTOGRAM set body: %#v", r2[1])
	}
	c3 := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: 3, DisableIdentity: true}))
	t.Cleanup(func() { _ = c3.Close() })
	r3, err := c3.Do(ctxT(t), "LATENCY", "HISTOGRAM", "set").Result()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := r3.(map[interface{}]interface{})
	if !ok {
		t.Fatalf("RESP3 LATENCY HISTOGRAM: %#v", r3)
	}
	set, ok := m["set"].(map[interface{}]interface{})
	if !ok || set["calls"] != int64(10) {
		t.Fatalf("RESP3 LATENCY HISTOGRAM set: %#v", m["set"])
	}
	buckets, ok := set["histogram_usec"].(map[interface{}]interface{})
	if !ok || len(buckets) == 0 {
		t.Fatalf("RESP3 histogram_usec: %#v", set["histogram_usec"])
	}
	var top int64
	for k, v := range buckets {
		us := k.(int64)
		if us&(us-1) != 0 {
			t.Errorf("bucket %d is not a power of two", us)
		}
		top = max(top, v.(int64))
	}
	if top != 10 {
		t.Errorf("the last bucket holds %d, want 10", top)
	}
	info, err := c.Info(ctxT(t), "latencystats").Result()
	if err != nil || !strings.Contains(info, "latency_percentiles_usec_set:p50=") {
		t.Errorf("INFO latencystats: %q %v", info, err)
	}
}

// TestLatencyAndHotkeysWithRedisCLI: redis-cli reads LATENCY's replies,
// and --hotkeys finds the hot key under an LFU policy; RUVIO HOTKEYS finds
// it under the default policy.
func TestLatencyAndHotkeysWithRedisCLI(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	for i := range 20 {
		if err := c.Set(ctxT(t), fmt.Sprintf("k%d", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for range 640 {
		if err := c.Get(ctxT(t), "k7").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if out := cli(t, s.Port(), "LATENCY", "HISTOGRAM", "get"); !strings.Contains(out, "calls") || !strings.Contains(out, "histogram_usec") {
		t.Errorf("redis-cli LATENCY HISTOGRAM get: %q", out)
	}
	if out := cli(t, s.Port(), "LATENCY", "DOCTOR"); !strings.Contains(out, "latency-monitor-threshold") {
		t.Errorf("redis-cli LATENCY DOCTOR: %q", out)
	}
	if out := cli(t, s.Port(), "RUVIO", "HOTKEYS", "1"); !strings.Contains(out, "k7") {
		t.Errorf("redis-cli RUVIO HOTKEYS 1: %q", out)
	}
	if err := c.ConfigSet(ctxT(t), "maxmemory-policy", "allkeys-lfu").Err(); err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if err := c.Get(ctxT(t), "k7").Err(); err != nil {
			t.Fatal(err)
		}
	}
	out := cli(t, s.Port(), "--hotkeys")
	if !strings.Contains(out, `keyname: "k7"`) {
		t.Errorf("redis-cli --hotkeys: %q", out)
	}
}
