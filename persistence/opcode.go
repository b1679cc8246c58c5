package persistence

import "strconv"

// Opcode identifies the meaning of a WAL record's payload. The numbering is
// part of the on-disk format: values are append-only and, once released,
// never change meaning or get reused. See doc.go for every payload layout.
type Opcode uint8

// The canonical opcode table. Numbers 12–19 and 27–52 are reserved.
const (
	OpSet              Opcode = 1  // key, value, deadline i64 (ms, 0 = none)
	OpDel              Opcode = 2  // key
	OpExpire           Opcode = 3  // key, deadline i64 (absolute unix ms; 0 = persist)
	OpFlushDB          Opcode = 4  // empty; the record's db names the database
	OpFlushAll         Opcode = 5  // empty
	OpSwapDB           Opcode = 6  // db1 u16, db2 u16
	OpMove             Opcode = 7  // key, target db u16
	OpRename           Opcode = 8  // src, dst
	OpCopy             Opcode = 9  // src, dst, target db u16, replace u8
	OpAppend           Opcode = 10 // key, suffix
	OpSetRange         Opcode = 11 // key, offset u64, bytes
	OpLease            Opcode = 20 // defined by the key-jobs issue
	OpRelease          Opcode = 21 // defined by the key-jobs issue
	OpSemaphoreAcquire Opcode = 22 // defined by the key-jobs issue
	OpSemaphoreRelease Opcode = 23 // defined by the key-jobs issue
	OpSetV             Opcode = 24 // defined by the key-jobs issue
	OpLimit            Opcode = 25 // defined by the key-jobs issue
	OpOnce             Opcode = 26 // defined by the key-jobs issue
	OpIdempotencyPut   Opcode = 53 // key, value (packed IDEM record), deadline i64; MUST stay 53
	OpBatch            Opcode = 54 // count uvarint, then per entry: db u16, op u8, payload bytes (see batch.go)
)

// opcodeNames is the immutable name table indexed by opcode.
var opcodeNames = [256]string{
	OpSet:              "Set",
	OpDel:              "Del",
	OpExpire:           "Expire",
	OpFlushDB:          "FlushDB",
	OpFlushAll:         "FlushAll",
	OpSwapDB:           "SwapDB",
	OpMove:             "Move",
	OpRename:           "Rename",
	OpCopy:             "Copy",
	OpAppend:           "Append",
	OpSetRange:         "SetRange",
	OpLease:            "Lease",
	OpRelease:          "Release",
	OpSemaphoreAcquire: "SemaphoreAcquire",
	OpSemaphoreRelease: "SemaphoreRelease",
	OpSetV:             "SetV",
	OpLimit:            "Limit",
	OpOnce:             "Once",
	OpIdempotencyPut:   "IdempotencyPut",
	OpBatch:            "Batch",
}

// String returns the opcode's name ("Set", "IdempotencyPut", ...), or
// "Opcode(n)" for an unassigned value.
func (op Opcode) String() string {
	if s := opcodeNames[op]; s != "" {
		return s
	}
	return "Opcode(" + strconv.Itoa(int(op)) + ")"
}

// Known reports whether op is assigned in the canonical table.
func (op Opcode) Known() bool { return opcodeNames[op] != "" }
