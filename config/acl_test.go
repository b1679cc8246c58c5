package config

import (
	"strings"
	"testing"
)

func TestACLUsersParse(t *testing.T) {
	c, err := Parse("t.toml", []byte(`
[[acl.user]]
name = "app"
passwords = ["sha256:00"]
commands = "+@all"
keys = ["~app:*"]
channels = ["&e.*"]

[[acl.user]]
name = "off"
enabled = false
nopass = true
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ACL.Users) != 2 {
		t.Fatalf("users: %+v", c.ACL.Users)
	}
	app, off := c.ACL.Users[0], c.ACL.Users[1]
	if app.Name != "app" || !app.IsEnabled() || app.Commands != "+@all" || app.Keys[0] != "~app:*" || app.Channels[0] != "&e.*" {
		t.Errorf("app: %+v", app)
	}
	if off.IsEnabled() || !off.NoPass {
		t.Errorf("off: %+v", off)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}

	if _, err := Parse("t.toml", []byte("[[acl.user]]\nname = \"x\"\nrules = \"+@all\"\n")); err == nil || !strings.Contains(err.Error(), "acl.user.rules") {
		t.Errorf("unknown key in [[acl.user]]: %v", err)
	}
	c.ACL.File = "users.acl"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "acl.file") {
		t.Errorf("users in both places: %v", err)
	}
	c.ACL.File = ""
	c.ACL.Users = append(c.ACL.Users, ACLUser{})
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "acl.user[2].name") {
		t.Errorf("nameless user: %v", err)
	}
}
