package commands

import "testing"

// TestFunctionArgumentErrors checks FUNCTION's argument errors against
// redis-server 7.0.15's replies.
func TestFunctionArgumentErrors(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "-ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.\r\n", "FUNCTION", "flush", "sync", "extra_arg")
	srvExpect(t, sh, "-ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION HELP.\r\n", "function", "FLUSH", "async", "x")
	srvExpect(t, sh, "-ERR library name argument was not given\r\n", "FUNCTION", "LIST", "libraryname")
	srvExpect(t, sh, "-ERR library name argument was not given\r\n", "FUNCTION", "LIST", "withcode", "LIBRARYNAME")
	srvExpect(t, sh, "-ERR Unknown argument withcode\r\n", "FUNCTION", "LIST", "withcode", "withcode")
	srvExpect(t, sh, "-ERR Unknown argument libraryname\r\n", "FUNCTION", "LIST", "libraryname", "a", "libraryname", "b")
	srvExpect(t, sh, "-ERR Unknown argument foo\r\n", "FUNCTION", "LIST", "foo")
	srvExpect(t, sh, "*0\r\n", "FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "a*")
	srvExpect(t, sh, "*0\r\n", "FUNCTION", "LIST", "libraryname", "withcode")
}
