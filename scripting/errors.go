package scripting

import "fmt"

// Error is an error whose text is a complete server error reply without
// the leading '-': its first word is the error code ("ERR", "NOSCRIPT",
// "UNKILLABLE", ...). The command layer writes Msg as an error reply.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Msg: format}
	}
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Errors the server replies with, exported so the command layer uses the
// same texts.
var (
	// ErrNoScript is the EVALSHA reply for an unknown SHA1.
	ErrNoScript = &Error{Msg: "NOSCRIPT No matching script. Please use EVAL."}
	// ErrNotBusy is the SCRIPT KILL / FUNCTION KILL reply when nothing runs.
	ErrNotBusy = &Error{Msg: "NOTBUSY No scripts in execution right now."}
	// ErrUnkillable is the kill reply once the script has written.
	ErrUnkillable = &Error{Msg: "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."}
	// ErrBusyScript is the reply to other commands while an EVAL script is
	// over the busy threshold, and to FUNCTION KILL while a script runs.
	ErrBusyScript = &Error{Msg: "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."}
	// ErrBusyFunction is the reply to other commands while a function is
	// over the busy threshold, and to SCRIPT KILL while a function runs.
	ErrBusyFunction = &Error{Msg: "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."}
)
