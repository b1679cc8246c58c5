package config

import (
	"fmt"

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

// NewLogger builds a zap logger writing to stderr at c.Level in c.Format ("console" or
// "json"). Its level is fixed; use [NewLoggerAt] for one that CONFIG SET loglevel can change.
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
	zc := zap.NewProductionConfig()
	zc.Level = level
	zc.Sampling = nil
	zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	switch c.Format {
	case "json":
		zc.Encoding = "json"
	case "console":
		zc.Encoding = "console"
		zc.EncoderConfig.EncodeLevel = zapcore.CapitalLevelEncoder
	default:
		return nil, fmt.Errorf("config: log.format: %q is not one of console, json", c.Format)
	}
	lg, err := zc.Build()
	if err != nil {
		return nil, fmt.Errorf("config: building logger: %w", err)
	}
	return lg, nil
}
