// Command controller runs cert-manager's own controllers, from the
// github.com/cert-manager/cert-manager module pinned in go.mod, the way
// cert-manager's cmd/controller does: one controller context shared by every
// registered control loop, the shared informer factories started after the
// loops registered their informers.
//
// It exists because cert-manager's cmd/* mains are separate modules the Go
// module proxy does not serve; this file is only glue. The controllers it
// runs are the ones whose packages are imported below: Issuers and
// ClusterIssuers, the certificates trigger, key-manager, request-manager,
// issuing, readiness, revision-manager and metrics loops, the
// CertificateRequest approver and the CA, self-signed and ACME
// CertificateRequest issuers, ACME Orders and Challenges, and the
// certificate-shim for Ingresses. Vault, Venafi, Gateway API and the
// CertificateSigningRequest controllers are not built in.
//
// Flags keep cert-manager's names and defaults. There is no leader election
// (run one replica). --healthz-listen-address serves /livez and /readyz; the
// latter answers 200 once every informer cache has synced.
//
// It must not import anything from the routeshift module: it is a test tool
// with its own dependency versions.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	utilfeature "github.com/cert-manager/cert-manager/pkg/util/feature"

	// Each package registers its control loop with controller.Known.
	_ "github.com/cert-manager/cert-manager/pkg/controller/acmechallenges"
	_ "github.com/cert-manager/cert-manager/pkg/controller/acmeorders"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificate-shim/ingresses"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/acme"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/metrics"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"

	// Each package registers its issuer type with the issuer factory.
	_ "github.com/cert-manager/cert-manager/pkg/issuer/acme"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

func main() {
	logf.InitLogs()
	defer logf.FlushLogs()
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager-controller:", err)
		logf.FlushLogs()
		os.Exit(1)
	}
}

func run(args []string) error {
	o := newOptions()
	fs := pflag.NewFlagSet("cert-manager-controller", pflag.ContinueOnError)
	o.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := logf.ValidateAndApply(&o.logging); err != nil {
		return err
	}
	if o.leaderElect {
		return errors.New("--leader-elect=true: this build has no leader election; run a single replica with --leader-elect=false")
	}
	ctxOpts, err := o.contextOptions()
	if err != nil {
		return err
	}
	enabled, err := o.enabledControllers()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "controller")
	return runControllers(ctx, ctxOpts, enabled, o)
}

// runControllers builds the shared controller context, starts every enabled
// control loop and the informer factories, serves health and metrics, and
// blocks until ctx ends and the loops have returned.
func runControllers(ctx context.Context, ctxOpts controller.ContextOptions, enabled []string, o *options) error {
	log := logf.FromContext(ctx)
	factory, err := controller.NewContextFactory(ctx, ctxOpts)
	if err != nil {
		return fmt.Errorf("building the controller context: %w", err)
	}
	cmctx, err := factory.Build()
	if err != nil {
		return fmt.Errorf("building the controller context: %w", err)
	}
	var ready atomic.Bool
	servers, err := startServers(o, cmctx, &ready)
	if err != nil {
		return err
	}
	defer shutdown(servers)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	defer wg.Wait()
	if err := startLoops(ctx, cancel, &wg, factory, enabled, o.workers); err != nil {
		return err
	}
	startInformers(ctx, cmctx)
	if waitForSync(ctx, cmctx) {
		ready.Store(true)
		log.V(logf.InfoLevel).Info("informer caches synced; controllers ready", "controllers", enabled)
	}
	<-ctx.Done()
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// startLoops creates each enabled control loop, which registers the
// informers it needs, and runs it with workers; a loop that fails cancels
// ctx with its error.
func startLoops(ctx context.Context, cancel context.CancelCauseFunc, wg *sync.WaitGroup, factory *controller.ContextFactory, enabled []string, workers int) error {
	log := logf.FromContext(ctx)
	for _, name := range enabled {
		iface, err := controller.Known()[name](factory)
		if err != nil {
			cancel(err)
			return fmt.Errorf("creating controller %s: %w", name, err)
		}
		log.V(logf.InfoLevel).Info("starting controller", "controller", name)
		wg.Go(func() {
			if err := iface.Run(workers, ctx); err != nil {
				cancel(fmt.Errorf("controller %s: %w", name, err))
			}
		})
	}
	return nil
}

// startInformers starts the informer factories the controllers registered
// their informers with.
func startInformers(ctx context.Context, c *controller.Context) {
	c.SharedInformerFactory.Start(ctx.Done())
	c.KubeSharedInformerFactory.Start(ctx.Done())
	c.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
}

// waitForSync reports whether every started informer synced before ctx ended.
func waitForSync(ctx context.Context, c *controller.Context) bool {
	var synced []bool
	for _, ok := range c.SharedInformerFactory.WaitForCacheSync(ctx.Done()) {
		synced = append(synced, ok)
	}
	for _, ok := range c.KubeSharedInformerFactory.WaitForCacheSync(ctx.Done()) {
		synced = append(synced, ok)
	}
	for _, ok := range c.HTTP01ResourceMetadataInformersFactory.WaitForCacheSync(ctx.Done()) {
		synced = append(synced, ok)
	}
	return !slices.Contains(synced, false)
}

// startServers serves /livez and /readyz on --healthz-listen-address and
// Prometheus metrics on --metrics-listen-address; an empty address or "0"
// turns a server off.
func startServers(o *options, c *controller.Context, ready *atomic.Bool) ([]*http.Server, error) {
	var servers []*http.Server
	if on(o.healthzAddress) {
		ln, err := net.Listen("tcp", o.healthzAddress)
		if err != nil {
			return nil, fmt.Errorf("--healthz-listen-address: %w", err)
		}
		srv := &http.Server{Handler: healthMux(ready), ReadHeaderTimeout: 30 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		servers = append(servers, srv)
	}
	if on(o.metricsAddress) {
		ln, err := net.Listen("tcp", o.metricsAddress)
		if err != nil {
			shutdown(servers)
			return nil, fmt.Errorf("--metrics-listen-address: %w", err)
		}
		srv := c.Metrics.NewServer(ln)
		go func() { _ = srv.Serve(ln) }()
		servers = append(servers, srv)
	}
	return servers, nil
}

func on(address string) bool { return address != "" && address != "0" }

func healthMux(ready *atomic.Bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "informer caches not synced yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

func shutdown(servers []*http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.Shutdown(ctx)
	}
}

// enabledControllers resolves --controllers against the built-in control
// loops: "*" is all of them, "-name" removes one, "name" adds one. The
// clusterissuers loop does not run when --namespace scopes cert-manager.
func (o *options) enabledControllers() ([]string, error) {
	known := make([]string, 0, len(controller.Known()))
	for name := range controller.Known() {
		known = append(known, name)
	}
	slices.Sort(known)
	set := map[string]bool{}
	for _, c := range o.controllers {
		name, disable := strings.CutPrefix(strings.TrimSpace(c), "-")
		switch {
		case name == "*" && !disable:
			for _, k := range known {
				set[k] = true
			}
		case !slices.Contains(known, name):
			return nil, fmt.Errorf("--controllers: unknown controller %q; this build has: %s", name, strings.Join(known, ", "))
		default:
			set[name] = !disable
		}
	}
	if o.namespace != "" {
		set[clusterissuers.ControllerName] = false
	}
	var enabled []string
	for _, k := range known {
		if set[k] {
			enabled = append(enabled, k)
		}
	}
	return enabled, nil
}

// addLoggingFlags adds cert-manager's logging flags (--v, --logging-format)
// and --feature-gates.
func addLoggingFlags(cfg *logsapi.LoggingConfiguration, fs *pflag.FlagSet) {
	logsapi.SetRecommendedLoggingConfiguration(cfg)
	logf.AddFlags(cfg, fs)
	utilfeature.DefaultMutableFeatureGate.AddFlag(fs)
}
