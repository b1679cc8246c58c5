package scripting

import "testing"

// TestStringFormat: string.format parses items as Lua 5.1 does (at most
// two digits of width and of precision, five flag characters), formats
// them as C's printf and fails with Lua 5.1's texts. It used to be Go's
// fmt.Sprintf, which answered a width it could not parse with
// "%!(NOVERB)" text.
func TestStringFormat(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	for body, want := range map[string]string{
		"return string.format('%2147483647d', 1)": "-ERR user_script:1: invalid format (width or precision too long) script: ",
		"return string.format('%100d', 1)":        "-ERR user_script:1: invalid format (width or precision too long) script: ",
		"return string.format('%.100f', 1)":       "-ERR user_script:1: invalid format (width or precision too long) script: ",
		"return string.format('%------d', 1)":     "-ERR user_script:1: invalid format (repeated flags) script: ",
		"return string.format('%y', 1)":           "-ERR user_script:1: invalid option '%y' to 'format' script: ",
		"return string.format('%', 1)":            "-ERR user_script:1: invalid option '%' to 'format' script: ",
		"return string.format('%d')":              "-ERR user_script:1: bad argument #2 to 'format' (no value) script: ",
		"return string.format('%5%')":             "-ERR user_script:1: bad argument #2 to 'format' (no value) script: ",
		"return string.format('%d', 'x')":         "-ERR user_script:1: bad argument #2 to 'format' (number expected, got string) script: ",
		"return string.format('%s', {})":          "-ERR user_script:1: bad argument #2 to 'format' (string expected, got table) script: ",
		"return string.format()":                  "-ERR user_script:1: bad argument #1 to 'format' (string expected, got no value) script: ",

		"return string.format('%99.99f', 1):len()":                                                     ":101\r\n",
		"return string.format('%-----d|', 1)":                                                          "$2\r\n1|\r\n",
		"return string.format('%5.2f|%-5d|%05d|%+d|% d', 3.14159, 42, 42, 5, 5)":                       "$23\r\n 3.14|42   |00042|+5| 5\r\n",
		"return string.format('%x|%X|%#x|%#x|%#o|%o|%u', 255, 255, 255, 0, 8, -1, -1)":                 "$60\r\nff|FF|0xff|0|010|1777777777777777777777|18446744073709551615\r\n",
		"return string.format('%e|%E|%g|%G|%g|%g', 12345.678, 0.000012, 100000, 1e20, 123456789, 0.1)": "$54\r\n1.234568e+04|1.200000E-05|100000|1E+20|1.23457e+08|0.1\r\n",
		"return string.format('%.0d|%.3d|%5.3d|%-8.3x|', 0, 7, 7, 255)":                                "$20\r\n|007|  007|0ff     |\r\n",
		"return string.format('%d %d %i', 3.9, -3.9, '10')":                                            "$7\r\n3 -3 10\r\n",
		"return string.format('%d|%x', 2^63, 2^64)":                                                    "$22\r\n-9223372036854775808|0\r\n",
		"return string.format('%f|%f|%f|%5.1f|%-6f|%+E', 1/0, -1/0, 0/0, 1/0, 1/0, 1/0)":               "$31\r\ninf|-inf|-nan|  inf|inf   |+INF\r\n",
		"return string.format('%10.3s|%-3s|%s|%s', 'hello', 'x', 12.5, -0.0)":                          "$22\r\n       hel|x  |12.5|-0\r\n",
		// printf stops at a NUL; a long string without precision is kept
		// whole.
		"return string.format('%c%c|%s', 0, 66, 'a\\0b')":     "$3\r\nB|a\r\n",
		"return #string.format('%s', string.rep('\\0', 100))": ":100\r\n",
		"return string.format('%q', 'a\\nb\"c\\\\d\\r\\0e')":  "$19\r\n\"a\\\nb\\\"c\\\\d\\r\\000e\"\r\n",
		"return ('%5s|%%'):format('ab')":                      "$7\r\n   ab|%\r\n",
	} {
		if got := evalReply(t, e, nil, 2, body, nil, nil); len(got) < len(want) || got[:len(want)] != want {
			t.Errorf("%s:\n got %q\nwant %q", body, got, want)
		}
	}
}
