package metrics_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ruvio/ruvio/metrics"
)

// TestDocumentedMetricsExist: every redis_* and ruvio_* name that the
// dashboard and docs/operations.md use is one the collector describes.
func TestDocumentedMetricsExist(t *testing.T) {
	ch := make(chan *prometheus.Desc, 256)
	metrics.NewCollector(nil, 0).Describe(ch)
	close(ch)
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	have := map[string]bool{}
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			have[m[1]] = true
		}
	}
	name := regexp.MustCompile(`\b(?:redis|ruvio)_[a-z_]+`)
	for _, path := range []string{"../docs/grafana-dashboard.json", "../docs/operations.md"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.HasSuffix(path, ".md") {
			start := strings.Index(text, "### The Prometheus endpoint")
			end := strings.Index(text, "### LATENCY and latency tracking")
			if start < 0 || end < start {
				t.Fatal("operations.md: no Prometheus endpoint section")
			}
			text = text[start:end]
		}
		for _, n := range name.FindAllString(text, -1) {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_count"), "_sum")
			if !have[base] && n != "redis_exporter" {
				t.Errorf("%s names %s, which the collector does not describe", path, n)
			}
		}
	}
}
