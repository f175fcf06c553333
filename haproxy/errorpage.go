package haproxy

import (
	"fmt"
	"strings"
)

// errorPage503Body is the router's own "not available" page: what requests
// no route matches, and requests for routes without an available
// endpoint, get (unless ROUTER_ERRORFILE_503 replaces it).
const errorPage503Body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Application is not available</title>
</head>
<body>
<h1>Application is not available</h1>
<p>No application answers at this address right now. It may be starting or stopped,
or no route may serve this host and path.</p>
<p>If you run the application: check that a Route names this host and path, that the router
admitted it (<code>kubectl get route</code>), and that its Service has ready endpoints.</p>
</body>
</html>
`

// errorPage503 is the whole HTTP response HAProxy serves as the router's
// 503 (errorfile 503).
func errorPage503() []byte {
	head := strings.Join([]string{
		"HTTP/1.0 503 Service Unavailable",
		"Cache-Control: private, max-age=0, no-cache, no-store",
		"Connection: close",
		"Content-Type: text/html; charset=utf-8",
		fmt.Sprintf("Content-Length: %d", len(errorPage503Body)),
	}, "\r\n")
	return []byte(head + "\r\n\r\n" + errorPage503Body)
}
