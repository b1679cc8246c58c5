package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// File opcodes.
const (
	opFunction2    = 0xF5
	opFunction     = 0xF6
	opModuleAux    = 0xF7
	opIdle         = 0xF8
	opFreq         = 0xF9
	opAux          = 0xFA
	opResizeDB     = 0xFB
	opExpireTimeMs = 0xFC
	opExpireTime   = 0xFD
	opSelectDB     = 0xFE
	opEOF          = 0xFF
)

// Entry is one key of a file. ExpireAtMs is its deadline in Unix
// milliseconds, 0 when it has none.
type Entry struct {
	DB         int
	Key        []byte
	ExpireAtMs int64
	Value      Value
}

// Skipped is a key or item of a file the reader could not turn into a
// Value: a module value, a function library, an empty
// collection.
type Skipped struct {
	DB     int
	Key    []byte // empty for what is not a key
	What   string // "module", "function", "module-aux", "empty"
	Detail string
}

// FileReader reads the keys of an RDB file one at a time.
type FileReader struct {
	d       *decoder
	version int
	db      int
	// Aux holds the file's auxiliary fields (redis-ver, ctime, …).
	Aux map[string]string
	// Functions holds the code of each function library in the file.
	Functions [][]byte
	done      bool
}

// NewFileReader reads the header of an RDB file of version 1 to 10.
func NewFileReader(r io.Reader) (*FileReader, error) {
	d := newDecoder(r)
	d.sum = true
	var hdr [9]byte
	if err := d.full(hdr[:]); err != nil {
		return nil, err
	}
	if string(hdr[:5]) != "REDIS" {
		return nil, badf("not an RDB file (no REDIS signature)")
	}
	v, err := strconv.Atoi(string(hdr[5:]))
	if err != nil || v < 1 || v > Version {
		return nil, badf("RDB version %q is not supported (1 to %d are)", hdr[5:], Version)
	}
	return &FileReader{d: d, version: v, Aux: map[string]string{}}, nil
}

// Version is the file's RDB version.
func (f *FileReader) Version() int { return f.version }

// Next returns the next key, or a Skipped item, or io.EOF at the end of
// a file whose checksum is right (or zero: not computed by the writer).
func (f *FileReader) Next() (*Entry, *Skipped, error) {
	if f.done {
		return nil, nil, io.EOF
	}
	d := f.d
	var expire int64
	for {
		t, err := d.byte()
		if err != nil {
			return nil, nil, err
		}
		var b [8]byte
		switch t {
		case opExpireTimeMs:
			if err := d.full(b[:8]); err != nil {
				return nil, nil, err
			}
			expire = int64(binary.LittleEndian.Uint64(b[:8]))
			continue
		case opExpireTime:
			if err := d.full(b[:4]); err != nil {
				return nil, nil, err
			}
			expire = int64(binary.LittleEndian.Uint32(b[:4])) * 1000
			continue
		case opIdle:
			if _, err := d.plainLength(); err != nil {
				return nil, nil, err
			}
			continue
		case opFreq:
			if _, err := d.byte(); err != nil {
				return nil, nil, err
			}
			continue
		case opSelectDB:
			n, err := d.plainLength()
			if err != nil {
				return nil, nil, err
			}
			if n > 1<<16 {
				return nil, nil, badf("database %d", n)
			}
			f.db = int(n)
			continue
		case opResizeDB:
			if _, err := d.plainLength(); err != nil {
				return nil, nil, err
			}
			if _, err := d.plainLength(); err != nil {
				return nil, nil, err
			}
			continue
		case opAux:
			k, err := d.string()
			if err != nil {
				return nil, nil, err
			}
			v, err := d.string()
			if err != nil {
				return nil, nil, err
			}
			f.Aux[string(k)] = string(v)
			continue
		case opFunction2:
			code, err := d.string()
			if err != nil {
				return nil, nil, err
			}
			f.Functions = append(f.Functions, code)
			continue
		case opFunction:
			return nil, nil, badf("pre-release function format (opcode 0xF6) is not supported")
		case opModuleAux:
			id, err := d.plainLength()
			if err != nil {
				return nil, nil, err
			}
			// When it is loaded: an unsigned-integer opcode and its value.
			if op, err := d.plainLength(); err != nil || op != moduleUInt {
				return nil, nil, errors.Join(err, badf("module auxiliary data of %s", moduleName(id)))
			}
			if _, err := d.plainLength(); err != nil {
				return nil, nil, err
			}
			if err := d.skipModule(); err != nil {
				return nil, nil, err
			}
			return nil, &Skipped{DB: f.db, What: "module-aux", Detail: moduleName(id)}, nil
		case opEOF:
			f.done = true
			want := d.crc
			if f.version >= 5 {
				d.sum = false
				if err := d.full(b[:8]); err != nil {
					return nil, nil, err
				}
				if got := binary.LittleEndian.Uint64(b[:8]); got != 0 && got != want {
					return nil, nil, badf("file checksum %016x, computed %016x", got, want)
				}
			}
			return nil, nil, io.EOF
		}
		if !IsObjectType(t) {
			return nil, nil, badf("unknown opcode or value type %d at offset %d", t, d.n-1)
		}
		key, err := d.string()
		if err != nil {
			return nil, nil, err
		}
		switch Type(t) {
		case TypeModule, TypeModule2:
			if t == byte(TypeModule) {
				return nil, nil, badf("key %q: module value of the pre-4.0 format cannot be skipped", key)
			}
			id, err := d.plainLength()
			if err != nil {
				return nil, nil, err
			}
			if err := d.skipModule(); err != nil {
				return nil, nil, err
			}
			return nil, &Skipped{DB: f.db, Key: key, What: "module", Detail: moduleName(id)}, nil
		}
		v, err := d.value(Type(t))
		if errors.Is(err, ErrEmpty) {
			return nil, &Skipped{DB: f.db, Key: key, What: "empty"}, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("key %q: %w", key, err)
		}
		return &Entry{DB: f.db, Key: key, ExpireAtMs: expire, Value: v}, nil, nil
	}
}

// moduleName decodes a module type id: nine characters of a 64-symbol
// alphabet, then a 10-bit encoding version.
func moduleName(id uint64) string {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	for i := range name {
		name[8-i] = set[(id>>(10+6*i))&63]
	}
	return string(name[:]) + " (encoding version " + strconv.FormatUint(id&1023, 10) + ")"
}

// Module value opcodes, each followed by its datum, until moduleEOF.
const (
	moduleEOF    = 0
	moduleSInt   = 1
	moduleUInt   = 2
	moduleFloat  = 3
	moduleDouble = 4
	moduleString = 5
)

// skipModule passes over a module value of the self-describing format.
func (d *decoder) skipModule() error {
	for {
		op, err := d.plainLength()
		if err != nil {
			return err
		}
		var b [8]byte
		switch op {
		case moduleEOF:
			return nil
		case moduleSInt, moduleUInt:
			_, err = d.plainLength()
		case moduleFloat:
			err = d.full(b[:4])
		case moduleDouble:
			err = d.full(b[:8])
		case moduleString:
			_, err = d.string()
		default:
			return badf("module value opcode %d", op)
		}
		if err != nil {
			return err
		}
	}
}
