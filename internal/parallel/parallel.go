// Package parallel spreads independent work over indexes across the
// machine's cores. The caller owns the results: each index is written by
// exactly one call, so a slice indexed like the input needs no lock.
package parallel

import (
	"runtime"
	"sync"
)

// Range calls work on contiguous ranges [lo, hi) that together cover
// [0, n), one range per core (GOMAXPROCS), and returns when every call
// has. Below least items (or on one core) it calls work(0, n) on the
// calling goroutine: starting goroutines costs more than small work.
func Range(n, least int, work func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < least || workers < 2 || n < 2 {
		if n > 0 {
			work(0, n)
		}
		return
	}
	per := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += per {
		wg.Go(func() { work(lo, min(lo+per, n)) })
	}
	wg.Wait()
}
