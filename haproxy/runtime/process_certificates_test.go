package runtime

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned is a PEM certificate for cn followed by its key, as HAProxy
// loads it from one file.
func selfSigned(t *testing.T, cn string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		DNSNames: []string{cn}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})...)
}

// servedCN is the common name of the certificate HAProxy's frontend
// presents.
func (h *harness) servedCN() (string, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", fmt.Sprintf("127.0.0.1:%d", h.port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test's own self-signed certificates
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Subject.CommonName, nil
}

// presents waits until HAProxy presents the certificate of cn.
func (h *harness) presents(cn string) {
	h.t.Helper()
	var got string
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, err = h.servedCN(); err == nil && got == cn {
			return
		}
	}
	h.t.Fatalf("HAProxy presents %q (%v), want %q", got, err, cn)
}

// TestProcessCertificates: a renewed certificate goes through the runtime
// API without a reload; content HAProxy refuses leaves the certificate it
// had serving and the next configuration to load in full; any other
// refused certificate command makes the files load at once.
func TestProcessCertificates(t *testing.T) {
	h := newHarness(t)
	const certFile = "certs/site.pem"
	name := filepath.Join(h.dir, certFile)
	cfg := h.config(fmt.Sprintf("127.0.0.1:%d ssl crt %s", h.port, name), "", backend("server s0 127.0.0.1:1"))
	files := func(cert []byte) map[string]File {
		return map[string]File{"haproxy.cfg": {Data: []byte(cfg), Mode: 0o644}, certFile: {Data: cert, Mode: 0o600}}
	}
	certOutput := func(cert []byte, updates ...CertificateUpdate) *Output {
		return &Output{Files: files(cert), Changed: []string{certFile}, Certificates: updates, ConfigArgs: []string{"haproxy.cfg"}}
	}
	set := CertificateUpdate{Op: CertificateSet, Name: name, File: certFile}

	h.apply(&Output{Files: files(selfSigned(t, "one")), Changed: []string{"haproxy.cfg", certFile},
		Reasons: []Reason{{Kind: "first configuration"}}, ConfigArgs: []string{"haproxy.cfg"}}, true)
	h.presents("one")

	// Renewed: set through the runtime API.
	h.apply(certOutput(selfSigned(t, "two"), set), true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.presents("two")
	if n, _, _ := h.p.Reloads(); n != 0 {
		t.Errorf("%d reloads for a renewed certificate", n)
	}
	if got := counter(h.metrics.certificateUpdates.WithLabelValues(CertificateUpdateRuntime)); got != 1 {
		t.Errorf("certificate updates{method=runtime} = %v, want 1", got)
	}

	// Content HAProxy cannot load: refused, the previous one serves.
	err := h.p.Apply(h.ctx, certOutput([]byte("not a certificate\n"), set), true)
	var refused *CertificateRefusedError
	if !errors.As(err, &refused) || refused.File != certFile || refused.Message == "" ||
		!strings.HasPrefix(err.Error(), "HAProxy refuses certificate "+certFile+": ") {
		t.Fatalf("Apply of a broken certificate: %v", err)
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskUnknown, Failures: 1})
	h.presents("two")
	// The refused file is not left for a restart of HAProxy to load.
	if b, err := os.ReadFile(h.p.path(certFile)); err != nil || !bytes.Equal(b, h.p.lastGood[certFile].Data) {
		t.Errorf("after the refusal %s holds %q (%v), want the certificate HAProxy serves", certFile, b, err)
	}
	if got := counter(h.metrics.runtimeFailures); got != 1 {
		t.Errorf("runtime update failures %v, want 1", got)
	}
	if out, _ := h.p.master("@1 show ssl cert"); strings.Contains(out, "*"+name) {
		t.Errorf("a certificate transaction is left open:\n%s", out)
	}

	// The next configuration, a good certificate again, is loaded in full
	// once the interval has passed.
	h.clock.Advance(testInterval)
	h.apply(certOutput(selfSigned(t, "three"), set), true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.presents("three")
	if got := counter(h.metrics.reloads.WithLabelValues(ReasonNotLoaded)); got != 1 {
		t.Errorf("reloads{reason=%q} = %v, want 1", ReasonNotLoaded, got)
	}
	if got := counter(h.metrics.certificateUpdates.WithLabelValues(CertificateUpdateReload)); got != 1 {
		t.Errorf("certificate updates{method=reload} = %v, want 1", got)
	}

	// A command other than loading content refused (a certificate HAProxy
	// does not have): the files are loaded at once instead, and the
	// certificates are counted as loaded by the reload.
	err = h.p.Apply(h.ctx, certOutput(selfSigned(t, "four"), set, CertificateUpdate{Op: CertificateDelete, Name: name + ".missing"}), true)
	if err == nil || !strings.Contains(err.Error(), "runtime API (reloaded instead): del ssl cert") {
		t.Fatalf("Apply deleting a missing certificate: %v", err)
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded, Failures: 1})
	h.presents("four")
	if got := counter(h.metrics.reloads.WithLabelValues(ReasonCertificateRefused)); got != 1 {
		t.Errorf("reloads{reason=%q} = %v, want 1", ReasonCertificateRefused, got)
	}
	if got := counter(h.metrics.certificateUpdates.WithLabelValues(CertificateUpdateReload)); got != 2 {
		t.Errorf("certificate updates{method=reload} = %v, want 2", got)
	}
	if got := counter(h.metrics.certificateUpdates.WithLabelValues(CertificateUpdateRuntime)); got != 1 {
		t.Errorf("certificate updates{method=runtime} = %v, want still 1", got)
	}
}
