package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RedisDirective is one directive of a Redis configuration file (or of the
// "--name value" options that follow the file on the command line).
type RedisDirective struct {
	// File and Line say where it was read; Line is 0 for a command-line option.
	File string
	Line int
	// Name is the directive's name in lower case; Args are its arguments, unquoted.
	Name string
	Args []string
}

// Where names the directive's origin for messages: "file:line" or "command line".
func (d RedisDirective) Where() string {
	if d.Line == 0 {
		return "command line"
	}
	return d.File + ":" + strconv.Itoa(d.Line)
}

// maxIncludeDepth bounds nested include directives, so that a file including itself is
// refused instead of recursing forever.
const maxIncludeDepth = 16

// ParseRedisConf splits a Redis 7.0 configuration file into directives: one per non-empty
// line that does not start with '#', its words split and unquoted as Redis does (double
// quotes with \n \r \t \b \a \\ \" and \xHH escapes, single quotes with \'), the name in
// lower case. "include path" (a glob, as Redis 7 allows) is replaced by the directives of the
// files it names, read through readFile; a relative path is taken from the current
// directory, as Redis does. name is the file's name for messages.
func ParseRedisConf(name string, data []byte, readFile func(string) ([]byte, error)) ([]RedisDirective, error) {
	return parseRedisConf(name, data, readFile, 0)
}

func parseRedisConf(name string, data []byte, readFile func(string) ([]byte, error), depth int) ([]RedisDirective, error) {
	var out []RedisDirective
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		words, err := SplitRedisArgs(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if len(words) == 0 {
			continue
		}
		d := RedisDirective{File: name, Line: i + 1, Name: strings.ToLower(words[0]), Args: words[1:]}
		if d.Name != "include" {
			out = append(out, d)
			continue
		}
		if len(d.Args) != 1 {
			return nil, fmt.Errorf("%s: include takes one file name", d.Where())
		}
		if depth >= maxIncludeDepth {
			return nil, fmt.Errorf("%s: include nested more than %d deep", d.Where(), maxIncludeDepth)
		}
		paths := []string{d.Args[0]}
		if strings.ContainsAny(d.Args[0], "*?[") {
			if paths, err = filepath.Glob(d.Args[0]); err != nil {
				return nil, fmt.Errorf("%s: include %q: %w", d.Where(), d.Args[0], err)
			}
		}
		for _, p := range paths {
			b, err := readFile(p)
			if err != nil {
				return nil, fmt.Errorf("%s: include: %w", d.Where(), err)
			}
			sub, err := parseRedisConf(p, b, readFile, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

// errUnbalanced is Redis's message for a line whose quotes do not close.
//
//lint:ignore ST1005 Redis's own wording, capital included
var errUnbalanced = errors.New("Unbalanced quotes in configuration line")

// SplitRedisArgs splits one line into words as Redis's sdssplitargs does: words are
// separated by blanks; a word may be quoted, and a closing quote must end the word.
func SplitRedisArgs(line string) ([]string, error) {
	var words []string
	i := 0
	for {
		for i < len(line) && isRedisSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return words, nil
		}
		var w []byte
		inDouble, inSingle := false, false
		for done := false; !done; {
			switch {
			case inDouble:
				if i >= len(line) {
					return nil, errUnbalanced
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					n, _ := strconv.ParseUint(line[i+2:i+4], 16, 8)
					w = append(w, byte(n))
					i += 3
				case c == '\\' && i+1 < len(line):
					i++
					switch line[i] {
					case 'n':
						w = append(w, '\n')
					case 'r':
						w = append(w, '\r')
					case 't':
						w = append(w, '\t')
					case 'b':
						w = append(w, '\b')
					case 'a':
						w = append(w, '\a')
					default:
						w = append(w, line[i])
					}
				case c == '"':
					// The closing quote must be followed by a blank or the end.
					if i+1 < len(line) && !isRedisSpace(line[i+1]) {
						return nil, errUnbalanced
					}
					done = true
				default:
					w = append(w, c)
				}
			case inSingle:
				if i >= len(line) {
					return nil, errUnbalanced
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					w = append(w, '\'')
				case c == '\'':
					if i+1 < len(line) && !isRedisSpace(line[i+1]) {
						return nil, errUnbalanced
					}
					done = true
				default:
					w = append(w, c)
				}
			default:
				if i >= len(line) {
					done = true
					continue
				}
				switch c := line[i]; {
				case isRedisSpace(c):
					done = true
				case c == '"':
					inDouble = true
				case c == '\'':
					inSingle = true
				default:
					w = append(w, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		words = append(words, string(w))
	}
}

func isRedisSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// RedisOptionArgs turns the arguments that follow the file on redis-server's command line
// ("--port 7000 --save ”") into directives, as redis-server does: each "--name" starts a
// directive and the words up to the next "--name" are its arguments.
func RedisOptionArgs(args []string) ([]RedisDirective, error) {
	var out []RedisDirective
	for _, a := range args {
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			out = append(out, RedisDirective{Name: strings.ToLower(a[2:])})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("argument %q after the configuration file is not a --name option", a)
		}
		out[len(out)-1].Args = append(out[len(out)-1].Args, a)
	}
	return out, nil
}

// LoadRedisConf reads a Redis 7.0 configuration file, then the extra directives (the
// command line's options, applied after the file as redis-server does), over [Default].
// It returns the configuration and the notices the start-up log should carry: one per
// directive accepted without effect. A directive that would change behaviour and is not
// supported, or a bad value, is an error naming the file and line. The result is not yet
// validated: the caller applies its own overrides first, then [Config.Validate].
func LoadRedisConf(path string, extra []RedisDirective) (Config, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	dirs, err := ParseRedisConf(path, data, os.ReadFile)
	if err != nil {
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	cfg := Default()
	cfg.Persistence.Save = RedisDefaultSave
	cfg.Server.Bind = RedisDefaultBind
	cfg.Log.Format = "redis"
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	cfg.File = path
	cfg.FileFormat = FormatRedis
	notes, err := ApplyRedisDirectives(&cfg, append(dirs, extra...))
	if err != nil {
		return cfg, notes, fmt.Errorf("config: %w", err)
	}
	return cfg, notes, nil
}

// FormatRedis is [Config.FileFormat] for a configuration read from a Redis file.
const FormatRedis = "redis"
