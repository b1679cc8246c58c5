// Package idempotency is net/http middleware that makes retried unsafe
// requests (POST, PUT, PATCH, DELETE carrying an Idempotency-Key header)
// run their handler at most once per retention window, on top of Ruvio's
// native IDEM command.
//
// For each such request the middleware:
//
//   - scopes the record key to the authenticated tenant (Config.Tenant),
//     the method, the path and the client's idempotency key;
//   - fingerprints the request as the SHA-256 hex digest (64 bytes) of the
//     method, request URI, selected headers and the bounded body;
//   - draws a random 32-byte owner token for this attempt;
//   - calls IDEM BEGIN. "acquired" runs the handler with a bounded
//     response capture and publishes the response with IDEM COMPLETE
//     before sending it; "completed" replays the saved response;
//     "pending" answers 409 and "conflict" 422 without running the
//     handler.
//
// Authentication must run before this middleware: the tenant scope is
// what keeps one principal from reading another's saved responses. The
// server stays HTTP-agnostic; it only compares the opaque fingerprint and
// owner bytes.
//
// This is not exactly-once execution: a handler that crashes after its
// side effect and before completion leaves the record pending until the
// retention ends, and eviction or data loss can admit the request again.
// Irreversible effects still need downstream deduplication.
package idempotency

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/ruvio/ruvio/client"
)

// Defaults and bounds.
const (
	DefaultHeader          = "Idempotency-Key"
	DefaultKeyPrefix       = "idem:http:"
	DefaultRetention       = 24 * time.Hour
	DefaultMaxKeyLength    = 255
	DefaultMaxRequestBody  = 1 << 20
	DefaultMaxResponseBody = 1 << 20
	// MaxRetention is the longest retention IDEM accepts.
	MaxRetention = 7 * 24 * time.Hour
	// MaxResult is the largest saved response IDEM accepts, serialization
	// included.
	MaxResult = 4 << 20
	// ReplayedHeader marks a replayed response.
	ReplayedHeader = "Idempotent-Replayed"
)

// Config configures the middleware.
type Config struct {
	// Client reaches the Ruvio server. Required.
	Client *client.Client
	// Tenant returns the authenticated tenant or principal of a request;
	// ok false answers 401 without running the handler. Required.
	Tenant func(r *http.Request) (tenant string, ok bool)
	// Header is the request header carrying the idempotency key
	// (DefaultHeader).
	Header string
	// KeyPrefix is the namespace of the records (DefaultKeyPrefix).
	// Reserve it for this middleware: ordinary writes destroy records.
	KeyPrefix string
	// Retention is how long a record lives (DefaultRetention, at most
	// MaxRetention). Use longer than the operation and retry horizon.
	Retention time.Duration
	// MaxKeyLength bounds the client's key (DefaultMaxKeyLength).
	MaxKeyLength int
	// MaxRequestBody bounds the body read for the fingerprint
	// (DefaultMaxRequestBody); larger requests get 413.
	MaxRequestBody int64
	// MaxResponseBody bounds the captured response body
	// (DefaultMaxResponseBody). A larger response is still sent, but only
	// a marker is saved and replays answer 500.
	MaxResponseBody int
	// FingerprintHeaders are request headers included in the fingerprint
	// besides Content-Type.
	FingerprintHeaders []string
	// OnError, when set, is told about store errors and failed
	// completions.
	OnError func(r *http.Request, err error)
}

// Middleware returns the middleware for cfg.
func Middleware(cfg Config) (func(http.Handler) http.Handler, error) {
	if cfg.Client == nil || cfg.Tenant == nil {
		return nil, errors.New("idempotency: Config.Client and Config.Tenant are required")
	}
	if cfg.Header == "" {
		cfg.Header = DefaultHeader
	}
	if cfg.KeyPrefix == "" {
		cfg.KeyPrefix = DefaultKeyPrefix
	}
	if cfg.Retention == 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Retention < time.Millisecond || cfg.Retention > MaxRetention {
		return nil, fmt.Errorf("idempotency: retention %v is outside 1ms..%v", cfg.Retention, MaxRetention)
	}
	if cfg.MaxKeyLength <= 0 {
		cfg.MaxKeyLength = DefaultMaxKeyLength
	}
	if cfg.MaxRequestBody <= 0 {
		cfg.MaxRequestBody = DefaultMaxRequestBody
	}
	if cfg.MaxResponseBody <= 0 {
		cfg.MaxResponseBody = DefaultMaxResponseBody
	}
	if cfg.MaxResponseBody > MaxResult/2 {
		return nil, fmt.Errorf("idempotency: MaxResponseBody %d leaves no room for headers within %d bytes", cfg.MaxResponseBody, MaxResult)
	}
	m := &middleware{cfg: cfg}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, next) })
	}, nil
}

type middleware struct {
	cfg Config
}

// unsafeMethod reports whether requests of method are deduplicated.
func unsafeMethod(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

func (m *middleware) fail(r *http.Request, err error) {
	if m.cfg.OnError != nil {
		m.cfg.OnError(r, err)
	}
}

func (m *middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	idemKey := r.Header.Get(m.cfg.Header)
	if idemKey == "" || !unsafeMethod(r.Method) {
		next.ServeHTTP(w, r)
		return
	}
	if len(idemKey) > m.cfg.MaxKeyLength {
		http.Error(w, m.cfg.Header+" is too long", http.StatusBadRequest)
		return
	}
	tenant, ok := m.cfg.Tenant(r)
	if !ok {
		http.Error(w, "unauthenticated", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, m.cfg.MaxRequestBody+1))
	if err != nil {
		http.Error(w, "reading the request body failed", http.StatusBadRequest)
		return
	}
	if int64(len(body)) > m.cfg.MaxRequestBody {
		http.Error(w, "request body too large for an idempotent request", http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))

	key := RecordKey(m.cfg.KeyPrefix, tenant, r.Method, r.URL.Path, idemKey)
	fp := m.fingerprint(r, body)
	owner := make([]byte, 32)
	if _, err := rand.Read(owner); err != nil {
		m.fail(r, err)
		http.Error(w, "idempotency unavailable", http.StatusServiceUnavailable)
		return
	}
	ctx := r.Context()
	state, result, err := m.cfg.Client.IdemBegin(ctx, key, fp, owner, m.cfg.Retention)
	if err != nil {
		// Fail closed: without a record the handler must not run.
		m.fail(r, fmt.Errorf("idempotency: IDEM BEGIN %s: %w", key, err))
		http.Error(w, "idempotency store unavailable", http.StatusServiceUnavailable)
		return
	}
	switch state {
	case client.IdemPending:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "a request with this "+m.cfg.Header+" is still being processed", http.StatusConflict)
		return
	case client.IdemConflict:
		http.Error(w, m.cfg.Header+" was already used for a different request", http.StatusUnprocessableEntity)
		return
	case client.IdemCompleted:
		if err := replay(w, result); err != nil {
			m.fail(r, fmt.Errorf("idempotency: replay %s: %w", key, err))
			http.Error(w, "the saved response cannot be replayed", http.StatusInternalServerError)
		}
		return
	}

	rec := &recorder{w: w, header: http.Header{}, limit: m.cfg.MaxResponseBody}
	next.ServeHTTP(rec, r) // a panic leaves the record pending, as it must
	saved := rec.serialize()
	// Publish before answering, with a context that outlives a client
	// that hung up: the side effect has happened.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	done, err := m.cfg.Client.IdemComplete(cctx, key, fp, owner, saved)
	cancel()
	if err != nil {
		m.fail(r, fmt.Errorf("idempotency: IDEM COMPLETE %s: %w", key, err))
	} else if !done {
		m.fail(r, fmt.Errorf("idempotency: IDEM COMPLETE %s: the record expired or changed before completion", key))
	}
	rec.finish()
}

// RecordKey is the store key of a request: the prefix, then the SHA-256 hex
// digest of the length-prefixed tenant, method, path and idempotency key,
// so no tenant can name another tenant's record.
func RecordKey(prefix, tenant, method, path, idemKey string) string {
	h := sha256.New()
	for _, s := range []string{tenant, method, path, idemKey} {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	return prefix + hex.EncodeToString(h.Sum(nil))
}

// fingerprint is the 64-byte hex SHA-256 of the method, request URI,
// Content-Type, the configured headers and the body, each length-prefixed.
func (m *middleware) fingerprint(r *http.Request, body []byte) []byte {
	h := sha256.New()
	field := func(b []byte) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))])
		h.Write(b)
	}
	field([]byte(r.Method))
	field([]byte(r.URL.RequestURI()))
	field([]byte(r.Header.Get("Content-Type")))
	for _, name := range m.cfg.FingerprintHeaders {
		field([]byte(name))
		for _, v := range r.Header.Values(name) {
			field([]byte(v))
		}
	}
	field(body)
	out := make([]byte, hex.EncodedLen(sha256.Size))
	hex.Encode(out, h.Sum(nil))
	return out
}

// Saved responses: version byte, then
//
//	v1: status u16 big-endian, header count uvarint, per header value
//	    name and value (uvarint length + bytes), then the body to the end
//	v2: the response exceeded MaxResponseBody; status u16 only
const (
	savedV1       = 1
	savedTooLarge = 2
)

// recorder captures a response up to limit bytes of body. Beyond it, the
// response streams to the client and only a marker is saved.
type recorder struct {
	w           http.ResponseWriter
	header      http.Header
	status      int
	body        bytes.Buffer
	limit       int
	passthrough bool
}

// Header returns the captured header map.
func (rc *recorder) Header() http.Header {
	if rc.passthrough {
		return rc.w.Header()
	}
	return rc.header
}

// WriteHeader records the status; the first call wins.
func (rc *recorder) WriteHeader(status int) {
	if rc.status != 0 {
		return
	}
	rc.status = status
	if rc.passthrough {
		rc.w.WriteHeader(status)
	}
}

// Write captures b, switching to pass-through once the limit is passed.
func (rc *recorder) Write(b []byte) (int, error) {
	if rc.status == 0 {
		rc.WriteHeader(http.StatusOK)
	}
	if rc.passthrough {
		return rc.w.Write(b)
	}
	if rc.body.Len()+len(b) > rc.limit {
		rc.startPassthrough()
		if _, err := rc.w.Write(rc.body.Bytes()); err != nil {
			return 0, err
		}
		rc.body.Reset()
		return rc.w.Write(b)
	}
	return rc.body.Write(b)
}

// Flush is a no-op while capturing (nothing may reach the client before
// the result is published) and flushes the client otherwise.
func (rc *recorder) Flush() {
	if rc.passthrough {
		_ = http.NewResponseController(rc.w).Flush()
	}
}

// Unwrap returns the client's ResponseWriter, for http.ResponseController.
func (rc *recorder) Unwrap() http.ResponseWriter { return rc.w }

func (rc *recorder) startPassthrough() {
	rc.passthrough = true
	dst := rc.w.Header()
	for k, v := range rc.header {
		dst[k] = v
	}
	rc.w.WriteHeader(rc.status)
}

func (rc *recorder) statusCode() int {
	if rc.status == 0 {
		return http.StatusOK
	}
	return rc.status
}

// serialize encodes the captured response for IDEM COMPLETE.
func (rc *recorder) serialize() []byte {
	if rc.passthrough {
		return binary.BigEndian.AppendUint16([]byte{savedTooLarge}, uint16(rc.statusCode()))
	}
	b := binary.BigEndian.AppendUint16([]byte{savedV1}, uint16(rc.statusCode()))
	names := make([]string, 0, len(rc.header))
	n := 0
	for k, vs := range rc.header {
		names = append(names, k)
		n += len(vs)
	}
	sort.Strings(names)
	b = binary.AppendUvarint(b, uint64(n))
	for _, k := range names {
		for _, v := range rc.header[k] {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	if len(b)+rc.body.Len() > MaxResult {
		// Headers pushed the serialized response past what IDEM stores:
		// COMPLETE would be refused and the record would stay pending
		// until its retention ends. Save the too-large marker instead.
		return binary.BigEndian.AppendUint16([]byte{savedTooLarge}, uint16(rc.statusCode()))
	}
	return append(b, rc.body.Bytes()...)
}

// finish sends a captured response to the client.
func (rc *recorder) finish() {
	if rc.passthrough {
		return
	}
	dst := rc.w.Header()
	for k, v := range rc.header {
		dst[k] = v
	}
	dst.Set("Content-Length", strconv.Itoa(rc.body.Len()))
	rc.w.WriteHeader(rc.statusCode())
	_, _ = rc.w.Write(rc.body.Bytes())
}

var errSaved = errors.New("malformed saved response")

// replay writes a saved response, marked with ReplayedHeader.
func replay(w http.ResponseWriter, saved []byte) error {
	if len(saved) < 3 {
		return errSaved
	}
	status := int(binary.BigEndian.Uint16(saved[1:3]))
	switch saved[0] {
	case savedTooLarge:
		w.Header().Set(ReplayedHeader, "true")
		http.Error(w, "the original response (status "+strconv.Itoa(status)+") was too large to save and cannot be replayed", http.StatusInternalServerError)
		return nil
	case savedV1:
	default:
		return errSaved
	}
	p := saved[3:]
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return nil, false
		}
		v := p[k : k+int(n)]
		p = p[k+int(n):]
		return v, true
	}
	count, k := binary.Uvarint(p)
	if k <= 0 || count > uint64(len(p)) {
		return errSaved
	}
	p = p[k:]
	h := http.Header{}
	for i := uint64(0); i < count; i++ {
		name, ok1 := next()
		val, ok2 := next()
		if !ok1 || !ok2 {
			return errSaved
		}
		h.Add(string(name), string(val))
	}
	if status < 100 || status > 999 {
		return errSaved
	}
	dst := w.Header()
	for k, v := range h {
		dst[k] = v
	}
	dst.Set(ReplayedHeader, "true")
	dst.Set("Content-Length", strconv.Itoa(len(p)))
	w.WriteHeader(status)
	_, _ = w.Write(p)
	return nil
}
