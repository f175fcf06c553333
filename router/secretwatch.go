package router

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/routecore"
)

// secretWatches reads the Secrets the routes name, each on its own: a list
// and a watch of that one object (field selector metadata.name), which a
// Role granting get, list and watch on that Secret alone allows, so the
// router needs no access to any other Secret. The store loop starts and
// stops the reads (sync) after each snapshot it builds; what they find comes back to
// the store through the router's events, and a report of a read stopped
// since is dropped.
type secretWatches struct {
	client corev1client.SecretsGetter
	// send hands an event to the store loop; it gives up when ctx ends.
	send func(ctx context.Context, ev func(*Store))
	// retry is the first wait after a failed read, doubled after each
	// failure up to maxRetry.
	retry, maxRetry time.Duration
	// requestTimeout bounds a list.
	requestTimeout time.Duration

	// running and next belong to the store loop's goroutine.
	running map[string]*secretWatch
	next    uint64
	wg      sync.WaitGroup
}

// secretWatch is one running read.
type secretWatch struct {
	id     uint64
	cancel context.CancelFunc
}

func newSecretWatches(client corev1client.SecretsGetter, send func(context.Context, func(*Store))) *secretWatches {
	return &secretWatches{client: client, send: send, retry: time.Second, maxRetry: time.Minute,
		requestTimeout: 30 * time.Second, running: map[string]*secretWatch{}}
}

// sync stops the reads of stop and starts those of start (namespace/name
// keys).
func (w *secretWatches) sync(ctx context.Context, start, stop []string) {
	log := logf.FromContext(ctx).WithName("secrets")
	for _, k := range stop {
		if sw := w.running[k]; sw != nil {
			sw.cancel()
			delete(w.running, k)
			log.V(1).Info("no route names the secret any more: stopped reading it", "secret", k)
		}
	}
	for _, k := range start {
		w.next++
		rctx, cancel := context.WithCancel(ctx)
		sw := &secretWatch{id: w.next, cancel: cancel}
		w.running[k] = sw
		log.V(1).Info("a route names the secret: reading it", "secret", k)
		ns, name := SplitKey(k)
		w.wg.Go(func() { w.run(rctx, ns, name, func(ev func(*Store)) { w.report(rctx, k, sw.id, ev) }) })
	}
}

// stop stops every read and waits for them.
func (w *secretWatches) stop() {
	for k, sw := range w.running {
		sw.cancel()
		delete(w.running, k)
	}
	w.wg.Wait()
}

// report hands ev to the store unless read id of secret k was stopped
// before ev reaches the store.
func (w *secretWatches) report(ctx context.Context, k string, id uint64, ev func(*Store)) {
	w.send(ctx, func(s *Store) {
		if sw := w.running[k]; sw != nil && sw.id == id {
			ev(s)
		}
	})
}

// run reads Secret namespace/name until ctx ends: it lists it, then
// follows its watch, and lists it again when the watch ends. A failed read
// is retried after a wait that doubles up to maxRetry; a read the router
// is forbidden, and a first read that fails, make the secret unreadable
// for its routes. Later failures of other kinds keep what was read.
func (w *secretWatches) run(ctx context.Context, namespace, name string, report func(func(*Store))) {
	log := logf.FromContext(ctx).WithName("secrets").WithValues("secret", namespace+"/"+name)
	delay, everRead := w.retry, false
	for ctx.Err() == nil {
		read, err := w.read(ctx, namespace, name, report)
		everRead = everRead || read
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			delay = w.retry
			continue
		}
		var denied *readDenied
		message := ""
		switch {
		case errors.As(err, &denied):
			// Logged in the route status's words: the API server's own
			// names the refused user, which reads as missing RBAC of the
			// router's, not as a Secret nobody granted.
			message = fmt.Sprintf("router serviceaccount does not have permission to %s this secret: "+
				"grant it get, list and watch on the secret with a Role and a RoleBinding (docs/router.md)", denied.verb)
			report(func(s *Store) { s.SetSecretUnreadable(namespace, name, message) })
		case !everRead:
			message = fmt.Sprintf("the router could not read this secret (it tries again): %v", err)
			report(func(s *Store) { s.SetSecretUnreadable(namespace, name, message) })
		default:
			message = err.Error()
		}
		log.Info("reading the secret failed; trying again", "error", message, "retryIn", delay.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, w.maxRetry)
	}
}

// readDenied is a list or watch the router is forbidden.
type readDenied struct {
	verb string
	err  error
}

func (e *readDenied) Error() string { return e.verb + " forbidden" }
func (e *readDenied) Unwrap() error { return e.err }

// read lists the secret, reports what it found, then follows its watch
// until it ends. It returns whether the list succeeded, and why the read
// ended early (nil when the watch simply ended, or the server asked for a
// new list).
func (w *secretWatches) read(ctx context.Context, namespace, name string, report func(func(*Store))) (bool, error) {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	secrets := w.client.Secrets(namespace)
	lctx, cancel := context.WithTimeout(ctx, w.requestTimeout)
	list, err := secrets.List(lctx, metav1.ListOptions{FieldSelector: selector})
	cancel()
	if err != nil {
		return false, denied("list", err)
	}
	reportSecret(namespace, name, list.Items, report)
	started := time.Now()
	// Permission is checked when a watch starts: ending each watch after
	// 5 to 10 minutes makes a revoked grant count within 10 minutes.
	timeout := int64((5*time.Minute + rand.N(5*time.Minute)) / time.Second)
	watcher, err := secrets.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: list.ResourceVersion,
		AllowWatchBookmarks: true, TimeoutSeconds: &timeout})
	if err != nil {
		return true, denied("watch", err)
	}
	defer watcher.Stop()
	for ev := range watcher.ResultChan() {
		switch ev.Type {
		case watch.Added, watch.Modified:
			if s, ok := ev.Object.(*corev1.Secret); ok {
				reportSecret(namespace, name, []corev1.Secret{*s}, report)
			}
		case watch.Deleted:
			reportSecret(namespace, name, nil, report)
		case watch.Error:
			if err := apierrors.FromObject(ev.Object); !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
				return true, denied("watch", err)
			}
			return true, nil
		}
	}
	if time.Since(started) < w.retry {
		// A watch the server ends at once is no reason to list in a loop.
		return true, errors.New("the watch ended at once")
	}
	return true, nil
}

// denied wraps err as a readDenied when the API server forbids verb.
func denied(verb string, err error) error {
	if apierrors.IsForbidden(err) {
		return &readDenied{verb: verb, err: err}
	}
	return fmt.Errorf("%s: %w", verb, err)
}

// reportSecret reports the secret listed or watched (none: it does not
// exist), keeping only what the store reads of it.
func reportSecret(namespace, name string, items []corev1.Secret, report func(func(*Store))) {
	if len(items) == 0 {
		report(func(s *Store) { s.DeleteSecret(namespace, name) })
		return
	}
	secret := certificateSecret(&items[0])
	report(func(s *Store) { s.SetSecret(secret) })
}

// certificateSecret is what the router keeps of a secret: its identity,
// type, certificate and key, and basic authentication's users.
func certificateSecret(in *corev1.Secret) *corev1.Secret {
	out := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: in.Namespace, Name: in.Name, UID: in.UID, ResourceVersion: in.ResourceVersion},
		Type:       in.Type,
	}
	for _, k := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey, routecore.BasicAuthKey} {
		if v, ok := in.Data[k]; ok {
			if out.Data == nil {
				out.Data = map[string][]byte{}
			}
			out.Data[k] = v
		}
	}
	return out
}
