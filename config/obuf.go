package config

import (
	"math"
	"strconv"
	"strings"
)

// OutputClass is a client class of the output buffer limits: each class has
// its own hard limit, soft limit and soft seconds.
type OutputClass uint8

// Output buffer limit classes, as Redis's client-output-buffer-limit has them.
const (
	// OutputNormal is every client not in another class (MONITOR clients included).
	OutputNormal OutputClass = iota
	// OutputReplica is a replica's replication stream (reserved: no client is one yet).
	OutputReplica
	// OutputPubSub is a client in subscribed mode.
	OutputPubSub

	numOutputClasses = 3
)

// String names the class as config.toml does: normal, replica or pubsub.
func (k OutputClass) String() string {
	switch k {
	case OutputReplica:
		return "replica"
	case OutputPubSub:
		return "pubsub"
	}
	return "normal"
}

// redisName names the class as CONFIG GET client-output-buffer-limit prints it.
func (k OutputClass) redisName() string {
	if k == OutputReplica {
		return "slave"
	}
	return k.String()
}

// OutputLimit is one class's output buffer limit. A client whose unsent
// replies reach Hard bytes is disconnected at once; one whose unsent replies
// stay at or over Soft bytes for more than SoftSeconds is disconnected too.
// 0 turns a byte limit off.
type OutputLimit struct {
	Hard        int64 `toml:"hard"`
	Soft        int64 `toml:"soft"`
	SoftSeconds int64 `toml:"soft_seconds"`
}

// OutputBufferLimits are the output buffer limits of every client class: the
// [limits.client_output_buffer.<class>] tables of config.toml and CONFIG's
// client-output-buffer-limit.
type OutputBufferLimits struct {
	Normal  OutputLimit `toml:"normal"`
	Replica OutputLimit `toml:"replica"`
	PubSub  OutputLimit `toml:"pubsub"`
}

// DefaultOutputBufferLimits are Redis's defaults, except the normal class's
// hard limit: 256 MiB rather than none. Back-pressure already holds a
// pipelining client to a few MB, but a MONITOR feed, a Pub/Sub-like stream or
// one huge reply is not held back by it; the hard limit is what bounds them.
func DefaultOutputBufferLimits() OutputBufferLimits {
	return OutputBufferLimits{
		Normal:  OutputLimit{Hard: 256 * MiB},
		Replica: OutputLimit{Hard: 256 * MiB, Soft: 64 * MiB, SoftSeconds: 60},
		PubSub:  OutputLimit{Hard: 32 * MiB, Soft: 8 * MiB, SoftSeconds: 60},
	}
}

// Class returns the limit of class k.
func (o *OutputBufferLimits) Class(k OutputClass) OutputLimit {
	return *o.class(k)
}

func (o *OutputBufferLimits) class(k OutputClass) *OutputLimit {
	switch k {
	case OutputReplica:
		return &o.Replica
	case OutputPubSub:
		return &o.PubSub
	}
	return &o.Normal
}

// String is the value in Redis's form, as CONFIG GET client-output-buffer-limit
// reports it: "normal <hard> <soft> <seconds> slave … pubsub …", bytes in decimal.
func (o OutputBufferLimits) String() string {
	var b strings.Builder
	for k := OutputClass(0); k < numOutputClasses; k++ {
		l := o.class(k)
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k.redisName() + " " + itoa(l.Hard) + " " + itoa(l.Soft) + " " + itoa(l.SoftSeconds))
	}
	return b.String()
}

// validate checks every class with inRange (Config.Validate's).
func (o *OutputBufferLimits) validate(inRange func(key string, v, lo, hi int64) bool) {
	for k := OutputClass(0); k < numOutputClasses; k++ {
		l := o.class(k)
		key := "limits.client_output_buffer." + k.String() + "."
		inRange(key+"hard", l.Hard, 0, math.MaxInt64)
		inRange(key+"soft", l.Soft, 0, math.MaxInt64)
		inRange(key+"soft_seconds", l.SoftSeconds, 0, math.MaxInt32)
	}
}

// fileOutputBuffer decodes [limits.client_output_buffer.<class>] tables into an
// OutputBufferLimits, sizes through Size.
type fileOutputBuffer struct {
	Normal  fileOutputClass `toml:"normal"`
	Replica fileOutputClass `toml:"replica"`
	PubSub  fileOutputClass `toml:"pubsub"`
}

type fileOutputClass struct {
	Hard        *Size  `toml:"hard"`
	Soft        *Size  `toml:"soft"`
	SoftSeconds *int64 `toml:"soft_seconds"`
}

func newFileOutputBuffer(o *OutputBufferLimits) fileOutputBuffer {
	class := func(l *OutputLimit) fileOutputClass {
		return fileOutputClass{Hard: (*Size)(&l.Hard), Soft: (*Size)(&l.Soft), SoftSeconds: &l.SoftSeconds}
	}
	return fileOutputBuffer{Normal: class(&o.Normal), Replica: class(&o.Replica), PubSub: class(&o.PubSub)}
}

// legacyOutputBufferKey is the older name of the normal class's hard limit in
// config.toml, still accepted alone.
const legacyOutputBufferKey = "limits.client_output_buffer_limit"

// checkLegacyOutputBuffer refuses a file that sets the normal class's hard
// limit under both its names; defined reports whether a dotted key is set.
func checkLegacyOutputBuffer(defined func(key ...string) bool) string {
	if defined("limits", "client_output_buffer_limit") && defined("limits", "client_output_buffer", "normal", "hard") {
		return legacyOutputBufferKey + " is the older name of limits.client_output_buffer.normal.hard; set only one"
	}
	return ""
}

// Parsing of client-output-buffer-limit values, with the rules and error texts
// of Redis 7.0's CONFIG SET.
const (
	errObufArgs   = "Wrong number of arguments in buffer limit configuration."
	errObufClass  = "Invalid client class specified in buffer limit configuration."
	errObufValues = "Error in hard, soft or soft_seconds setting in buffer limit configuration."
)

// obufClassByName finds a class by Redis's names, any case; master is not one.
func obufClassByName(s string) (OutputClass, bool) {
	switch strings.ToLower(s) {
	case "normal":
		return OutputNormal, true
	case "slave", "replica":
		return OutputReplica, true
	case "pubsub":
		return OutputPubSub, true
	}
	return 0, false
}

// obufValues are one class's limits as Redis holds them: unsigned bytes (a
// value past the int64 range is printed back as given) and an int of seconds.
type obufValues struct {
	hard, soft uint64
	secs       int32
}

// parseObufLimits applies a client-output-buffer-limit value over cur (the
// canonical value) as Redis does: the value is split at every single space, it
// holds "<class> <hard> <soft> <soft_seconds>" groups, classes not named keep
// their limits, a class named twice takes its last group, and one bad group
// refuses the whole value. "" changes nothing.
func parseObufLimits(v, cur string) (string, string) {
	vals := obufFromCanonical(cur)
	var f []string
	if v != "" {
		f = strings.Split(v, " ")
	}
	if len(f)%4 != 0 {
		return "", errObufArgs
	}
	for j := 0; j < len(f); j += 4 {
		k, ok := obufClassByName(f[j])
		if !ok {
			return "", errObufClass
		}
		hard, ok1 := memtoull(f[j+1])
		soft, ok2 := memtoull(f[j+2])
		secs, ok3 := strtollWhole(f[j+3])
		// The seconds are kept in a C int, as Redis keeps them.
		if !ok1 || !ok2 || !ok3 || int32(secs) < 0 {
			return "", errObufValues
		}
		vals[k] = obufValues{hard: hard, soft: soft, secs: int32(secs)}
	}
	return obufCanonical(vals), ""
}

// obufCanonical prints limits in CONFIG GET's form.
func obufCanonical(vals [numOutputClasses]obufValues) string {
	var b strings.Builder
	for k := OutputClass(0); k < numOutputClasses; k++ {
		if k > 0 {
			b.WriteByte(' ')
		}
		v := vals[k]
		b.WriteString(k.redisName() + " " + strconv.FormatUint(v.hard, 10) + " " +
			strconv.FormatUint(v.soft, 10) + " " + strconv.FormatInt(int64(v.secs), 10))
	}
	return b.String()
}

// obufFromCanonical reads back a value obufCanonical printed.
func obufFromCanonical(s string) [numOutputClasses]obufValues {
	var vals [numOutputClasses]obufValues
	f := strings.Fields(s)
	for j := 0; j+3 < len(f); j += 4 {
		k, ok := obufClassByName(f[j])
		if !ok {
			continue
		}
		hard, _ := strconv.ParseUint(f[j+1], 10, 64)
		soft, _ := strconv.ParseUint(f[j+2], 10, 64)
		secs, _ := strconv.ParseInt(f[j+3], 10, 32)
		vals[k] = obufValues{hard: hard, soft: soft, secs: int32(secs)}
	}
	return vals
}

// obufLimits turns canonical limits into the ones enforced: byte counts past
// the int64 range are as good as no limit and saturate.
func obufLimits(vals [numOutputClasses]obufValues) OutputBufferLimits {
	sat := func(n uint64) int64 { return int64(min(n, math.MaxInt64)) }
	var o OutputBufferLimits
	for k := OutputClass(0); k < numOutputClasses; k++ {
		*o.class(k) = OutputLimit{Hard: sat(vals[k].hard), Soft: sat(vals[k].soft), SoftSeconds: int64(vals[k].secs)}
	}
	return o
}

// memtoull parses a memory value as Redis's CONFIG SET does for
// client-output-buffer-limit: leading digits (none reads as 0) and an optional
// unit, b, k, kb, m, mb, g or gb, any case. A digit string too large saturates
// and the unit's product wraps, as Redis's unsigned arithmetic does.
func memtoull(s string) (uint64, bool) {
	if strings.HasPrefix(s, "-") {
		return 0, false
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i >= 128 { // Redis copies the digits into a 128-byte buffer
		return 0, false
	}
	var n uint64
	for _, c := range s[:i] {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			n = math.MaxUint64
			break
		}
		n = n*10 + d
	}
	return n * mul, true
}

// strtollWhole parses s as C's strtoll does in base 10 and reports whether
// nothing follows the number: leading white space, an optional sign, digits;
// out-of-range values saturate. An empty string is 0; a string with no digits
// otherwise is refused.
func strtollWhole(s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	// n saturates at 2⁶³, past every int64 magnitude but the most negative.
	const sat = uint64(math.MaxInt64) + 1
	var n uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if d := uint64(s[i] - '0'); n > (sat-d)/10 {
			n = sat
		} else {
			n = n*10 + d
		}
		i++
	}
	if i == start || i != len(s) {
		return 0, false
	}
	switch {
	case neg && n == sat:
		return math.MinInt64, true
	case neg:
		return -int64(n), true
	case n > math.MaxInt64:
		return math.MaxInt64, true
	}
	return int64(n), true
}

// Indexes of the two parameters that hold the normal class's hard limit, kept
// in step by their apply functions; set by init, since the table's apply
// functions cannot refer to the table while it is being built.
var obufParam, obufAliasParam int

func init() {
	obufParam = paramIndex["client-output-buffer-limit"]
	obufAliasParam = paramIndex["ruvio-client-output-buffer-limit"]
}

// applyObufLimits publishes client-output-buffer-limit and mirrors the normal
// class's hard limit into ruvio-client-output-buffer-limit.
func applyObufLimits(l *Live, v string, _ int64) {
	o := obufLimits(obufFromCanonical(v))
	l.obuf.Store(&o)
	l.vals[obufAliasParam] = itoa(o.Normal.Hard)
}

// applyObufNormalHard publishes ruvio-client-output-buffer-limit, the normal
// class's hard limit under its older name, into client-output-buffer-limit.
func applyObufNormalHard(l *Live, _ string, n int64) {
	vals := obufFromCanonical(l.vals[obufParam])
	vals[OutputNormal].hard = uint64(n)
	l.vals[obufParam] = obufCanonical(vals)
	o := obufLimits(vals)
	l.obuf.Store(&o)
}

// OutputBufferLimit is client-output-buffer-limit's limit for class k.
func (l *Live) OutputBufferLimit(k OutputClass) OutputLimit {
	return l.obuf.Load().Class(k)
}

// ClientOutputBufferLimit is the normal class's hard limit
// (ruvio-client-output-buffer-limit): 0 means none.
func (l *Live) ClientOutputBufferLimit() int64 { return l.OutputBufferLimit(OutputNormal).Hard }
