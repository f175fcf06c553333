package runtime

import (
	"syscall"
	"testing"
)

// TestFittingMaxConn: maxconn is lowered until its connections fit in the
// open-file limit besides the reserve, never below 1.
func TestFittingMaxConn(t *testing.T) {
	tests := []struct {
		want  int
		limit uint64
		fit   int
	}{
		{20000, 1 << 20, 20000},
		{20000, 20000, (20000 - fdReserve) / 2},
		{20000, 2*20000 + fdReserve, 20000},
		{20000, 2*20000 + fdReserve - 1, 19999},
		{100, 1024, 1},
		{100, 0, 1},
	}
	for _, tt := range tests {
		if got := FittingMaxConn(tt.want, tt.limit); got != tt.fit {
			t.Errorf("FittingMaxConn(%d, %d) = %d, want %d", tt.want, tt.limit, got, tt.fit)
		}
	}
}

// TestRaiseFileLimit: the soft limit becomes the hard limit (here the
// process may not raise the hard one).
func TestRaiseFileLimit(t *testing.T) {
	got, err := RaiseFileLimit()
	if err != nil {
		t.Fatal(err)
	}
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Cur != got || l.Cur != min(l.Max, maxNoFile) {
		t.Errorf("soft limit %d (returned %d), hard limit %d: want the soft limit at the hard one", l.Cur, got, l.Max)
	}
}
