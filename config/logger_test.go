package config

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// An ERROR line is one line, in both formats: no Go stack trace follows it.
func TestLoggerErrorHasNoStacktrace(t *testing.T) {
	for _, format := range []string{"console", "json", "redis"} {
		var buf bytes.Buffer
		lg, err := newLogger(LogConfig{Format: format}, zap.NewAtomicLevelAt(zapcore.InfoLevel), zapcore.AddSync(&buf))
		if err != nil {
			t.Fatal(err)
		}
		lg.Error("snapshot failed", zap.Error(errors.New("disk full")))
		out := buf.String()
		if strings.Count(out, "\n") != 1 || strings.Contains(out, "goroutine") || strings.Contains(out, "stacktrace") ||
			!strings.Contains(out, "disk full") {
			t.Errorf("%s: ERROR output is not one line without a stack trace:\n%s", format, out)
		}
	}
}

// The redis format writes redis-server's line: "pid:M dd Mon yyyy hh:mm:ss.mmm <mark> message",
// with Redis's level marks and the fields after the message.
func TestLoggerRedisFormat(t *testing.T) {
	var buf bytes.Buffer
	lg, err := newLogger(LogConfig{Format: "redis"}, zap.NewAtomicLevelAt(zapcore.DebugLevel), zapcore.AddSync(&buf))
	if err != nil {
		t.Fatal(err)
	}
	lg.Debug("a debug line")
	lg.Info("Ready to accept connections", zap.Int("port", 6379))
	lg.Warn("a warning")
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	line := regexp.MustCompile(`^` + strconv.Itoa(os.Getpid()) + `:M \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} ([.*#]) (.*)$`)
	want := [][2]string{{".", "a debug line"}, {"*", `Ready to accept connections {"port": 6379}`}, {"#", "a warning"}}
	if len(lines) != len(want) {
		t.Fatalf("lines:\n%s", buf.String())
	}
	for i, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil || m[1] != want[i][0] || m[2] != want[i][1] {
			t.Errorf("line %d: %q, want mark %q and %q", i, l, want[i][0], want[i][1])
		}
	}
}
