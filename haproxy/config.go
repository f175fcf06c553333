package haproxy

import (
	"cmp"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
)

// abs joins a path relative to the working directory.
func (r *Renderer) abs(rel string) string { return r.cfg.WorkingDir + "/" + rel }

// bind is the listening address for port on ROUTER_BIND_ADDRESS, with the
// bind options of ROUTER_IP_V4_V6_MODE when no address is set.
func (r *Renderer) bind(port int) string {
	p := strconv.Itoa(port)
	switch {
	case r.cfg.BindAddress != "":
		return net.JoinHostPort(r.cfg.BindAddress, p)
	case r.cfg.IPMode == "v6":
		return ":::" + p + " v6only"
	case r.cfg.IPMode == "v4v6":
		return ":::" + p + " v4v6"
	default:
		return ":" + p
	}
}

// tcpBalance is the balance algorithm of passthrough routes.
func tcpBalance(cfg proxyconfig.Config) string {
	return string(cmp.Or(cfg.TCPBalanceScheme, cfg.LoadBalanceAlgorithm))
}

// Health-check timing: intervals vary by spreadChecks percent, and every
// server's first check after a load comes within the router's check
// interval, at most maxFirstCheckDelay (HAProxy would otherwise spread
// first checks over the shortest interval of a second or more, so that
// one route with a long interval delays the first checks of routes with
// sub-second ones).
const (
	spreadChecks       = 5
	maxFirstCheckDelay = 5 * time.Second
)

// configData is the data of haproxy.cfg; crls says whether client
// certificates are checked against CRLs.
func (r *Renderer) configData(crls bool) *ConfigData {
	cfg := &r.cfg
	maps := MapPaths{
		HTTPExact: r.abs(mapFiles[httpExact]), HTTPPrefix: r.abs(mapFiles[httpPrefix]),
		HTTPSExact: r.abs(mapFiles[httpsExact]), HTTPSPrefix: r.abs(mapFiles[httpsPrefix]),
		SNIPassthrough: r.abs(mapFiles[sniPassthrough]), CrtList: r.abs(mapFiles[crtList]), Forwarded: r.abs(mapFiles[forwardedPolicy]),
	}
	d := &ConfigData{
		WorkingDir:       cfg.WorkingDir,
		DynamicCookieKey: dynamicCookieKey,
		Global: GlobalData{
			MaxConn: cfg.MaxConnections, Threads: cfg.Threads, AdminSocket: r.abs(AdminSocket),
			SSLBindOptions: "ssl-min-ver " + cfg.SSLMinVersion, Ciphers: cfg.Ciphers, CipherSuites: cmp.Or(cfg.CipherSuites, proxyconfig.TLS13Suites),
			Curves: cfg.Curves, BufSize: cfg.BufSize, MaxRewrite: cfg.MaxRewriteSize,
			ServerStateFile: r.abs(serverStateFile), SpreadChecks: spreadChecks,
			MaxSpreadChecks: haproxyTime(min(cfg.BackendCheckInterval, maxFirstCheckDelay)),
		},
		Defaults: DefaultsData{
			MaxConn: cfg.MaxConnections,
			Timeouts: Timeouts{
				Connect: haproxyTime(cfg.ConnectTimeout), Client: haproxyTime(cfg.ClientTimeout),
				ClientFin: haproxyTime(cfg.ClientFinTimeout), Server: haproxyTime(cfg.ServerTimeout),
				ServerFin: haproxyTime(cfg.ServerFinTimeout), HTTPRequest: haproxyTime(cfg.SlowlorisTimeout),
				HTTPKeepAlive: haproxyTime(cfg.SlowlorisHTTPKeepalive), Tunnel: haproxyTime(cfg.TunnelTimeout),
			},
			HTTPBalance: string(cfg.LoadBalanceAlgorithm), TCPBalance: tcpBalance(r.cfg), CheckTimeout: "5000ms",
		},
		Maps:           maps,
		DefaultBackend: defaultBackend,
	}
	if cfg.SSLMaxVersion != "" {
		d.Global.SSLBindOptions += " ssl-max-ver " + cfg.SSLMaxVersion
	}
	for _, name := range cfg.H1CaseAdjust {
		d.Global.H1CaseAdjust = append(d.Global.H1CaseAdjust, H1CaseAdjust{From: strings.ToLower(name), To: name})
	}
	if cfg.HardStopAfter > 0 {
		d.Global.HardStopAfter = haproxyTime(cfg.HardStopAfter)
	}
	// httpOnly are the options HAProxy ignores, with a warning at every
	// load, in a TCP frontend: public_ssl turns them off.
	var httpOnly []string
	for _, o := range []struct {
		on, httpOnly bool
		name         string
	}{{cfg.DontLogNull, false, "dontlognull"}, {cfg.HTTPIgnoreProbes, true, "http-ignore-probes"}, {cfg.ContStats, false, "contstats"},
		{cfg.AbortOnClose, false, "abortonclose"}} {
		if o.on {
			d.Defaults.Options = append(d.Defaults.Options, o.name)
			if o.httpOnly {
				httpOnly = append(httpOnly, o.name)
			}
		}
	}
	d.DefaultStatus = 503
	for _, e := range []struct {
		status int
		path   string
	}{{503, cmp.Or(cfg.ErrorFile503, r.abs(errorPage503File))}, {404, cfg.ErrorFile404}} {
		if e.path != "" {
			q, _ := quote(e.path)
			d.Defaults.ErrorFiles = append(d.Defaults.ErrorFiles, ErrorFile{Status: e.status, Path: q})
			d.DefaultStatus = e.status // 404 wins: it comes last
		}
	}
	d.Global.Ciphers = proxyconfig.CipherList(cfg.Ciphers)
	if cfg.SyslogAddress != "" {
		addr, _ := quote(cfg.SyslogAddress)
		d.Global.Syslog = &SyslogData{Address: addr, Facility: cfg.LogFacility, Level: string(cfg.LogLevel), MaxLength: cfg.LogMaxLength}
		if cfg.SyslogFormat != "" {
			d.Global.Syslog.Format, _ = quote(cfg.SyslogFormat)
		}
	}
	if cfg.EnableCompression {
		c := &CompressionData{Algorithm: "gzip"}
		for _, t := range strings.Fields(cfg.CompressionMIME) {
			q, _ := quote(t)
			c.Types = append(c.Types, q)
		}
		d.Defaults.Compression = c
	}
	d.HTTP = &HTTPFrontend{Bind: r.bind(cfg.HTTPPort), AcceptProxy: cfg.UseProxyProtocol,
		Routing: RoutingData{ExactMap: maps.HTTPExact, PrefixMap: maps.HTTPPrefix, Proto: "http", Redirect: redirectValue,
			Forwarded: string(cfg.ForwardedHeaders), ForwardedMap: maps.Forwarded}}
	d.HTTP.Routing.RedirectPort = redirectPort(*cfg)
	d.HTTPS = &TLSFrontend{Bind: r.bind(cfg.HTTPSPort), AcceptProxy: cfg.UseProxyProtocol,
		InspectDelay: haproxyTime(cfg.InspectDelay), SNIMap: maps.SNIPassthrough, SNIBackend: sniRelay, NoSNIBackend: noSNIRelay, NoOptions: httpOnly}
	clientAuth := r.clientAuthData(crls)
	tls := RoutingData{ExactMap: maps.HTTPSExact, PrefixMap: maps.HTTPSPrefix, Proto: "https", Misdirected: !cfg.DisableHTTP2,
		Forwarded: string(cfg.ForwardedHeaders), ForwardedMap: maps.Forwarded, ClientAuth: clientAuth}
	d.Terminating = []TerminatingFrontend{
		{Name: "fe_sni", Backend: sniRelay, Bind: net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.SNIPort)),
			DefaultCertificate: r.defaultCert.path, CrtList: maps.CrtList, StrictSNI: cfg.StrictSNI, Routing: tls, ClientAuth: clientAuth},
		{Name: "fe_no_sni", Backend: noSNIRelay, Bind: net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.NoSNIPort)),
			DefaultCertificate: r.defaultCert.path, Routing: tls, ClientAuth: clientAuth},
	}
	if cfg.StatsPort > 0 {
		d.Stats = &StatsData{Bind: r.bind(cfg.StatsPort)}
		if cfg.StatsUsername != "" && cfg.StatsPassword != "" {
			d.Stats.Auth, _ = quote(cfg.StatsUsername + ":" + cfg.StatsPassword)
		}
	}
	return d
}

// redirectPort is ":PORT" of ROUTER_HTTPS_REDIRECT_PORT for redirects to
// HTTPS, or "" when clients reach HTTPS on 443.
func redirectPort(cfg proxyconfig.Config) string {
	if p := cfg.HTTPSRedirectPort; p != 0 && p != 443 {
		return ":" + strconv.Itoa(p)
	}
	return ""
}
