package routecerts

import (
	"testing"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func certificate(revision *int, conditions ...cmapi.CertificateCondition) *cmapi.Certificate {
	return &cmapi.Certificate{ObjectMeta: metav1.ObjectMeta{Name: "web-route-tls"},
		Status: cmapi.CertificateStatus{Revision: revision, Conditions: conditions}}
}

func request(reason, message string) *cmapi.CertificateRequest {
	return &cmapi.CertificateRequest{ObjectMeta: metav1.ObjectMeta{Name: "web-route-tls-1"},
		Status: cmapi.CertificateRequestStatus{Conditions: []cmapi.CertificateRequestCondition{{
			Type: cmapi.CertificateRequestConditionReady, Status: cmmeta.ConditionFalse, Reason: reason, Message: message}}}}
}

func TestProgressOf(t *testing.T) {
	ready := cmapi.CertificateCondition{Type: cmapi.CertificateConditionReady, Status: cmmeta.ConditionTrue, Reason: "Ready", Message: "Certificate is up to date and has not expired"}
	notReady := cmapi.CertificateCondition{Type: cmapi.CertificateConditionReady, Status: cmmeta.ConditionFalse, Reason: "DoesNotExist", Message: "Issuing certificate as Secret does not exist"}
	failed := cmapi.CertificateCondition{Type: cmapi.CertificateConditionIssuing, Status: cmmeta.ConditionFalse, Reason: "Failed", Message: "The certificate request has failed to complete and will be retried: boom"}
	cases := []struct {
		name string
		cert *cmapi.Certificate
		req  *cmapi.CertificateRequest
		want Progress
	}{
		{name: "not looked at yet", cert: certificate(nil), want: Progress{}},
		{name: "ready", cert: certificate(new(1), ready),
			want: Progress{Ready: true, Reason: ReasonIssued, Message: "Certificate web-route-tls is ready: Certificate is up to date and has not expired"}},
		{name: "issuing failed", cert: certificate(nil, notReady, failed), req: request("Failed", "boom"),
			want: Progress{Reason: ReasonFailed, Message: "Certificate web-route-tls: Failed: The certificate request has failed to complete and will be retried: boom"}},
		{name: "request pending on a missing issuer", cert: certificate(nil, notReady), req: request("Pending", `Referenced "Issuer" not found: issuer.cert-manager.io "nope" not found`),
			want: Progress{Reason: ReasonPending, Message: `CertificateRequest web-route-tls-1: Pending: Referenced "Issuer" not found: issuer.cert-manager.io "nope" not found`}},
		{name: "request denied", cert: certificate(nil, notReady), req: request("Denied", "policy says no"),
			want: Progress{Reason: ReasonFailed, Message: "CertificateRequest web-route-tls-1: Denied: policy says no"}},
		{name: "no request yet", cert: certificate(nil, notReady),
			want: Progress{Reason: ReasonPending, Message: "Certificate web-route-tls: DoesNotExist: Issuing certificate as Secret does not exist"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ProgressOf(c.cert, c.req); got != c.want {
				t.Errorf("ProgressOf =\n %+v\nwant\n %+v", got, c.want)
			}
		})
	}
}

func TestNextRevision(t *testing.T) {
	if got := NextRevision(certificate(nil)); got != "1" {
		t.Errorf("NextRevision(no revision) = %s, want 1", got)
	}
	if got := NextRevision(certificate(new(4))); got != "5" {
		t.Errorf("NextRevision(4) = %s, want 5", got)
	}
}
