package haproxy

import (
	"fmt"
	"strings"

	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/router"
)

// The working directory's layout: every file the router writes and every
// name in haproxy.cfg that other files refer to, in one place.

// Paths of the rendered files, relative to the working directory.
const (
	configFile     = "conf/haproxy.cfg"
	backendsDir    = "conf/backends"
	mapsDir        = "conf/maps"
	crtListFile    = "conf/crt-list"
	defaultCrtFile = "certs/default.pem"
	// destCAFile is the router's copy of DEFAULT_DESTINATION_CA_PATH:
	// HAProxy reads CA files only when it loads a configuration, so a
	// changed CA must change a rendered file to be loaded.
	destCAFile = "conf/default-destination-ca.pem"
	// clientCAFile and clientCRLFile are the router's copies of the client
	// CA bundle (ROUTER_MUTUAL_TLS_AUTH_CA) and of the CRLs client
	// certificates are checked against.
	clientCAFile  = "conf/client-ca.pem"
	clientCRLFile = "conf/client-crls.pem"
	// errorPage503File is the router's own 503 page (errorfile 503), unless
	// ROUTER_ERRORFILE_503 names another.
	errorPage503File = "conf/error-page-503.http"
	// Directories of the files of single routes: their own certificates,
	// destination CA certificates and long IP allowlists.
	routeCertsDir = "certs"
	routeCAsDir   = "cacerts"
	allowListsDir = "allowlists"
	runDir        = "run"
	masterSocket  = runDir + "/master.sock"
	// serverStateFile is the servers' state, saved before each reload for
	// the new worker (server-state-file).
	serverStateFile = runDir + "/server-state"
)

// AdminSocket is HAProxy's runtime API socket (level admin, with
// expose-fd listeners for reloads), relative to the working directory;
// haproxy.cfg names it with the working directory joined.
const AdminSocket = runDir + "/haproxy.sock"

// workingDirs are the directories the data plane creates at start.
var workingDirs = []string{backendsDir, mapsDir, routeCertsDir, routeCAsDir, allowListsDir, runDir}

// configArgs are the -f arguments of haproxy, in order: haproxy.cfg, then
// every file of the backends directory.
var configArgs = []string{configFile, backendsDir}

// mapID names a keyed file: a lookup map or the crt-list.
type mapID int

const (
	httpExact mapID = iota
	httpPrefix
	httpsExact
	httpsPrefix
	sniPassthrough
	crtList
	forwardedPolicy
	numMaps
)

// mapFiles are the keyed files' paths.
var mapFiles = [numMaps]string{
	httpExact:      mapsDir + "/http_exact.map",
	httpPrefix:     mapsDir + "/http_prefix.map",
	httpsExact:     mapsDir + "/https_exact.map",
	httpsPrefix:    mapsDir + "/https_prefix.map",
	sniPassthrough: mapsDir + "/sni_passthrough.map",
	crtList:        crtListFile,
	// forwardedPolicy maps backends of routes with their own
	// set-forwarded-headers policy to it.
	forwardedPolicy: mapsDir + "/forwarded.map",
}

// backendFilePath is the path of backend file i.
func backendFilePath(i int) string { return fmt.Sprintf("%s/%03d.cfg", backendsDir, i) }

// routeFileName is the route's name in certs/, cacerts/ and allowlists/.
// Namespaces and names never contain '_', so the names are unique.
func routeFileName(rt *router.Route) string { return rt.Namespace + "_" + rt.Name }

// routeCertFile is the path of the route's own certificate.
func routeCertFile(rt *router.Route) string { return routeCertsDir + "/" + routeFileName(rt) + ".pem" }

// routeCAFile is the path of the route's destination CA certificate.
func routeCAFile(rt *router.Route) string { return routeCAsDir + "/" + routeFileName(rt) + ".pem" }

// allowListFile is the path of the route's IP allowlist, when it is too
// long for the acl line.
func allowListFile(rt *router.Route) string { return allowListsDir + "/" + routeFileName(rt) + ".txt" }

// fileReason is why a change of the file at path needs a reload; was and
// is say whether it existed before and exists now.
func fileReason(path string, was, is bool) runtime.Reason {
	verb := "changed"
	switch {
	case !was:
		verb = "added"
	case !is:
		verb = "removed"
	}
	r := runtime.Reason{Subject: path}
	switch {
	case path == configFile:
		r.Kind = ReasonGlobal
	case strings.HasPrefix(path, mapsDir+"/"):
		r.Kind = ReasonMaps
	case path == destCAFile:
		r.Kind = ReasonDefaultCA
	case path == clientCAFile:
		r.Kind = ReasonClientCA
	case path == clientCRLFile:
		r.Kind = ReasonClientCRLs
	case strings.HasPrefix(path, routeCAsDir+"/"):
		r.Kind = ReasonDestinationCA + " " + verb
	case strings.HasPrefix(path, allowListsDir+"/"):
		r.Kind = ReasonAllowList + " " + verb
	default:
		r.Kind = "file " + verb
	}
	return r
}

// Names in haproxy.cfg that the lookup maps and route backends refer to.
const (
	defaultBackend   = "openshift_default"
	httpRouteDefault = "http_route"
	tcpRouteDefault  = "tcp_route"
	// redirectValue is the value of plain-HTTP map entries that redirect
	// to https. HAProxy proxy names cannot contain '@', so no backend is
	// called that.
	redirectValue = "@redirect-https"
	// sniRelay and noSNIRelay hand TLS connections from the TCP frontend
	// to the frontends that terminate them, with and without SNI.
	sniRelay   = "be_sni"
	noSNIRelay = "be_no_sni"
	// dynamicCookieKey is the key of sticky cookies' values: the same on
	// every router, so that a client's cookie works on all of them.
	dynamicCookieKey = "routeshift"
)
