package config

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// An ERROR line is one line, in both formats: no Go stack trace follows it.
func TestLoggerErrorHasNoStacktrace(t *testing.T) {
	for _, format := range []string{"console", "json"} {
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
