package runtime

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestCheck: haproxy -c on a configuration it refuses gives a
// RefusedError whose alerts are HAProxy's own words about each error
// (without the summaries); one it accepts gives nil; a binary that cannot
// run is another error. It runs the real HAProxy.
func TestCheck(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("HAProxy not found; install it (apt-get install -y haproxy)")
		}
		t.Skip("HAProxy not found; install it (apt-get install -y haproxy)")
	}
	dir := t.TempDir()
	const head = "defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\n"
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good.cfg", head+"backend be_http:ns:good\n  server s0 127.0.0.1:1\n")
	write("bad.cfg", head+"backend be_http:ns:bad\n  this-is-not-a-directive\n")
	if err := Check(haproxy, dir, []string{"good.cfg"}); err != nil {
		t.Errorf("a good configuration: %v", err)
	}
	err = Check(haproxy, dir, []string{"bad.cfg"})
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("a bad configuration: %v, want a RefusedError", err)
	}
	want := []string{"parsing [" + filepath.Join(dir, "bad.cfg") + ":7] : unknown keyword 'this-is-not-a-directive' in 'backend' section"}
	if got := refused.Alerts(); !slices.Equal(got, want) {
		t.Errorf("alerts\n  %q\nwant\n  %q\nfrom\n%s", got, want, refused.Words)
	}
	err = Check(filepath.Join(dir, "no-haproxy"), dir, []string{"good.cfg"})
	if err == nil || errors.As(err, &refused) {
		t.Errorf("a missing binary: %v, want an error that is no refusal", err)
	}
}
