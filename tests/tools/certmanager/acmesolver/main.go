// Command acmesolver answers ACME HTTP-01 challenges with cert-manager's own
// solver (github.com/cert-manager/cert-manager/pkg/issuer/acme/http/solver,
// the version pinned in go.mod), taking the arguments cert-manager gives the
// solver Pods it creates: --listen-port, --domain, --token and --key.
//
// It serves GET /.well-known/acme-challenge/<token> for Host <domain> with
// the key, "/" and "/healthz" with 200, and 404 otherwise; like the solver
// Pod's container it listens on every interface. It exists because
// cert-manager's cmd/acmesolver is a separate module the Go module proxy does
// not serve; this file is only glue.
//
// It must not import anything from the routeshift module.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/cert-manager/cert-manager/pkg/issuer/acme/http/solver"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
)

func main() {
	logf.InitLogs()
	defer logf.FlushLogs()
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager-acmesolver:", err)
		logf.FlushLogs()
		os.Exit(1)
	}
}

func run(args []string) error {
	s := &solver.HTTP01Solver{}
	var logging logsapi.LoggingConfiguration
	fs := pflag.NewFlagSet("cert-manager-acmesolver", pflag.ContinueOnError)
	fs.IntVar(&s.ListenPort, "listen-port", 8089, "port to serve the challenge on (every interface)")
	fs.StringVar(&s.Domain, "domain", "", "host name the challenge is for")
	fs.StringVar(&s.Token, "token", "", "challenge token: the last path element of the request")
	fs.StringVar(&s.Key, "key", "", "key authorization to answer with")
	logsapi.SetRecommendedLoggingConfiguration(&logging)
	logf.AddFlags(&logging, fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := logf.ValidateAndApply(&logging); err != nil {
		return err
	}
	if s.Domain == "" || s.Token == "" || s.Key == "" {
		return errors.New("--domain, --token and --key are required (cert-manager passes them to the solver Pod)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(shutdown)
	}()
	err := s.Listen(logf.Log.WithName("acmesolver"))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
