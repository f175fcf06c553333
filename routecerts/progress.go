package routecerts

import (
	"fmt"
	"strconv"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
)

// Event reasons on Routes. Pending and Failed carry cert-manager's own
// reason and message.
const (
	// ReasonRequested: the controller created the Route's Certificate.
	ReasonRequested = "CertificateRequested"
	// ReasonUpdated: the Route changed (host, annotations) and so did its
	// Certificate; cert-manager issues a new certificate.
	ReasonUpdated = "CertificateUpdated"
	// ReasonPending: cert-manager is working on the certificate, or waits
	// (for an issuer that does not exist yet, an ACME order, an approval).
	ReasonPending = "CertificatePending"
	// ReasonFailed (Warning): cert-manager failed to issue the certificate;
	// it retries with back-off.
	ReasonFailed = "CertificateFailed"
	// ReasonIssued: the certificate is in its Secret, which the Route now
	// names in spec.tls.externalCertificate.
	ReasonIssued = "CertificateIssued"
	// ReasonRemoved: the Route no longer names an issuer; its Certificate,
	// the router's access to the Secret and the reference are gone.
	ReasonRemoved = "CertificateRemoved"
	// ReasonNotRequested (Warning): the Route names an issuer but gets no
	// certificate; the message says why and what to do.
	ReasonNotRequested = "CertificateNotRequested"
)

// Progress is where cert-manager stands with a Route's certificate.
type Progress struct {
	// Ready: the Certificate is Ready, so its Secret holds a certificate
	// that matches its spec.
	Ready bool
	// Reason is ReasonIssued, ReasonPending or ReasonFailed, or empty
	// while cert-manager has said nothing yet; Message is cert-manager's
	// account, for an event.
	Reason, Message string
}

// ProgressOf reads a Certificate's conditions and those of the
// CertificateRequest of its next revision (nil when there is none yet):
// a Certificate waiting on a request says nothing of why it waits, and
// its request does.
func ProgressOf(cert *cmapi.Certificate, req *cmapi.CertificateRequest) Progress {
	if c := certificateCondition(cert, cmapi.CertificateConditionReady); c != nil && c.Status == cmmeta.ConditionTrue {
		return Progress{Ready: true, Reason: ReasonIssued, Message: fmt.Sprintf("Certificate %s is ready: %s", cert.Name, c.Message)}
	}
	if c := certificateCondition(cert, cmapi.CertificateConditionIssuing); c != nil && c.Status == cmmeta.ConditionFalse && c.Reason == "Failed" {
		return Progress{Reason: ReasonFailed, Message: fmt.Sprintf("Certificate %s: %s: %s", cert.Name, c.Reason, c.Message)}
	}
	if c := requestCondition(req, cmapi.CertificateRequestConditionReady); c != nil && c.Status == cmmeta.ConditionFalse {
		reason := ReasonFailed
		if c.Reason == cmapi.CertificateRequestReasonPending {
			reason = ReasonPending
		}
		return Progress{Reason: reason, Message: fmt.Sprintf("CertificateRequest %s: %s: %s", req.Name, c.Reason, c.Message)}
	}
	if c := certificateCondition(cert, cmapi.CertificateConditionReady); c != nil {
		return Progress{Reason: ReasonPending, Message: fmt.Sprintf("Certificate %s: %s: %s", cert.Name, c.Reason, c.Message)}
	}
	return Progress{} // cert-manager has not looked at it yet
}

func isReady(cert *cmapi.Certificate) bool {
	c := certificateCondition(cert, cmapi.CertificateConditionReady)
	return c != nil && c.Status == cmmeta.ConditionTrue
}

// NextRevision is the revision of the CertificateRequest cert-manager makes
// for a Certificate's next issuance (the annotation
// cert-manager.io/certificate-revision on the request).
func NextRevision(cert *cmapi.Certificate) string {
	if cert.Status.Revision == nil {
		return "1"
	}
	return strconv.Itoa(*cert.Status.Revision + 1)
}

func certificateCondition(cert *cmapi.Certificate, t cmapi.CertificateConditionType) *cmapi.CertificateCondition {
	for i := range cert.Status.Conditions {
		if cert.Status.Conditions[i].Type == t {
			return &cert.Status.Conditions[i]
		}
	}
	return nil
}

func requestCondition(req *cmapi.CertificateRequest, t cmapi.CertificateRequestConditionType) *cmapi.CertificateRequestCondition {
	if req == nil {
		return nil
	}
	for i := range req.Status.Conditions {
		if req.Status.Conditions[i].Type == t {
			return &req.Status.Conditions[i]
		}
	}
	return nil
}
