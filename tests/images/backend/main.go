// Command backend is the HTTP server the cluster tests run in pods behind
// Services and Routes. Every path answers 200 with a line naming the pod
// (POD_NAME, else the host name) and the request's Host and path, so a
// test can tell which pod a route reached and what HAProxy forwarded;
// /healthz answers 200 for probes. It listens on PORT (default 8080) and,
// when TLS_PORT is set, serves the same over TLS with a self-signed
// certificate made at start (for reencrypt and passthrough routes; the
// certificate is logged so a test can trust it). Standard library only: it
// is built statically into a one-file image (tests/framework/image).
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"math/big"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	pod := os.Getenv("POD_NAME")
	if pod == "" {
		pod, _ = os.Hostname()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "pod=%s host=%s path=%s\n", pod, r.Host, r.URL.Path)
	})
	servers := []*http.Server{{Addr: ":" + envOr("PORT", "8080"), Handler: mux}}
	if port := os.Getenv("TLS_PORT"); port != "" {
		cert, err := selfSigned(pod)
		if err != nil {
			log.Fatalf("making a TLS certificate: %v", err)
		}
		servers = append(servers, &http.Server{Addr: ":" + port, Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}})
	}
	for _, s := range servers {
		go serve(s)
	}
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdown)
	}
}

// serve runs s until it is shut down; a listener that fails ends the
// process rather than leaving half a backend running.
func serve(s *http.Server) {
	log.Printf("listening on %s (TLS %t)", s.Addr, s.TLSConfig != nil)
	var err error
	if s.TLSConfig != nil {
		err = s.ListenAndServeTLS("", "")
	} else {
		err = s.ListenAndServe()
	}
	if !errors.Is(err, http.ErrServerClosed) {
		log.Printf("serving %s: %v", s.Addr, err)
		os.Exit(1)
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// selfSigned makes a certificate for the pod's name and localhost, and
// logs it in PEM.
func selfSigned(name string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     []string{name, "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	log.Printf("TLS certificate:\n%s", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
