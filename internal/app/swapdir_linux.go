package app

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchangeDirs swaps the names a and b in one step (renameat2
// RENAME_EXCHANGE), so that no crash leaves either name missing. It
// reports false, changing nothing, where the file system cannot.
func exchangeDirs(a, b string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return err == nil, err
}
