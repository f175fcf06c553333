package haproxy

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// crlFetcher keeps the certificate revocation lists that the distribution
// points of the client CA bundle name (ROUTER_MUTUAL_TLS_AUTH_CA): it
// fetches each when it learns of it, and again when the CRL's NextUpdate
// comes (at least minRefresh apart; retryAfter after a failure). A CRL is
// kept only when a certificate of the bundle signed it; a failed fetch
// keeps the last good one, which HAProxy refuses once it expires.
//
// The renderer tells it the bundle (want) and reads what it has (current);
// run, on a goroutine of its own, does the fetching.
type crlFetcher struct {
	client                 *http.Client
	minRefresh, retryAfter time.Duration
	log                    logr.Logger

	mu      sync.Mutex
	issuers []*x509.Certificate
	points  map[string]*crlPoint
	wake    chan struct{}
	// placeholder is a CRL of a key nobody has: with it in the CRL file,
	// HAProxy checks revocation and refuses certificates whose issuer has
	// no CRL, while a distribution point has not been fetched yet.
	placeholder []byte
}

// crlPoint is one distribution point.
type crlPoint struct {
	pem  []byte // the latest good CRL, or nil
	next time.Time
}

// CRL refreshing, and how long a distribution point may take to answer.
const (
	crlMinRefresh = 10 * time.Second
	crlRetry      = 30 * time.Second
	crlTimeout    = 10 * time.Second
	// crlMaxSize bounds a fetched CRL: HAProxy loads it whole.
	crlMaxSize = 16 << 20
)

func newCRLFetcher() *crlFetcher {
	return &crlFetcher{client: &http.Client{Timeout: crlTimeout}, minRefresh: crlMinRefresh, retryAfter: crlRetry,
		log: logr.Discard(), points: map[string]*crlPoint{}, wake: make(chan struct{}, 1)}
}

// want sets the client CA bundle: its certificates verify CRLs, and their
// http and https distribution points are the CRLs to keep. New ones are
// fetched at once.
func (f *crlFetcher) want(bundle []byte) {
	certs := parseCertificates(bundle)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issuers = certs
	keep := map[string]bool{}
	for _, c := range certs {
		for _, u := range c.CRLDistributionPoints {
			if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
				keep[u] = true
			}
		}
	}
	added := false
	for u := range keep {
		if f.points[u] == nil {
			f.points[u], added = &crlPoint{}, true
		}
	}
	for u := range f.points {
		if !keep[u] {
			delete(f.points, u)
		}
	}
	if added {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// current is the CRLs fetched so far, in the order of their distribution
// points, with the placeholder while any has never been fetched.
func (f *crlFetcher) current() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []byte
	incomplete := false
	for _, u := range slices.Sorted(maps.Keys(f.points)) {
		p := f.points[u]
		out = append(out, p.pem...)
		incomplete = incomplete || p.pem == nil
	}
	if incomplete {
		if f.placeholder == nil {
			f.placeholder = placeholderCRL()
		}
		out = append(out, f.placeholder...)
	}
	return out
}

// run fetches the distribution points as they fall due, until ctx ends.
func (f *crlFetcher) run(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-f.wake:
		}
		timer.Stop()
		timer.Reset(f.fetchDue(ctx))
	}
}

// fetchDue fetches the points whose time has come and returns how long
// to wait for the next.
func (f *crlFetcher) fetchDue(ctx context.Context) time.Duration {
	now := time.Now()
	f.mu.Lock()
	var due []string
	for u, p := range f.points {
		if !p.next.After(now) {
			due = append(due, u)
		}
	}
	issuers := f.issuers
	f.mu.Unlock()
	for _, u := range due {
		crl, next, err := f.fetch(ctx, u, issuers)
		if err != nil {
			f.log.Error(err, "fetching a client CA's certificate revocation list; the last one fetched stays in use", "url", u)
			next = time.Now().Add(f.retryAfter)
		}
		f.mu.Lock()
		if p := f.points[u]; p != nil {
			if err == nil {
				p.pem = crl
			}
			p.next = next
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	wait := time.Hour
	for _, p := range f.points {
		wait = min(wait, max(time.Until(p.next), 0))
	}
	return wait
}

// fetch gets the CRL at url (DER or PEM), checks that a certificate of
// issuers signed it, and returns it as PEM with when to fetch it again.
func (f *crlFetcher) fetch(ctx context.Context, url string, issuers []*x509.Certificate) ([]byte, time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, time.Time{}, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, time.Time{}, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, crlMaxSize+1))
	if err != nil {
		return nil, time.Time{}, err
	}
	if len(body) > crlMaxSize {
		return nil, time.Time{}, fmt.Errorf("%s: the CRL is larger than %d bytes", url, crlMaxSize)
	}
	if block, _ := pem.Decode(body); block != nil && block.Type == pemCRL.block {
		body = block.Bytes
	}
	crl, err := x509.ParseRevocationList(body)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: not a CRL: %w", url, err)
	}
	if !slices.ContainsFunc(issuers, func(c *x509.Certificate) bool { return crl.CheckSignatureFrom(c) == nil }) {
		return nil, time.Time{}, fmt.Errorf("%s: the CRL of %q is signed by no certificate of ROUTER_MUTUAL_TLS_AUTH_CA", url, crl.Issuer)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemCRL.block, Bytes: body}), f.refreshAt(crl, time.Now()), nil
}

// refreshAt is when to fetch a CRL again: halfway through its validity, so
// that a new one is loaded well before it expires, and within the hour, so
// that a revocation published early is seen soon; never sooner than
// minRefresh.
func (f *crlFetcher) refreshAt(crl *x509.RevocationList, now time.Time) time.Time {
	next := now.Add(time.Hour)
	if !crl.NextUpdate.IsZero() {
		if half := crl.ThisUpdate.Add(crl.NextUpdate.Sub(crl.ThisUpdate) / 2); half.Before(next) {
			next = half
		}
	}
	if soon := now.Add(f.minRefresh); next.Before(soon) {
		next = soon
	}
	return next
}

// parseCertificates are the certificates of a PEM bundle that parse.
func parseCertificates(bundle []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for _, der := range pemBlocks(string(bundle), pemCertificate.block) {
		if block, _ := pem.Decode(der); block != nil {
			if c, err := x509.ParseCertificate(block.Bytes); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// placeholderCRL is an empty CRL of a throwaway authority.
func placeholderCRL() []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err) // the system's random source failed
	}
	issuer := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "routeshift: CRL not fetched yet"},
		KeyUsage: x509.KeyUsageCRLSign, BasicConstraintsValid: true, IsCA: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(100, 0, 0)}
	der, err := x509.CreateCertificate(rand.Reader, issuer, issuer, key.Public(), key)
	if err == nil {
		issuer, err = x509.ParseCertificate(der)
	}
	if err == nil {
		der, err = x509.CreateRevocationList(rand.Reader, &x509.RevocationList{Number: big.NewInt(1),
			ThisUpdate: time.Now().Add(-time.Hour), NextUpdate: time.Now().AddDate(100, 0, 0)}, issuer, key)
	}
	if err != nil {
		panic(errors.Join(errors.New("making the placeholder CRL"), err))
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemCRL.block, Bytes: der})
}
