package image

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// repoDockerfile is the repository's Dockerfile, three levels up.
const repoDockerfile = "../../../Dockerfile"

func TestReadDockerfileReadsTheRepositorysDockerfile(t *testing.T) {
	r, err := ReadDockerfile(repoDockerfile)
	if err != nil {
		t.Fatal(err)
	}
	r, err = r.WithArgs(map[string]string{"VERSION": "0.1.0", "COMMIT": "abc123"})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"base", r.Base, "debian:12-slim"},
		{"suite", r.Suite, "bookworm"},
		{"packages", r.Packages, []string{"haproxy", "ca-certificates", "libcap2-bin"}},
		{"setcap", r.Setcap, []Setcap{{"cap_net_bind_service=+ep", "/usr/sbin/haproxy"}}},
		{"binary", r.Binary, Copy{Stage: "build", Source: "/out/routeshift", Dest: "/usr/local/bin/routeshift"}},
		{"build env", r.Build.Env, []string{"CGO_ENABLED=0"}},
		{"build output", r.Build.Output, "/out/routeshift"},
		{"user", r.User, "65532:65532"},
		{"entrypoint", r.Entrypoint, []string{"/usr/local/bin/routeshift"}},
		{"version label", r.Labels["org.opencontainers.image.version"], "0.1.0"},
		{"revision label", r.Labels["org.opencontainers.image.revision"], "abc123"},
		{"title label", r.Labels["org.opencontainers.image.title"], "routeshift"},
		{"args", r.Args, map[string]string{"VERSION": "0.1.0", "COMMIT": "abc123"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
	ldflags := strings.Join(r.Build.Args, " ")
	if !strings.Contains(ldflags, "internal/version.Version=0.1.0") || !strings.Contains(ldflags, "internal/version.Commit=abc123") {
		t.Errorf("go build arguments %q do not carry VERSION and COMMIT", ldflags)
	}
}

// sample is a Dockerfile of the repository's shape that the refusal cases
// change one thing in.
const sample = `# a comment
FROM golang:1.26-bookworm AS build
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-X main.v=${VERSION}" \
    -o /out/app .

FROM debian:12-slim
ARG VERSION=dev
LABEL a="b c" \
      version="${VERSION}"
# a comment inside
RUN apt-get update \
 && apt-get install -y --no-install-recommends haproxy libcap2-bin \
 && setcap cap_net_bind_service=+ep /usr/sbin/haproxy \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/app /usr/local/bin/app
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/app", "serve"]
`

func TestReadDockerfileReadsTheSample(t *testing.T) {
	r := readSample(t, sample)
	if r == nil {
		t.Fatal(r)
	}
	want := map[string]string{"a": "b c", "version": "dev"}
	if !reflect.DeepEqual(r.Labels, want) {
		t.Errorf("labels = %v, want %v", r.Labels, want)
	}
	if want := []string{"build", "-trimpath", "-ldflags", "-X main.v=dev", "."}; !reflect.DeepEqual(r.Build.Args, want) {
		t.Errorf("go build arguments = %q, want %q", r.Build.Args, want)
	}
	if want := []string{"/usr/local/bin/app", "serve"}; !reflect.DeepEqual(r.Entrypoint, want) {
		t.Errorf("entrypoint = %q, want %q", r.Entrypoint, want)
	}
}

func TestReadDockerfileRefuses(t *testing.T) {
	cases := []struct {
		name, old, new string
		want           string // in the error, after the line number
	}{
		{"another base", "FROM debian:12-slim", "FROM debian:13-slim", ":12: FROM debian:13-slim: base image debian:13-slim is not supported"},
		{"alpine base", "FROM debian:12-slim", "FROM alpine:3.20", "base image alpine:3.20 is not supported: the image build stands in for debian:12, debian:12-slim"},
		{"ENV", "USER 65532", "ENV FOO=bar\nUSER 65532", ":22: ENV FOO=bar: ENV in the final stage is not reproduced"},
		{"WORKDIR in the final stage", "USER 65532", "WORKDIR /x\nUSER 65532", ":22: WORKDIR /x: WORKDIR in the final stage"},
		{"CMD", "ENTRYPOINT [", "CMD [\"x\"]\nENTRYPOINT [", ":23: CMD [\"x\"]: CMD in the final stage"},
		{"an unknown command", "setcap cap_net_bind_service=+ep /usr/sbin/haproxy", "useradd app", `:17: RUN apt-get update && apt-get install`},
		{"an unknown command names it", "setcap cap_net_bind_service=+ep /usr/sbin/haproxy", "useradd app", `command "useradd app" is not reproduced`},
		{"a pipe", "rm -rf /var/lib/apt/lists/*", "rm -rf /var/lib/apt/lists/* | true", `shell syntax '|' is not supported`},
		{"a semicolon", "apt-get update \\\n &&", "apt-get update; \\\n", `shell syntax ';' is not supported`},
		{"a pinned version", "haproxy libcap2-bin", "haproxy=2.6.12-1 libcap2-bin", `"haproxy=2.6.12-1" is not a plain package name`},
		{"recommends", "-y --no-install-recommends", "-y", "without --no-install-recommends"},
		{"another apt flag", "-y --no-install-recommends", "-y --no-install-recommends -t bookworm-backports", "flag -t is not reproduced"},
		{"lists kept", " \\\n && rm -rf /var/lib/apt/lists/*", "", "must end with rm -rf /var/lib/apt/lists/*"},
		{"an unknown capability", "cap_net_bind_service=+ep", "cap_net_bind_servic=+ep", `unknown capability "cap_net_bind_servic"`},
		{"a second COPY", "USER 65532", "COPY --from=build /out/app /usr/local/bin/app2\nUSER 65532", "want one COPY --from=STAGE"},
		{"a context COPY", "COPY --from=build /out/app /usr/local/bin/app", "COPY app /usr/local/bin/app", "want one COPY --from=STAGE"},
		{"a COPY of another file", "COPY --from=build /out/app", "COPY --from=build /out/other", "stage build builds /out/app, not /out/other"},
		{"shell-form ENTRYPOINT", `ENTRYPOINT ["/usr/local/bin/app", "serve"]`, "ENTRYPOINT /usr/local/bin/app", "want one ENTRYPOINT in exec form"},
		{"an undeclared variable", "${VERSION}\"", "${REVISION}\"", "$REVISION is not a declared ARG of this stage"},
		{"a RUN in the build stage", "RUN go mod download", "RUN apk add git", `:6: RUN apk add git: command "apk add git" is not reproduced`},
		{"an ENV in the build stage", "WORKDIR /src", "ENV GOFLAGS=-mod=vendor", ":4: ENV GOFLAGS=-mod=vendor: ENV in build stage build is not reproduced"},
		{"a global ARG", "# a comment\n", "ARG GO=1.26\n", ":1: ARG GO=1.26: ARG before the first FROM is not supported"},
		{"the escape directive", "# a comment\n", "# escape=`\n", ":1: # escape=`: the escape directive is not supported"},
		{"no build stage", sample[:strings.Index(sample, "FROM debian")], "", "need a build stage and a final stage, found 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(sample, c.old, c.new, 1)
			if text == sample {
				t.Fatalf("the case changes nothing: %q is not in the sample", c.old)
			}
			_, err := parseDockerfile("Dockerfile", text, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestWithArgsRefusesAnArgNoStageDeclares(t *testing.T) {
	r := readSample(t, sample)
	_, err := r.WithArgs(map[string]string{"VERSON": "1"})
	if err == nil || !strings.Contains(err.Error(), "build arg VERSON is declared by no stage") {
		t.Fatalf("error = %v, want the misspelt arg named", err)
	}
}

func readSample(t *testing.T, text string) *Recipe {
	t.Helper()
	path := filepath.Join(t.TempDir(), "Dockerfile")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadDockerfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSplitShell(t *testing.T) {
	vars := map[string]string{"V": "1.0", "EMPTY": ""}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	cases := []struct {
		in      string
		want    [][]string
		wantErr string
	}{
		{in: `a b  c`, want: [][]string{{"a", "b", "c"}}},
		{in: `a && b "c d" 'e $V' "$V" ${V}x`, want: [][]string{{"a"}, {"b", "c d", "e $V", "1.0", "1.0x"}}},
		{in: `a "" $EMPTY`, want: [][]string{{"a", ""}}},
		{in: `a\ b "q\"q"`, want: [][]string{{"a b", `q"q`}}},
		{in: `rm -rf /var/lib/apt/lists/*`, want: [][]string{{"rm", "-rf", "/var/lib/apt/lists/*"}}},
		{in: `a && `, wantErr: "&& at the end"},
		{in: `&& a`, wantErr: "&& without a command"},
		{in: `a $(b)`, wantErr: "unsupported expansion"},
		{in: "a `b`", wantErr: "shell syntax '`'"},
		{in: `a > f`, wantErr: "shell syntax '>'"},
		{in: `a "b`, wantErr: `unterminated " quote`},
		{in: `a $HOME`, wantErr: "$HOME is not a declared ARG"},
	}
	for _, c := range cases {
		got, err := splitShell(c.in, lookup)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("splitShell(%q) error = %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitShell(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestParseCapText(t *testing.T) {
	bind := uint64(1) << 10
	cases := []struct {
		in      string
		want    fileCaps
		wantErr string
	}{
		{in: "cap_net_bind_service=+ep", want: fileCaps{permitted: bind, effective: true}},
		{in: "cap_net_bind_service+ep", want: fileCaps{permitted: bind, effective: true}},
		{in: "cap_net_bind_service=p", want: fileCaps{permitted: bind}},
		{in: "cap_chown,cap_net_bind_service=eip", want: fileCaps{permitted: bind | 1, inheritable: bind | 1, effective: true}},
		{in: "cap_net_bind_service=ep-e", want: fileCaps{permitted: bind}},
		{in: "cap_bogus=+ep", wantErr: `unknown capability "cap_bogus"`},
		{in: "=ep", wantErr: "want cap_name"},
		{in: "cap_chown=+x", wantErr: "unknown flag"},
	}
	for _, c := range cases {
		got, err := parseCapText(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseCapText(%q) error = %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseCapText(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestDecodeCapXattr(t *testing.T) {
	cases := []struct {
		name    string
		in      []byte
		want    fileCaps
		wantErr string
	}{
		{"revision 2, net_bind_service=ep", []byte{1, 0, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, fileCaps{permitted: 1 << 10, effective: true}, ""},
		{"revision 2, high word", []byte{0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0}, fileCaps{permitted: 1 << 39}, ""},
		{"revision 3", []byte{1, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, fileCaps{permitted: 1, effective: true}, ""},
		{"short", []byte{1, 0}, fileCaps{}, "too short"},
		{"wrong length", []byte{1, 0, 0, 2, 0, 4, 0, 0}, fileCaps{}, "not one the kernel writes"},
	}
	for _, c := range cases {
		got, err := decodeCapXattr(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error = %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
