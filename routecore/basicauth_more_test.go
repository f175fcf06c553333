package routecore

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestBasicAuthMoreParseHtpasswd(t *testing.T) {
	sha512Rounds := "$6$rounds=5000$salt$" + strings.Repeat("a", 86)
	cases := []struct {
		name, data string
		users      []BasicAuthUser
		err        string // the whole message
	}{
		{"hash kept exactly", "alice:" + sha512Hash, []BasicAuthUser{{"alice", sha512Hash}}, ""},
		{"CRLF and a bare CR line", "alice:" + bcryptHash + "\r\n\r\nbob:" + sha256Hash + "\r\n", []BasicAuthUser{{"alice", bcryptHash}, {"bob", sha256Hash}}, ""},
		{"names are case-sensitive", "alice:" + bcryptHash + "\nAlice:" + bcryptHash, []BasicAuthUser{{"alice", bcryptHash}, {"Alice", bcryptHash}}, ""},
		{"unicode name", "émile:" + bcryptHash, []BasicAuthUser{{"émile", bcryptHash}}, ""},
		{"name of 256 bytes", strings.Repeat("u", 256) + ":" + bcryptHash, []BasicAuthUser{{strings.Repeat("u", 256), bcryptHash}}, ""},
		{"sha512 with rounds", "alice:" + sha512Rounds, []BasicAuthUser{{"alice", sha512Rounds}}, ""},
		{"name of 257 bytes", strings.Repeat("u", 257) + ":" + bcryptHash, nil, "line 1: the user name must be at most 256 bytes"},
		{"line numbers count comments and blanks", "# a\n\n  \nalice", nil, "line 4: must be user:hash"},
		{"indented comment is a line", "  # not a comment", nil, "line 1: must be user:hash"},
		{"leading space in the name", " alice:" + bcryptHash, nil, "line 1: the user name must be printable, without spaces or quotes"},
		{"tab in the name", "al\tice:" + bcryptHash, nil, "line 1: the user name must be printable, without spaces or quotes"},
		{"double quote in the name", `al"ice:` + bcryptHash, nil, "line 1: the user name must be printable, without spaces or quotes"},
		{"single quote in the name", `o'neil:` + bcryptHash, nil, "line 1: the user name must be printable, without spaces or quotes"},
		{"DEL in the name", "al\x7fice:" + bcryptHash, nil, "line 1: the user name must be printable, without spaces or quotes"},
		{"second colon goes to the hash", "alice:x:" + bcryptHash, nil,
			`line 1 (user "alice"): the hash holds characters no crypt(3) hash has: ` + rehashAdvice},
		{"error on a later line", "alice:" + bcryptHash + "\nbob:" + apacheMD5Hash, nil,
			`line 2 (user "bob"): Apache MD5 ($apr1$) hashes cannot be checked by the router: ` + rehashAdvice},
		{"unknown bcrypt variant", "alice:$2x$" + bcryptHash[4:], nil,
			`line 1 (user "alice"): not a bcrypt ($2y$) or SHA-256/512 crypt ($5$, $6$) hash (a plain password or DES crypt?): ` + rehashAdvice},
		{"bcrypt of 61 characters", "alice:" + bcryptHash + "a", nil,
			`line 1 (user "alice"): a bcrypt hash is 60 characters long: ` + rehashAdvice},
		{"sha crypt without a hash part", "alice:$6$salt", nil,
			`line 1 (user "alice"): not a bcrypt ($2y$) or SHA-256/512 crypt ($5$, $6$) hash (a plain password or DES crypt?): ` + rehashAdvice},
		{"DES crypt", "alice:abJnggxhB/yWI", nil,
			`line 1 (user "alice"): not a bcrypt ($2y$) or SHA-256/512 crypt ($5$, $6$) hash (a plain password or DES crypt?): ` + rehashAdvice},
		{"SSHA", "alice:{SSHA}abc", nil, `line 1 (user "alice"): the hash holds characters no crypt(3) hash has: ` + rehashAdvice},
		{"apr1 is named before its characters", "alice:$apr1$a b", nil,
			`line 1 (user "alice"): Apache MD5 ($apr1$) hashes cannot be checked by the router: ` + rehashAdvice},
		{"trailing space in the hash", "alice:" + bcryptHash + " ", nil,
			`line 1 (user "alice"): the hash holds characters no crypt(3) hash has: ` + rehashAdvice},
		{"user twice after a bad line is not reached", "alice:" + bcryptHash + "\nbob\nalice:" + bcryptHash, nil, "line 2: must be user:hash"},
		{"blank only", "\n\r\n \t\n", nil, "holds no user: add lines of user:hash (htpasswd -B -n USER)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			users, err := ParseHtpasswd([]byte(c.data))
			if c.err != "" {
				if err == nil || err.Error() != c.err || users != nil {
					t.Fatalf("ParseHtpasswd = %v, %v; want error %q", users, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(users, c.users) {
				t.Errorf("users %q, want %q", users, c.users)
			}
		})
	}
}

func TestBasicAuthMoreMaxUsers(t *testing.T) {
	var b strings.Builder
	for i := range MaxBasicAuthUsers {
		b.WriteString("u" + itoaTest(i) + ":" + sha256Hash + "\n")
	}
	users, err := ParseHtpasswd([]byte(b.String()))
	if err != nil || len(users) != MaxBasicAuthUsers || users[MaxBasicAuthUsers-1].Name != "u9999" {
		t.Errorf("10000 users: %d, %v", len(users), err)
	}
}

func TestBasicAuthMoreSecret(t *testing.T) {
	path := field.NewPath("metadata", "annotations").Key(AnnAuthBasicSecret)
	prefix := "metadata.annotations[routeshift.io/auth-basic-secret]: "
	cases := []struct {
		name   string
		secret *corev1.Secret
		users  int
		want   string
	}{
		{"nil data", &corev1.Secret{}, 0, prefix + `Invalid value: "users": secret has no key "auth": put the htpasswd lines (user:hash) there`},
		{"only stringData", &corev1.Secret{StringData: map[string]string{"auth": "alice:" + bcryptHash}}, 0,
			prefix + `Invalid value: "users": secret has no key "auth": put the htpasswd lines (user:hash) there`},
		{"key case matters", &corev1.Secret{Data: map[string][]byte{"Auth": []byte("alice:" + bcryptHash)}}, 0,
			prefix + `Invalid value: "users": secret has no key "auth": put the htpasswd lines (user:hash) there`},
		{"empty auth", &corev1.Secret{Data: map[string][]byte{"auth": nil}}, 0,
			prefix + `Invalid value: "users": key "auth": holds no user: add lines of user:hash (htpasswd -B -n USER)`},
		{"duplicate user", &corev1.Secret{Data: map[string][]byte{"auth": []byte("a:" + bcryptHash + "\na:" + bcryptHash)}}, 0,
			prefix + `Invalid value: "users": key "auth": line 2: user "a" is listed twice`},
		{"plain password", &corev1.Secret{Data: map[string][]byte{"auth": []byte("a:pw")}}, 0,
			prefix + `Invalid value: "users": key "auth": line 1 (user "a"): not a bcrypt ($2y$) or SHA-256/512 crypt ($5$, $6$) hash (a plain password or DES crypt?): ` + rehashAdvice},
		{"three users, other keys ignored", &corev1.Secret{Data: map[string][]byte{"auth": []byte("a:" + bcryptHash + "\nb:" + sha256Hash + "\nc:" + sha512Hash), "other": []byte("x")}}, 3, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			users, err := ValidateBasicAuthSecret(path, "users", c.secret)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want || len(users) != c.users {
				t.Errorf("got %d users, %q\nwant %d users, %q", len(users), got, c.users, c.want)
			}
		})
	}
	// The not-found error quotes the name it was given.
	if _, err := ValidateBasicAuthSecret(path, `we"ird`, nil); err == nil || err.Type != field.ErrorTypeNotFound || err.Field != path.String() ||
		err.BadValue != `secrets "we\"ird" not found` {
		t.Errorf("not found: %#v", err)
	}
}

func TestBasicAuthMoreValues(t *testing.T) {
	noQuotes := `: must be a non-empty text without double quotes or backslashes`
	cases := []struct {
		key, value, want string
	}{
		{AnnAuthBasicSecret, "users", ""},
		{AnnAuthBasicSecret, "my.users-1", ""},
		{AnnAuthBasicSecret, strings.Repeat("a", 253), ""},
		{AnnAuthBasicSecret, strings.Repeat("a", 254), `Invalid value: "` + strings.Repeat("a", 254) + `": must be the name of a Secret in the Route's namespace: must be no more than 253 characters`},
		{AnnAuthBasicSecret, "", `Invalid value: "": must be the name of a Secret in the Route's namespace: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{AnnAuthBasicSecret, "-users", `Invalid value: "-users": must be the name of a Secret in the Route's namespace: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{AnnAuthBasicRealm, "Staff only: 'area' ü", ""},
		{AnnAuthBasicRealm, strings.Repeat("r", MaxBasicAuthRealmLength), ""},
		{AnnAuthBasicRealm, " ", ""},
		{AnnAuthBasicRealm, "", `Invalid value: ""` + noQuotes},
		{AnnAuthBasicRealm, `say "hi"`, `Invalid value: "say \"hi\""` + noQuotes},
		{AnnAuthBasicRealm, `a\b`, `Invalid value: "a\\b"` + noQuotes},
		{AnnAuthBasicRealm, "a\tb", `Invalid value: "a\tb": must not contain control characters such as newlines or tabs`},
		{AnnAuthBasicForward, "true", ""},
		{AnnAuthBasicForward, "0", ""},
		{AnnAuthBasicForward, "yes", `Invalid value: "yes": must be true or false`},
		{AnnAuthBasicForward, "", `Invalid value: "": must be true or false`},
	}
	for _, c := range cases {
		got := extMoreValidate(t, c.key, c.value)
		want := c.want
		if want != "" {
			want = "metadata.annotations[" + c.key + "]: " + want
		}
		if got != want {
			t.Errorf("%s=%.60q:\n got %q\nwant %q", c.key, c.value, got, want)
		}
	}
	long := strings.Repeat("r", MaxBasicAuthRealmLength+1)
	if got := extMoreValidate(t, AnnAuthBasicRealm, long); !strings.HasSuffix(got, "Too long: may not be more than 256 bytes") {
		t.Errorf("realm of 257 bytes: %q", got)
	}
	// Length is checked before quotes.
	if got := extMoreValidate(t, AnnAuthBasicRealm, `"`+long); !strings.HasSuffix(got, "Too long: may not be more than 256 bytes") {
		t.Errorf("long realm with a quote: %q", got)
	}
}

func TestBasicAuthMoreOverridesAndWarnings(t *testing.T) {
	cases := []struct {
		name string
		ann  map[string]string
		want Overrides
		errs int
	}{
		{"all three", map[string]string{AnnAuthBasicSecret: "users", AnnAuthBasicRealm: "Staff", AnnAuthBasicForward: "true"},
			Overrides{AuthBasicSecret: "users", AuthBasicRealm: "Staff", AuthBasicForward: true}, 0},
		{"forward 1", map[string]string{AnnAuthBasicForward: "1"}, Overrides{AuthBasicForward: true}, 0},
		{"forward false", map[string]string{AnnAuthBasicForward: "false"}, Overrides{}, 0},
		{"invalid values are not set", map[string]string{AnnAuthBasicSecret: "Users", AnnAuthBasicRealm: `"`, AnnAuthBasicForward: "on"}, Overrides{}, 3},
	}
	for _, c := range cases {
		o, errs := ParseAnnotations(c.ann, annotationsPath)
		if len(errs) != c.errs || !reflect.DeepEqual(o, c.want) {
			t.Errorf("%s: %+v, %v; want %+v with %d errors", c.name, o, errs, c.want, c.errs)
		}
	}

	pass := withTLS(TLSConfig{Termination: TLSTerminationPassthrough})
	warnings := []struct {
		name string
		mods []func(*Route)
		want []string
	}{
		{"forward T", []func(*Route){withAnnotation(AnnAuthBasicSecret, "users"), withAnnotation(AnnAuthBasicForward, "T")},
			[]string{`metadata.annotations[routeshift.io/auth-basic-forward]: "T" is read as true; "true" is the documented spelling`}},
		{"realm and forward on passthrough", []func(*Route){pass, withAnnotation(AnnAuthBasicRealm, "r"), withAnnotation(AnnAuthBasicForward, "false")},
			[]string{"metadata.annotations[routeshift.io/auth-basic-forward]: has no effect on passthrough routes",
				"metadata.annotations[routeshift.io/auth-basic-realm]: has no effect on passthrough routes"}},
		{"secret on passthrough is refused, not warned", []func(*Route){pass, withAnnotation(AnnAuthBasicSecret, "users")}, nil},
	}
	for _, c := range warnings {
		if got := Warnings(route(c.mods...), WarningOptions{}); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: warnings\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// Realm and forward only warn on passthrough; the secret is refused.
	sameMessages(t, ValidateRoute(route(pass, withAnnotation(AnnAuthBasicRealm, "r"), withAnnotation(AnnAuthBasicForward, "true")), ValidateOptions{}), nil)
	sameMessages(t, ValidateRoute(route(pass, withAnnotation(AnnAuthBasicSecret, "users")), ValidateOptions{}), []string{
		`metadata.annotations[routeshift.io/auth-basic-secret]: Invalid value: "users": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`,
	})
}

func TestBasicAuthMoreSecretName(t *testing.T) {
	cases := []struct {
		name  string
		route *Route
		want  string
	}{
		{"reencrypt", route(withAnnotation(AnnAuthBasicSecret, "users"), withTLS(TLSConfig{Termination: TLSTerminationReencrypt})), "users"},
		{"dotted", route(withAnnotation(AnnAuthBasicSecret, "team.users")), "team.users"},
		{"empty", route(withAnnotation(AnnAuthBasicSecret, "")), ""},
		{"too long", route(withAnnotation(AnnAuthBasicSecret, strings.Repeat("a", 254))), ""},
		{"realm only", route(withAnnotation(AnnAuthBasicRealm, "Staff")), ""},
		{"nil annotations", route(func(r *Route) { r.Annotations = nil }), ""},
	}
	for _, c := range cases {
		if got := BasicAuthSecret(c.route); got != c.want {
			t.Errorf("%s: BasicAuthSecret = %q, want %q", c.name, got, c.want)
		}
	}
}
