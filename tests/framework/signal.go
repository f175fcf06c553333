package framework

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// StartWith starts the webhook process as Start does, with extra arguments
// after the usual ones (a flag given again wins), waits until it is ready
// and returns it, so that a test can signal it and watch it exit. Start
// starts it without them again.
func (w *Webhook) StartWith(extra ...string) (*Process, error) {
	args := append(slices.Clone(w.args), extra...)
	p, err := startProcess("routeshift webhook", args[0], args[1:]...)
	if err != nil {
		return nil, err
	}
	w.process = p
	return p, WaitHTTP(context.Background(), fmt.Sprintf("http://127.0.0.1:%d/readyz", w.ProbePort), 60*time.Second, p)
}
