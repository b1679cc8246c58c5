package acl

import (
	"fmt"
	"strings"
)

// Spec is a user as the TOML configuration declares it ([[acl.user]]):
//
//	name = "app"
//	passwords = ["sha256:<64 hex>", "plain:<text>"]
//	commands = "+@all -@dangerous +idem"
//	keys = ["~app:*", "%R~shared:*"]
//	channels = ["&events.*"]
//	enabled = true
//
// Passwords take a "sha256:" prefix (the hash ACL GETUSER shows) or "plain:" (hashed on
// load); an empty list with NoPass false leaves the user unable to log in, as in Redis.
type Spec struct {
	Name      string
	Passwords []string
	NoPass    bool
	Commands  string
	Keys      []string
	Channels  []string
	Enabled   bool
}

// SpecError is an invalid rule in a Spec: it names the user and the rule.
type SpecError struct {
	User string
	Rule string
	Err  error
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("acl user %q: rule %q: %v", e.User, e.Rule, e.Err)
}

// Unwrap returns the underlying error.
func (e *SpecError) Unwrap() error { return e.Err }

// Rules turns the spec into ACL SETUSER rules for a new user. It checks that each field holds rules of its kind; whether the
// rules apply (known commands, valid hashes) is checked by Users.ApplySpecs.
func (sp Spec) Rules() ([]string, error) {
	fail := func(rule, msg string) error {
		return &SpecError{User: sp.Name, Rule: rule, Err: fmt.Errorf("%s", msg)}
	}
	if sp.Name == "" || hasSpaces(sp.Name) {
		return nil, &SpecError{User: sp.Name, Rule: "name", Err: ErrUsernameSpaces}
	}
	var rules []string
	if sp.Enabled {
		rules = append(rules, "on")
	}
	if sp.NoPass {
		rules = append(rules, "nopass")
	}
	for _, p := range sp.Passwords {
		switch {
		case strings.HasPrefix(p, "sha256:"):
			rules = append(rules, "#"+strings.TrimPrefix(p, "sha256:"))
		case strings.HasPrefix(p, "plain:"):
			rules = append(rules, ">"+strings.TrimPrefix(p, "plain:"))
		default:
			return nil, fail(redactPassword(p), `a password needs a "sha256:" or "plain:" prefix`)
		}
	}
	for _, r := range strings.Fields(sp.Commands) {
		if !isCommandRule(r) {
			return nil, fail(r, "not a command rule (+cmd, -cmd, +@category, -@category, allcommands, nocommands)")
		}
		rules = append(rules, r)
	}
	for _, r := range sp.Keys {
		if !(strings.HasPrefix(r, "~") || strings.HasPrefix(r, "%") || strings.EqualFold(r, "allkeys") || strings.EqualFold(r, "resetkeys")) {
			return nil, fail(r, "not a key rule (~pattern, %R~pattern, %W~pattern, %RW~pattern, allkeys, resetkeys)")
		}
		rules = append(rules, r)
	}
	for _, r := range sp.Channels {
		if !(strings.HasPrefix(r, "&") || strings.EqualFold(r, "allchannels") || strings.EqualFold(r, "resetchannels")) {
			return nil, fail(r, "not a channel rule (&pattern, allchannels, resetchannels)")
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func isCommandRule(r string) bool {
	return strings.HasPrefix(r, "+") || strings.HasPrefix(r, "-") ||
		strings.EqualFold(r, "allcommands") || strings.EqualFold(r, "nocommands")
}

// redactPassword keeps a bad password entry out of error messages but for its start.
func redactPassword(p string) string {
	if len(p) > 3 {
		return p[:3] + "…"
	}
	return "…"
}

// ApplySpecs adds or replaces the users of specs, in order, and returns the new snapshot.
// A user that already exists (the default user) is reset first, as Redis resets the
// default user when the configuration declares it.
// A name given twice is an error, and so is any rule that does not apply; the error is a
// *SpecError naming the user and the rule (passwords are not echoed).
func (s *Users) ApplySpecs(specs []Spec) (*Users, error) {
	seen := make(map[string]bool, len(specs))
	n := s
	for _, sp := range specs {
		if seen[sp.Name] {
			return s, &SpecError{User: sp.Name, Rule: "name", Err: ErrDuplicateUser}
		}
		seen[sp.Name] = true
		rules, err := sp.Rules()
		if err != nil {
			return s, err
		}
		if n.Get(sp.Name) != nil {
			rules = append([]string{"reset"}, rules...)
		}
		next, err := n.SetUser(sp.Name, rules...)
		if err != nil {
			if re, ok := err.(*RuleError); ok {
				rule := re.Rule
				if rule != "" && (rule[0] == '>' || rule[0] == '<') {
					rule = rule[:1] + "…"
				}
				return s, &SpecError{User: sp.Name, Rule: rule, Err: re.Err}
			}
			return s, &SpecError{User: sp.Name, Rule: "", Err: err}
		}
		n = next
	}
	return n, nil
}
