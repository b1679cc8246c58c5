package idempotency_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/idempotency"
	"github.com/ruvio/ruvio/internal/testserver"
)

// fixture is a middleware in front of a counting handler, backed by an
// in-process Ruvio server.
type fixture struct {
	srv     *testserver.Server
	calls   atomic.Int64
	handler http.Handler
	block   chan struct{} // when set, the handler waits on it
	entered chan struct{}
	errs    atomic.Int64
}

func newFixture(t *testing.T, mod func(*idempotency.Config)) *fixture {
	t.Helper()
	f := &fixture{srv: testserver.Start(t)}
	cfg := idempotency.Config{
		Client: client.New(f.srv.Client(t)),
		Tenant: func(r *http.Request) (string, bool) {
			tenant := r.Header.Get("X-Tenant")
			return tenant, tenant != ""
		},
		OnError: func(*http.Request, error) { f.errs.Add(1) },
	}
	if mod != nil {
		mod(&cfg)
	}
	mw, err := idempotency.Middleware(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.handler = mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.calls.Add(1)
		if f.block != nil {
			f.entered <- struct{}{}
			<-f.block
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Call", string(rune('0'+n)))
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte("created:"))
		_, _ = w.Write(body)
	}))
	return f
}

func (f *fixture) do(method, tenant, key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/orders?x=1", strings.NewReader(body))
	if tenant != "" {
		r.Header.Set("X-Tenant", tenant)
	}
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, r)
	return w
}

func TestMiddlewareRunsOnceAndReplays(t *testing.T) {
	f := newFixture(t, nil)
	first := f.do("POST", "acme", "k1", `{"n":1}`)
	if first.Code != 201 || first.Body.String() != `created:{"n":1}` || first.Header().Get("X-Call") != "1" || first.Header().Get(idempotency.ReplayedHeader) != "" {
		t.Fatalf("first: %d %q %v", first.Code, first.Body, first.Header())
	}
	again := f.do("POST", "acme", "k1", `{"n":1}`)
	if again.Code != 201 || again.Body.String() != `created:{"n":1}` || again.Header().Get("X-Call") != "1" ||
		again.Header().Get(idempotency.ReplayedHeader) != "true" || strings.Join(again.Header().Values("X-Multi"), ",") != "a,b" {
		t.Fatalf("replay: %d %q %v", again.Code, again.Body, again.Header())
	}
	if f.calls.Load() != 1 {
		t.Fatalf("handler ran %d times", f.calls.Load())
	}
	// The same key with another body is a conflict.
	if w := f.do("POST", "acme", "k1", `{"n":2}`); w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("conflict: %d %q", w.Code, w.Body)
	}
	// Another tenant's key is a different record.
	if w := f.do("POST", "globex", "k1", `{"n":1}`); w.Code != 201 || w.Header().Get(idempotency.ReplayedHeader) != "" {
		t.Fatalf("other tenant: %d %v", w.Code, w.Header())
	}
	// No key, or a safe method: the handler runs every time.
	f.do("POST", "acme", "", `{}`)
	f.do("GET", "acme", "k1", ``)
	if f.calls.Load() != 4 {
		t.Fatalf("handler ran %d times, want 4", f.calls.Load())
	}
	// Unauthenticated requests never reach the store.
	if w := f.do("POST", "", "k1", `{}`); w.Code != http.StatusUnauthorized {
		t.Fatalf("no tenant: %d", w.Code)
	}
	if w := f.do("POST", "acme", strings.Repeat("k", 256), `{}`); w.Code != http.StatusBadRequest {
		t.Fatalf("long key: %d", w.Code)
	}
	if f.errs.Load() != 0 {
		t.Fatalf("%d store errors", f.errs.Load())
	}
}

func TestMiddlewarePendingAndRecordSize(t *testing.T) {
	f := newFixture(t, nil)
	f.block, f.entered = make(chan struct{}), make(chan struct{}, 1)
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- f.do("PUT", "acme", "slow", `{}`) }()
	<-f.entered
	// While the first attempt runs, a retry is told to wait.
	if w := f.do("PUT", "acme", "slow", `{}`); w.Code != http.StatusConflict || w.Header().Get("Retry-After") == "" {
		t.Fatalf("pending: %d %v", w.Code, w.Header())
	}
	// The pending record: 11 header bytes + 64-byte digest + 32-byte owner.
	c := f.srv.Client(t)
	keys, err := c.Keys(context.Background(), idempotency.DefaultKeyPrefix+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v %v", keys, err)
	}
	if n, _ := c.StrLen(context.Background(), keys[0]).Result(); n != 107 {
		t.Fatalf("pending record is %d bytes, want 107", n)
	}
	if ttl, _ := c.PTTL(context.Background(), keys[0]).Result(); ttl <= 23*time.Hour {
		t.Fatalf("retention %v", ttl)
	}
	close(f.block)
	if w := <-done; w.Code != 201 {
		t.Fatalf("first: %d", w.Code)
	}
	if w := f.do("PUT", "acme", "slow", `{}`); w.Code != 201 || w.Header().Get(idempotency.ReplayedHeader) != "true" {
		t.Fatalf("after completion: %d %v", w.Code, w.Header())
	}
}

func TestMiddlewareConcurrentRetries(t *testing.T) {
	f := newFixture(t, nil)
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = f.do("POST", "acme", "race", `{"x":1}`).Code
		}()
	}
	wg.Wait()
	if f.calls.Load() != 1 {
		t.Fatalf("handler ran %d times", f.calls.Load())
	}
	for _, c := range codes {
		if c != 201 && c != http.StatusConflict {
			t.Fatalf("codes %v", codes)
		}
	}
}

func TestMiddlewareBounds(t *testing.T) {
	f := newFixture(t, func(c *idempotency.Config) { c.MaxRequestBody = 8; c.MaxResponseBody = 10 })
	if w := f.do("POST", "acme", "big", `0123456789`); w.Code != http.StatusRequestEntityTooLarge || f.calls.Load() != 0 {
		t.Fatalf("large request: %d, %d calls", w.Code, f.calls.Load())
	}
	// A response beyond the capture bound is sent in full, but not saved.
	first := f.do("POST", "acme", "bigresp", `{"a":1}`)
	if first.Code != 201 || first.Body.String() != `created:{"a":1}` {
		t.Fatalf("large response: %d %q", first.Code, first.Body)
	}
	again := f.do("POST", "acme", "bigresp", `{"a":1}`)
	if again.Code != http.StatusInternalServerError || again.Header().Get(idempotency.ReplayedHeader) != "true" || f.calls.Load() != 1 {
		t.Fatalf("replay of a large response: %d %q", again.Code, again.Body)
	}
	if _, err := idempotency.Middleware(idempotency.Config{}); err == nil {
		t.Fatal("a config without client and tenant was accepted")
	}
	if _, err := idempotency.Middleware(idempotency.Config{Client: client.New(f.srv.Client(t)), Tenant: func(*http.Request) (string, bool) { return "", false }, Retention: 8 * 24 * time.Hour}); err == nil {
		t.Fatal("an 8-day retention was accepted")
	}
}

func TestMiddlewareStoreDownFailsClosed(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Stop()
	if w := f.do("POST", "acme", "k", `{}`); w.Code != http.StatusServiceUnavailable || f.calls.Load() != 0 {
		t.Fatalf("store down: %d, %d calls", w.Code, f.calls.Load())
	}
	if f.errs.Load() == 0 {
		t.Fatal("the error was not reported")
	}
}

func TestRecorderUnwrap(t *testing.T) {
	srv := testserver.Start(t)
	mw, err := idempotency.Middleware(idempotency.Config{
		Client: client.New(srv.Client(t)),
		Tenant: func(*http.Request) (string, bool) { return "t", true },
	})
	if err != nil {
		t.Fatal(err)
	}
	var unwrapped, deadlineErr atomic.Value
	hs := httptest.NewServer(mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		unwrapped.Store(ok && u.Unwrap() != nil && u.Unwrap() != w)
		deadlineErr.Store(errString(http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))))
		_ = http.NewResponseController(w).Flush() // must not send anything early
		w.Header().Set("X-After-Flush", "kept")
		_, _ = io.WriteString(w, "ok")
	})))
	defer hs.Close()
	req, _ := http.NewRequest("POST", hs.URL+"/x", strings.NewReader("b"))
	req.Header.Set("Idempotency-Key", "u1")
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if unwrapped.Load() != true || deadlineErr.Load() != "" {
		t.Fatalf("unwrap %v, SetWriteDeadline error %q", unwrapped.Load(), deadlineErr.Load())
	}
	if string(body) != "ok" || resp.Header.Get("X-After-Flush") != "kept" {
		t.Fatalf("response %q %v", body, resp.Header)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestRecordKeyScopes(t *testing.T) {
	a := idempotency.RecordKey("p:", "tenant", "POST", "/a", "k")
	for _, b := range []string{
		idempotency.RecordKey("p:", "tenant2", "POST", "/a", "k"),
		idempotency.RecordKey("p:", "tenant", "PUT", "/a", "k"),
		idempotency.RecordKey("p:", "tenant", "POST", "/b", "k"),
		idempotency.RecordKey("p:", "tenant", "POST", "/a", "k2"),
		idempotency.RecordKey("p:", "tenantP", "OST", "/a", "k"),
	} {
		if a == b {
			t.Fatalf("scopes collide: %s", a)
		}
	}
	if !strings.HasPrefix(a, "p:") || len(a) != 2+64 {
		t.Fatalf("key %q", a)
	}
}

// TestMiddlewareOversizedHeadersSaveMarker checks that a response whose
// headers push the saved form past IDEM's 4 MiB result limit still
// completes the record (with the too-large marker) instead of leaving it
// pending until its retention ends.
func TestMiddlewareOversizedHeadersSaveMarker(t *testing.T) {
	srv := testserver.Start(t)
	var errs, calls atomic.Int64
	mw, err := idempotency.Middleware(idempotency.Config{
		Client:  client.New(srv.Client(t)),
		Tenant:  func(*http.Request) (string, bool) { return "t", true },
		OnError: func(*http.Request, error) { errs.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		for i := 0; i < 5; i++ {
			w.Header().Add("X-Big", strings.Repeat("h", 1<<20))
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "body")
	}))
	do := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/big", strings.NewReader("x"))
		r.Header.Set("Idempotency-Key", "hdr")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := do(); w.Code != http.StatusAccepted || w.Body.String() != "body" || len(w.Header().Values("X-Big")) != 5 {
		t.Fatalf("first: %d %q", w.Code, w.Body)
	}
	if errs.Load() != 0 {
		t.Fatalf("%d store errors: the completion was refused", errs.Load())
	}
	if w := do(); w.Code != http.StatusInternalServerError || w.Header().Get(idempotency.ReplayedHeader) != "true" || calls.Load() != 1 {
		t.Fatalf("retry: %d, %d calls", w.Code, calls.Load())
	}
}
