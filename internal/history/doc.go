// Package history records what concurrent clients did to a server under
// test and checks the record afterwards.
//
// A Recorder stamps every operation with its invocation and response
// times from one monotonic clock, so operations from different clients of
// the same process can be ordered in real time. Each operation ends with
// one of three outcomes:
//
//   - OK: the server replied and the reply is in Op.Output.
//   - Failed: the server answered with a definite error; the operation had
//     no effect.
//   - Unknown: the client gave up (timeout, connection error): the
//     operation may or may not have taken effect, at any time after its
//     invocation.
//
// The checkers are conservative: a violation is reported only when no
// execution of a correct server could have produced the history, given
// the outcomes above. Each returns a Result; Result.Inconclusive is set
// when a checker could not decide (porcupine ran out of time), which is
// not a violation.
//
//   - CheckLinearizable: SET/GET/INCR per key against a register model
//     (porcupine). Unknown writes are pending until the end of the history.
//   - CheckDurability: keys written by exactly one SET must hold that value
//     in the final read when the SET was acknowledged.
//   - CheckLeases: no two acknowledged LEASE grants on a key overlap.
//   - CheckIdem: an IDEM key never completes with two results, and is
//     never acquired twice within its retention.
//   - CheckStreams: every acknowledged XADD is in the final XRANGE, under
//     the id it was given, and ids follow real-time order.
//
// The package has no knowledge of how the history was produced; the
// cmd/clusterfault harness drives a server and feeds it.
package history
