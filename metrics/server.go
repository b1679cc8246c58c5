package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ruvio/ruvio/keyspace"
)

// Path is the one path the endpoint serves.
const Path = "/metrics"

// NewRegistry returns a registry holding a Collector of srv and the Go
// runtime's and the process's collectors.
func NewRegistry(srv *keyspace.Server, wait time.Duration) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{
		NewCollector(srv, wait),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: registering a collector: %w", err)
		}
	}
	return reg, nil
}

// Handler serves g's metrics on GET and HEAD /metrics; any other path is
// 404 and any other method 405.
func Handler(g prometheus.Gatherer) http.Handler {
	prom := promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		prom.ServeHTTP(w, r)
	})
}

// Server is the running endpoint.
type Server struct {
	http *http.Server
	ln   net.Listener
	done chan error
}

// Listen starts serving srv's metrics on addr ("host:port"; port 0 picks
// one, see Addr).
func Listen(addr string, srv *keyspace.Server) (*Server, error) {
	reg, err := NewRegistry(srv, DefaultShardWait)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	s := &Server{
		http: &http.Server{
			Handler:           Handler(reg),
			ReadHeaderTimeout: 5 * time.Second,
			// A scraper that stops reading holds only its own
			// connection; the shards copied their figures already.
			WriteTimeout: 30 * time.Second,
		},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() { s.done <- s.http.Serve(ln) }()
	return s, nil
}

// Addr is the address the endpoint listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the endpoint: it stops listening and waits, until ctx ends,
// for the scrapes in progress.
func (s *Server) Close(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if serveErr := <-s.done; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	if err != nil {
		return fmt.Errorf("metrics: closing: %w", err)
	}
	return nil
}
