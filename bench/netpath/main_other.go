//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "netpath: needs Linux (epoll, io_uring)")
	os.Exit(2)
}
