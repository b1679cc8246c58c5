package keyspace

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// The arena holds the entries of one shard (every database of it) in
// pointer-free pages mapped outside the Go heap, so the garbage collector
// neither traces nor counts them, and a key costs one slot of a size
// class instead of several Go objects. An allocation is named by a 32-bit
// handle: page index (high 15 bits) and offset in 8-byte units (low 17
// bits). Pages are 1 MiB, so a shard's arena addresses at most 32 GiB.
//
// Allocations up to MaxSmall bytes come from size classes (8-byte steps
// up to 256 bytes, then eight classes per power of two); a freed slot goes
// on its class's free list (the link lives in the slot's first 4 bytes)
// and is reused by the next allocation of that class. Larger allocations
// (only entries whose key alone is that large) get pages of their own,
// unmapped when freed. Values too large to sit inline, and values of
// types other than strings, live in two side tables of Go values indexed
// from the entry.
const (
	pageShift = 20
	pageSize  = 1 << pageShift
	unitShift = 3
	offBits   = pageShift - unitShift
	offMask   = 1<<offBits - 1
	maxPages  = 1 << (32 - offBits)
	// MaxSmall is the largest allocation served by a size class.
	MaxSmall = 32 << 10
	// numClasses is the number of size classes up to MaxSmall.
	numClasses = 32 + (15-8)*8
	// classDedicated marks an allocation with a page of its own.
	classDedicated = 255
)

// SizeClass returns the class of an n-byte allocation (n <= MaxSmall).
func SizeClass(n int) uint8 {
	if n <= 256 {
		return uint8(max(n+7, 8)>>3 - 1)
	}
	k := bits.Len(uint(n - 1)) // n in (2^(k-1), 2^k]
	sub := (n - 1 - 1<<(k-1)) >> (k - 4)
	return uint8(32 + (k-9)*8 + sub)
}

// ClassSize is the size in bytes of class c's slots.
func ClassSize(c uint8) int {
	if c < 32 {
		return (int(c) + 1) << 3
	}
	k := 9 + (int(c)-32)/8
	sub := (int(c) - 32) % 8
	return 1<<(k-1) + (sub+1)<<(k-4)
}

// arena is a shard's entry memory plus the side tables of large values
// and objects. Only the shard's loop uses it.
type arena struct {
	// pages are the pages' starts, aligned to pageSize; raw and rawSizes
	// the mappings they were cut from (a page is mapped with pageSize to
	// spare so that it can be aligned: the spare is never touched).
	pages    []unsafe.Pointer
	raw      []unsafe.Pointer
	rawSizes []int
	// sizes is the usable length of each page (0: unmapped, reusable).
	sizes     []int
	freePages []uint32
	free      [numClasses]uint32
	// cur and off are the page and byte offset of the bump allocator.
	cur, off int
	// Used is the bytes of live allocations (slot sizes), mapped the
	// bytes of mapped pages.
	Used, Mapped int64

	ext      [][]byte
	extFree  []uint32
	ExtBytes int64
	Objs     []any
	ObjFree  []uint32
	// ObjAcct keeps the accounting of objs (memacct.go).
	ObjAcct objAccounts
}

// newArena returns an empty arena, for a shard's databases to share.
func newArena() *arena { return &arena{cur: -1} }

// Ptr returns the address of allocation h.
func (a *arena) Ptr(h uint32) unsafe.Pointer {
	return unsafe.Add(a.pages[h>>offBits], int(h&offMask)<<unitShift)
}

// HandleOf returns the handle of the allocation at p. Pages are aligned
// to pageSize and hold their own index in their first 4 bytes, so this
// needs no lookup table.
func (a *arena) HandleOf(p unsafe.Pointer) uint32 {
	off := uintptr(p) & (pageSize - 1)
	pi := *(*uint32)(unsafe.Add(p, -int(off)))
	return pi<<offBits | uint32(off>>unitShift)
}

// Alloc returns a fresh allocation of at least n bytes, its handle and
// its class. Its contents are undefined.
func (a *arena) Alloc(n int) (uint32, unsafe.Pointer, uint8) {
	if n > MaxSmall {
		// Like every page, a dedicated one keeps its index at offset 0.
		size := (n + 8 + 4095) &^ 4095
		pi := a.mapPage(size)
		a.Used += int64(size)
		h := uint32(pi)<<offBits | 8>>unitShift
		return h, a.Ptr(h), classDedicated
	}
	c := SizeClass(n)
	size := ClassSize(c)
	a.Used += int64(size)
	if h := a.free[c]; h != 0 {
		p := a.Ptr(h)
		a.free[c] = *(*uint32)(p)
		return h, p, c
	}
	if a.cur < 0 || a.off+size > pageSize {
		a.cur = a.mapPage(pageSize)
		// Offset 0 of a page is never handed out, so handle 0 means none.
		a.off = 8
	}
	h := uint32(a.cur)<<offBits | uint32(a.off>>unitShift)
	a.off += size
	return h, a.Ptr(h), c
}

// Release returns allocation h of class c.
func (a *arena) Release(h uint32, c uint8) {
	if c == classDedicated {
		pi := h >> offBits
		a.Used -= int64(a.sizes[pi])
		a.unmapPage(int(pi))
		return
	}
	a.Used -= int64(ClassSize(c))
	*(*uint32)(a.Ptr(h)) = a.free[c]
	a.free[c] = h
}

func (a *arena) mapPage(size int) int {
	rawSize := size + pageSize
	mem, err := mapMemory(rawSize)
	if err != nil {
		panic(fmt.Sprintf("keyspace: cannot map %d bytes for the keyspace: %v", size, err))
	}
	page := unsafe.Add(mem, int(-uintptr(mem)&(pageSize-1)))
	a.Mapped += int64(size)
	var pi int
	if n := len(a.freePages); n > 0 {
		pi = int(a.freePages[n-1])
		a.freePages = a.freePages[:n-1]
		a.pages[pi], a.raw[pi], a.rawSizes[pi], a.sizes[pi] = page, mem, rawSize, size
	} else {
		if len(a.pages) >= maxPages {
			panic("keyspace: a shard's keyspace is limited to 32 GiB")
		}
		a.pages = append(a.pages, page)
		a.raw = append(a.raw, mem)
		a.rawSizes = append(a.rawSizes, rawSize)
		a.sizes = append(a.sizes, size)
		pi = len(a.pages) - 1
	}
	*(*uint32)(page) = uint32(pi)
	return pi
}

func (a *arena) unmapPage(pi int) {
	if err := unmapMemory(a.raw[pi], a.rawSizes[pi]); err != nil {
		panic(fmt.Sprintf("keyspace: unmapping keyspace memory: %v", err))
	}
	a.Mapped -= int64(a.sizes[pi])
	a.pages[pi], a.raw[pi], a.rawSizes[pi], a.sizes[pi] = nil, nil, 0, 0
	a.freePages = append(a.freePages, uint32(pi))
}

// putExt stores a large value and returns its index.
func (a *arena) putExt(b []byte) uint32 {
	a.ExtBytes += int64(cap(b))
	if n := len(a.extFree); n > 0 {
		i := a.extFree[n-1]
		a.extFree = a.extFree[:n-1]
		a.ext[i] = b
		return i
	}
	if len(a.ext) >= maxSideIndex {
		panic("keyspace: too many large values in one shard")
	}
	a.ext = append(a.ext, b)
	return uint32(len(a.ext) - 1)
}

func (a *arena) dropExt(i uint32) {
	a.ExtBytes -= int64(cap(a.ext[i]))
	a.ext[i] = nil
	a.extFree = append(a.extFree, i)
}

// putObj stores an object and returns its index.
func (a *arena) putObj(o any) uint32 {
	if n := len(a.ObjFree); n > 0 {
		i := a.ObjFree[n-1]
		a.ObjFree = a.ObjFree[:n-1]
		a.Objs[i] = o
		a.ObjAcct.sizes[i] = ObjectSize(o)
		return i
	}
	if len(a.Objs) >= maxSideIndex {
		panic("keyspace: too many objects in one shard")
	}
	a.Objs = append(a.Objs, o)
	a.ObjAcct.sizes = append(a.ObjAcct.sizes, ObjectSize(o))
	return uint32(len(a.Objs) - 1)
}

func (a *arena) dropObj(i uint32) {
	a.Objs[i] = nil
	if a.ObjAcct.sizes[i]&objDirty != 0 {
		// A pending settle still names i: the index is reused only after it.
		a.ObjAcct.freeAfterSettle = append(a.ObjAcct.freeAfterSettle, i)
	} else {
		a.ObjFree = append(a.ObjFree, i)
	}
	a.ObjAcct.sizes[i] = 0
}

// overhead is the memory of the side tables themselves.
func (a *arena) overhead() int64 {
	return int64(cap(a.ext))*24 + int64(cap(a.Objs))*16 + int64(cap(a.ObjAcct.sizes))*8 + int64(cap(a.extFree)+cap(a.ObjFree))*4 +
		int64(cap(a.pages)+cap(a.raw))*8 + int64(cap(a.sizes)+cap(a.rawSizes))*8
}
