package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

func TestRange(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	tests := []struct {
		name      string
		n, min    int
		wantCalls int
	}{
		{"empty", 0, 1, 0},
		{"below min runs once", 10, 100, 1},
		{"one item", 1, 1, 1},
		{"split across 4 cores", 100, 1, 4},
		{"fewer items than cores", 3, 1, 3},
		{"uneven split", 10, 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := make([]int32, tt.n)
			var calls atomic.Int32
			Range(tt.n, tt.min, func(lo, hi int) {
				calls.Add(1)
				if lo >= hi {
					t.Errorf("empty range [%d, %d)", lo, hi)
				}
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
			})
			if got := int(calls.Load()); got != tt.wantCalls {
				t.Errorf("work called %d times, want %d", got, tt.wantCalls)
			}
			for i, c := range seen {
				if c != 1 {
					t.Errorf("index %d covered %d times, want once", i, c)
				}
			}
		})
	}
}
