package router

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// A running router reads only the Secrets its routes name, each on its
// own (secretwatch.go): the store says which secrets its routes want read
// (SecretWatches), the reads report what they find (SetSecret,
// DeleteSecret, SetSecretUnreadable), and a route whose secret has not
// been read yet waits for it rather than being judged without it.

// secretReads is what a store that has its secrets read one by one
// (WatchSecrets) knows of the reads. A nil *secretReads is a store given
// every secret (offline input): every secret counts as read.
type secretReads struct {
	// done holds the secrets read (or found missing, or unreadable) since
	// their read started.
	done map[string]bool
	// unreadable says why the router may not read a secret.
	unreadable map[string]string
	// watched holds the secrets being read.
	watched map[string]bool
	// changed holds the secrets whose index entry came or went since the
	// last SecretWatches.
	changed map[string]bool
	// waiting holds the routes waiting for their secret.
	waiting map[string]bool
}

// WatchSecrets makes the store have its secrets read one by one: from now
// on a secret counts as read only once SetSecret, DeleteSecret or
// SetSecretUnreadable reports it, SecretWatches says which secrets to
// read, and a route of the shard naming a secret not read yet waits for
// it. Call it before anything else.
func (s *Store) WatchSecrets() {
	s.reads = &secretReads{done: map[string]bool{}, unreadable: map[string]string{}, watched: map[string]bool{},
		changed: map[string]bool{}, waiting: map[string]bool{}}
}

// SetSecretUnreadable records that the router may not read Secret
// namespace/name, and why (for the routes that name it): what it knew of
// the secret is dropped.
func (s *Store) SetSecretUnreadable(namespace, name, message string) {
	k := Key(namespace, name)
	if s.reads == nil || (s.reads.done[k] && s.reads.unreadable[k] == message) {
		return
	}
	s.reads.read(k, message)
	delete(s.secrets, k)
	s.secretChanged(k)
}

// SecretWatches returns, sorted, the secrets to start reading (a route of
// the shard names them) and to stop reading (none does any more) since the
// last call; what the store knew of the latter is dropped. Both are empty
// unless WatchSecrets was called.
func (s *Store) SecretWatches() (start, stop []string) {
	rd := s.reads
	if rd == nil {
		return nil, nil
	}
	for k := range rd.changed {
		wanted := len(s.bySecret[k]) > 0
		switch {
		case wanted && !rd.watched[k]:
			rd.watched[k] = true
			start = append(start, k)
		case !wanted && rd.watched[k]:
			delete(rd.watched, k)
			delete(rd.done, k)
			delete(rd.unreadable, k)
			delete(s.secrets, k)
			stop = append(stop, k)
		}
	}
	clear(rd.changed)
	slices.Sort(start)
	slices.Sort(stop)
	return start, stop
}

// read records that secret k was read; unreadable says why the router may
// not read it, or is empty.
func (rd *secretReads) read(k, unreadable string) {
	if rd == nil {
		return
	}
	rd.done[k] = true
	if unreadable == "" {
		delete(rd.unreadable, k)
	} else {
		rd.unreadable[k] = unreadable
	}
}

// waitingRoutes is the number of routes waiting for their secret.
func (rd *secretReads) waitingRoutes() int {
	if rd == nil {
		return 0
	}
	return len(rd.waiting)
}

// waitsForSecret reports whether route k, with value r, must wait for its
// secrets: it is in the shard and names a secret not read yet. It records
// whether the route waits.
func (s *Store) waitsForSecret(k string, r *routecore.Route, inShard bool) bool {
	rd := s.reads
	if rd == nil {
		return false
	}
	if inShard {
		for _, name := range routeSecrets(r) {
			if !rd.done[Key(r.Namespace, name)] {
				rd.waiting[k] = true
				return true
			}
		}
	}
	delete(rd.waiting, k)
	return false
}

// indexSecrets indexes route k under the secrets the values name (none:
// out of the index).
func (s *Store) indexSecrets(k string, st *routeState, values ...*routecore.Route) {
	var keys []string
	for _, v := range values {
		for _, name := range routeSecrets(v) {
			if !slices.Contains(keys, Key(v.Namespace, name)) {
				keys = append(keys, Key(v.Namespace, name))
			}
		}
	}
	for _, sk := range st.secrets {
		if !slices.Contains(keys, sk) {
			removeFromIndex(s.bySecret, sk, k)
			s.reads.indexChanged(sk)
		}
	}
	for _, sk := range keys {
		if !slices.Contains(st.secrets, sk) {
			addToIndex(s.bySecret, sk, k)
			s.reads.indexChanged(sk)
		}
	}
	st.secrets = keys
	if len(values) == 0 && s.reads != nil {
		delete(s.reads.waiting, k)
	}
}

func (rd *secretReads) indexChanged(k string) {
	if rd != nil {
		rd.changed[k] = true
	}
}

// secretLookup returns the secret of that name and, when the router may
// not read it, why.
type secretLookup func(name string) (secret *corev1.Secret, unreadable string)

// secretOf looks secrets up in namespace.
func (s *Store) secretOf(namespace string) secretLookup {
	return func(name string) (*corev1.Secret, string) {
		k := Key(namespace, name)
		var why string
		if s.reads != nil {
			why = s.reads.unreadable[k]
		}
		return s.secrets[k], why
	}
}

// routeSecrets are the Secrets a route names: its external certificate's
// and its basic authentication's.
func routeSecrets(r *routecore.Route) []string {
	var names []string
	if ext := externalSecret(r); ext != "" {
		names = append(names, ext)
	}
	if r != nil {
		if auth := routecore.BasicAuthSecret(r); auth != "" && auth != externalSecret(r) {
			names = append(names, auth)
		}
	}
	return names
}

// basicAuthRejection rejects a route whose basic-authentication Secret
// the router may not read, does not exist or holds no htpasswd data the
// router can check.
func basicAuthRejection(r *routecore.Route, secret secretLookup) (string, string) {
	name := routecore.BasicAuthSecret(r)
	if name == "" {
		return "", ""
	}
	path := annotationsPath.Key(routecore.AnnAuthBasicSecret)
	s, unreadable := secret(name)
	if unreadable != "" {
		return ReasonBasicAuthValidation, field.Forbidden(path, unreadable).Error()
	}
	if _, err := routecore.ValidateBasicAuthSecret(path, name, s); err != nil {
		return ReasonBasicAuthValidation, err.Error()
	}
	return "", ""
}
