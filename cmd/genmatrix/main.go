// Command genmatrix writes docs/compatibility-matrix.json from the command
// table in commands/. It is run by go generate ./commands, and CI checks
// that the checked-in file matches:
//
//	go run ./cmd/genmatrix -o docs/compatibility-matrix.json
//
// Without -o the matrix goes to standard output.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ruvio/ruvio/commands"
)

func main() {
	out := flag.String("o", "", "file to write (default: standard output)")
	flag.Parse()
	data, err := commands.CompatibilityMatrix()
	if err != nil {
		fmt.Fprintln(os.Stderr, "genmatrix:", err)
		os.Exit(1)
	}
	if *out == "" {
		_, err = os.Stdout.Write(data)
	} else {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genmatrix:", err)
		os.Exit(1)
	}
}
