package dataplane

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
// cipher lists (Mozilla's server-side TLS recommendations).
var CipherProfiles = []string{"modern", "intermediate", "old"}

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
