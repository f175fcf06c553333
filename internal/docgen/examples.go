package main

import (
	"fmt"

	"github.com/routeshift/routeshift/routecore"
)

// annotationExampleValues is an example value of every catalogue
// annotation, for the Example column of annotations.md; docgen fails when
// an annotation has none, and its tests validate each with the catalogue.
var annotationExampleValues = map[string]string{
	routecore.AnnBalance:                  "roundrobin",
	routecore.AnnDisableCookies:           "true",
	routecore.AnnCookieNameLegacy:         "session",
	routecore.AnnCookieName:               "session",
	routecore.AnnCookieSameSite:           "Strict",
	routecore.AnnPodConcurrentConnections: "100",
	routecore.AnnRateLimit:                "true",
	routecore.AnnRateLimitConcurrentTCP:   "20",
	routecore.AnnRateLimitRateHTTP:        "100",
	routecore.AnnRateLimitRateTCP:         "50",
	routecore.AnnTimeout:                  "2m",
	routecore.AnnTimeoutTunnel:            "30m",
	routecore.AnnRewriteTarget:            "/",
	routecore.AnnHealthCheckInterval:      "10s",
	routecore.AnnIPWhitelist:              "192.168.1.0/24 10.0.0.1",
	routecore.AnnIPAllowlist:              "192.168.1.10 10.0.0.0/8 2001:db8::/32",
	routecore.AnnHSTSHeader:               "max-age=31536000;includeSubDomains;preload",
	routecore.AnnPoolSize:                 "10",
	routecore.AnnPathType:                 "Exact",
	routecore.AnnSetForwardedHeaders:      "if-none",
	routecore.AnnH1AdjustCase:             "true",

	routecore.AnnCertIssuer:                    "shop-ca",
	routecore.AnnCertIssuerName:                "shop-ca",
	routecore.AnnCertClusterIssuer:             "letsencrypt",
	routecore.AnnCertIssuerKind:                "ClusterIssuer",
	routecore.AnnCertIssuerGroup:               "awspca.cert-manager.io",
	routecore.AnnCertCommonName:                "www.example.com",
	routecore.AnnCertAltNames:                  "example.com,*.shop.example.com",
	routecore.AnnCertIPSANs:                    "192.0.2.10",
	routecore.AnnCertURISANs:                   "spiffe://cluster.local/ns/shop/sa/web",
	routecore.AnnCertEmailSANs:                 "ops@example.com",
	routecore.AnnCertDuration:                  "2160h",
	routecore.AnnCertRenewBefore:               "360h",
	routecore.AnnCertPrivateKeyAlgorithm:       "ECDSA",
	routecore.AnnCertPrivateKeySize:            "384",
	routecore.AnnCertPrivateKeyRotationPolicy:  "Never",
	routecore.AnnCertRevisionHistoryLimit:      "3",
	routecore.AnnCertSubjectOrganizations:      `Example Inc,"Example, Ltd"`,
	routecore.AnnCertSubjectOrganizationalUnit: "Web",
	routecore.AnnCertSubjectCountries:          "DE",
	routecore.AnnCertSubjectProvinces:          "Bavaria",
	routecore.AnnCertSubjectLocalities:         "Munich",
	routecore.AnnCertSubjectStreetAddresses:    "Main Street 1",
	routecore.AnnCertSubjectPostalCodes:        "80331",
	routecore.AnnCertSubjectSerialNumber:       "42",
}

// annotationExample returns the example of annotation key, or an error
// saying where to add one.
func annotationExample(key string) (string, error) {
	v, ok := annotationExampleValues[key]
	if !ok {
		return "", fmt.Errorf("annotation %s has no example: add one to annotationExampleValues in internal/docgen/examples.go", key)
	}
	return v, nil
}

// staleExamples returns the example keys that name no annotation any
// more.
func staleExamples() []string {
	var stale []string
	for key := range annotationExampleValues {
		if _, ok := routecore.LookupAnnotation(key); !ok {
			stale = append(stale, key)
		}
	}
	return stale
}
