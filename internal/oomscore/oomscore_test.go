package oomscore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAdjuster(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oom_score_adj")
	set := func(v string) {
		if err := os.WriteFile(path, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step, want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || strings.TrimSpace(string(b)) != want {
			t.Fatalf("%s: score %q (%v), want %s", step, b, err, want)
		}
	}
	a := NewAt(path)
	set("22")
	if err := a.Apply(ModeNo, 9); err != nil {
		t.Fatal(err)
	}
	check("off leaves the score alone", "22")
	if err := a.Apply(ModeYes, 9); err != nil {
		t.Fatal(err)
	}
	check("relative to the score at enabling", "31")
	if err := a.Apply(ModeRelative, 15); err != nil {
		t.Fatal(err)
	}
	check("a new value keeps the base", "37")
	if err := a.Apply(ModeAbsolute, 9); err != nil {
		t.Fatal(err)
	}
	check("absolute", "9")
	if err := a.Apply(ModeAbsolute, 5000); err != nil {
		t.Fatal(err)
	}
	check("clamped", "1000")
	if err := a.Apply(ModeNo, 9); err != nil {
		t.Fatal(err)
	}
	check("off restores the base", "22")
	set("-5")
	if err := a.Apply(ModeRelative, -2000); err != nil {
		t.Fatal(err)
	}
	check("a new base at the next enabling, clamped low", "-1000")
}

func TestAdjusterUnreadable(t *testing.T) {
	a := NewAt(filepath.Join(t.TempDir(), "missing"))
	if err := a.Apply(ModeNo, 1); err != nil {
		t.Fatalf("off with nothing changed: %v", err)
	}
	if err := a.Apply(ModeYes, 1); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("got %v, want an error naming the file", err)
	}
}
