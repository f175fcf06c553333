package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	logsapi "k8s.io/component-base/logs/api/v1"

	cm "github.com/cert-manager/cert-manager/pkg/apis/certmanager"
	"github.com/cert-manager/cert-manager/pkg/controller"
	dnsutil "github.com/cert-manager/cert-manager/pkg/issuer/acme/dns/util"
	"github.com/cert-manager/cert-manager/pkg/util"
)

// options are the command-line flags, named and defaulted as cert-manager's
// controller names and defaults them.
type options struct {
	apiServerHost, kubeconfig, namespace string
	clusterResourceNamespace             string
	qps                                  float32
	burst                                int
	controllers                          []string
	workers, maxConcurrentChallenges     int
	leaderElect                          bool
	healthzAddress, metricsAddress       string

	clusterIssuerAmbientCredentials, issuerAmbientCredentials bool
	enableCertificateOwnerRef                                 bool
	copiedAnnotationPrefixes                                  []string
	minBackoff, maxBackoff                                    time.Duration

	defaultIssuerName, defaultIssuerKind, defaultIssuerGroup string
	autoCertificateAnnotations, extraCertificateAnnotations  []string

	solverImage                              string
	solverRequestCPU, solverRequestMemory    string
	solverLimitsCPU, solverLimitsMemory      string
	solverRunAsNonRoot                       bool
	solverNameservers, solverExtraLabels     []string
	dns01Nameservers                         []string
	dns01NameserversOnly                     bool
	dns01CheckRetryPeriod                    time.Duration
	solverRuntimeClassName                   string
	enableGatewayAPI, enableGatewayListeners bool

	logging logsapi.LoggingConfiguration
}

func newOptions() *options { return &options{} }

func (o *options) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.apiServerHost, "master", "", "address of the Kubernetes API server (overrides the kubeconfig's)")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file to reach the API server with (default: in-cluster config)")
	fs.StringVar(&o.namespace, "namespace", "", "watch only this namespace (default: all)")
	fs.StringVar(&o.clusterResourceNamespace, "cluster-resource-namespace", "kube-system", "namespace holding the Secrets of ClusterIssuers")
	fs.Float32Var(&o.qps, "kube-api-qps", 20, "requests per second to the API server when it has no priority and fairness")
	fs.IntVar(&o.burst, "kube-api-burst", 50, "request burst to the API server when it has no priority and fairness")
	fs.StringSliceVar(&o.controllers, "controllers", []string{"*"}, `controllers to run: "*" for all built in, "name" to add one, "-name" to remove one`)
	fs.IntVar(&o.workers, "concurrent-workers", 5, "workers per controller")
	fs.IntVar(&o.maxConcurrentChallenges, "max-concurrent-challenges", 60, "ACME challenges processed at once")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "not supported by this build: must stay false")
	fs.StringVar(&o.healthzAddress, "healthz-listen-address", "0.0.0.0:9403", `address of /livez and /readyz ("" or "0" turns it off)`)
	fs.StringVar(&o.metricsAddress, "metrics-listen-address", "0.0.0.0:9402", `address of /metrics ("" or "0" turns it off)`)
	o.addIssuerFlags(fs)
	o.addACMEFlags(fs)
	addLoggingFlags(&o.logging, fs)
}

func (o *options) addIssuerFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.clusterIssuerAmbientCredentials, "cluster-issuer-ambient-credentials", true, "ClusterIssuers may use ambient credentials")
	fs.BoolVar(&o.issuerAmbientCredentials, "issuer-ambient-credentials", false, "Issuers may use ambient credentials")
	fs.BoolVar(&o.enableCertificateOwnerRef, "enable-certificate-owner-ref", false, "make each Certificate the owner of its Secret")
	fs.StringSliceVar(&o.copiedAnnotationPrefixes, "copied-annotation-prefixes", []string{"*", "-kubectl.kubernetes.io/", "-fluxcd.io/", "-argocd.argoproj.io/"}, "annotations copied from Certificates to CertificateRequests and Orders")
	fs.DurationVar(&o.minBackoff, "certificate-request-minimum-backoff-duration", time.Hour, "first delay after a failed issuance")
	fs.DurationVar(&o.maxBackoff, "certificate-request-maximum-backoff-duration", 32*time.Hour, "longest delay after failed issuances")
	fs.StringVar(&o.defaultIssuerName, "default-issuer-name", "", "issuer of Ingresses with only an auto-certificate annotation")
	fs.StringVar(&o.defaultIssuerKind, "default-issuer-kind", "Issuer", "kind of --default-issuer-name")
	fs.StringVar(&o.defaultIssuerGroup, "default-issuer-group", cm.GroupName, "group of --default-issuer-name")
	fs.StringSliceVar(&o.autoCertificateAnnotations, "auto-certificate-annotations", []string{"kubernetes.io/tls-acme"}, "Ingress annotations that ask for a certificate from the default issuer")
	fs.StringSliceVar(&o.extraCertificateAnnotations, "extra-certificate-annotations", nil, "Ingress annotations copied to the Certificates made for them")
	fs.BoolVar(&o.enableGatewayAPI, "enable-gateway-api", false, "not built in: must stay false")
	fs.BoolVar(&o.enableGatewayListeners, "enable-gateway-api-listenerset", false, "not built in: must stay false")
}

func (o *options) addACMEFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.solverImage, "acme-http01-solver-image", "quay.io/jetstack/cert-manager-acmesolver:"+util.AppVersion, "image of the HTTP-01 solver Pods")
	fs.StringVar(&o.solverRequestCPU, "acme-http01-solver-resource-request-cpu", "10m", "CPU request of solver Pods")
	fs.StringVar(&o.solverRequestMemory, "acme-http01-solver-resource-request-memory", "64Mi", "memory request of solver Pods")
	fs.StringVar(&o.solverLimitsCPU, "acme-http01-solver-resource-limits-cpu", "100m", "CPU limit of solver Pods")
	fs.StringVar(&o.solverLimitsMemory, "acme-http01-solver-resource-limits-memory", "64Mi", "memory limit of solver Pods")
	fs.BoolVar(&o.solverRunAsNonRoot, "acme-http01-solver-run-as-non-root", true, "solver Pods run as non-root")
	fs.StringVar(&o.solverRuntimeClassName, "acme-http01-solver-runtime-class-name", "", "runtimeClassName of solver Pods")
	fs.StringSliceVar(&o.solverNameservers, "acme-http01-solver-nameservers", nil, "host:port of DNS servers the HTTP-01 self check resolves names with (default: the system's)")
	fs.StringSliceVar(&o.solverExtraLabels, "acme-http01-solver-extra-labels", nil, "key=value labels added to solver resources")
	fs.StringSliceVar(&o.dns01Nameservers, "dns01-recursive-nameservers", nil, "host:port of DNS servers for DNS-01 checks (default: the system's)")
	fs.BoolVar(&o.dns01NameserversOnly, "dns01-recursive-nameservers-only", false, "check DNS-01 records with --dns01-recursive-nameservers only")
	fs.DurationVar(&o.dns01CheckRetryPeriod, "dns01-check-retry-period", 10*time.Second, "pause between DNS-01 propagation checks")
}

// contextOptions turns the flags into cert-manager's controller options.
func (o *options) contextOptions() (controller.ContextOptions, error) {
	if o.enableGatewayAPI || o.enableGatewayListeners {
		return controller.ContextOptions{}, fmt.Errorf("--enable-gateway-api: the Gateway API shims are not built into this binary")
	}
	acme, err := o.acmeOptions()
	if err != nil {
		return controller.ContextOptions{}, err
	}
	return controller.ContextOptions{
		APIServerHost:      o.apiServerHost,
		Kubeconfig:         o.kubeconfig,
		KubernetesAPIQPS:   o.qps,
		KubernetesAPIBurst: o.burst,
		Namespace:          o.namespace,
		IssuerOptions: controller.IssuerOptions{
			ClusterResourceNamespace:        o.clusterResourceNamespace,
			ClusterIssuerAmbientCredentials: o.clusterIssuerAmbientCredentials,
			IssuerAmbientCredentials:        o.issuerAmbientCredentials,
		},
		ACMEOptions: acme,
		IngressShimOptions: controller.IngressShimOptions{
			DefaultIssuerName:                 o.defaultIssuerName,
			DefaultIssuerKind:                 o.defaultIssuerKind,
			DefaultIssuerGroup:                o.defaultIssuerGroup,
			DefaultAutoCertificateAnnotations: o.autoCertificateAnnotations,
			ExtraCertificateAnnotations:       o.extraCertificateAnnotations,
			GatewayAPIExtraProtocols:          sets.New[string](),
		},
		CertificateOptions: controller.CertificateOptions{
			EnableOwnerRef:                           o.enableCertificateOwnerRef,
			CopiedAnnotationPrefixes:                 o.copiedAnnotationPrefixes,
			CertificateRequestMinimumBackoffDuration: o.minBackoff,
			CertificateRequestMaximumBackoffDuration: o.maxBackoff,
		},
		SchedulerOptions: controller.SchedulerOptions{MaxConcurrentChallenges: o.maxConcurrentChallenges},
	}, nil
}

func (o *options) acmeOptions() (controller.ACMEOptions, error) {
	a := controller.ACMEOptions{
		HTTP01SolverImage:            o.solverImage,
		ACMEHTTP01SolverRunAsNonRoot: o.solverRunAsNonRoot,
		HTTP01SolverRuntimeClassName: o.solverRuntimeClassName,
		HTTP01SolverNameservers:      o.solverNameservers,
		DNS01CheckAuthoritative:      !o.dns01NameserversOnly,
		DNS01Nameservers:             o.dns01Nameservers,
		DNS01CheckRetryPeriod:        o.dns01CheckRetryPeriod,
	}
	if len(a.DNS01Nameservers) == 0 {
		a.DNS01Nameservers = dnsutil.RecursiveNameservers
	}
	for flag, q := range map[string]struct {
		value string
		dst   *resource.Quantity
	}{
		"acme-http01-solver-resource-request-cpu":    {o.solverRequestCPU, &a.HTTP01SolverResourceRequestCPU},
		"acme-http01-solver-resource-request-memory": {o.solverRequestMemory, &a.HTTP01SolverResourceRequestMemory},
		"acme-http01-solver-resource-limits-cpu":     {o.solverLimitsCPU, &a.HTTP01SolverResourceLimitsCPU},
		"acme-http01-solver-resource-limits-memory":  {o.solverLimitsMemory, &a.HTTP01SolverResourceLimitsMemory},
	} {
		parsed, err := resource.ParseQuantity(q.value)
		if err != nil {
			return a, fmt.Errorf("--%s=%q: %w", flag, q.value, err)
		}
		*q.dst = parsed
	}
	labels, err := keyValues("acme-http01-solver-extra-labels", o.solverExtraLabels)
	a.HTTP01SolverExtraLabels = labels
	return a, err
}

// keyValues parses key=value pairs of the flag named name.
func keyValues(name string, pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--%s: %q is not key=value", name, p)
		}
		out[k] = v
	}
	return out, nil
}
