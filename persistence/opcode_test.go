package persistence

import "testing"

// TestOpcodeNumbersArePinned fails if any released opcode is renumbered.
// The table is append-only: add new opcodes here, never edit a line.
func TestOpcodeNumbersArePinned(t *testing.T) {
	pinned := []struct {
		op   Opcode
		num  uint8
		name string
	}{
		{OpSet, 1, "Set"},
		{OpDel, 2, "Del"},
		{OpExpire, 3, "Expire"},
		{OpFlushDB, 4, "FlushDB"},
		{OpFlushAll, 5, "FlushAll"},
		{OpSwapDB, 6, "SwapDB"},
		{OpMove, 7, "Move"},
		{OpRename, 8, "Rename"},
		{OpCopy, 9, "Copy"},
		{OpAppend, 10, "Append"},
		{OpSetRange, 11, "SetRange"},
		{OpLease, 20, "Lease"},
		{OpRelease, 21, "Release"},
		{OpSemaphoreAcquire, 22, "SemaphoreAcquire"},
		{OpSemaphoreRelease, 23, "SemaphoreRelease"},
		{OpSetV, 24, "SetV"},
		{OpLimit, 25, "Limit"},
		{OpOnce, 26, "Once"},
		{OpIdempotencyPut, 53, "IdempotencyPut"},
		{OpBatch, 54, "Batch"},
		{OpHashSet, 60, "HashSet"},
		{OpHashDel, 61, "HashDel"},
		{OpListPush, 62, "ListPush"},
		{OpListPop, 63, "ListPop"},
		{OpListSet, 64, "ListSet"},
		{OpListInsert, 65, "ListInsert"},
		{OpListRem, 66, "ListRem"},
		{OpListTrim, 67, "ListTrim"},
		{OpListMove, 68, "ListMove"},
		{OpListStore, 69, "ListStore"},
		{OpHashFieldExpire, 70, "HashFieldExpire"},
		{OpHashSetEx, 71, "HashSetEx"},
		{OpSetAdd, 80, "SetAdd"},
		{OpSetRemove, 81, "SetRemove"},
		{OpSetStore, 82, "SetStore"},
		{OpSetMove, 83, "SetMove"},
		{OpZAdd, 84, "ZAdd"},
		{OpZRemove, 85, "ZRemove"},
		{OpZStore, 86, "ZStore"},
		{OpBloomAdd, 87, "BloomAdd"},
		{OpRestore, 120, "Restore"},
		{OpStreamAdd, 100, "StreamAdd"},
		{OpStreamDel, 101, "StreamDel"},
		{OpStreamTrim, 102, "StreamTrim"},
		{OpStreamSetID, 103, "StreamSetID"},
		{OpStreamGroupCreate, 104, "StreamGroupCreate"},
		{OpStreamGroupSetID, 105, "StreamGroupSetID"},
		{OpStreamGroupDestroy, 106, "StreamGroupDestroy"},
		{OpStreamConsumerCreate, 107, "StreamConsumerCreate"},
		{OpStreamConsumerDel, 108, "StreamConsumerDel"},
		{OpStreamGroupRead, 109, "StreamGroupRead"},
		{OpStreamClaim, 110, "StreamClaim"},
		{OpStreamAck, 111, "StreamAck"},
	}
	known := 0
	for i := 0; i < 256; i++ {
		if Opcode(i).Known() {
			known++
		}
	}
	if known != len(pinned) {
		t.Fatalf("%d opcodes known, %d pinned: pin the new one", known, len(pinned))
	}
	for _, p := range pinned {
		if uint8(p.op) != p.num || p.op.String() != p.name || !p.op.Known() {
			t.Errorf("opcode %s = %d, pinned %s = %d", p.op, uint8(p.op), p.name, p.num)
		}
	}
	if OpIdempotencyPut != 53 {
		t.Fatal("OpIdempotencyPut must be 53")
	}
	if got := Opcode(12).String(); got != "Opcode(12)" {
		t.Fatalf("unassigned: %q", got)
	}
}
