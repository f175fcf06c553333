// Package ingressnginx tests the conversion of ingress-nginx Ingresses by
// their behaviour: Ingresses written for ingress-nginx (class nginx, with
// nginx.ingress.kubernetes.io/* annotations) are stored in a real API
// server, translated by ingress.TranslateWith with the nginx class adopted,
// and the Routes it returns are created in the API server; a real router
// with real HAProxy serves them, and the tests send real requests through
// it to backends on this machine that echo what they received.
//
// Each test asserts what ingress-nginx itself would do with the Ingress
// (a cookie, a rewritten path, a refused client, a redirect, a timeout, a
// CORS header, a traffic split, a Host header), so that it fails when the
// conversion or the router does otherwise.
//
// One control plane and one router serve the whole package.
package ingressnginx

import (
	"os"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) { os.Exit(framework.Main(m)) }
