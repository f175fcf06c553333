package routecore

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Basic authentication: a Route names a Secret of its namespace whose key
// auth holds htpasswd lines (user:hash), the key ingress-nginx's
// auth-file Secrets use. The router checks every request's credentials
// against those hashes, which HAProxy computes with crypt(3): bcrypt and
// SHA-256/SHA-512 crypt only.

// BasicAuthKey is the key of the htpasswd data in a basic-auth Secret.
const BasicAuthKey = "auth"

// Limits of basic authentication.
const (
	// MaxBasicAuthUsers bounds the users of one Secret: HAProxy keeps
	// them all in memory and checks a request against one.
	MaxBasicAuthUsers = 10000
	// MaxBasicAuthRealmLength bounds auth-basic-realm.
	MaxBasicAuthRealmLength = 256
)

// BasicAuthUser is one htpasswd entry: a user and the crypt(3) hash of
// their password.
// +kubebuilder:object:generate=false
type BasicAuthUser struct {
	Name, Hash string
}

// bcryptPrefixes and shaCryptPrefixes are the hash formats crypt(3)
// checks.
var (
	bcryptPrefixes   = []string{"$2a$", "$2b$", "$2y$"}
	shaCryptPrefixes = []string{"$5$", "$6$"}
)

// rehash is what to do about a hash the router cannot check.
const rehash = "re-hash the password with bcrypt (htpasswd -B) or SHA-512 crypt (mkpasswd -m sha-512)"

// ParseHtpasswd reads htpasswd data: one user:hash per line; blank lines
// and lines starting with # are skipped. Every user must be named once,
// with a name of printable characters without ':' or spaces, and a bcrypt
// or SHA-256/512 crypt hash; the error names the line and what to do.
func ParseHtpasswd(data []byte) ([]BasicAuthUser, error) {
	var users []BasicAuthUser
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n := i + 1
		name, hash, ok := strings.Cut(line, ":")
		switch {
		case !ok:
			return nil, fmt.Errorf("line %d: must be user:hash", n)
		case name == "" || strings.IndexFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '"' || r == '\'' }) >= 0:
			return nil, fmt.Errorf("line %d: the user name must be printable, without spaces or quotes", n)
		case len(name) > 256:
			return nil, fmt.Errorf("line %d: the user name must be at most 256 bytes", n)
		case seen[name]:
			return nil, fmt.Errorf("line %d: user %q is listed twice", n, name)
		}
		if err := checkHash(hash); err != nil {
			return nil, fmt.Errorf("line %d (user %q): %v", n, name, err)
		}
		seen[name] = true
		users = append(users, BasicAuthUser{Name: name, Hash: hash})
	}
	switch {
	case len(users) == 0:
		return nil, fmt.Errorf("holds no user: add lines of user:hash (htpasswd -B -n USER)")
	case len(users) > MaxBasicAuthUsers:
		return nil, fmt.Errorf("holds %d users; at most %d", len(users), MaxBasicAuthUsers)
	}
	return users, nil
}

// checkHash accepts bcrypt and SHA-256/512 crypt hashes of crypt(3)'s
// alphabet; it names other formats and says how to re-hash.
func checkHash(hash string) error {
	switch {
	case strings.HasPrefix(hash, "$apr1$"):
		return fmt.Errorf("Apache MD5 ($apr1$) hashes cannot be checked by the router: %s", rehash)
	case strings.HasPrefix(hash, "$1$"):
		return fmt.Errorf("MD5 crypt ($1$) hashes are not accepted: %s", rehash)
	case strings.HasPrefix(hash, "{SHA}"):
		return fmt.Errorf("{SHA} hashes cannot be checked by the router: %s", rehash)
	case hash == "":
		return fmt.Errorf("no hash: %s", rehash)
	case strings.IndexFunc(hash, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("$./=,", r))
	}) >= 0:
		return fmt.Errorf("the hash holds characters no crypt(3) hash has: %s", rehash)
	}
	for _, p := range bcryptPrefixes {
		if strings.HasPrefix(hash, p) {
			if len(hash) != 60 {
				return fmt.Errorf("a bcrypt hash is 60 characters long: %s", rehash)
			}
			return nil
		}
	}
	for _, p := range shaCryptPrefixes {
		if strings.HasPrefix(hash, p) && strings.Count(hash, "$") >= 3 {
			return nil
		}
	}
	return fmt.Errorf("not a bcrypt ($2y$) or SHA-256/512 crypt ($5$, $6$) hash (a plain password or DES crypt?): %s", rehash)
}

// ValidateBasicAuthSecret checks the Secret an auth-basic-secret
// annotation names (at path): it must exist (secret nil means it does
// not) and hold htpasswd data the router can check under BasicAuthKey.
// The webhook and the router both call it, so a Route is refused in the
// same words. It returns the users.
func ValidateBasicAuthSecret(path *field.Path, name string, secret *corev1.Secret) ([]BasicAuthUser, *field.Error) {
	if secret == nil {
		return nil, field.NotFound(path, fmt.Sprintf("secrets %q not found", name))
	}
	data, ok := secret.Data[BasicAuthKey]
	if !ok {
		return nil, field.Invalid(path, name, fmt.Sprintf("secret has no key %q: put the htpasswd lines (user:hash) there", BasicAuthKey))
	}
	users, err := ParseHtpasswd(data)
	if err != nil {
		return nil, field.Invalid(path, name, fmt.Sprintf("key %q: %v", BasicAuthKey, err))
	}
	return users, nil
}

// secretName accepts the name of a Secret.
func secretName(v string) *field.Error {
	if errs := validation.IsDNS1123Subdomain(v); len(errs) > 0 {
		return field.Invalid(nil, v, "must be the name of a Secret in the Route's namespace: "+strings.Join(errs, "; "))
	}
	return nil
}

// realm accepts a realm of printable characters without double quotes.
func realm(v string) *field.Error {
	if len(v) > MaxBasicAuthRealmLength {
		return field.TooLong(nil, v, MaxBasicAuthRealmLength)
	}
	if v == "" || strings.ContainsAny(v, `"\`) {
		return field.Invalid(nil, v, `must be a non-empty text without double quotes or backslashes`)
	}
	return nil
}

// BasicAuthSecret is the Secret a Route's auth-basic-secret annotation
// names, "" when it names none or none valid, or when the Route does not
// speak HTTP to the router (passthrough).
func BasicAuthSecret(r *Route) string {
	v, ok := r.Annotations[AnnAuthBasicSecret]
	if !ok || secretName(v) != nil || r.termination() == TLSTerminationPassthrough {
		return ""
	}
	return v
}
