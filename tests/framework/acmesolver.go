package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/internal/hostaddr"
)

// acmeSolverLabel marks the Pods and Services of cert-manager's HTTP-01
// solver.
const acmeSolverLabel = "acme.cert-manager.io/http01-solver"

// ACMESolvers runs the HTTP-01 solver Pods cert-manager creates in a
// namespace as a kubelet would, there being no kubelet here: each Pod's
// container runs as bin/cert-manager-acmesolver with the Pod's arguments,
// on a free port of this machine's own address (Kubernetes refuses
// loopback endpoints), and the solver's Service gets an EndpointSlice with
// that address and port, as the EndpointSlice controller would make for the
// Pod. A router then reaches the solver through the Route made from the
// solver's Ingress. A Pod deleted (its challenge done) stops its solver and
// its EndpointSlice goes.
type ACMESolvers struct {
	cp      *ControlPlane
	ns, ip  string
	bin     string
	mu      sync.Mutex
	running map[types.UID]*acmeSolver
	// started counts the solver Pods run so far.
	started int
}

// acmeSolver is one solver Pod running.
type acmeSolver struct {
	pod   string
	proc  *Process
	port  int
	slice string // the EndpointSlice made for it, once its Service exists
}

// RunACMESolvers runs the solver Pods of namespace ns until t ends. Without
// the binary it fails t under CI=true and skips it otherwise.
func (cp *ControlPlane) RunACMESolvers(t testing.TB, ns string) *ACMESolvers {
	t.Helper()
	RequireTools(t, cp.BinDir, CertManagerACMESolver)
	ip, err := hostaddr.IPv4()
	if err != nil {
		t.Fatal(err)
	}
	s := &ACMESolvers{cp: cp, ns: ns, ip: ip, bin: filepath.Join(cp.BinDir, CertManagerACMESolver), running: map[types.UID]*acmeSolver{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := s.sync(ctx); err != nil && ctx.Err() == nil {
				t.Logf("ACME solvers in %s: %v", ns, err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		s.mu.Lock()
		defer s.mu.Unlock()
		for uid, sv := range s.running {
			s.stop(t, sv)
			delete(s.running, uid)
		}
	})
	return s
}

// Started is the number of solver Pods run so far.
func (s *ACMESolvers) Started() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// sync starts the solvers of new Pods, gives each its EndpointSlice once
// its Service exists, and stops those whose Pod went.
func (s *ACMESolvers) sync(ctx context.Context) error {
	var pods corev1.PodList
	if err := s.cp.Client.List(ctx, &pods, client.InNamespace(s.ns), client.HasLabels{acmeSolverLabel}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	present := map[types.UID]bool{}
	for i := range pods.Items {
		pod := &pods.Items[i]
		present[pod.UID] = true
		sv := s.running[pod.UID]
		if sv == nil {
			var err error
			if sv, err = s.start(pod); err != nil {
				return err
			}
			s.running[pod.UID] = sv
			s.started++
		}
		if sv.slice == "" {
			if err := s.endpointSlice(ctx, pod, sv); err != nil {
				return err
			}
		}
	}
	for uid, sv := range s.running {
		if !present[uid] {
			_ = sv.proc.Stop()
			if sv.slice != "" {
				es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: sv.slice}}
				if err := s.cp.Client.Delete(ctx, es); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			delete(s.running, uid)
		}
	}
	return nil
}

// start runs the Pod's container: the solver with the Pod's arguments but
// --listen-port, which takes a free port.
func (s *ACMESolvers) start(pod *corev1.Pod) (*acmeSolver, error) {
	if len(pod.Spec.Containers) != 1 || !strings.Contains(pod.Spec.Containers[0].Image, "cert-manager-acmesolver") {
		return nil, fmt.Errorf("solver Pod %s: containers %+v, want one cert-manager-acmesolver", pod.Name, pod.Spec.Containers)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	var args []string
	for _, a := range pod.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "--listen-port=") {
			a = "--listen-port=" + strconv.Itoa(port)
		}
		args = append(args, a)
	}
	proc, err := startProcess("acmesolver "+pod.Name, s.bin, args...)
	if err != nil {
		return nil, err
	}
	return &acmeSolver{pod: pod.Name, proc: proc, port: port}, nil
}

// endpointSlice gives the Service that selects the Pod an EndpointSlice
// with the solver's address and port under each of its port names, once
// cert-manager has created the Service.
func (s *ACMESolvers) endpointSlice(ctx context.Context, pod *corev1.Pod, sv *acmeSolver) error {
	var services corev1.ServiceList
	if err := s.cp.Client.List(ctx, &services, client.InNamespace(s.ns), client.HasLabels{acmeSolverLabel}); err != nil {
		return err
	}
	for _, svc := range services.Items {
		if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			continue
		}
		es := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: svc.Name + "-solver",
				Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{s.ip},
				Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		}
		for _, p := range svc.Spec.Ports {
			es.Ports = append(es.Ports, discoveryv1.EndpointPort{Name: ptr.To(p.Name), Port: ptr.To(int32(sv.port)),
				Protocol: ptr.To(corev1.ProtocolTCP)})
		}
		if err := s.cp.Client.Create(ctx, es); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		sv.slice = es.Name
		return nil
	}
	return nil
}

// stop stops a solver at the end of the test, logging its output when the
// test failed.
func (s *ACMESolvers) stop(t testing.TB, sv *acmeSolver) {
	err := sv.proc.Stop()
	if t.Failed() {
		t.Logf("acmesolver for Pod %s (%v):\n%s", sv.pod, err, tail(sv.proc.Output()))
	}
}
