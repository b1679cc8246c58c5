package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// healthcheck is the "ruvio healthcheck" subcommand, for container
// health checks in images without a shell or redis-cli: it connects to one
// shard, authenticates when RUVIO_PASSWORD (or --password) is set, sends
// PING and succeeds only on PONG.
func healthcheck(args []string, getenv func(string) string) error {
	fs := flag.NewFlagSet("ruvio healthcheck", flag.ContinueOnError)
	host := fs.String("host", "127.0.0.1", "address of the server")
	port := fs.Int("port", 6379, "port of the shard to check")
	timeout := fs.Duration("timeout", 3*time.Second, "time allowed for the whole check")
	password := fs.String("password", getenv(passwordEnv), "password of the default user (default: $"+passwordEnv+")")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	conn, err := net.DialTimeout("tcp", addr, *timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(*timeout)); err != nil {
		return err
	}
	r := bufio.NewReader(conn)
	if *password != "" {
		if err := roundTrip(conn, r, "+OK", "AUTH", *password); err != nil {
			return fmt.Errorf("%s: AUTH: %w", addr, err)
		}
	}
	if err := roundTrip(conn, r, "+PONG", "PING"); err != nil {
		return fmt.Errorf("%s: PING: %w", addr, err)
	}
	return nil
}

// roundTrip sends one command as a RESP array and expects the simple
// reply want.
func roundTrip(conn net.Conn, r *bufio.Reader, want string, args ...string) error {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	line = strings.TrimRight(line, "\r\n")
	if line != want {
		return errors.New("unexpected reply " + strconv.Quote(line))
	}
	return nil
}
