package num

import (
	"math"
	"strconv"
	"testing"
)

func TestParseInt(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1": 1, "-1": -1, "9223372036854775807": math.MaxInt64,
		"-9223372036854775808": math.MinInt64, "1234567890": 1234567890,
	}
	for s, want := range good {
		if v, ok := ParseInt([]byte(s)); !ok || v != want {
			t.Errorf("ParseInt(%q) = %d %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "-", "+1", " 1", "1 ", "01", "-0", "00", "1.0", "1e3",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999", "0x10", "１"} {
		if v, ok := ParseInt([]byte(s)); ok {
			t.Errorf("ParseInt(%q) = %d, want rejection", s, v)
		}
	}
}

func TestAddInt(t *testing.T) {
	if _, err := AddInt(math.MaxInt64, 1); err != ErrOverflow {
		t.Fatal("max+1")
	}
	if _, err := AddInt(math.MinInt64, -1); err != ErrOverflow {
		t.Fatal("min-1")
	}
	if v, err := AddInt(math.MinInt64, math.MaxInt64); err != nil || v != -1 {
		t.Fatal("min+max")
	}
}

// TestScoresLikeRedis holds ZADD inputs and the ZSCORE replies
// redis-server 7.0.15 gave for them ("" = ZADD refused the input).
func TestScoresLikeRedis(t *testing.T) {
	cases := []struct{ in, out string }{
		{"1", "1"}, {"1.1", "1.1000000000000001"}, {"0.1", "0.10000000000000001"},
		{"0", "0"}, {"100", "100"}, {"1e16", "10000000000000000"}, {"1e17", "1e+17"},
		{"1.5e17", "1.5e+17"}, {"123456789012345678", "1.2345678901234568e+17"},
		{"1e-5", "1.0000000000000001e-05"}, {"0.0001", "0.0001"},
		{"3.0e-5", "3.0000000000000001e-05"}, {"1e300", "1.0000000000000001e+300"},
		{"-1e-300", "-1e-300"}, {"inf", "inf"}, {"-inf", "-inf"}, {"2.5", "2.5"},
		{"0.3", "0.29999999999999999"}, {"1e22", "1e+22"},
		{"4.9e-324", "4.9406564584124654e-324"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"}, {"1234.5678", "1234.5678"},
		{"-7.25e-10", "-7.2499999999999998e-10"}, {"0x10", "16"}, {"+5", "5"}, {".5", "0.5"},
		{"5.", "5"}, {" 1", ""}, {"1e400", ""}, {"1e-400", ""}, {"1_0", ""}, {"nan", ""},
		{"", ""}, {"1 ", ""}, {"abc", ""}, {"+inf", "inf"}, {"Infinity", "inf"},
	}
	for _, c := range cases {
		f, ok := ParseFloat([]byte(c.in))
		if ok != (c.out != "") {
			t.Errorf("ParseFloat(%q) ok=%v", c.in, ok)
			continue
		}
		if ok {
			if got := string(AppendScore(nil, f)); got != c.out {
				t.Errorf("score %q prints %q, Redis %q", c.in, got, c.out)
			}
		}
	}
}

func TestParseRangeFloat(t *testing.T) {
	cases := map[string]float64{"": 0, " 1": 1, "1e400": math.Inf(1), "-inf": math.Inf(-1), "1e-400": 0, "0x10": 16}
	for s, want := range cases {
		if f, ok := ParseRangeFloat([]byte(s)); !ok || f != want {
			t.Errorf("ParseRangeFloat(%q) = %v %v", s, f, ok)
		}
	}
	for _, s := range []string{"nan", "1 ", "x", "1_0"} {
		if _, ok := ParseRangeFloat([]byte(s)); ok {
			t.Errorf("ParseRangeFloat(%q) accepted", s)
		}
	}
}

// TestLongDoubleLikeRedis holds HSET values, HINCRBYFLOAT increments and
// the replies redis-server 7.0.15 gave.
func TestLongDoubleLikeRedis(t *testing.T) {
	e300 := "1000000000000000000008997324079559193870523944273290747938260082321265646596180935755849152083750497190350372508614274835903592556184672983913096260520748646287327135641843653294084255107606016789726652932370030551382947620994540294772781889620606179267611627097410650567187386105690089424915104006144"
	cases := []struct{ cur, incr, out string }{
		{"10.5", "0.1", "10.6"}, {"0", "10.5", "10.5"}, {"5.0e3", "2.0e2", "5200"},
		{"1", "-1", "0"}, {"17179869184", "1.5", "17179869185.5"}, {"1e300", "0", e300},
		{"0.1", "0.2", "0.3"}, {"1", "1e-20", "1"}, {"3", "1e20", "100000000000000000000"},
		{"1.23456789012345678", "0", "1.23456789012345678"}, {"0", "-0", "0"},
		{"0x10", "1", "17"}, {"1", "0x10", "17"}, {"1e5", "0", "100000"},
		{"0.0001", "0", "0.0001"}, {"12345678901234567890", "0", "12345678901234567890"},
		{"-5", "3.3", "-1.7"}, {"1.1", "2.2", "3.3"}, {"100", "0.000001", "100.000001"},
		{"0", "1e-7", "0.0000001"}, {"0", "123456.789e3", "123456789"},
	}
	for _, c := range cases {
		x, ok1 := ParseLongDouble([]byte(c.cur))
		y, ok2 := ParseLongDouble([]byte(c.incr))
		if !ok1 || !ok2 {
			t.Errorf("parse %q %q: %v %v", c.cur, c.incr, ok1, ok2)
			continue
		}
		z, ok := AddLongDouble(x, y)
		if !ok {
			t.Errorf("%s + %s overflowed", c.cur, c.incr)
			continue
		}
		if got := string(AppendLongDoubleHuman(nil, z)); got != c.out {
			t.Errorf("%s + %s = %q, Redis %q", c.cur, c.incr, got, c.out)
		}
	}
	for _, s := range []string{"", " 1", "1 ", "nan", "abc", "1e99999", "1e-99999", "1_0", "0b1", "1e"} {
		if _, ok := ParseLongDouble([]byte(s)); ok {
			t.Errorf("ParseLongDouble(%q) accepted", s)
		}
	}
	// Beyond double, within long double: accepted.
	big, ok := ParseLongDouble([]byte("1e400"))
	if !ok {
		t.Fatal("1e400 refused")
	}
	if _, ok := AddLongDouble(big, big); !ok {
		t.Fatal("2e400 overflowed")
	}
	inf, ok := ParseLongDouble([]byte("-Infinity"))
	if !ok || !inf.IsInf() {
		t.Fatal("-Infinity")
	}
	if _, ok := AddLongDouble(inf, big); ok {
		t.Fatal("inf sum accepted")
	}
	max, _ := ParseLongDouble([]byte("1.18e4932"))
	if _, ok := AddLongDouble(max, max); ok {
		t.Fatal("long double overflow accepted")
	}
}

// FuzzParseInt compares ParseInt with strconv plus string2ll's extra
// rules.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-1", "01", "+1", "9223372036854775808", " 1", "-"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseInt(b)
		ref, err := strconv.ParseInt(string(b), 10, 64)
		canonical := err == nil && strconv.FormatInt(ref, 10) == string(b)
		if ok != canonical || ok && v != ref {
			t.Fatalf("ParseInt(%q) = %d %v, reference %d %v", b, v, ok, ref, canonical)
		}
	})
}

// FuzzParseFloat: whatever ParseFloat accepts is a finite-or-inf,
// non-NaN number that strconv agrees with.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1.5", "inf", "-0", "1e400", "0x1p3", "0x10", " 1", "1e-400", "nan", "000000012345", "-.5", "1.", "999999999999999", "9999999999999999", "0.000000000000001"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, ok := parseShortDecimal(b); ok {
			ref, err := strconv.ParseFloat(string(b), 64)
			if err != nil || math.Float64bits(ref) != math.Float64bits(v) {
				t.Fatalf("short path %q = %v, strconv %v %v", b, v, ref, err)
			}
		}
		v, ok := ParseFloat(b)
		if !ok {
			return
		}
		if math.IsNaN(v) {
			t.Fatalf("%q gave NaN", b)
		}
		ref, err := strconv.ParseFloat(hexExponent(b), 64)
		if err != nil || math.Float64bits(ref) != math.Float64bits(v) {
			t.Fatalf("%q = %v, strconv %v %v", b, v, ref, err)
		}
		if back, ok := ParseFloat(AppendScore(nil, v)); !ok || back != v {
			t.Fatalf("%v does not read back from %q", v, AppendScore(nil, v))
		}
	})
}

// FuzzLongDouble: accepted inputs print in the human form and read back.
func FuzzLongDouble(f *testing.F) {
	for _, s := range []string{"1.5", "inf", "-0", "1e400", "0x10", "1.23456789012345678", "12345678901234567890"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		x, ok := ParseLongDouble(b)
		if !ok || x.IsInf() {
			return
		}
		out := AppendLongDoubleHuman(nil, x)
		if _, ok := ParseLongDouble(out); !ok {
			t.Fatalf("%q printed as %q, which does not parse", b, out)
		}
	})
}

// TestShortDecimal: the short path takes the plain decimals, bit for bit
// as strconv reads them, and leaves everything else to strconv.
func TestShortDecimal(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "-0.0", "000000012345", "1.5", "-1.5", ".5", "-.5", "1.", "0.1", "0.3",
		"123456789.012345", "999999999999999", "0.000000000000001", "-999999999999.999", "3.14159265358979",
		"0.0000000000000001", "0.0000000000000000000001", "000000000000000000000000000000007", "100000000000000"} {
		v, ok := parseShortDecimal([]byte(s))
		ref, err := strconv.ParseFloat(s, 64)
		if !ok || err != nil || math.Float64bits(v) != math.Float64bits(ref) {
			t.Errorf("parseShortDecimal(%q) = %v %v, strconv %v %v", s, v, ok, ref, err)
		}
	}
	for _, s := range []string{"", "-", "+", ".", "-.", "1..2", "1.2.3", "1e5", "inf", "0x10", " 1", "1 ", "1_0",
		"9999999999999999", "0.00000000000000000000001", "1000000000000000", "--1", "1-", "nan"} {
		if v, ok := parseShortDecimal([]byte(s)); ok {
			t.Errorf("parseShortDecimal(%q) = %v, want it left to strconv", s, v)
		}
	}
	// What the short path leaves still parses as before.
	for s, want := range map[string]float64{"9999999999999999": 9999999999999999, "1e5": 1e5, "0x10": 16} {
		if v, ok := ParseFloat([]byte(s)); !ok || v != want {
			t.Errorf("ParseFloat(%q) = %v %v, want %v", s, v, ok, want)
		}
	}
	for _, s := range []string{"", ".", "-", "1..2", " 1"} {
		if v, ok := ParseFloat([]byte(s)); ok {
			t.Errorf("ParseFloat(%q) = %v, want refused", s, v)
		}
	}
}

func BenchmarkParseFloat(b *testing.B) {
	for _, s := range []string{"000000012345", "1.5", "1e5"} {
		in := []byte(s)
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := ParseFloat(in); !ok {
					b.Fatal(s)
				}
			}
		})
	}
}
