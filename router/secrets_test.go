package router

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

// tlsSecret is Secret ns/name holding kp, at resourceVersion rv.
func tlsSecret(name, rv string, kp *certs.KeyPair) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: kp.CertPEM, corev1.TLSPrivateKeyKey: kp.KeyPEM}}
}

// external makes a route edge with spec.tls.externalCertificate secret
// (at resourceVersion "1"+secret: another secret is another version).
func external(secret string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.ResourceVersion = "1" + secret
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge,
			ExternalCertificate: &routecore.LocalObjectReference{Name: secret}}
	}
}

// servedCertificate is the certificate snap serves route ns/name with,
// "not served" or "no certificate".
func servedCertificate(snap Snapshot, name string) string {
	r, ok := snap.Routes.Get("ns/" + name)
	switch {
	case !ok:
		return "not served"
	case r.TLS == nil || r.TLS.Certificate == "":
		return "no certificate"
	}
	return r.TLS.Certificate
}

// watches is SecretWatches as one line, "start [...] stop [...]".
func watches(s *Store) string {
	start, stop := s.SecretWatches()
	return fmt.Sprintf("start %v stop %v", start, stop)
}

// TestStoreWatchSecrets: a store that has its secrets read one by one asks
// for the read of each secret a route of its shard names, and stops it
// when none does; a route waits for its secret (no judgement, and the
// first synced snapshot waits for it), then is judged with what the read
// found; a route that moves to another secret keeps serving the first one
// until the second is read.
func TestStoreWatchSecrets(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(AdmissionConfig{ExtendedValidation: true, RouteSelector: labels.SelectorFromSet(labels.Set{"shard": "a"})})
	s.WatchSecrets()
	inShard := withLabels("shard", "a")
	s.SetRoute(rt("ns", "r", "www.example.com", 1, inShard, external("first")))
	s.SetRoute(rt("ns", "other-shard", "other.example.com", 2, external("theirs")))
	snap := s.Commit(true)
	if snap.Synced {
		t.Error("the snapshot is synced although ns/r waits for its secret")
	}
	expect(t, snap, "ns/other-shard ignored")
	if got, want := watches(s), "start [ns/first] stop []"; got != want {
		t.Errorf("watches %s, want %s (no read for the route outside the shard)", got, want)
	}

	s.SetSecret(tlsSecret("first", "1", p.Leaf))
	snap = s.Commit(true)
	if !snap.Synced {
		t.Error("not synced once the secret was read")
	}
	expect(t, snap, "ns/r admitted", "ns/other-shard ignored")
	if got := servedCertificate(snap, "r"); got != string(p.Leaf.CertPEM) {
		t.Errorf("served %q, want the first secret's certificate", got)
	}

	s.SetRoute(rt("ns", "r", "www.example.com", 1, inShard, external("second")))
	snap = s.Commit(true)
	if got := servedCertificate(snap, "r"); got != string(p.Leaf.CertPEM) {
		t.Errorf("while the second secret is read: served %q, want the first secret's certificate still", got)
	}
	if got, want := watches(s), "start [ns/second] stop []"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}
	s.SetSecret(tlsSecret("second", "2", p.Other))
	snap = s.Commit(true)
	if got := servedCertificate(snap, "r"); got != string(p.Other.CertPEM) {
		t.Errorf("served %q, want the second secret's certificate", got)
	}
	if got, want := watches(s), "start [] stop [ns/first]"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}

	// A route waiting for its secret does not make later snapshots
	// unsynced.
	s.SetRoute(rt("ns", "late", "late.example.com", 3, inShard, external("third")))
	if snap = s.Commit(true); !snap.Synced {
		t.Error("a later snapshot is unsynced because a new route waits for its secret")
	}
	if got, want := watches(s), "start [ns/third] stop []"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}
	s.DeleteRoute("ns", "r")
	s.DeleteRoute("ns", "late")
	s.Commit(true)
	if got, want := watches(s), "start [] stop [ns/second ns/third]"; got != want {
		t.Errorf("after the routes went: watches %s, want %s", got, want)
	}
}

// TestStoreUnreadableSecret: a secret the router may not read rejects the
// routes that name it with ExternalCertificateValidationFailed and the
// read's message, with or without EXTENDED_VALIDATION, and they keep
// their host; the same report again changes nothing; once the secret can
// be read the routes are admitted.
func TestStoreUnreadableSecret(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	const why = "router serviceaccount does not have permission to list this secret"
	for _, extended := range []bool{false, true} {
		t.Run(fmt.Sprintf("EXTENDED_VALIDATION=%v", extended), func(t *testing.T) {
			s := NewStore(AdmissionConfig{ExtendedValidation: extended})
			s.WatchSecrets()
			s.SetRoute(rt("ns", "r", "www.example.com", 1, external("tls")))
			s.SetRoute(rt("other", "late", "www.example.com", 2))
			s.Commit(true)
			s.SetSecretUnreadable("ns", "tls", why)
			snap := s.Commit(true)
			late := "other/late rejected HostAlreadyClaimed: a route in another namespace holds www.example.com and is older than late"
			expect(t, snap, "ns/r rejected ExternalCertificateValidationFailed: spec.tls.externalCertificate: Forbidden: "+why, late)
			s.SetSecretUnreadable("ns", "tls", why)
			if snap := s.Commit(true); !snap.Changed.Empty() {
				t.Errorf("the same report again changed %v", snap.Changed.Routes)
			}
			s.SetSecret(tlsSecret("tls", "1", p.Leaf))
			snap = s.Commit(true)
			expect(t, snap, "ns/r admitted", late)
			if got := servedCertificate(snap, "r"); got != string(p.Leaf.CertPEM) {
				t.Errorf("served %q, want the secret's certificate", got)
			}
		})
	}
}

// TestStoreGivenSecrets: a store given every secret (offline input) never
// asks for reads and judges a route at once, whether its secret comes
// before or after it.
func TestStoreGivenSecrets(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(AdmissionConfig{ExtendedValidation: true})
	s.SetSecret(tlsSecret("before", "1", p.Leaf))
	s.SetRoute(rt("ns", "a", "a.example.com", 1, external("before")))
	s.SetRoute(rt("ns", "b", "b.example.com", 2, external("after")))
	s.SetSecret(tlsSecret("after", "2", p.Other))
	snap := s.Commit(true)
	expect(t, snap, "ns/a admitted", "ns/b admitted")
	if got := []string{servedCertificate(snap, "a"), servedCertificate(snap, "b")}; !slices.Equal(got, []string{string(p.Leaf.CertPEM), string(p.Other.CertPEM)}) {
		t.Errorf("served %q", got)
	}
	if got, want := watches(s), "start [] stop []"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}
}
