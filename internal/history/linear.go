package history

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"
)

// regState is a register: absent, or present with a value. It is a
// comparable struct so porcupine's default equality works on it.
type regState struct {
	present bool
	value   string
}

// regInput is one register operation as the model sees it.
type regInput struct {
	kind  Kind
	value string // SET's value
}

// regOutput is what the client saw; unknown marks an operation that may or
// may not have happened (its output constrains nothing).
type regOutput struct {
	unknown bool
	present bool
	value   string
}

// registerModel is a key's value under SET, GET and INCR (a
// read-modify-write that returns the new value). Keys are independent, so
// the history is partitioned by key.
var registerModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range history {
			k := op.Metadata.(Op).Key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		sort.Strings(keys)
		parts := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, byKey[k])
		}
		return parts
	},
	Init: func() any { return regState{} },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(regState), input.(regInput), output.(regOutput)
		switch in.kind {
		case KindSet:
			return true, regState{present: true, value: in.value}
		case KindGet:
			return out.unknown || (out.present == s.present && out.value == s.value), s
		case KindIncr:
			n := int64(0)
			if s.present {
				v, err := strconv.ParseInt(s.value, 10, 64)
				if err != nil || v == math.MaxInt64 {
					// The server refuses it and changes nothing; an
					// acknowledged INCR cannot have happened here.
					return out.unknown, s
				}
				n = v
			}
			next := regState{present: true, value: strconv.FormatInt(n+1, 10)}
			return out.unknown || (out.present && out.value == next.value), next
		}
		return false, s
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(regInput), output.(regOutput)
		res := out.value
		switch {
		case out.unknown:
			res = "?"
		case !out.present:
			res = "nil"
		}
		if in.kind == KindSet {
			return fmt.Sprintf("set(%s) -> %s", in.value, res)
		}
		return fmt.Sprintf("%s() -> %s", in.kind, res)
	},
}

// CheckLinearizable checks that SET, GET and INCR on each key are
// linearizable as a register, giving porcupine at most timeout (0: no
// limit). Failed operations are left out (they had no effect); Unknown
// writes may take effect at any time after their invocation, so they are
// pending until the end of the history; Unknown reads are left out (they
// constrain nothing). On a violation the offending key's operations are
// summarised in the Result.
//
// An Unknown SET whose value no acknowledged GET returned is left out
// too, on keys without INCR: it can always be linearized last, after
// everything else, where nothing observes it, so it changes no verdict,
// while every pending operation multiplies porcupine's search. This needs
// SET values to be unique per key, as the workload makes them.
func CheckLinearizable(ops []Op, timeout time.Duration) Result {
	res := Result{Name: "linearizability (SET/GET/INCR)"}
	observed := map[[2]string]bool{}
	incrKeys := map[string]bool{}
	for _, op := range ops {
		switch {
		case op.Kind == KindGet && op.Outcome == OK && !op.Nil:
			observed[[2]string{op.Key, op.Output}] = true
		case op.Kind == KindIncr:
			incrKeys[op.Key] = true
		}
	}
	var hist []porcupine.Operation
	keys := map[string]bool{}
	for _, op := range ops {
		if op.Kind != KindSet && op.Kind != KindGet && op.Kind != KindIncr {
			continue
		}
		if op.Outcome == Failed || (op.Outcome == Unknown && op.Kind == KindGet) {
			continue
		}
		if op.Outcome == Unknown && op.Kind == KindSet && !incrKeys[op.Key] && !observed[[2]string{op.Key, op.Value}] {
			keys[op.Key] = true
			continue
		}
		ret := int64(op.Return)
		out := regOutput{present: !op.Nil, value: op.Output}
		if op.Outcome == Unknown {
			ret = math.MaxInt64
			out = regOutput{unknown: true}
		}
		keys[op.Key] = true
		hist = append(hist, porcupine.Operation{
			ClientId: op.Client,
			Input:    regInput{kind: op.Kind, value: op.Value},
			Call:     int64(op.Call),
			Output:   out,
			Return:   ret,
			Metadata: op,
		})
	}
	res.Checked = len(keys)
	if len(hist) == 0 {
		return res
	}
	verdict, info := porcupine.CheckOperationsVerbose(registerModel, hist, timeout)
	switch verdict {
	case porcupine.Unknown:
		res.Inconclusive = fmt.Sprintf("porcupine gave up after %v", timeout)
	case porcupine.Illegal:
		res.violate("%s", describeIllegal(registerModel, hist, info))
	}
	return res
}

// describeIllegal names the keys whose histories are not linearizable and
// the longest prefix porcupine could linearize for each.
func describeIllegal(model porcupine.Model, hist []porcupine.Operation, info porcupine.LinearizationInfo) string {
	parts := model.Partition(hist)
	partials := info.PartialLinearizationsOperations()
	s := "not linearizable:"
	for i, part := range parts {
		if i >= len(partials) || len(part) == 0 {
			continue
		}
		longest := 0
		for _, lin := range partials[i] {
			longest = max(longest, len(lin))
		}
		if longest == len(part) {
			continue // this key is linearizable
		}
		key := part[0].Metadata.(Op).Key
		s += fmt.Sprintf(" key %q (%d ops, at most %d linearizable)", key, len(part), longest)
	}
	return s
}
