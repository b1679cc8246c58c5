package commands

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// readmeCommandName matches a command or subcommand name as the README
// writes them: upper case, digits and the separators of BF.ADD, SORT_RO
// and NO-EVICT.
var readmeCommandName = regexp.MustCompile(`[A-Z][A-Z0-9]*(?:[._-][A-Z0-9]+)*`)

// readmeCommands reads the "## Commands" section of README.md: the names
// written outside parentheses, and for each word that a parenthesized
// list follows ("CLIENT (ID, GETNAME, …)") the names inside it.
func readmeCommands(t *testing.T) (top map[string]bool, lists map[string]map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Commands\n")
	if start < 0 {
		t.Fatal(`README.md has no "## Commands" section`)
	}
	section := text[start+len("\n## Commands\n"):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	top, lists = map[string]bool{}, map[string]map[string]bool{}
	var outside strings.Builder
	for i := 0; i < len(section); i++ {
		if section[i] != '(' {
			outside.WriteByte(section[i])
			continue
		}
		depth, j := 1, i+1
		for ; j < len(section) && depth > 0; j++ {
			switch section[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		owner := readmeCommandName.FindAllString(strings.TrimRight(section[:i], " \n"), -1)
		if len(owner) > 0 && strings.HasSuffix(strings.TrimRight(section[:i], " \n"), owner[len(owner)-1]) {
			o := owner[len(owner)-1]
			if lists[o] == nil {
				lists[o] = map[string]bool{}
			}
			for _, n := range readmeCommandName.FindAllString(section[i+1:j-1], -1) {
				lists[o][n] = true
			}
		}
		outside.WriteByte(' ')
		i = j - 1
	}
	for _, n := range readmeCommandName.FindAllString(outside.String(), -1) {
		top[n] = true
	}
	return top, lists
}

// TestReadmeListsEveryCommand fails when a command of the command table
// is missing from README.md's command list, or a subcommand (HELP aside,
// which every container answers) from the parenthesized list after its
// container's name. Names inside parentheses do not count as commands of
// their own: "CONFIG (GET, SET)" does not list GET and SET.
func TestReadmeListsEveryCommand(t *testing.T) {
	top, lists := readmeCommands(t)
	table := newCommandTable()
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := table[n]
		name := strings.ToUpper(c.Name)
		if !top[name] {
			t.Errorf("README.md's command list lacks %s (group %s)", name, c.Group)
			continue
		}
		if len(c.Subcommands) == 0 {
			continue
		}
		subs := lists[name]
		if subs == nil {
			t.Errorf("README.md lists %s without its subcommands: write %s (SUB, …)", name, name)
			continue
		}
		for _, sc := range c.Subcommands {
			if s := strings.ToUpper(sc.Name); s != "HELP" && !subs[s] {
				t.Errorf("README.md's command list lacks %s %s", name, s)
			}
		}
	}
}
