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
	OpHashSet          Opcode = 60 // key, count u64, count × (field, value); creates the hash
	OpHashDel          Opcode = 61 // key, count u64, count × field; an emptied hash is deleted
	OpListPush         Opcode = 62 // key, where u8 (0 head, 1 tail), count u64, count × element; creates the list
	OpListPop          Opcode = 63 // key, where u8, count u64; an emptied list is deleted
	OpListSet          Opcode = 64 // key, index i64, element
	OpListInsert       Opcode = 65 // key, after u8, pivot, element (first pivot from the head)
	OpListRem          Opcode = 66 // key, count i64, element (LREM's rule)
	OpListTrim         Opcode = 67 // key, start i64, stop i64 (LTRIM's indexes)
	OpListMove         Opcode = 68 // src, dst, from u8, to u8: one element popped from src and pushed to dst
	OpListStore        Opcode = 69 // key, list encoding (types/list binary form): replace the value, no deadline (SORT ... STORE)
	OpHashFieldExpire  Opcode = 70 // key, deadline i64 (0 = none), count u64, count × field: existing fields get the deadline
	OpHashSetEx        Opcode = 71 // key, mode u8 (0 deadline, 1 keep), deadline i64, count u64, count × (field, value)
	OpSetAdd           Opcode = 80 // key, count u64, members: add each (creating the set)
	OpSetRemove        Opcode = 81 // key, count u64, members: remove each (deleting an emptied set)
	OpSetStore         Opcode = 82 // key, set encoding (types/set v1): replace the value, no deadline
	OpSetMove          Opcode = 83 // src, dst, member: remove from src, add to dst
	OpZAdd             Opcode = 84 // key, count u64, count × (score bits u64, member): set each score
	OpZRemove          Opcode = 85 // key, count u64, members: remove each (deleting an emptied sorted set)
	OpZStore           Opcode = 86 // key, sorted set encoding (types/zset v1): replace the value, no deadline
	OpBloomAdd         Opcode = 87 // key, rate bits u64, capacity u64, expansion u64, nonscaling u8, count u64, items

	// Streams (an id is two u64: ms, seq).
	OpStreamAdd            Opcode = 100 // key, id, due i64 (0 = no hold), trim-through id (0-0 = none), count u64, count × (field, value); creates the stream
	OpStreamDel            Opcode = 101 // key, count u64, ids: XDEL (raises the max deleted id)
	OpStreamTrim           Opcode = 102 // key, id: remove every entry up to and including id
	OpStreamSetID          Opcode = 103 // key, last id, entries added u64, max deleted id
	OpStreamGroupCreate    Opcode = 104 // key, group, last id, entries read i64; creates the stream when absent
	OpStreamGroupSetID     Opcode = 105 // key, group, last id, entries read i64
	OpStreamGroupDestroy   Opcode = 106 // key, group
	OpStreamConsumerCreate Opcode = 107 // key, group, consumer, seen time i64
	OpStreamConsumerDel    Opcode = 108 // key, group, consumer (and its pending entries)
	OpStreamGroupRead      Opcode = 109 // key, group, consumer, time i64, noack u8, last id, entries read i64, then three lists (count u64, ids): delivered, deferred, resolved
	OpStreamClaim          Opcode = 110 // key, group, consumer, seen time i64, count u64, count × (id, delivery time i64, delivery count u64)
	OpStreamAck            Opcode = 111 // key, group, count u64, ids: remove from the PEL

	OpRestore Opcode = 120 // key, deadline i64, snapshot kind u8, value snapshot encoding: replace the key (RESTORE)
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
	OpHashSet:          "HashSet",
	OpHashDel:          "HashDel",
	OpListPush:         "ListPush",
	OpListPop:          "ListPop",
	OpListSet:          "ListSet",
	OpListInsert:       "ListInsert",
	OpListRem:          "ListRem",
	OpListTrim:         "ListTrim",
	OpListMove:         "ListMove",
	OpListStore:        "ListStore",
	OpHashFieldExpire:  "HashFieldExpire",
	OpHashSetEx:        "HashSetEx",
	OpSetAdd:           "SetAdd",
	OpSetRemove:        "SetRemove",
	OpSetStore:         "SetStore",
	OpSetMove:          "SetMove",
	OpZAdd:             "ZAdd",
	OpZRemove:          "ZRemove",
	OpZStore:           "ZStore",
	OpBloomAdd:         "BloomAdd",
	OpRestore:          "Restore",

	OpStreamAdd:            "StreamAdd",
	OpStreamDel:            "StreamDel",
	OpStreamTrim:           "StreamTrim",
	OpStreamSetID:          "StreamSetID",
	OpStreamGroupCreate:    "StreamGroupCreate",
	OpStreamGroupSetID:     "StreamGroupSetID",
	OpStreamGroupDestroy:   "StreamGroupDestroy",
	OpStreamConsumerCreate: "StreamConsumerCreate",
	OpStreamConsumerDel:    "StreamConsumerDel",
	OpStreamGroupRead:      "StreamGroupRead",
	OpStreamClaim:          "StreamClaim",
	OpStreamAck:            "StreamAck",
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
