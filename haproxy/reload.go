package haproxy

import (
	"reflect"
	"slices"
	"strings"

	"github.com/routeshift/routeshift/haproxy/runtime"
)

// The decision "runtime API or reload". Between reloads the runtime API
// changes a server slot's address, port, weight and state, adds slots at
// the end of a backend, and changes certificates and the crt-list
// (certificates.go); everything else in the configuration needs a reload. The renderer names why, with these kinds of reason (the label of
// routeshift_router_reloads_total; the runtime adds its own).
const (
	ReasonFirstConfiguration = "first configuration"
	ReasonBackendAdded       = "backend added"
	ReasonBackendRemoved     = "backend removed"
	ReasonBackendSettings    = "backend settings changed"
	ReasonServices           = "services changed"
	ReasonServerOption       = "new server option"
	// ReasonServerProtocol: an endpoint's port names another application
	// protocol (appProtocol), which the runtime API cannot set.
	ReasonServerProtocol = "server protocol (appProtocol)"
	ReasonSlotsRemoved   = "server slots removed"
	// ReasonSlotsAddedTemplate: servers are added at runtime only with the
	// built-in template, whose server options the renderer knows.
	ReasonSlotsAddedTemplate = "server slots added (TEMPLATE_FILE)"
	ReasonGlobal             = "global configuration"
	ReasonMaps               = "frontend maps"
	ReasonDefaultCA          = "default destination CA"
	ReasonClientCA           = "client CA"
	ReasonClientCRLs         = "client certificate revocation lists"
	// Files of single routes: each kind is followed by "added", "changed"
	// or "removed".
	ReasonDestinationCA = "destination CA"
	ReasonAllowList     = "IP allowlist"
)

// backendReasons says why backend b cannot replace a through the runtime
// API: nothing when they differ at most in their slots' addresses, ports,
// weights and states, their services' weights (which reach HAProxy as
// server weights), and (when canAdd) in slots b adds at the end.
func backendReasons(a, b *BackendData, canAdd bool) []runtime.Reason {
	var kinds []string
	switch {
	case len(b.Servers) < len(a.Servers):
		kinds = append(kinds, ReasonSlotsRemoved)
	case len(b.Servers) > len(a.Servers) && !canAdd:
		kinds = append(kinds, ReasonSlotsAddedTemplate)
	}
	switch {
	case protocolChanged(a, b):
		kinds = append(kinds, ReasonServerProtocol)
	case !sameServerOptions(a, b):
		kinds = append(kinds, ReasonServerOption)
	}
	if !slices.EqualFunc(a.Services, b.Services, func(x, y ServiceData) bool { return x.Namespace == y.Namespace && x.Name == y.Name }) {
		kinds = append(kinds, ReasonServices)
	}
	var out []runtime.Reason
	for _, k := range kinds {
		out = append(out, runtime.Reason{Kind: k, Subject: "backend " + b.Name})
	}
	if fields := settingsChanged(a, b); len(fields) > 0 {
		out = append(out, runtime.Reason{Kind: ReasonBackendSettings, Subject: "backend " + b.Name, Detail: strings.Join(fields, ", ")})
	}
	return out
}

// sameServerOptions reports whether the slots a and b both have keep their
// names and options (ServerData.Options) and the backends' default-server
// lines are the same.
func sameServerOptions(a, b *BackendData) bool {
	for i := range min(len(a.Servers), len(b.Servers)) {
		if a.Servers[i].Name != b.Servers[i].Name || a.Servers[i].Options() != b.Servers[i].Options() {
			return false
		}
	}
	return reflect.DeepEqual(a.ServerDefaults, b.ServerDefaults)
}

// protocolChanged reports whether a slot both a and b have speaks another
// protocol to its endpoint in b (its port's appProtocol changed): the
// runtime API cannot change a server's protocol.
func protocolChanged(a, b *BackendData) bool {
	for i := range min(len(a.Servers), len(b.Servers)) {
		if a.Servers[i].Proto != b.Servers[i].Proto || a.Servers[i].ALPN != b.Servers[i].ALPN {
			return true
		}
	}
	return false
}

// settingsChanged names the fields of BackendData that differ between a
// and b, but for the server slots, the services and the server defaults.
func settingsChanged(a, b *BackendData) []string {
	ac, bc := *a, *b
	ac.Servers, bc.Servers, ac.Services, bc.Services, ac.ServerDefaults, bc.ServerDefaults = nil, nil, nil, nil, nil, nil
	if reflect.DeepEqual(ac, bc) {
		return nil
	}
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := range va.NumField() {
		switch name := va.Type().Field(i).Name; name {
		case "Servers", "Services", "ServerDefaults":
		default:
			if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
				out = append(out, name)
			}
		}
	}
	return out
}

// serverChanges lists the slots of b that differ from a or that a lacks
// (b has a's shape: backendReasons found nothing).
func serverChanges(a, b *BackendData) []runtime.ServerUpdate {
	var out []runtime.ServerUpdate
	for i, s := range b.Servers {
		if i >= len(a.Servers) {
			u := runtime.ServerUpdate{Backend: b.Name, Server: s.Name, Address: s.Address, Port: s.Port, Weight: s.Weight,
				Enabled: s.Enabled, Checked: s.Checked, Add: true, Options: serverOptions(b.ServerDefaults, s)}
			if b.Cookie != nil {
				u.CookieKey = dynamicCookieKey
			}
			out = append(out, u)
			continue
		}
		o := a.Servers[i]
		if o.Endpoint != s.Endpoint || o.Weight != s.Weight || o.Enabled != s.Enabled || o.Checked != s.Checked {
			out = append(out, runtime.ServerUpdate{Backend: b.Name, Server: s.Name, Address: s.Address, Port: s.Port, Weight: s.Weight,
				Enabled: s.Enabled, Checked: s.Checked})
		}
	}
	return out
}

// reloadReasons are the reasons of the backends, then of every file
// beyond the backend files that differs in next (the backend files' differences
// beyond server slots the backends have told), in path order. Certificates
// and the crt-list give none: the runtime API loads them
// (certificateUpdates).
func (r *Renderer) reloadReasons(backends []runtime.Reason, next *fileEdit) []runtime.Reason {
	var files []string
	for path := range next.touched {
		if !strings.HasPrefix(path, backendsDir+"/") && !runtimeFile(path) && r.differs(next, path) {
			files = append(files, path)
		}
	}
	if len(backends) == 0 && len(files) == 0 {
		return nil
	}
	slices.SortFunc(backends, func(x, y runtime.Reason) int { return strings.Compare(x.Subject, y.Subject) })
	slices.Sort(files)
	out := backends
	for _, path := range files {
		_, was := r.files[path]
		_, is := next.files[path]
		out = append(out, fileReason(path, was, is))
	}
	// The whole configuration's settings first: the most significant.
	if i := slices.IndexFunc(out, func(x runtime.Reason) bool { return x.Kind == ReasonGlobal }); i > 0 {
		global := out[i]
		out = slices.Insert(slices.Delete(out, i, i+1), 0, global)
	}
	return out
}
