package nginx

import "slices"

// entries is every annotation ingress-nginx documents (and the aliases it
// reads), by area; table sorts them.
var entries = slices.Concat(tlsEntries, routingEntries, canaryEntries, balanceEntries, limitEntries, miscEntries)
