package acme

import (
	"context"
	"errors"
	"testing"

	cmacme "github.com/cert-manager/cert-manager/pkg/apis/acme/v1"
	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestOrphanedOrderIsCollected: the control plane deletes an ACME Order
// whose CertificateRequest was deleted, as kube-controller-manager's
// garbage collector does on a cluster, and keeps one whose
// CertificateRequest exists. cert-manager counts on it (see the package
// documentation). No cert-manager runs during this test: the objects are
// the control plane's alone.
func TestOrphanedOrderIsCollected(t *testing.T) {
	cp := framework.Cluster(t)
	cp.InstallCertManagerCRDs(t)
	cm := certManagerClient(t, cp)
	ns := cp.CreateNamespace(t, "orphan")
	kept, deleted := certificateRequest(t, cm, ns, "kept"), certificateRequest(t, cm, ns, "deleted")
	keptOrder, orphan := orderOf(t, cm, kept), orderOf(t, cm, deleted)
	if err := cm.Delete(context.Background(), deleted); err != nil {
		t.Fatalf("deleting CertificateRequest %s: %v", deleted.Name, err)
	}
	framework.EventuallyWithin(t, issueWait, "Order "+orphan.Name+" of the deleted CertificateRequest deleted", func() error {
		err := cm.Get(context.Background(), client.ObjectKeyFromObject(orphan), &cmacme.Order{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("it still exists: is kube-controller-manager's garbage collector running?")
	})
	if err := cm.Get(context.Background(), client.ObjectKeyFromObject(keptOrder), &cmacme.Order{}); err != nil {
		t.Errorf("Order %s of CertificateRequest %s, which exists: %v", keptOrder.Name, kept.Name, err)
	}
}

// certificateRequest creates a CertificateRequest named name in ns.
func certificateRequest(t *testing.T, cm client.Client, ns, name string) *cmapi.CertificateRequest {
	t.Helper()
	cr := &cmapi.CertificateRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cmapi.CertificateRequestSpec{IssuerRef: cmmeta.IssuerReference{Name: "pebble"}, Request: []byte("no cert-manager reads it")}}
	if err := cm.Create(context.Background(), cr); err != nil {
		t.Fatalf("creating CertificateRequest %s: %v", name, err)
	}
	return cr
}

// orderOf creates an Order controlled by cr, as cert-manager's ACME issuer
// does.
func orderOf(t *testing.T, cm client.Client, cr *cmapi.CertificateRequest) *cmacme.Order {
	t.Helper()
	o := &cmacme.Order{ObjectMeta: metav1.ObjectMeta{Namespace: cr.Namespace, Name: cr.Name + "-order",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cr, cmapi.SchemeGroupVersion.WithKind(cmapi.CertificateRequestKind))}},
		Spec: cmacme.OrderSpec{IssuerRef: cr.Spec.IssuerRef, Request: cr.Spec.Request}}
	if err := cm.Create(context.Background(), o); err != nil {
		t.Fatalf("creating Order %s: %v", o.Name, err)
	}
	return o
}
