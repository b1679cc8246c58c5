package metrics_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
	"github.com/ruvio/ruvio/metrics"
)

func TestHandlerServesOnlyGetAndHeadMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x_test", Help: "A test gauge."})
	reg.MustRegister(g)
	h := metrics.Handler(reg)
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{http.MethodGet, "/metrics", http.StatusOK},
		{http.MethodHead, "/metrics", http.StatusOK},
		{http.MethodPost, "/metrics", http.StatusMethodNotAllowed},
		{http.MethodPut, "/metrics", http.StatusMethodNotAllowed},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodGet, "/metrics/x", http.StatusNotFound},
		{http.MethodPost, "/other", http.StatusNotFound},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.code)
		}
		if c.code == http.StatusMethodNotAllowed && rec.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", c.method, c.path, rec.Header().Get("Allow"))
		}
		if c.method == http.MethodGet && c.code == http.StatusOK && !strings.Contains(rec.Body.String(), "x_test 0") {
			t.Errorf("GET /metrics: %q", rec.Body.String())
		}
	}
}

// BenchmarkScrape measures one scrape (gather and encode) of a server of
// two shards holding 10,000 keys with 200 clients connected.
func BenchmarkScrape(b *testing.B) {
	s := testserver.Start(b, testserver.Shards(2))
	cc := s.ClusterClient(b)
	for i := 0; i < 10_000; i += 500 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := cc.Pipelined(ctx, func(p redis.Pipeliner) error {
			for j := i; j < i+500; j++ {
				p.Set(ctx, fmt.Sprintf("key:%d", j), j, 0)
			}
			return nil
		})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range 200 {
		c := redis.NewClient(&redis.Options{Addr: s.Addrs[i%2], DisableIdentity: true, PoolSize: 1})
		b.Cleanup(func() { _ = c.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
	reg, err := metrics.NewRegistry(s.App().Keyspace(), 0)
	if err != nil {
		b.Fatal(err)
	}
	h := metrics.Handler(reg)
	req := httptest.NewRequest(http.MethodGet, metrics.Path, nil)
	b.ReportAllocs()
	b.ResetTimer()
	size := 0
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("scrape: %d", rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}
