package router

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
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
	snap := s.Build(true)
	if snap.Synced {
		t.Error("the snapshot is synced although ns/r waits for its secret")
	}
	expect(t, snap, "ns/other-shard ignored")
	if got, want := watches(s), "start [ns/first] stop []"; got != want {
		t.Errorf("watches %s, want %s (no read for the route outside the shard)", got, want)
	}

	s.SetSecret(tlsSecret("first", "1", p.Leaf))
	snap = s.Build(true)
	if !snap.Synced {
		t.Error("not synced once the secret was read")
	}
	expect(t, snap, "ns/r admitted", "ns/other-shard ignored")
	if got := servedCertificate(snap, "r"); got != string(p.Leaf.CertPEM) {
		t.Errorf("served %q, want the first secret's certificate", got)
	}

	s.SetRoute(rt("ns", "r", "www.example.com", 1, inShard, external("second")))
	snap = s.Build(true)
	if got := servedCertificate(snap, "r"); got != string(p.Leaf.CertPEM) {
		t.Errorf("while the second secret is read: served %q, want the first secret's certificate still", got)
	}
	if got, want := watches(s), "start [ns/second] stop []"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}
	s.SetSecret(tlsSecret("second", "2", p.Other))
	snap = s.Build(true)
	if got := servedCertificate(snap, "r"); got != string(p.Other.CertPEM) {
		t.Errorf("served %q, want the second secret's certificate", got)
	}
	if got, want := watches(s), "start [] stop [ns/first]"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}

	// A route waiting for its secret does not make later snapshots
	// unsynced.
	s.SetRoute(rt("ns", "late", "late.example.com", 3, inShard, external("third")))
	if snap = s.Build(true); !snap.Synced {
		t.Error("a later snapshot is unsynced because a new route waits for its secret")
	}
	if got, want := watches(s), "start [ns/third] stop []"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}
	s.DeleteRoute("ns", "r")
	s.DeleteRoute("ns", "late")
	s.Build(true)
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
			s.Build(true)
			s.SetSecretUnreadable("ns", "tls", why)
			snap := s.Build(true)
			late := "other/late rejected HostAlreadyClaimed: a route in another namespace holds www.example.com and is older than late"
			expect(t, snap, "ns/r rejected ExternalCertificateValidationFailed: spec.tls.externalCertificate: Forbidden: "+why, late)
			s.SetSecretUnreadable("ns", "tls", why)
			if snap := s.Build(true); !snap.Changed.Empty() {
				t.Errorf("the same report again changed %v", snap.Changed.Routes)
			}
			s.SetSecret(tlsSecret("tls", "1", p.Leaf))
			snap = s.Build(true)
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
	snap := s.Build(true)
	expect(t, snap, "ns/a admitted", "ns/b admitted")
	if got := []string{servedCertificate(snap, "a"), servedCertificate(snap, "b")}; !slices.Equal(got, []string{string(p.Leaf.CertPEM), string(p.Other.CertPEM)}) {
		t.Errorf("served %q", got)
	}
	if got, want := watches(s), "start [] stop []"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}
}

// TestSecretWatchSteps: the reads a store asks for, step by step, as the
// routes naming secrets come, change and go: one read per secret however
// many routes name it, stopped when the last goes, leaves the shard or
// stops naming it; a secret of the same name in another namespace is
// another secret; a read stopped and wanted again is read again, the route
// waiting anew. Each step also gives the decisions and whether the
// snapshot is complete.
func TestSecretWatchSteps(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(AdmissionConfig{RouteSelector: labels.SelectorFromSet(labels.Set{"shard": "a"})})
	s.WatchSecrets()
	in, out := withLabels("shard", "a"), withLabels("shard", "b")
	set := func(r *routecore.Route) func() { return func() { s.SetRoute(r) } }
	inNS := func(ns string, mods ...func(*routecore.Route)) func(*routecore.Route) {
		return func(r *routecore.Route) {
			r.Namespace = ns
			for _, m := range mods {
				m(r)
			}
		}
	}
	steps := []struct {
		name    string
		do      func()
		watches string
		synced  bool
		want    []string
	}{
		{"two routes name one secret: one read, both wait", func() {
			s.SetRoute(rt("ns", "a", "a.example.com", 1, in, external("tls")))
			s.SetRoute(rt("ns", "b", "b.example.com", 2, in, external("tls")))
		}, "start [ns/tls] stop []", false, nil},
		{"the secret is read: both judged, complete", func() { s.SetSecret(tlsSecret("tls", "1", p.Leaf)) },
			"start [] stop []", true, []string{"ns/a admitted", "ns/b admitted"}},
		{"one route goes: the read stays for the other", func() { s.DeleteRoute("ns", "a") },
			"start [] stop []", true, []string{"ns/b admitted"}},
		{"a secret of that name in another namespace is another read", set(rt("ns", "c", "c.example.com", 3, in, external("tls"), inNS("other"))),
			"start [other/tls] stop []", true, []string{"ns/b admitted"}},
		{"the other route leaves the shard while waiting: its read stops, it is ignored", set(rt("ns", "c", "c.example.com", 3, out, external("tls"), inNS("other", func(r *routecore.Route) { r.ResourceVersion = "2" }))),
			"start [] stop [other/tls]", true, []string{"ns/b admitted", "other/c ignored"}},
		{"the last route stops naming the secret: the read stops", set(rt("ns", "b", "b.example.com", 2, in, withTLS(routecore.TLSTerminationEdge))),
			"start [] stop [ns/tls]", true, []string{"ns/b admitted", "other/c ignored"}},
		{"it names the secret again: read again, it keeps its judgement meanwhile", set(rt("ns", "b", "b.example.com", 2, in, external("tls"))),
			"start [ns/tls] stop []", true, []string{"ns/b admitted", "other/c ignored"}},
		{"the read finds it missing: judged without it (admitted: no extended validation)", func() { s.DeleteSecret("ns", "tls") },
			"start [] stop []", true, []string{"ns/b admitted", "other/c ignored"}},
		{"a route outside the shard asks for no read", set(rt("ns", "d", "d.example.com", 4, out, external("theirs"))),
			"start [] stop []", true, []string{"ns/b admitted", "other/c ignored", "ns/d ignored"}},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		got := watches(s)
		t.Run(step.name, func(t *testing.T) {
			if got != step.watches {
				t.Errorf("watches %s, want %s", got, step.watches)
			}
			if snap.Synced != step.synced {
				t.Errorf("synced %v, want %v", snap.Synced, step.synced)
			}
			expect(t, snap, step.want...)
		})
	}
}

// TestWaitingRouteGoes: the first complete snapshot waits only for routes
// that still wait: one deleted, or changed to name no secret, no longer
// holds it back.
func TestWaitingRouteGoes(t *testing.T) {
	for _, tt := range []struct {
		name string
		do   func(*Store)
		want []string
	}{
		{"deleted", func(s *Store) { s.DeleteRoute("ns", "r") }, []string{"ns/plain admitted"}},
		{"changed to name no secret", func(s *Store) {
			s.SetRoute(rt("ns", "r", "r.example.com", 1, withTLS(routecore.TLSTerminationEdge), func(r *routecore.Route) { r.ResourceVersion = "2" }))
		}, []string{"ns/plain admitted", "ns/r admitted"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(AdmissionConfig{})
			s.WatchSecrets()
			s.SetRoute(rt("ns", "r", "r.example.com", 1, external("tls")))
			s.SetRoute(rt("ns", "plain", "plain.example.com", 2))
			if snap := s.Build(true); snap.Synced {
				t.Fatal("complete while ns/r waits for its secret")
			}
			tt.do(s)
			snap := s.Build(true)
			if !snap.Synced {
				t.Error("still incomplete")
			}
			expect(t, snap, tt.want...)
			if got, want := watches(s), "start [] stop []"; got != want {
				t.Errorf("watches %s, want %s (the read was never started)", got, want)
			}
		})
	}
}

// TestSecretChanges: what a secret's events do to the routes that name it,
// with and without EXTENDED_VALIDATION: a resync or a new version with the
// same content changes nothing; new content is served; a secret that
// turns bad rejects the route only with extended validation; a new
// unreadable reason replaces the message; a report of an unreadable secret
// to a store given every secret is ignored.
func TestSecretChanges(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	mismatched := tlsSecret("tls", "4", p.Leaf)
	mismatched.Data[corev1.TLSPrivateKeyKey] = p.Other.KeyPEM
	opaque := tlsSecret("tls", "5", p.Leaf)
	opaque.Type = corev1.SecretTypeOpaque
	const (
		mismatch = `ns/r rejected ExtendedValidationFailed: spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`
		notTLS   = `ns/r rejected ExternalCertificateValidationFailed: spec.tls.externalCertificate: Invalid value: "tls": secret of type "kubernetes.io/tls" required`
		notFound = `ns/r rejected ExternalCertificateValidationFailed: spec.tls.externalCertificate: Not found: "secrets \"tls\" not found"`
		forbid   = "ns/r rejected ExternalCertificateValidationFailed: spec.tls.externalCertificate: Forbidden: "
	)
	type step struct {
		name    string
		do      func(s *Store)
		want    string // ns/r's verdict
		served  string // its certificate, as servedCertificate says
		changed bool   // ns/r in Changed.Routes
	}
	leaf, other := string(p.Leaf.CertPEM), string(p.Other.CertPEM)
	common := func(extended bool) []step {
		pick := func(on, off string) string {
			if extended {
				return on
			}
			return off
		}
		return []step{
			{"a resync of the secret", func(s *Store) { s.SetSecret(tlsSecret("tls", "1", p.Leaf)) }, "ns/r admitted", leaf, false},
			{"a new version with the same content", func(s *Store) { s.SetSecret(tlsSecret("tls", "2", p.Leaf)) }, "ns/r admitted", leaf, false},
			{"new content is served", func(s *Store) { s.SetSecret(tlsSecret("tls", "3", p.Other)) }, "ns/r admitted", other, true},
			{"a key that does not match", func(s *Store) { s.SetSecret(mismatched) },
				pick(mismatch, "ns/r admitted"), pick("not served", leaf), true},
			{"a secret not of type TLS", func(s *Store) { s.SetSecret(opaque) },
				pick(notTLS, "ns/r admitted"), pick("not served", leaf), true},
			// Without extended validation the secret's content was served
			// all along: the same content again changes nothing.
			{"good again", func(s *Store) { s.SetSecret(tlsSecret("tls", "6", p.Leaf)) }, "ns/r admitted", leaf, extended},
			{"deleted", func(s *Store) { s.DeleteSecret("ns", "tls") }, pick(notFound, "ns/r admitted"), pick("not served", "no certificate"), true},
		}
	}
	for _, extended := range []bool{false, true} {
		for _, watched := range []bool{false, true} {
			t.Run(fmt.Sprintf("EXTENDED_VALIDATION=%v, read one by one %v", extended, watched), func(t *testing.T) {
				s := NewStore(AdmissionConfig{ExtendedValidation: extended})
				if watched {
					s.WatchSecrets()
				}
				s.SetRoute(rt("ns", "r", "www.example.com", 1, external("tls")))
				s.SetSecret(tlsSecret("tls", "1", p.Leaf))
				expect(t, s.Build(true), "ns/r admitted")
				steps := common(extended)
				last := steps[len(steps)-1]
				if watched {
					steps = append(steps,
						step{"unreadable", func(s *Store) { s.SetSecretUnreadable("ns", "tls", "no get") }, forbid + "no get", "not served", true},
						step{"unreadable for another reason", func(s *Store) { s.SetSecretUnreadable("ns", "tls", "no watch") }, forbid + "no watch", "not served", true})
				} else {
					steps = append(steps, step{"an unreadable report is ignored", func(s *Store) { s.SetSecretUnreadable("ns", "tls", "no get") },
						last.want, last.served, false})
				}
				for _, st := range steps {
					st.do(s)
					snap := s.Build(true)
					expect(t, snap, st.want)
					if got := servedCertificate(snap, "r"); got != st.served {
						t.Errorf("%s: served %.40q, want %.40q", st.name, got, st.served)
					}
					if snap.Changed.Routes["ns/r"] != st.changed {
						t.Errorf("%s: ns/r changed %v, want %v", st.name, !st.changed, st.changed)
					}
				}
			})
		}
	}
}

// TestCertificateRejectionsKeepClaims: whatever is wrong with a route's
// certificate (its own, or its external certificate secret missing, of
// the wrong type or unreadable), the route keeps its host: another
// namespace's route on the host and another namespace's wildcard in the
// domain stay out. Once the certificate is fixed only that route changes.
func TestCertificateRejectionsKeepClaims(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	opaque := tlsSecret("tls", "1", p.Leaf)
	opaque.Type = corev1.SecretTypeOpaque
	inline := func(key []byte) func(*routecore.Route) {
		return func(r *routecore.Route) {
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: string(p.Leaf.CertPEM), Key: string(key)}
		}
	}
	tests := []struct {
		name   string
		broken func(*Store)
		fix    func(*Store)
		reason string
	}{
		{"its own key does not match", func(s *Store) { s.SetRoute(rt("ns1", "r", "www.x.com", 1, inline(p.Other.KeyPEM))) },
			func(s *Store) {
				s.SetRoute(rt("ns1", "r", "www.x.com", 1, inline(p.Leaf.KeyPEM), func(r *routecore.Route) { r.ResourceVersion = "2" }))
			}, ReasonExtendedValidationFailed},
		{"its secret is missing", func(s *Store) {
			s.SetRoute(rt("ns1", "r", "www.x.com", 1, external("tls"), func(r *routecore.Route) { r.Namespace = "ns1" }))
			s.DeleteSecret("ns1", "tls")
		}, func(s *Store) { s.SetSecret(inNamespace(tlsSecret("tls", "2", p.Leaf), "ns1")) }, ReasonExternalCertificateValidation},
		{"its secret is not of type TLS", func(s *Store) {
			s.SetRoute(rt("ns1", "r", "www.x.com", 1, external("tls"), func(r *routecore.Route) { r.Namespace = "ns1" }))
			s.SetSecret(inNamespace(opaque, "ns1"))
		}, func(s *Store) { s.SetSecret(inNamespace(tlsSecret("tls", "2", p.Leaf), "ns1")) }, ReasonExternalCertificateValidation},
		{"its secret may not be read", func(s *Store) {
			s.SetRoute(rt("ns1", "r", "www.x.com", 1, external("tls"), func(r *routecore.Route) { r.Namespace = "ns1" }))
			s.SetSecretUnreadable("ns1", "tls", "no get")
		}, func(s *Store) { s.SetSecret(inNamespace(tlsSecret("tls", "2", p.Leaf), "ns1")) }, ReasonExternalCertificateValidation},
	}
	const (
		late = "ns2/late rejected HostAlreadyClaimed: a route in another namespace holds www.x.com and is older than late"
		wild = "ns3/w rejected HostAlreadyClaimed: a route in another namespace holds host w.x.com"
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(AdmissionConfig{ExtendedValidation: true, AllowWildcardRoutes: true})
			s.WatchSecrets()
			tt.broken(s)
			s.SetRoute(rt("ns2", "late", "www.x.com", 2))
			s.SetRoute(rt("ns3", "w", "w.x.com", 3, wildcard))
			snap := s.Build(true)
			d, _ := snap.Decisions.Get("ns1/r")
			if d.Verdict != Rejected || d.Reason != tt.reason || d.Host != "www.x.com" {
				t.Errorf("ns1/r decided %+v, want rejected %s for www.x.com", d, tt.reason)
			}
			if _, ok := snap.Routes.Get("ns1/r"); ok {
				t.Error("ns1/r is served although rejected")
			}
			for _, want := range []string{late, wild} {
				if !slices.Contains(verdicts(snap), want) {
					t.Errorf("decisions %q lack %q", verdicts(snap), want)
				}
			}
			tt.fix(s)
			snap = s.Build(true)
			expect(t, snap, "ns1/r admitted", late, wild)
			if got := slices.Sorted(maps.Keys(snap.Changed.Routes)); !slices.Equal(got, []string{"ns1/r"}) {
				t.Errorf("fixing the certificate changed %v, want only ns1/r", got)
			}
		})
	}
}

// inNamespace moves a secret to namespace ns.
func inNamespace(s *corev1.Secret, ns string) *corev1.Secret {
	s.Namespace = ns
	return s
}

// TestSecretReadAgain: a read that stops forgets the secret, so that when
// a route names it again and the new read delivers the very same object
// (same UID and resourceVersion: nothing changed meanwhile), the route is
// judged with it rather than left waiting for a change.
func TestSecretReadAgain(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	secret := tlsSecret("tls", "7", p.Leaf)
	secret.UID = "secret-uid"
	s := NewStore(AdmissionConfig{ExtendedValidation: true})
	s.WatchSecrets()
	s.SetRoute(rt("ns", "r", "www.example.com", 1, external("tls")))
	s.SetRoute(rt("ns", "other", "other.example.com", 2))
	s.Build(true)
	if got, want := watches(s), "start [ns/tls] stop []"; got != want {
		t.Fatalf("watches %s, want %s", got, want)
	}
	s.SetSecret(secret.DeepCopy())
	expect(t, s.Build(true), "ns/r admitted", "ns/other admitted")
	s.DeleteRoute("ns", "r")
	s.Build(true)
	if got, want := watches(s), "start [] stop [ns/tls]"; got != want {
		t.Fatalf("watches %s, want %s", got, want)
	}
	s.SetRoute(rt("ns", "r", "www.example.com", 1, external("tls")))
	s.Build(true)
	if got, want := watches(s), "start [ns/tls] stop []"; got != want {
		t.Fatalf("watches %s, want %s", got, want)
	}
	s.SetSecret(secret.DeepCopy())
	snap := s.Build(true)
	expect(t, snap, "ns/r admitted", "ns/other admitted")
	if got := servedCertificate(snap, "r"); got != string(p.Leaf.CertPEM) {
		t.Errorf("served %.40q, want the secret's certificate", got)
	}
}

// TestSecretReadsIncrementalEqualsFromScratch: with secrets read one by
// one, after any sequence of route and secret events (a read completing
// some steps after the store asked for it, secrets changing, going,
// turning unreadable, reads stopping), whenever no route waits for its
// secret every route has the decision and served value a new store has
// when given the reads delivered so far and the same routes. (A route
// that waits keeps its former judgement, claim included, until the read
// completes.) The reads the store asks for are always the secrets the
// shard's routes name and, for a route waiting, the one of the value it
// keeps serving meanwhile, and a route waits only for a read not yet
// completed.
func TestSecretReadsIncrementalEqualsFromScratch(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	opaque := tlsSecret("s1", "", p.Leaf)
	opaque.Type = corev1.SecretTypeOpaque
	// cluster states a secret can be in: its object, or nil and why it
	// cannot be read ("" when missing).
	type state struct {
		secret     *corev1.Secret
		unreadable string
		hidden     *corev1.Secret // the object while it may not be read
	}
	states := []func(name, rv string) state{
		func(name, rv string) state { return state{secret: inNamespace(tlsSecret(name, rv, p.Leaf), "ns")} },
		func(name, rv string) state { return state{secret: inNamespace(tlsSecret(name, rv, p.Other), "ns")} },
		func(name, rv string) state {
			s := opaque.DeepCopy()
			s.Name, s.ResourceVersion = name, rv
			return state{secret: s}
		},
		func(string, string) state { return state{} },
		func(string, string) state { return state{unreadable: "no get"} },
	}
	deliver := func(s *Store, name string, st state) {
		switch {
		case st.secret != nil:
			s.SetSecret(st.secret)
		case st.unreadable != "":
			s.SetSecretUnreadable("ns", name, st.unreadable)
		default:
			s.DeleteSecret("ns", name)
		}
	}
	compared := 0
	for _, extended := range []bool{false, true} {
		cfg := AdmissionConfig{ExtendedValidation: extended, RouteSelector: labels.SelectorFromSet(labels.Set{"shard": "a"})}
		rng := rand.New(rand.NewPCG(3, 4))
		for seq := range 200 {
			s := NewStore(cfg)
			s.WatchSecrets()
			routes := map[string]*routecore.Route{}
			cluster := map[string]state{}           // secret name -> its state
			delivered := map[string]state{}         // what the reads reported, while read
			pending := map[string]bool{}            // reads started, not completed
			judged := map[string]*routecore.Route{} // the value each route was last judged with
			var log []string
			for step := range 25 {
				version := fmt.Sprint(seq, "-", step)
				name := fmt.Sprintf("s%d", rng.IntN(2))
				switch ev := rng.IntN(10); {
				case ev < 4:
					r := rt("ns", fmt.Sprintf("r%d", rng.IntN(3)), fmt.Sprintf("h%d.example.com", rng.IntN(2)), rng.IntN(3))
					r.ResourceVersion = version
					if rng.IntN(4) > 0 {
						external(name)(r)
						r.ResourceVersion = version
					}
					if rng.IntN(4) > 0 {
						r.Labels = map[string]string{"shard": "a"}
					}
					s.SetRoute(r)
					routes[r.Name] = r
					log = append(log, fmt.Sprintf("route %s host %s secret %q labels %v", r.Name, r.Spec.Host, externalSecret(r), r.Labels))
				case ev == 4:
					n := fmt.Sprintf("r%d", rng.IntN(3))
					s.DeleteRoute("ns", n)
					delete(routes, n)
					log = append(log, "delete route "+n)
				case ev < 8:
					if prev := cluster[name]; ev == 7 && prev.unreadable != "" {
						cluster[name] = state{secret: prev.hidden} // permission granted: the same object
					} else if ev == 7 {
						cluster[name] = state{unreadable: "no get", hidden: prev.secret} // permission taken
					} else {
						cluster[name] = states[rng.IntN(len(states))](name, version)
					}
					log = append(log, fmt.Sprintf("secret %s now %v %q", name, cluster[name].secret != nil, cluster[name].unreadable))
					if _, read := delivered[name]; read {
						deliver(s, name, cluster[name])
						delivered[name] = cluster[name]
					}
				default:
					for k := range pending {
						n := strings.TrimPrefix(k, "ns/")
						deliver(s, n, cluster[n])
						delivered[n] = cluster[n]
						delete(pending, k)
						log = append(log, "read of "+n+" completes")
					}
				}
				snap := s.Build(true)
				start, stop := s.SecretWatches()
				for _, k := range start {
					pending[k] = true
				}
				for _, k := range stop {
					delete(pending, k)
					delete(delivered, strings.TrimPrefix(k, "ns/"))
				}
				for k := range s.reads.waiting {
					if r := routes[strings.TrimPrefix(k, "ns/")]; !pending["ns/"+externalSecret(r)] {
						t.Fatalf("EXTENDED_VALIDATION=%v, sequence %d after:\n  %s\n%s waits for %s, which was read",
							extended, seq, strings.Join(log, "\n  "), k, externalSecret(r))
					}
				}
				if s.reads.waitingRoutes() == 0 {
					compared++
					if msg := compareSecretStores(cfg, snap, routes, delivered, deliver); msg != "" {
						t.Fatalf("EXTENDED_VALIDATION=%v, sequence %d after:\n  %s\n%s", extended, seq, strings.Join(log, "\n  "), msg)
					}
				}
				for k, r := range routes {
					if !s.reads.waiting["ns/"+k] {
						judged[k] = r
					}
				}
				for k := range judged {
					if routes[k] == nil {
						delete(judged, k)
					}
				}
				if want := secretsNamed(cfg, s, routes, judged); !maps.Equal(s.reads.watched, want) {
					t.Fatalf("EXTENDED_VALIDATION=%v, sequence %d after:\n  %s\nreading %v, want %v",
						extended, seq, strings.Join(log, "\n  "), s.reads.watched, want)
				}
			}
		}
	}
	if compared < 2000 {
		t.Errorf("only %d snapshots without a waiting route were compared", compared)
	}
}

// secretsNamed are the secrets the shard's routes name and, for a route
// waiting for its secret, the one of the value it keeps serving meanwhile.
func secretsNamed(cfg AdmissionConfig, s *Store, routes, judged map[string]*routecore.Route) map[string]bool {
	out := map[string]bool{}
	for k, r := range routes {
		if ext := externalSecret(r); ext != "" && cfg.inShard(r, nil, false) {
			out["ns/"+ext] = true
		}
		if ext := externalSecret(judged[k]); ext != "" && s.reads.waiting["ns/"+k] {
			out["ns/"+ext] = true
		}
	}
	return out
}

// compareSecretStores judges the routes from scratch with the reads
// delivered and returns what differs from snap, "" when nothing does.
func compareSecretStores[S any](cfg AdmissionConfig, snap Snapshot, routes map[string]*routecore.Route,
	delivered map[string]S, deliver func(*Store, string, S)) string {
	fresh := NewStore(cfg)
	fresh.WatchSecrets()
	for name, st := range delivered {
		deliver(fresh, name, st)
	}
	for _, r := range routes {
		fresh.SetRoute(r)
	}
	want := fresh.Build(true)
	var diffs []string
	for _, r := range routes {
		k := key(r.Namespace, r.Name)
		got, _ := snap.Decisions.Get(k)
		w, _ := want.Decisions.Get(k)
		if got != w {
			diffs = append(diffs, fmt.Sprintf("%s: incremental %+v, from scratch %+v", k, got, w))
		}
		gr, _ := snap.Routes.Get(k)
		wr, _ := want.Routes.Get(k)
		if !reflect.DeepEqual(gr, wr) {
			diffs = append(diffs, fmt.Sprintf("%s served: incremental %+v, from scratch %+v", k, gr, wr))
		}
	}
	return strings.Join(diffs, "\n")
}
