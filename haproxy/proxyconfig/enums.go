package proxyconfig

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// SyslogLevel is the level of the logs HAProxy sends to the syslog server
// (ROUTER_LOG_LEVEL).
type SyslogLevel string

// SyslogLevels lists every syslog level, most severe first.
var SyslogLevels = []SyslogLevel{"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"}

// Validate returns nil for a known level, else an error listing them.
func (l SyslogLevel) Validate() *field.Error { return routecore.ValidateEnum(l, SyslogLevels) }

// EndpointOrder is the order in which new endpoints take a route's server
// slots (ROUTER_BACKEND_PROCESS_ENDPOINTS).
type EndpointOrder string

// Endpoint orders.
const (
	// EndpointOrderListed takes them in the order the EndpointSlices list.
	EndpointOrderListed EndpointOrder = ""
	// EndpointOrderShuffle takes them in a random order.
	EndpointOrderShuffle EndpointOrder = "shuffle"
)

// EndpointOrders lists every endpoint order.
var EndpointOrders = []EndpointOrder{EndpointOrderListed, EndpointOrderShuffle}

// Validate returns nil for a known order, else an error listing them.
func (o EndpointOrder) Validate() *field.Error { return routecore.ValidateEnum(o, EndpointOrders) }

// CipherProfiles are the names ROUTER_CIPHERS accepts for the renderer's
// cipher lists (Mozilla's server-side TLS recommendations), mildest first.
var CipherProfiles = []string{"modern", "intermediate", "old"}

// cipherLists are the profiles' cipher lists, in OpenSSL names for HAProxy
// 2.6. TLS 1.2 stays the minimum for every profile, as in OpenShift:
// "modern" keeps only the forward-secret AEAD TLS 1.2 suites.
var cipherLists = map[string]string{
	"modern": "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" +
		"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305",
	"intermediate": "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" +
		"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" +
		"DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305",
	"old": "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" +
		"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" +
		"DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305:" +
		"ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:" +
		"ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA:" +
		"DHE-RSA-AES128-SHA256:DHE-RSA-AES256-SHA256:AES128-GCM-SHA256:AES256-GCM-SHA384:" +
		"AES128-SHA256:AES256-SHA256:AES128-SHA:AES256-SHA:DES-CBC3-SHA",
}

// TLS13Suites are the TLS 1.3 cipher suites offered when
// ROUTER_CIPHERSUITES is empty.
const TLS13Suites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

// CipherList returns the OpenSSL cipher list a ROUTER_CIPHERS value
// stands for: a profile's list, or the value itself.
func CipherList(ciphers string) string {
	if list, ok := cipherLists[ciphers]; ok {
		return list
	}
	return ciphers
}

// ValidateCiphers accepts a cipher profile or a ':'-separated OpenSSL
// cipher list of letters, digits and :_-+!.@= (ROUTER_CIPHERS).
func ValidateCiphers(v string) *field.Error {
	if slices.Contains(CipherProfiles, v) {
		return nil
	}
	if v == "" || strings.IndexFunc(v, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(":_-+!.@=", r))
	}) >= 0 {
		return field.Invalid(nil, v, "use modern, intermediate, old, or a ':'-separated OpenSSL cipher list of letters, digits and :_-+!.@=")
	}
	return nil
}

// IPModes are the address families the public listeners may accept when
// ROUTER_BIND_ADDRESS is empty (ROUTER_IP_V4_V6_MODE).
var IPModes = []string{"v4", "v6", "v4v6"}

// MutualTLSAuthModes are the values of ROUTER_MUTUAL_TLS_AUTH.
var MutualTLSAuthModes = []string{"none", "optional", "required"}

// LogFacilities are the syslog facilities HAProxy's log lines may carry
// (ROUTER_LOG_FACILITY).
var LogFacilities = []string{"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "auth2",
	"ftp", "ntp", "audit", "alert", "cron2", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}
