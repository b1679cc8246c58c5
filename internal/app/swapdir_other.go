//go:build !linux

package app

// exchangeDirs reports that names cannot be swapped in one step here.
func exchangeDirs(a, b string) (bool, error) { return false, nil }
