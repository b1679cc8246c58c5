package config

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// ParseLogLevel maps a log.level value (debug, info, warn, error) to a zap level.
func ParseLogLevel(s string) (zapcore.Level, error) {
	switch s {
	case "debug":
		return zapcore.DebugLevel, nil
	case "info":
		return zapcore.InfoLevel, nil
	case "warn":
		return zapcore.WarnLevel, nil
	case "error":
		return zapcore.ErrorLevel, nil
	}
	return 0, fmt.Errorf("config: log.level: %q is not one of debug, info, warn, error", s)
}

// NewLogger builds a zap logger writing to stderr (or c.File) at c.Level in c.Format ("console",
// "json", or "redis": redis-server's line format, written to stdout when c.File is empty). Its level is fixed; use [NewLoggerAt] for one that CONFIG SET loglevel can change.
func NewLogger(c LogConfig) (*zap.Logger, error) {
	lvl, err := ParseLogLevel(c.Level)
	if err != nil {
		return nil, err
	}
	return NewLoggerAt(c, zap.NewAtomicLevelAt(lvl))
}

// NewLoggerAt builds a zap logger like [NewLogger] whose level is the given atomic level,
// for example [Live.LogLevel], so that changing that level takes effect at once. c.Level is
// ignored.
func NewLoggerAt(c LogConfig, level zap.AtomicLevel) (*zap.Logger, error) {
	if c.File != "" {
		// Kept open for the life of the process, as Redis keeps its logfile.
		f, err := os.OpenFile(c.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("config: can't open the log file: %w", err)
		}
		return newLogger(c, level, zapcore.Lock(f))
	}
	if c.Format == "redis" {
		// redis-server logs to standard output when its logfile is "".
		return newLogger(c, level, zapcore.Lock(os.Stdout))
	}
	return newLogger(c, level, zapcore.Lock(os.Stderr))
}

// newLogger builds the logger writing to out. ERROR lines carry no stack trace: an error
// names its cause, and a multi-line trace breaks line-oriented log collectors; only DPanic
// and worse, which are bugs, get one.
func newLogger(c LogConfig, level zap.AtomicLevel, out zapcore.WriteSyncer) (*zap.Logger, error) {
	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	var enc zapcore.Encoder
	switch c.Format {
	case "json":
		enc = zapcore.NewJSONEncoder(ec)
	case "console":
		ec.EncodeLevel = zapcore.CapitalLevelEncoder
		enc = zapcore.NewConsoleEncoder(ec)
	case "redis":
		enc = zapcore.NewConsoleEncoder(redisEncoderConfig(os.Getpid()))
	default:
		return nil, fmt.Errorf("config: log.format: %q is not one of console, json, redis", c.Format)
	}
	opts := []zap.Option{zap.AddStacktrace(zapcore.DPanicLevel), zap.ErrorOutput(zapcore.Lock(os.Stderr))}
	if c.Format != "redis" {
		opts = append(opts, zap.AddCaller())
	}
	return zap.New(zapcore.NewCore(enc, out, level), opts...), nil
}

// redisEncoderConfig writes redis-server's line format, "pid:M 05 Dec 2026 06:29:22.942 *
// message", so that tools reading Redis's log (and Redis's own test suite, which waits for
// its lines) read this one; structured fields follow the message as JSON. The level marks are
// Redis's: '.' debug, '*' notice (info), '#' warning and worse.
func redisEncoderConfig(pid int) zapcore.EncoderConfig {
	prefix := strconv.Itoa(pid) + ":M "
	return zapcore.EncoderConfig{
		TimeKey:    "T",
		LevelKey:   "L",
		MessageKey: "M",
		EncodeTime: func(t time.Time, enc zapcore.PrimitiveArrayEncoder) {
			enc.AppendString(prefix + t.Format("02 Jan 2006 15:04:05.000"))
		},
		EncodeLevel: func(l zapcore.Level, enc zapcore.PrimitiveArrayEncoder) {
			switch {
			case l < zapcore.InfoLevel:
				enc.AppendString(".")
			case l == zapcore.InfoLevel:
				enc.AppendString("*")
			default:
				enc.AppendString("#")
			}
		},
		EncodeDuration:   zapcore.StringDurationEncoder,
		ConsoleSeparator: " ",
	}
}
