//go:build !linux

package commands

// totalSystemMemory is 0 (unknown) where the project does not read it;
// INFO memory then leaves total_system_memory out.
func totalSystemMemory() uint64 { return 0 }
