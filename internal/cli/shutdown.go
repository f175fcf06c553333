package cli

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// shutdownDelayHelp is --shutdown-delay's help.
const shutdownDelayHelp = `how long to go on serving admission after the first SIGTERM or SIGINT, with /readyz failing, before the graceful shutdown: ` +
	`the time the EndpointSlice controller and every node's kube-proxy take to drop a terminating pod from the webhook Service, ` +
	`whose calls the API server would otherwise send to a closed port and fail the Route write. ` +
	`A second signal stops at once. 0 stops at once, for a process no Service sends to (the manifests set 15s)`

// stoppingHelp describes the stop of the commands serving the webhooks.
const stoppingHelp = `On SIGTERM or SIGINT it goes on serving the webhooks for --shutdown-delay with /readyz
failing, so that the webhook Service stops sending it calls before its server closes: the
webhook configurations fail closed, and a call to a replica that no longer listens fails
the Route write. Then it shuts down gracefully (a manager leading the controllers hands
its Lease over). A second signal skips the rest of the wait. Like the router's
ROUTER_DRAIN_SECONDS, the wait is in the process rather than in a preStop hook: the image
has no shell, the readiness failure comes with it, and it works on every Kubernetes version.`

// shutdownDelay holds back the shutdown of a process serving the webhooks
// behind a Service. On the first signal it fails readiness and keeps the
// webhook server (and the controllers) running for delay; only then does
// the manager's context end and controller-runtime's graceful shutdown
// (webhook server closed, leader Lease released) begin.
//
// The wait is in the process rather than in a preStop hook: the image has
// no shell to sleep with, a hook would keep /readyz answering 200 while the
// pod is leaving, and a signal reaches the process on every Kubernetes
// version. The router waits the same way for ROUTER_DRAIN_SECONDS.
type shutdownDelay struct {
	delay time.Duration
	log   logr.Logger
	// stopping is set by the first signal.
	stopping atomic.Bool
	// notify subscribes ch to further signals and returns the function that
	// ends the subscription; nil means SIGTERM and SIGINT.
	notify func(ch chan<- os.Signal) (stop func())
}

// Log messages at the start and at the end of the delay.
const (
	shutdownDelayStarted = "stopping: /readyz fails and the webhooks are served for --shutdown-delay, so that nothing new is sent here; signal again to stop at once"
	shutdownDelayOver    = "--shutdown-delay has passed: shutting down"
	shutdownDelayCut     = "signalled again: shutting down without waiting for the rest of --shutdown-delay"
)

// run returns the context the manager runs under and the function that
// releases it. The context ends delay after ctx ends (SIGTERM or SIGINT
// cancel ctx), when another signal comes meanwhile, or when stop is
// called. With no delay it is ctx itself: nothing is waited for or logged.
func (d *shutdownDelay) run(ctx context.Context) (run context.Context, stop context.CancelFunc) {
	if d.delay <= 0 {
		return ctx, func() {}
	}
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer cancel()
		select {
		case <-run.Done():
			return
		case <-ctx.Done():
		}
		d.stopping.Store(true)
		// Subscribed only now: the first signal must not end the wait.
		again := make(chan os.Signal, 1)
		notify := d.notify
		if notify == nil {
			notify = notifyStop
		}
		defer notify(again)()
		d.log.Info(shutdownDelayStarted, "shutdownDelay", d.delay.String())
		wait := time.NewTimer(d.delay)
		defer wait.Stop()
		select {
		case <-wait.C:
			d.log.Info(shutdownDelayOver)
		case <-again:
			d.log.Info(shutdownDelayCut)
		case <-run.Done():
		}
	}()
	return run, cancel
}

// notifyStop subscribes ch to SIGTERM and SIGINT.
func notifyStop(ch chan<- os.Signal) func() {
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return func() { signal.Stop(ch) }
}

// readyz is the readiness check that fails from the first signal on, so
// that the kubelet marks the pod unready and the Service sends it nothing
// new while it still serves.
func (d *shutdownDelay) readyz(*http.Request) error {
	if d.stopping.Load() {
		return errors.New("stopping: the webhooks are served until --shutdown-delay has passed")
	}
	return nil
}

// server wraps the webhook server so that each admission answered while
// stopping asks the API server to close its connection (Connection: close;
// a GOAWAY over HTTP/2). A kept-alive connection stays with this pod
// whatever the Service's endpoints say, so without this the API server
// would go on sending to it until the server closes, and a request sent
// just as an idle connection is closed fails; with it, its next call
// opens a new connection, which the Service sends to a ready replica.
func (d *shutdownDelay) server(s ctrlwebhook.Server) ctrlwebhook.Server {
	return &stoppingServer{Server: s, delay: d}
}

type stoppingServer struct {
	ctrlwebhook.Server
	delay *shutdownDelay
}

func (s *stoppingServer) Register(path string, hook http.Handler) {
	s.Server.Register(path, s.delay.closeWhenStopping(hook))
}

// closeWhenStopping serves next, with Connection: close once stopping.
func (d *shutdownDelay) closeWhenStopping(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.stopping.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
