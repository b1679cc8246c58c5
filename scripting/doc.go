// Package scripting runs Lua 5.1 scripts (EVAL) and function libraries
// (FUNCTION LOAD, FCALL) on github.com/yuin/gopher-lua, with the behaviour
// of the reference server's 7.0 scripting engine. It knows nothing of
// shards, connections or the keyspace: commands run through a CallFunc the
// command layer supplies, and results are written to a ReplyWriter (the
// codec package's Writer satisfies it).
//
// # Use
//
// One Engine per shard, owned by the shard's goroutine:
//
//	e := scripting.New(scripting.Config{Log: logf})
//	s, err := e.Load(body)          // EVAL, SCRIPT LOAD: compile once, cached by SHA1
//	s, ok := e.Lookup(sha)          // EVALSHA (!ok: ErrNoScript)
//	e.Eval(w, s, &scripting.Invocation{Keys: keys, Args: argv, Call: run})
//	e.LoadLibrary(payload, replace) // FUNCTION LOAD; e.Function(name) + e.Fcall for FCALL
//
// Script.Flags and Function.Flags carry the shebang / register_function
// flags (no-writes, allow-oom, ...) for the command layer to enforce.
// Errors returned by the engine are *Error values holding the complete
// error reply text ("ERR ...", "NOSCRIPT ...").
//
// # Commands from scripts
//
// redis.call and redis.pcall hand the arguments to Invocation.Call together
// with the RESP version the script chose with redis.setresp; the callback
// appends the command's reply, encoded in that version, to a buffer. The
// engine decodes it into Lua values (convert.go lists the rules both ways).
// The arguments are engine scratch memory valid during the call. A command
// that writes calls Engine.MarkWritten, after which the script can no
// longer be killed.
//
// # Time limits and kills
//
// Engine.Monitor returns the only concurrency-safe part: Running tells any
// goroutine which script runs and since when (to answer BUSY past
// busy-reply-threshold), and Kill implements SCRIPT KILL / FUNCTION KILL
// with the reference replies (NOTBUSY, UNKILLABLE, BUSY). A kill closes the
// channel of the Lua state's context, which the interpreter polls before
// every instruction, so even pcall loops stop. Config.Interrupt is the
// same-goroutine alternative, the reference server's count hook: it runs
// every InterruptEvery instructions with the elapsed time, and may serve
// other clients (BUSY) or kill the script. FUNCTION LOAD runs a library's
// top level under LoadTimeout. A panic in the command callback fails the
// script ("Error running command from script") and is logged.
//
// # Sandbox
//
// Scripts see the reference globals only (no os, io, package, require,
// dofile, loadfile, print, getfenv, setfenv, debug); every table reachable
// from them is read-only (sandbox.go explains the proxies that make
// gopher-lua tables read-only), reading an unknown global fails with
// "Script attempted to access nonexistent global variable", and
// loadstring refuses bytecode. math.random uses the reference 48-bit
// generator: an engine starts from the same state as a fresh server, so
// consecutive calls differ and math.randomseed makes a sequence repeatable.
// Libraries load in a separate Lua state, with only redis.register_function,
// redis.log and the version visible while their top level runs.
//
// The libraries cjson, cmsgpack, bit and struct are implemented here.
//
// # Known differences
//
// Errors raised by the interpreter itself (arithmetic on nil, calling a
// nil value, syntax errors) use gopher-lua's wording; the length operator
// on a protected library table is 0; number-to-string conversions inside
// the interpreter (concatenation) use gopher-lua's formatting, while
// tostring and every conversion done here follow Lua's %.14g.
// testdata/reference_replies.json holds the replies of redis-server 7.0.15
// to a few hundred probe scripts, compared byte for byte by
// TestReferenceReplies.
package scripting
