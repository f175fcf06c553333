package certs

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// keyTypeName names a KeyType in subtest names and messages.
func keyTypeName(t KeyType) string {
	switch t {
	case ECDSAP256:
		return "ECDSAP256"
	case RSA2048:
		return "RSA2048"
	}
	return "unknown"
}

// checkKeyType asserts that kp's private key, its certificate's public key
// and the public key algorithm are all of type kt.
func checkKeyType(t *testing.T, kp *KeyPair, kt KeyType) {
	t.Helper()
	switch kt {
	case ECDSAP256:
		k, ok := kp.Key.(*ecdsa.PrivateKey)
		if !ok {
			t.Fatalf("key is %T, want *ecdsa.PrivateKey", kp.Key)
		}
		if k.Curve != elliptic.P256() {
			t.Errorf("curve = %s, want P-256", k.Curve.Params().Name)
		}
		if kp.Cert.PublicKeyAlgorithm != x509.ECDSA {
			t.Errorf("PublicKeyAlgorithm = %v, want ECDSA", kp.Cert.PublicKeyAlgorithm)
		}
	case RSA2048:
		k, ok := kp.Key.(*rsa.PrivateKey)
		if !ok {
			t.Fatalf("key is %T, want *rsa.PrivateKey", kp.Key)
		}
		if k.N.BitLen() != 2048 {
			t.Errorf("RSA modulus has %d bits, want 2048", k.N.BitLen())
		}
		if kp.Cert.PublicKeyAlgorithm != x509.RSA {
			t.Errorf("PublicKeyAlgorithm = %v, want RSA", kp.Cert.PublicKeyAlgorithm)
		}
	default:
		t.Fatalf("unknown key type %d", kt)
	}
	pub, ok := kp.Key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(kp.Cert.PublicKey) {
		t.Errorf("certificate public key does not belong to the private key")
	}
}

// checkPEM asserts that CertPEM and KeyPEM are single PEM blocks of the
// expected types, that CertPEM holds exactly Cert, and that the pair loads
// with tls.X509KeyPair.
func checkPEM(t *testing.T, kp *KeyPair) {
	t.Helper()
	block, rest := pem.Decode(kp.CertPEM)
	if block == nil || block.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) != 0 {
		t.Fatalf("CertPEM is not exactly one CERTIFICATE block: %q", kp.CertPEM)
	}
	if !bytes.Equal(block.Bytes, kp.Cert.Raw) {
		t.Errorf("CertPEM does not encode Cert")
	}
	block, rest = pem.Decode(kp.KeyPEM)
	if block == nil || block.Type != "PRIVATE KEY" || len(bytes.TrimSpace(rest)) != 0 {
		t.Fatalf("KeyPEM is not exactly one PRIVATE KEY block")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatalf("KeyPEM is not PKCS#8: %v", err)
	}
	if k, ok := parsed.(interface{ Equal(crypto.PrivateKey) bool }); !ok || !k.Equal(kp.Key) {
		t.Errorf("KeyPEM does not encode Key")
	}
	pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		t.Fatalf("tls.X509KeyPair: %v", err)
	}
	if pair.Leaf == nil || !pair.Leaf.Equal(kp.Cert) {
		t.Errorf("tls.X509KeyPair leaf differs from Cert")
	}
}

// checkDefaultValidity asserts the default NotBefore (an hour ago, whole
// seconds) and the given validity.
func checkDefaultValidity(t *testing.T, c *x509.Certificate, before, after time.Time, validity time.Duration) {
	t.Helper()
	lo := before.Add(-time.Hour).Truncate(time.Second)
	hi := after.Add(-time.Hour)
	if c.NotBefore.Before(lo) || c.NotBefore.After(hi) {
		t.Errorf("NotBefore = %v, want between %v and %v", c.NotBefore, lo, hi)
	}
	if c.NotBefore.Nanosecond() != 0 {
		t.Errorf("NotBefore = %v, want whole seconds", c.NotBefore)
	}
	if got := c.NotAfter.Sub(c.NotBefore); got != validity {
		t.Errorf("validity = %v, want %v", got, validity)
	}
}

func TestNewCA(t *testing.T) {
	before := time.Now()
	ca, err := NewCA("Test Root CA")
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()

	c := ca.Cert
	if c.Subject.CommonName != "Test Root CA" {
		t.Errorf("subject CN = %q", c.Subject.CommonName)
	}
	if !bytes.Equal(c.RawIssuer, c.RawSubject) {
		t.Errorf("CA is not self-issued: issuer %q, subject %q", c.Issuer, c.Subject)
	}
	if err := c.CheckSignatureFrom(c); err != nil {
		t.Errorf("CA is not self-signed: %v", err)
	}
	if !c.IsCA || !c.BasicConstraintsValid {
		t.Errorf("IsCA = %v, BasicConstraintsValid = %v, want both true", c.IsCA, c.BasicConstraintsValid)
	}
	if want := x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature; c.KeyUsage != want {
		t.Errorf("KeyUsage = %b, want %b", c.KeyUsage, want)
	}
	if len(c.ExtKeyUsage) != 0 {
		t.Errorf("ExtKeyUsage = %v, want none on a CA", c.ExtKeyUsage)
	}
	if len(c.SubjectKeyId) == 0 {
		t.Errorf("CA has no subject key identifier")
	}
	if c.SignatureAlgorithm != x509.ECDSAWithSHA256 {
		t.Errorf("SignatureAlgorithm = %v, want ECDSA-SHA256", c.SignatureAlgorithm)
	}
	checkDefaultValidity(t, c, before, after, 10*365*24*time.Hour)
	checkKeyType(t, ca, ECDSAP256)
	checkPEM(t, ca)

	// The CA is a root for itself.
	pool := x509.NewCertPool()
	pool.AddCert(c)
	if _, err := c.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
		t.Errorf("CA does not verify as its own root: %v", err)
	}
}

func TestIssue(t *testing.T) {
	for _, caType := range []KeyType{ECDSAP256, RSA2048} {
		for _, leafType := range []KeyType{ECDSAP256, RSA2048} {
			t.Run(keyTypeName(caType)+"_CA/"+keyTypeName(leafType)+"_leaf", func(t *testing.T) {
				ca := testCA(t, caType)
				dnsNames := []string{"www.example.com", "*.apps.example.com"}
				ips := []net.IP{net.ParseIP("192.0.2.10").To4(), net.ParseIP("2001:db8::1")}
				before := time.Now()
				leaf, err := ca.Issue(Options{CommonName: "www.example.com", DNSNames: dnsNames, IPs: ips, KeyType: leafType})
				if err != nil {
					t.Fatal(err)
				}
				after := time.Now()

				c := leaf.Cert
				if c.Subject.CommonName != "www.example.com" {
					t.Errorf("subject CN = %q", c.Subject.CommonName)
				}
				if !bytes.Equal(c.RawIssuer, ca.Cert.RawSubject) {
					t.Errorf("issuer = %q, want %q", c.Issuer, ca.Cert.Subject)
				}
				if !bytes.Equal(c.AuthorityKeyId, ca.Cert.SubjectKeyId) {
					t.Errorf("authority key id %x, want the CA's subject key id %x", c.AuthorityKeyId, ca.Cert.SubjectKeyId)
				}
				if c.IsCA || !c.BasicConstraintsValid {
					t.Errorf("IsCA = %v, BasicConstraintsValid = %v, want a leaf with valid basic constraints", c.IsCA, c.BasicConstraintsValid)
				}
				if want := x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment; c.KeyUsage != want {
					t.Errorf("KeyUsage = %b, want %b", c.KeyUsage, want)
				}
				if len(c.ExtKeyUsage) != 1 || c.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
					t.Errorf("ExtKeyUsage = %v, want [ServerAuth]", c.ExtKeyUsage)
				}
				if strings.Join(c.DNSNames, ",") != strings.Join(dnsNames, ",") {
					t.Errorf("DNSNames = %q, want %q", c.DNSNames, dnsNames)
				}
				if len(c.IPAddresses) != len(ips) {
					t.Fatalf("IPAddresses = %v, want %v", c.IPAddresses, ips)
				}
				for i := range ips {
					if !c.IPAddresses[i].Equal(ips[i]) {
						t.Errorf("IPAddresses[%d] = %v, want %v", i, c.IPAddresses[i], ips[i])
					}
				}
				checkDefaultValidity(t, c, before, after, 365*24*time.Hour)
				checkKeyType(t, leaf, leafType)
				checkPEM(t, leaf)

				// The leaf verifies against the CA, now, for each of its
				// names and addresses, as a server certificate.
				pool := x509.NewCertPool()
				pool.AddCert(ca.Cert)
				for _, name := range []string{"www.example.com", "foo.apps.example.com", "192.0.2.10", "2001:db8::1"} {
					if _, err := c.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
						t.Errorf("verify for %s: %v", name, err)
					}
				}
				// ... and not for other names, nor against another CA.
				if _, err := c.Verify(x509.VerifyOptions{Roots: pool, DNSName: "example.org"}); err == nil {
					t.Errorf("leaf verified for a name it does not carry")
				}
				other := x509.NewCertPool()
				other.AddCert(testCA(t, ECDSAP256).Cert)
				if _, err := c.Verify(x509.VerifyOptions{Roots: other}); err == nil {
					t.Errorf("leaf verified against a CA that did not sign it")
				}
			})
		}
	}
}

// testCA returns a fresh CA of the given key type.
func testCA(t *testing.T, kt KeyType) *KeyPair {
	t.Helper()
	if kt == RSA2048 {
		// Share the package's RSA CA: RSA key generation is slow.
		return testFixtures(t).rsaCA
	}
	ca, err := Generate(Options{CommonName: "Generated " + keyTypeName(kt) + " CA", IsCA: true, KeyType: kt}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func TestIssueChainAndTLSHandshake(t *testing.T) {
	root, err := NewCA("Handshake Root CA")
	if err != nil {
		t.Fatal(err)
	}
	inter, err := root.Issue(Options{CommonName: "Handshake Intermediate CA", IsCA: true})
	if err != nil {
		t.Fatal(err)
	}
	if !inter.Cert.IsCA || !bytes.Equal(inter.Cert.RawIssuer, root.Cert.RawSubject) {
		t.Fatalf("intermediate is not a CA issued by the root")
	}
	leaf, err := inter.Issue(Options{CommonName: "www.example.com", DNSNames: []string{"www.example.com"}})
	if err != nil {
		t.Fatal(err)
	}

	roots := x509.NewCertPool()
	roots.AddCert(root.Cert)
	// Without the intermediate the leaf does not verify; with it, it does.
	if _, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "www.example.com"}); err == nil {
		t.Errorf("leaf verified without its intermediate")
	}
	inters := x509.NewCertPool()
	inters.AddCert(inter.Cert)
	chains, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inters, DNSName: "www.example.com"})
	if err != nil {
		t.Fatalf("verify with intermediate: %v", err)
	}
	if len(chains) != 1 || len(chains[0]) != 3 {
		t.Errorf("chains = %d, first of length %d; want one chain leaf, intermediate, root", len(chains), len(chains[0]))
	}

	// The PEM serves TLS: a handshake over a pipe, the server sending
	// leaf + intermediate, the client trusting only the root.
	pair, err := tls.X509KeyPair(append(append([]byte{}, leaf.CertPEM...), inter.CertPEM...), leaf.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if len(pair.Certificate) != 2 {
		t.Fatalf("X509KeyPair kept %d certificates, want 2", len(pair.Certificate))
	}
	clientConn, serverConn := net.Pipe()
	defer clientConn.Close()
	defer serverConn.Close()
	server := tls.Server(serverConn, &tls.Config{Certificates: []tls.Certificate{pair}})
	client := tls.Client(clientConn, &tls.Config{RootCAs: roots, ServerName: "www.example.com"})
	done := make(chan error, 1)
	go func() { done <- server.Handshake() }()
	if err := client.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("server handshake: %v", err)
	}
	if got := client.ConnectionState().PeerCertificates[0]; !got.Equal(leaf.Cert) {
		t.Errorf("server presented %q, want the leaf", got.Subject)
	}
}

func TestGenerateSelfSignedLeaf(t *testing.T) {
	kp, err := Generate(Options{CommonName: "self.example.com", DNSNames: []string{"self.example.com"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := kp.Cert
	if c.IsCA {
		t.Errorf("self-signed leaf is a CA")
	}
	if !bytes.Equal(c.RawIssuer, c.RawSubject) {
		t.Errorf("issuer %q differs from subject %q", c.Issuer, c.Subject)
	}
	if err := c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature); err != nil {
		t.Errorf("not signed by its own key: %v", err)
	}
	checkKeyType(t, kp, ECDSAP256)
	checkPEM(t, kp)
}

func TestGenerateOptions(t *testing.T) {
	notBefore := time.Date(2020, 2, 29, 12, 0, 0, 0, time.UTC)
	kp, err := Generate(Options{CommonName: "dated", NotBefore: notBefore, Validity: 36 * time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !kp.Cert.NotBefore.Equal(notBefore) {
		t.Errorf("NotBefore = %v, want %v", kp.Cert.NotBefore, notBefore)
	}
	if want := notBefore.Add(36 * time.Hour); !kp.Cert.NotAfter.Equal(want) {
		t.Errorf("NotAfter = %v, want %v", kp.Cert.NotAfter, want)
	}

	// Serial numbers are random, positive and distinct.
	other, err := Generate(Options{CommonName: "dated"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if kp.Cert.SerialNumber.Sign() <= 0 || other.Cert.SerialNumber.Sign() <= 0 {
		t.Errorf("serial numbers %v, %v are not positive", kp.Cert.SerialNumber, other.Cert.SerialNumber)
	}
	if kp.Cert.SerialNumber.Cmp(other.Cert.SerialNumber) == 0 {
		t.Errorf("two certificates share serial number %v", kp.Cert.SerialNumber)
	}
}

// TestIssueClientCertificate: a client certificate carries its groups as
// organizations and verifies for client authentication, not serving.
func TestIssueClientCertificate(t *testing.T) {
	ca, err := NewCA("client CA")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.Issue(Options{CommonName: "admin", Organization: []string{"system:masters"}, ClientAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := kp.Cert.Subject.Organization; len(got) != 1 || got[0] != "system:masters" {
		t.Errorf("organization = %q, want [system:masters]", got)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	if _, err := kp.Cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("does not verify for client authentication: %v", err)
	}
	if _, err := kp.Cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
		t.Error("a client certificate verifies for serving")
	}
}

func TestGenerateSignatureAlgorithm(t *testing.T) {
	f := testFixtures(t)
	for _, tc := range []struct {
		issuer *KeyPair
		alg    x509.SignatureAlgorithm
	}{
		{f.rsaCA, x509.SHA384WithRSA},
		{f.rsaCA, x509.SHA256WithRSAPSS},
		{f.rsaCA, x509.SHA1WithRSA},
		{f.ecCA, x509.ECDSAWithSHA384},
		{f.ecCA, x509.ECDSAWithSHA1},
	} {
		t.Run(tc.alg.String(), func(t *testing.T) {
			kp, err := tc.issuer.Issue(Options{CommonName: "alg.example.com", SignatureAlgorithm: tc.alg})
			if err != nil {
				t.Fatal(err)
			}
			if kp.Cert.SignatureAlgorithm != tc.alg {
				t.Errorf("SignatureAlgorithm = %v, want %v", kp.Cert.SignatureAlgorithm, tc.alg)
			}
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	f := testFixtures(t)
	for _, tc := range []struct {
		name   string
		issuer *KeyPair
		alg    x509.SignatureAlgorithm
		want   string
	}{
		// Go refuses to create MD5 signatures, hence the DER patching in
		// validate_test.go.
		{"MD5", f.rsaCA, x509.MD5WithRSA, `creating certificate "bad.example.com": x509: signing with MD5 is not supported`},
		{"ECDSA algorithm with RSA issuer", f.rsaCA, x509.ECDSAWithSHA256, `creating certificate "bad.example.com": x509: requested SignatureAlgorithm does not match private key type`},
		{"RSA algorithm with ECDSA issuer", f.ecCA, x509.SHA256WithRSA, `creating certificate "bad.example.com": x509: requested SignatureAlgorithm does not match private key type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kp, err := tc.issuer.Issue(Options{CommonName: "bad.example.com", SignatureAlgorithm: tc.alg})
			if err == nil {
				t.Fatalf("Issue succeeded with %v, want an error", kp.Cert.SignatureAlgorithm)
			}
			if err.Error() != tc.want {
				t.Errorf("error = %q\nwant      %q", err, tc.want)
			}
		})
	}
}

// TestClientCertificateAndCRL: a client certificate with an organization
// and a distribution point, and a CRL of its CA that revokes it and
// verifies with the CA.
func TestClientCertificateAndCRL(t *testing.T) {
	ca, err := NewCA("clients")
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.Issue(Options{CommonName: "alice", Organization: []string{"Acme"}, ClientAuth: true,
		CRLDistributionPoints: []string{"http://127.0.0.1:1/clients.crl"}})
	if err != nil {
		t.Fatal(err)
	}
	c := client.Cert
	if c.Subject.String() != "CN=alice,O=Acme" || !slices.Equal(c.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}) ||
		!slices.Equal(c.CRLDistributionPoints, []string{"http://127.0.0.1:1/clients.crl"}) {
		t.Errorf("subject %s, extended key usage %v, distribution points %v", c.Subject, c.ExtKeyUsage, c.CRLDistributionPoints)
	}
	next := time.Now().Add(time.Hour).Truncate(time.Second)
	crlPEM, err := ca.RevocationList(7, next, c)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(crlPEM)
	if block == nil || block.Type != "X509 CRL" {
		t.Fatalf("CRL PEM %q", crlPEM)
	}
	crl, err := x509.ParseRevocationList(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := crl.CheckSignatureFrom(ca.Cert); err != nil {
		t.Errorf("the CRL does not verify with its CA: %v", err)
	}
	if crl.Number.Int64() != 7 || !crl.NextUpdate.Equal(next) || len(crl.RevokedCertificateEntries) != 1 ||
		crl.RevokedCertificateEntries[0].SerialNumber.Cmp(c.SerialNumber) != 0 {
		t.Errorf("CRL number %v, next update %v, revoked %+v", crl.Number, crl.NextUpdate, crl.RevokedCertificateEntries)
	}
}
