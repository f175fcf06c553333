package routecore

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Hashes of "s3cret".
const (
	bcryptHash    = "$2a$04$osqfGYtzaF6ce0K1gFh0g.WpX7aRwMdZ92CuyBHUmlmSOXTiJBvnu"
	sha512Hash    = "$6$routeshift$JOA6dNHseHf4WV8rlnj8fEn6/c0YhwKy8hj3W9d7GeaL4GTIEsaf/YTA1k3dLcLoCfMTe7j4ygU38731ZJL9G/"
	sha256Hash    = "$5$routeshift$Xf3xFW/T65Y9PsISlKfK3r72AnscQAGjWwG2EPGDln9"
	rehashAdvice  = "re-hash the password with bcrypt (htpasswd -B) or SHA-512 crypt (mkpasswd -m sha-512)"
	apacheMD5Hash = "$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/"
)

func TestParseHtpasswd(t *testing.T) {
	cases := []struct {
		name, data string
		users      []string
		err        string
	}{
		{"bcrypt and sha crypt", "alice:" + bcryptHash + "\nbob:" + sha512Hash + "\r\ncarol:" + sha256Hash + "\n", []string{"alice", "bob", "carol"}, ""},
		{"comments and blank lines", "# staff\n\nalice:" + bcryptHash + "\n  \n", []string{"alice"}, ""},
		{"every bcrypt prefix", "a:$2y$" + bcryptHash[4:] + "\nb:$2b$" + bcryptHash[4:], []string{"a", "b"}, ""},
		{"empty", "", nil, "holds no user: add lines of user:hash (htpasswd -B -n USER)"},
		{"only comments", "# nobody\n", nil, "holds no user"},
		{"no colon", "alice", nil, "line 1: must be user:hash"},
		{"empty user", ":" + bcryptHash, nil, "line 1: the user name must be printable, without spaces or quotes"},
		{"user with a space", "al ice:" + bcryptHash, nil, "line 1: the user name must be printable"},
		{"user twice", "alice:" + bcryptHash + "\nalice:" + sha512Hash, nil, `line 2: user "alice" is listed twice`},
		{"apache md5", "# x\nalice:" + apacheMD5Hash, nil, `line 2 (user "alice"): Apache MD5 ($apr1$) hashes cannot be checked by the router: ` + rehashAdvice},
		{"sha1", "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", nil, `line 1 (user "alice"): {SHA} hashes cannot be checked by the router: ` + rehashAdvice},
		{"md5 crypt", "alice:$1$salt$qJH7.N4xYta3aEG/dfqo/0", nil, `MD5 crypt ($1$) hashes are not accepted: ` + rehashAdvice},
		{"plain password", "alice:s3cret", nil, `line 1 (user "alice"): not a bcrypt ($2y$) or SHA-256/512 crypt ($5$, $6$) hash (a plain password or DES crypt?): ` + rehashAdvice},
		{"no hash", "alice:", nil, `line 1 (user "alice"): no hash: ` + rehashAdvice},
		{"short bcrypt", "alice:" + bcryptHash[:59], nil, "a bcrypt hash is 60 characters long"},
		{"hash with a space", "alice:" + bcryptHash[:30] + " x", nil, "the hash holds characters no crypt(3) hash has"},
		{"hash with a quote", "alice:$6$a'b$c", nil, "the hash holds characters no crypt(3) hash has"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			users, err := ParseHtpasswd([]byte(c.data))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ParseHtpasswd = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, u := range users {
				names = append(names, u.Name)
			}
			if strings.Join(names, ",") != strings.Join(c.users, ",") {
				t.Errorf("users %v, want %v", names, c.users)
			}
		})
	}
	var many strings.Builder
	for i := range MaxBasicAuthUsers + 1 {
		many.WriteString("u" + strings.Repeat("x", i%3) + itoaTest(i) + ":" + sha256Hash + "\n")
	}
	if _, err := ParseHtpasswd([]byte(many.String())); err == nil || !strings.Contains(err.Error(), "holds 10001 users; at most 10000") {
		t.Errorf("too many users: %v", err)
	}
}

func itoaTest(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

func TestValidateBasicAuthSecret(t *testing.T) {
	path := field.NewPath("metadata", "annotations").Key(AnnAuthBasicSecret)
	secret := func(data map[string]string) *corev1.Secret {
		s := &corev1.Secret{Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	cases := []struct {
		name   string
		secret *corev1.Secret
		want   string
	}{
		{"missing", nil, `metadata.annotations[routeshift.io/auth-basic-secret]: Not found: "secrets \"users\" not found"`},
		{"no auth key", secret(map[string]string{"users": "alice:" + bcryptHash}),
			`metadata.annotations[routeshift.io/auth-basic-secret]: Invalid value: "users": secret has no key "auth": put the htpasswd lines (user:hash) there`},
		{"bad hash", secret(map[string]string{"auth": "alice:" + apacheMD5Hash}),
			`metadata.annotations[routeshift.io/auth-basic-secret]: Invalid value: "users": key "auth": line 1 (user "alice"): Apache MD5 ($apr1$) hashes cannot be checked by the router: ` + rehashAdvice},
		{"good", secret(map[string]string{"auth": "alice:" + bcryptHash}), ""},
	}
	for _, c := range cases {
		users, err := ValidateBasicAuthSecret(path, "users", c.secret)
		switch {
		case c.want == "" && (err != nil || len(users) != 1 || users[0] != BasicAuthUser{Name: "alice", Hash: bcryptHash}):
			t.Errorf("%s: %v, %v", c.name, users, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
}

func TestBasicAuthSecret(t *testing.T) {
	cases := []struct {
		route *Route
		want  string
	}{
		{route(withAnnotation(AnnAuthBasicSecret, "users")), "users"},
		{route(withAnnotation(AnnAuthBasicSecret, "users"), withTLS(TLSConfig{Termination: TLSTerminationEdge})), "users"},
		{route(withAnnotation(AnnAuthBasicSecret, "users"), withTLS(TLSConfig{Termination: TLSTerminationPassthrough})), ""},
		{route(withAnnotation(AnnAuthBasicSecret, "Users")), ""},
		{route(), ""},
	}
	for i, c := range cases {
		if got := BasicAuthSecret(c.route); got != c.want {
			t.Errorf("case %d: BasicAuthSecret = %q, want %q", i, got, c.want)
		}
	}
}
