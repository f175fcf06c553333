package install

// Everything the install test runs differently from a cluster is here.
// Everything else (objects, commands, arguments, environment, users,
// capabilities, volumes, probes) is exactly as rendered.
//
//  1. Ports. On a cluster every pod has its own network namespace; here
//     all containers of every variant share this machine's, so each port a
//     container listens on moves to a free port: through the flag or the
//     environment variable that sets it (portSettings), and the probes and
//     webhook addresses follow. A port below 1024 moves to another port
//     below 1024, so that binding it still needs NET_BIND_SERVICE. The
//     value the manifest gives each setting must match the containerPort
//     it declares (or the binary's default), or the test fails.
//  2. The webhook Service. The test apiserver has no service network (a
//     ClusterIP would leave this machine), so a webhook configuration's
//     clientConfig.service becomes url: https://127.0.0.1:PORT/PATH, with
//     PORT the (moved) container port behind the Service, and the serving
//     certificate also names 127.0.0.1: the manager gets
//     --self-signed-ip=127.0.0.1 when it runs --self-signed, and a
//     cert-manager Certificate for the Service gets ipAddresses 127.0.0.1.
//  3. The API server's address. Pods reach it through the kubernetes
//     Service; here KUBERNETES_SERVICE_HOST/PORT name the test apiserver
//     on 127.0.0.1 (what a kubelet sets is the Service's ClusterIP).

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/internal/freeport"
)

// portSetting is how a container's port is set: a flag (with the binary's
// default when the manifest passes none) or an environment variable.
// Port names the containerPort; an empty Port is a port the container
// uses on loopback only, which it does not declare.
type portSetting struct {
	Port    string
	Flag    string
	Env     string
	Format  string // how the port is written, e.g. ":%d"
	Default int    // the flag's default port
}

// portSettings lists, per container name, every port it listens on.
var portSettings = map[string][]portSetting{
	"manager": {
		{Port: "webhook", Flag: "--port", Format: "%d", Default: 9443},
		{Port: "metrics", Flag: "--metrics-bind-address", Format: ":%d", Default: 8080},
		{Port: "probes", Flag: "--health-probe-bind-address", Format: ":%d", Default: 8081},
	},
	"router": {
		{Port: "http", Env: "ROUTER_SERVICE_HTTP_PORT", Format: "%d"},
		{Port: "https", Env: "ROUTER_SERVICE_HTTPS_PORT", Format: "%d"},
		{Port: "metrics", Env: "ROUTER_LISTEN_ADDR", Format: "0.0.0.0:%d"},
		{Env: "ROUTER_SERVICE_SNI_PORT", Format: "%d"},
		{Env: "ROUTER_SERVICE_NO_SNI_PORT", Format: "%d"},
	},
}

// movedPorts maps a container's declared port names to the ports the test
// moved them to.
type movedPorts map[string]int

// movePorts rewrites the container's flags and environment so that it
// listens on free ports, and returns where its named ports went.
func movePorts(c *corev1.Container) (movedPorts, error) {
	settings, ok := portSettings[c.Name]
	if !ok {
		return nil, fmt.Errorf("container %s: portSettings does not say how its ports are set", c.Name)
	}
	moved := movedPorts{}
	for _, cp := range c.Ports {
		if !slices.ContainsFunc(settings, func(s portSetting) bool { return s.Port == cp.Name }) {
			return nil, fmt.Errorf("container %s: portSettings does not say how port %s is set", c.Name, cp.Name)
		}
	}
	for _, s := range settings {
		declared := int32(0)
		for _, cp := range c.Ports {
			if cp.Name == s.Port {
				declared = cp.ContainerPort
			}
		}
		if s.Port != "" && declared == 0 {
			return nil, fmt.Errorf("container %s declares no port %s", c.Name, s.Port)
		}
		port, err := s.move(c, declared)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", c.Name, err)
		}
		if s.Port != "" {
			moved[s.Port] = port
		}
	}
	return moved, nil
}

// move checks that the setting's value is the declared port and replaces
// it with a free port.
func (s portSetting) move(c *corev1.Container, declared int32) (int, error) {
	current, err := s.current(c)
	if err != nil {
		return 0, err
	}
	if declared != 0 && current != int(declared) {
		return 0, fmt.Errorf("%s%s sets port %d but the container declares %s as %d", s.Flag, s.Env, current, s.Port, declared)
	}
	port, err := freePortLike(current)
	if err != nil {
		return 0, err
	}
	value := fmt.Sprintf(s.Format, port)
	if s.Flag != "" {
		c.Args = slices.DeleteFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, s.Flag+"=") })
		c.Args = append(c.Args, s.Flag+"="+value)
		return port, nil
	}
	for i := range c.Env {
		if c.Env[i].Name == s.Env {
			c.Env[i].Value = value
		}
	}
	return port, nil
}

// current is the port the setting has in the manifest.
func (s portSetting) current(c *corev1.Container) (int, error) {
	value, found := "", false
	if s.Flag != "" {
		for i, a := range c.Args {
			if v, ok := strings.CutPrefix(a, s.Flag+"="); ok {
				value, found = v, true
			} else if a == s.Flag {
				return 0, fmt.Errorf("%s: write it as %s=VALUE", s.Flag, s.Flag)
			} else if i > 0 && c.Args[i-1] == s.Flag {
				return 0, fmt.Errorf("%s: write it as %s=VALUE", s.Flag, s.Flag)
			}
		}
		if !found {
			return s.Default, nil
		}
	} else {
		for _, e := range c.Env {
			if e.Name == s.Env {
				value, found = e.Value, true
			}
		}
		if !found {
			return 0, fmt.Errorf("env %s is not set: the manifests list every router setting", s.Env)
		}
	}
	if i := strings.LastIndex(value, ":"); i >= 0 {
		value = value[i+1:]
	}
	port, err := strconv.Atoi(value)
	if err != nil {
		return 0, fmt.Errorf("%s%s=%q: not a port", s.Flag, s.Env, value)
	}
	return port, nil
}

// freePortLike returns a free port: below 1024 when like is (binding it
// needs NET_BIND_SERVICE), from the ephemeral-free range otherwise.
func freePortLike(like int) (int, error) {
	if like >= 1024 {
		return freeport.Get()
	}
	for port := 1023; port >= 600; port-- {
		l, err := net.Listen("tcp", net.JoinHostPort("0.0.0.0", strconv.Itoa(port)))
		if err == nil {
			_ = l.Close()
			if reservePrivileged(port) {
				return port, nil
			}
		}
	}
	return 0, fmt.Errorf("no free port below 1024")
}

// privilegedTaken keeps the privileged ports handed out in this test
// binary, so that parallel variants never get the same one.
var (
	privilegedMu    sync.Mutex
	privilegedTaken = map[int]bool{}
)

func reservePrivileged(port int) bool {
	privilegedMu.Lock()
	defer privilegedMu.Unlock()
	if privilegedTaken[port] {
		return false
	}
	privilegedTaken[port] = true
	return true
}

// webhookURLs points each webhook of the configurations among objs at
// 127.0.0.1 and the port behind the Service it names.
func webhookURLs(objs []*unstructured.Unstructured, ports map[string]movedPorts) error {
	for _, o := range objs {
		var err error
		switch o.GetKind() {
		case "MutatingWebhookConfiguration":
			err = rewrite(o, &admissionregistrationv1.MutatingWebhookConfiguration{}, func(cfg *admissionregistrationv1.MutatingWebhookConfiguration) error {
				for i := range cfg.Webhooks {
					if err := localURL(&cfg.Webhooks[i].ClientConfig, objs, ports); err != nil {
						return err
					}
				}
				return nil
			})
		case "ValidatingWebhookConfiguration":
			err = rewrite(o, &admissionregistrationv1.ValidatingWebhookConfiguration{}, func(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) error {
				for i := range cfg.Webhooks {
					if err := localURL(&cfg.Webhooks[i].ClientConfig, objs, ports); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// rewrite converts o to typed, lets change edit it, and converts it back.
func rewrite[T any](o *unstructured.Unstructured, typed *T, change func(*T) error) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, typed); err != nil {
		return err
	}
	if err := change(typed); err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return err
	}
	o.Object = m
	return nil
}

func localURL(cc *admissionregistrationv1.WebhookClientConfig, objs []*unstructured.Unstructured, ports map[string]movedPorts) error {
	if cc.Service == nil {
		return fmt.Errorf("clientConfig has no service: the shipped configurations call the manager's Service")
	}
	port, err := servicePort(objs, ports, cc.Service.Namespace, cc.Service.Name, valueOr(cc.Service.Port, 443))
	if err != nil {
		return err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, valueOr(cc.Service.Path, "/"))
	cc.URL, cc.Service = &url, nil
	return nil
}

// servicePort follows a Service's port to the (moved) container port of
// the workload its selector picks.
func servicePort(objs []*unstructured.Unstructured, ports map[string]movedPorts, ns, name string, port int32) (int, error) {
	svc := &corev1.Service{}
	if err := findObject(objs, "Service", ns, name, svc); err != nil {
		return 0, err
	}
	var target intstr.IntOrString
	for _, p := range svc.Spec.Ports {
		if p.Port == port {
			target = p.TargetPort
		}
	}
	if target.String() == "0" || target.String() == "" {
		return 0, fmt.Errorf("service %s/%s has no port %d with a targetPort", ns, name, port)
	}
	for _, o := range objs {
		if !workloadKinds[o.GetKind()] || o.GetNamespace() != ns {
			continue
		}
		podLabels, _, err := unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "labels")
		if err != nil {
			return 0, err
		}
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(podLabels)) {
			continue
		}
		if p, ok := ports[o.GetName()][target.String()]; ok {
			return p, nil
		}
		return 0, fmt.Errorf("service %s/%s targets port %s, which %s %s does not declare by name", ns, name, target.String(), o.GetKind(), o.GetName())
	}
	return 0, fmt.Errorf("service %s/%s selects no Deployment or DaemonSet", ns, name)
}

func findObject(objs []*unstructured.Unstructured, kind, ns, name string, into any) error {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetNamespace() == ns && o.GetName() == name {
			return runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into)
		}
	}
	return fmt.Errorf("no %s %s/%s among the rendered objects", kind, ns, name)
}

// webhookCertificateIP makes the webhook's serving certificate name
// 127.0.0.1: the manager's self-signed one through --self-signed-ip, a
// cert-manager Certificate through spec.ipAddresses.
func webhookCertificateIP(objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		switch o.GetKind() {
		case "Certificate":
			ips, _, _ := unstructured.NestedStringSlice(o.Object, "spec", "ipAddresses")
			if err := unstructured.SetNestedStringSlice(o.Object, append(ips, "127.0.0.1"), "spec", "ipAddresses"); err != nil {
				return err
			}
		case "Deployment":
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			for _, c := range containers {
				c := c.(map[string]any)
				args, _ := c["args"].([]any)
				if slices.Contains(args, any("--self-signed")) {
					c["args"] = append(args, "--self-signed-ip=127.0.0.1")
				}
			}
			if err := unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers"); err != nil {
				return err
			}
		}
	}
	return nil
}
