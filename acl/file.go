package acl

import (
	"fmt"
	"strings"
)

// LineError is one problem found in an ACL file.
type LineError struct {
	Line int    // 1-based; 0 for problems that are not about one line
	Msg  string // Redis's text for the problem, with file and line where Redis puts them
}

// LoadError lists every problem found in an ACL file. Its text is Redis's ACL LOAD error:
// every problem in one line, then the note that nothing changed.
type LoadError struct {
	Problems []LineError
}

func (e *LoadError) Error() string {
	var b strings.Builder
	for _, p := range e.Problems {
		b.WriteString(p.Msg)
	}
	b.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
	return b.String()
}

// LoadFile parses an ACL file (lines "user <name> <rules…>", blank lines allowed) into a
// new snapshot with the same universe and options as s, as ACL LOAD does: each user starts
// from nothing (off, no permissions), a default user is created with its usual rules if
// the file has none, and any error rejects the whole file with a *LoadError naming file
// and line. filename only appears in messages.
func (s *Users) LoadFile(filename string, data []byte) (*Users, error) {
	n := &Users{universe: s.universe, opts: s.opts, byName: make(map[string]*User)}
	var probs []LineError
	add := func(line int, format string, a ...any) {
		probs = append(probs, LineError{Line: line, Msg: fmt.Sprintf(format, a...)})
	}
	for i, line := range strings.Split(string(data), "\n") {
		num := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			add(num, "%s:%d should start with user keyword followed by the username. ", filename, num)
			continue
		}
		name := argv[1]
		if hasSpaces(name) {
			add(num, "'%s:%d: username '%s' contains invalid characters. ", filename, num, name)
			continue
		}
		if n.byName[name] != nil {
			add(num, "WARNING: Duplicate user '%s' found on line %d. ", name, num)
			continue
		}
		u := newUser(name, s.universe, s.opts)
		merged, _, ok := mergeSelectors(argv[2:])
		if !ok {
			add(num, "%s:%d: Unmatched parenthesis in selector definition.", filename, num)
		}
		reported := false
		for _, r := range merged {
			r = strings.Trim(r, "\t\r\n")
			if err := u.apply(r, s.opts); err != nil {
				switch {
				case err == ErrUnknownCommand:
					add(num, "%s:%d: Error in applying operation '%s': %s. ", filename, num, r, err)
				case !reported:
					// Later rules may fail because of this one: report only the first.
					add(num, "%s:%d: %s. ", filename, num, err)
					reported = true
				}
			}
		}
		n.byName[name] = u.seal()
		n.names = append(n.names, name)
	}
	if len(probs) > 0 {
		return s, &LoadError{Problems: probs}
	}
	if n.byName[DefaultUserName] == nil {
		n.byName[DefaultUserName] = defaultUser(s.universe, s.opts)
		n.names = append(n.names, DefaultUserName)
	}
	sortStrings(n.names)
	return n, nil
}

// File returns the snapshot in ACL file format (ACL SAVE): one "user <name> <rules>" line
// per user, in name order. LoadFile reads it back to the same users.
func (s *Users) File() []byte {
	var b strings.Builder
	for _, l := range s.List() {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
