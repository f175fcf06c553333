package runtime

import (
	"os"
	"slices"
	"strconv"
)

// File is one file of a configuration.
type File struct {
	Data []byte
	// Mode is 0600 for private keys and anything holding them or the
	// statistics password, 0644 otherwise.
	Mode os.FileMode
}

// Output is a complete rendered configuration and how it differs from the
// one rendered before it.
type Output struct {
	// Files are every file of the configuration, by path relative to the
	// working directory. The map and the byte slices are never modified
	// after they are handed over.
	Files map[string]File
	// Changed are the paths whose content (or mode) differs from the
	// previous Output (all of them the first time), sorted.
	Changed []string
	// Removed are the paths in the previous Output but not in this one,
	// sorted.
	Removed []string
	// Reasons say why HAProxy must load the configuration by a reload,
	// most significant first. Without any, the only differences are
	// server slots (Servers), and the changed files only need to be
	// written, so that the next reload starts from them.
	Reasons []Reason
	// Servers are, without Reasons, every slot whose address, port,
	// weight, state or health checking changed, sorted by backend and
	// slot.
	Servers []ServerUpdate
	// Certificates are the changes of certificates and of the crt-list
	// since the previous Output, in the order the runtime API applies
	// them: without Reasons it applies them; with Reasons the reload
	// loads them from the files, and they are only counted.
	Certificates []CertificateUpdate
	// Standby, with Reasons, are the new routes the running HAProxy can
	// serve from standby backends until the reload (see StandbyRoute).
	Standby []StandbyRoute
	// StandbyBackends are the standby backends the configuration declares,
	// by kind: all free once HAProxy loads it.
	StandbyBackends map[string][]string
	// ConfigArgs are the -f arguments for haproxy, relative to the working
	// directory, in order.
	ConfigArgs []string
	// ServerStateFile is the server-state-file the configuration names,
	// relative to the working directory, or empty: WriteFiles creates it
	// empty when it is missing (HAProxy warns about a missing one).
	ServerStateFile string
	// Unchecked lists the enabled slots ("backend/server") of the
	// configuration that run without health checks, sorted: once HAProxy
	// loads it, the runtime API turns their checks off. It is called when
	// the configuration is loaded. Nil means none.
	Unchecked func() []string
	// Slots lists every server slot of the configuration, "backend/server"
	// to "address port" as `show servers state` writes them: the state of
	// a slot HAProxy runs at that address survives the reload. Nil means
	// none.
	Slots func() map[string]string
}

// Reload reports whether the configuration needs a reload.
func (o *Output) Reload() bool { return len(o.Reasons) > 0 }

func (o *Output) slots() map[string]string {
	if o.Slots == nil {
		return nil
	}
	return o.Slots()
}

func (o *Output) unchecked() []string {
	if o.Unchecked == nil {
		return nil
	}
	return o.Unchecked()
}

// ServerUpdate is what the runtime API must set on one server slot.
type ServerUpdate struct {
	Backend, Server string
	Address         string
	Port            int32
	Weight          int32
	Enabled         bool
	// Checked is whether health checks run on an enabled slot.
	Checked bool
	// Add is set for a slot the running HAProxy does not have yet (the
	// backend grew): the runtime API adds it with Options, the options
	// the configuration gives the slots HAProxy loads (it applies no
	// default-server to servers added at runtime).
	Add     bool
	Options string
	// CookieKey, for an added slot of a backend with sticky cookies, is
	// the dynamic-cookie-key to set again, so that HAProxy computes the
	// new server's cookie.
	CookieKey string
}

// Reason is why a configuration is loaded by a reload instead of through
// the runtime API.
type Reason struct {
	// Kind is what changed, from a fixed vocabulary: the value of the
	// reason label of routeshift_router_reloads_total.
	Kind string
	// Subject is what it concerns (a backend, a file), or empty.
	Subject string
	// Detail says more, or is empty.
	Detail string
}

// String is "subject: kind (detail)".
func (r Reason) String() string {
	s := r.Kind
	if r.Subject != "" {
		s = r.Subject + ": " + s
	}
	if r.Detail != "" {
		s += " (" + r.Detail + ")"
	}
	return s
}

// Reasons of the runtime's own: why it reloads beyond what the renderer
// says.
const (
	// ReasonNotLoaded: writing, checking or loading the previous
	// configuration failed, so the files are written in full against the
	// last good ones and reloaded.
	ReasonNotLoaded = "previous configuration not loaded"
	// ReasonRuntimeAPIRefused: HAProxy refused a server update; the
	// written files are loaded instead.
	ReasonRuntimeAPIRefused = "runtime API refused a server update"
	// ReasonCertificateRefused: HAProxy refused a certificate update; the
	// written files are loaded instead.
	ReasonCertificateRefused = "runtime API refused a certificate update"
)

// mergeReasons appends the reasons of b that a lacks.
func mergeReasons(a, b []Reason) []Reason {
	out := slices.Clone(a)
	seen := make(map[Reason]bool, len(a))
	for _, r := range a {
		seen[r] = true
	}
	for _, r := range b {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// maxLoggedReasons bounds the reasons one log line names.
const maxLoggedReasons = 20

// reasonStrings are the reasons as logged: at most maxLoggedReasons, then
// how many more.
func reasonStrings(reasons []Reason) []string {
	var out []string
	for i, r := range reasons {
		if i == maxLoggedReasons {
			out = append(out, "and "+strconv.Itoa(len(reasons)-i)+" more")
			break
		}
		out = append(out, r.String())
	}
	return out
}
