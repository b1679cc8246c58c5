package config

import (
	"reflect"
	"testing"
)

func TestParseBind(t *testing.T) {
	got := ParseBind(" * -::*  127.0.0.1 -::1 localhost ")
	want := []BindAddr{
		{Network: "tcp4", Host: "0.0.0.0"},
		{Network: "tcp6", Host: "::", Optional: true},
		{Network: "tcp4", Host: "127.0.0.1"},
		{Network: "tcp6", Host: "::1", Optional: true},
		{Network: "tcp", Host: "localhost"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseBind = %+v\nwant %+v", got, want)
	}
	if ParseBind("") != nil || ParseBind("  ") != nil {
		t.Error("an empty bind has addresses")
	}
	if h := (ServerConfig{Bind: "* -::*"}).Host(); h != "0.0.0.0" {
		t.Errorf("Host() = %q", h)
	}
	if h := (ServerConfig{}).Host(); h != "127.0.0.1" {
		t.Errorf("Host() of no bind = %q", h)
	}
}

// CONFIG REWRITE writes a bind list as Redis does: one line, the addresses as words, and
// bind "" for none.
func TestRewriteBindLines(t *testing.T) {
	if got := redisLines("bind", "* -::*"); !reflect.DeepEqual(got, []string{"bind * -::*"}) {
		t.Errorf("%q", got)
	}
	if got := redisLines("bind", ""); !reflect.DeepEqual(got, []string{`bind ""`}) {
		t.Errorf("%q", got)
	}
}
