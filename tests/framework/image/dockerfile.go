package image

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Recipe is what the Dockerfile's final stage puts into the image, in the
// terms the image build reproduces it in. ReadDockerfile fills it and
// refuses any Dockerfile it could not reproduce exactly.
type Recipe struct {
	// Path is the Dockerfile read; its directory is the build context.
	Path string
	// Base is the final stage's FROM image, Suite the Debian suite that
	// mmdebstrap builds in its place.
	Base, Suite string
	// Packages are the final stage's apt-get install arguments, in order.
	Packages []string
	// Setcap are the final stage's setcap steps, in order.
	Setcap []Setcap
	// Binary is the final stage's only COPY: a file built in a build stage.
	Binary Copy
	// Build is how the stage Binary comes from builds it.
	Build GoBuild
	// User and Entrypoint are the image config's.
	User       string
	Entrypoint []string
	// Labels are the final stage's LABELs with its ARGs substituted.
	Labels map[string]string
	// Args are the final stage's ARGs: their defaults, or what WithArgs set.
	Args map[string]string

	text      string            // the Dockerfile, kept so WithArgs can read it again
	overrides map[string]string // what WithArgs set, as docker build --build-arg
}

// Setcap is one `setcap CAPABILITIES PATH` step of the final stage.
type Setcap struct {
	Capabilities string // as written, e.g. cap_net_bind_service=+ep
	Path         string
}

// Copy is `COPY --from=STAGE SOURCE DEST`.
type Copy struct {
	Stage, Source, Dest string
}

// GoBuild is the build stage's `go build`, run from the build context.
type GoBuild struct {
	// Env holds the NAME=VALUE words before `go`, e.g. CGO_ENABLED=0.
	Env []string
	// Args are the words after `go`, without -o and its path.
	Args []string
	// Output is the -o path inside the build stage.
	Output string
}

// debianSuites maps the bases the image build can stand in for to the
// Debian suite mmdebstrap builds from the machine's apt sources.
var debianSuites = map[string]string{
	"debian:12":            "bookworm",
	"debian:12-slim":       "bookworm",
	"debian:bookworm":      "bookworm",
	"debian:bookworm-slim": "bookworm",
}

// ReadDockerfile reads the Dockerfile at path and returns what its final
// stage builds. It understands only what the image build can reproduce and
// names the line and instruction of anything else, so that a change to the
// Dockerfile fails the tests' image build instead of drifting from it.
func ReadDockerfile(path string) (*Recipe, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the Dockerfile: %w", err)
	}
	return parseDockerfile(path, string(text), nil)
}

// WithArgs returns the recipe read again with args set as `docker build
// --build-arg NAME=VALUE` sets them (e.g. VERSION and COMMIT, which the
// labels and the binary's version carry). An arg no stage declares is an
// error, as a misspelt one would otherwise be silently ignored.
func (r *Recipe) WithArgs(args map[string]string) (*Recipe, error) {
	merged := map[string]string{}
	for k, v := range r.overrides {
		merged[k] = v
	}
	for k, v := range args {
		merged[k] = v
	}
	return parseDockerfile(r.Path, r.text, merged)
}

// instruction is one logical line of a Dockerfile.
type instruction struct {
	line    int    // where it starts, 1-based
	keyword string // upper case
	rest    string // the text after the keyword, continuations joined
}

// lineError names the Dockerfile, line and instruction of a refusal.
func (r *Recipe) lineError(in instruction, format string, a ...any) error {
	text := in.keyword + " " + in.rest
	if len(text) > 70 {
		text = text[:67] + "..."
	}
	return fmt.Errorf("%s:%d: %s: %s", r.Path, in.line, text, fmt.Sprintf(format, a...))
}

// escapeDirective is the parser directive that changes the line
// continuation character, which instructions does not follow.
var escapeDirective = regexp.MustCompile(`^#\s*(?i:escape)\s*=`)

// instructions splits a Dockerfile into logical lines: comment lines go
// (also inside continuations, as Docker drops them) and lines ending in a
// backslash continue on the next.
func (r *Recipe) instructions(text string) ([]instruction, error) {
	var out []instruction
	var cur *instruction
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if escapeDirective.MatchString(trimmed) && len(out) == 0 {
			return nil, fmt.Errorf("%s:%d: %s: the escape directive is not supported by tests/framework/image", r.Path, i+1, trimmed)
		}
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur == nil) {
			continue
		}
		cont := strings.HasSuffix(trimmed, "\\")
		trimmed = strings.TrimSuffix(trimmed, "\\")
		if cur == nil {
			keyword, rest, _ := strings.Cut(trimmed, " ")
			cur = &instruction{line: i + 1, keyword: strings.ToUpper(keyword), rest: strings.TrimSpace(rest)}
		} else if trimmed != "" {
			cur.rest = strings.TrimSpace(cur.rest + " " + trimmed)
		}
		if !cont {
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out, nil
}

// parseDockerfile reads every stage: the build stages for the `go build`
// the final COPY takes its file from, the final stage for the image.
func parseDockerfile(path, text string, overrides map[string]string) (*Recipe, error) {
	r := &Recipe{Path: path, text: text, overrides: overrides, Labels: map[string]string{}}
	ins, err := r.instructions(text)
	if err != nil {
		return nil, err
	}
	stages, err := r.splitStages(ins)
	if err != nil {
		return nil, err
	}
	builds := map[string]buildStage{}
	used := map[string]bool{}
	for _, st := range stages[:len(stages)-1] {
		b, err := r.parseBuildStage(st, used)
		if err != nil {
			return nil, err
		}
		builds[b.name] = b
	}
	if err := r.parseFinalStage(stages[len(stages)-1], builds, used); err != nil {
		return nil, err
	}
	for name := range overrides {
		if !used[name] {
			return nil, fmt.Errorf("%s: build arg %s is declared by no stage (ARG %s); check its spelling", path, name, name)
		}
	}
	return r, nil
}

// splitStages cuts the instructions at each FROM.
func (r *Recipe) splitStages(ins []instruction) ([][]instruction, error) {
	var stages [][]instruction
	for _, in := range ins {
		if in.keyword == "FROM" {
			stages = append(stages, nil)
		} else if len(stages) == 0 {
			return nil, r.lineError(in, "%s before the first FROM is not supported by the image build (tests/framework/image)", in.keyword)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	if len(stages) < 2 {
		return nil, fmt.Errorf("%s: need a build stage and a final stage, found %d stage(s)", r.Path, len(stages))
	}
	return stages, nil
}

// stageArgs holds the ARGs a stage has declared so far.
type stageArgs struct {
	values    map[string]string
	overrides map[string]string
	used      map[string]bool
}

func (a *stageArgs) lookup(name string) (string, bool) {
	v, ok := a.values[name]
	return v, ok
}

// declare handles `ARG NAME[=DEFAULT]`.
func (r *Recipe) declare(a *stageArgs, in instruction) error {
	words, err := splitShell(in.rest, a.lookup)
	if err != nil || len(words) != 1 || len(words[0]) != 1 {
		return r.lineError(in, "want ARG NAME or ARG NAME=DEFAULT (one per line)")
	}
	name, value, _ := strings.Cut(words[0][0], "=")
	if !validName(name) {
		return r.lineError(in, "%q is not an ARG name", name)
	}
	if v, ok := a.overrides[name]; ok {
		value = v
		a.used[name] = true
	}
	a.values[name] = value
	return nil
}

// fromImage reads `FROM IMAGE [AS NAME]`.
func (r *Recipe) fromImage(in instruction) (image, name string, err error) {
	f := strings.Fields(in.rest)
	switch {
	case len(f) == 1:
		return f[0], "", nil
	case len(f) == 3 && strings.EqualFold(f[1], "AS"):
		return f[0], f[2], nil
	}
	return "", "", r.lineError(in, "want FROM IMAGE or FROM IMAGE AS NAME (no flags, no ARG in the image name)")
}

// parseFinalStage fills the recipe from the stage that becomes the image.
func (r *Recipe) parseFinalStage(st []instruction, builds map[string]buildStage, used map[string]bool) error {
	base, _, err := r.fromImage(st[0])
	if err != nil {
		return err
	}
	suite, ok := debianSuites[base]
	if !ok {
		return r.lineError(st[0], "base image %s is not supported: the image build stands in for %s with mmdebstrap", base, strings.Join(sortedKeys(debianSuites), ", "))
	}
	r.Base, r.Suite = base, suite
	args := &stageArgs{values: map[string]string{}, overrides: r.overrides, used: used}
	f := finalStage{r: r, args: args, builds: builds}
	for _, in := range st[1:] {
		if err := f.instruction(in); err != nil {
			return err
		}
	}
	r.Args = args.values
	return f.complete(st[0])
}

// finalStage is parseFinalStage's state.
type finalStage struct {
	r         *Recipe
	args      *stageArgs
	builds    map[string]buildStage
	installed bool // apt-get install seen
	copied    bool // COPY seen
}

func (f *finalStage) instruction(in instruction) error {
	r := f.r
	switch in.keyword {
	case "ARG":
		return r.declare(f.args, in)
	case "LABEL":
		return f.label(in)
	case "RUN":
		return f.run(in)
	case "COPY":
		return f.copy(in)
	case "USER":
		if r.User != "" || len(strings.Fields(in.rest)) != 1 || strings.Contains(in.rest, "$") {
			return r.lineError(in, "want one USER UID[:GID] without variables")
		}
		r.User = in.rest
	case "ENTRYPOINT":
		if len(r.Entrypoint) > 0 || json.Unmarshal([]byte(in.rest), &r.Entrypoint) != nil || len(r.Entrypoint) == 0 {
			return r.lineError(in, `want one ENTRYPOINT in exec form, ["/path", "arg", ...]`)
		}
	default:
		return r.lineError(in, "%s in the final stage is not reproduced by the image build; teach tests/framework/image to reproduce it before using it", in.keyword)
	}
	return nil
}

// complete checks that the stage gave the image everything it needs.
func (f *finalStage) complete(from instruction) error {
	r := f.r
	switch {
	case !f.copied:
		return r.lineError(from, "the final stage has no COPY --from of the routeshift binary")
	case !f.installed:
		return r.lineError(from, "the final stage installs no packages (RUN apt-get install ...)")
	case r.User == "" || len(r.Entrypoint) == 0:
		return r.lineError(from, "the final stage needs a USER and an ENTRYPOINT")
	}
	return nil
}

// label handles `LABEL KEY=VALUE ...`, with the stage's ARGs substituted.
func (f *finalStage) label(in instruction) error {
	words, err := splitShell(in.rest, f.args.lookup)
	if err != nil {
		return f.r.lineError(in, "%v", err)
	}
	if len(words) != 1 {
		return f.r.lineError(in, "want LABEL KEY=VALUE ...")
	}
	for _, w := range words[0] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return f.r.lineError(in, "want LABEL KEY=VALUE ..., got %q", w)
		}
		f.r.Labels[k] = v
	}
	return nil
}

// copy handles the one `COPY --from=STAGE SOURCE DEST` the image has.
func (f *finalStage) copy(in instruction) error {
	r := f.r
	w := strings.Fields(in.rest)
	if f.copied || len(w) != 3 || !strings.HasPrefix(w[0], "--from=") {
		return r.lineError(in, "want one COPY --from=STAGE SOURCE DEST (the binary a build stage builds); other files are not reproduced by the image build")
	}
	c := Copy{Stage: strings.TrimPrefix(w[0], "--from="), Source: w[1], Dest: w[2]}
	if !path.IsAbs(c.Dest) || path.Clean(c.Dest) != c.Dest || strings.HasSuffix(w[2], "/") {
		return r.lineError(in, "want an absolute destination file name, got %q", c.Dest)
	}
	b, ok := f.builds[c.Stage]
	if !ok || b.build.Output == "" {
		return r.lineError(in, "stage %q is not a build stage with a go build", c.Stage)
	}
	if b.build.Output != c.Source {
		return r.lineError(in, "stage %s builds %s, not %s", c.Stage, b.build.Output, c.Source)
	}
	r.Binary, r.Build, f.copied = c, b.build, true
	return nil
}

// run handles the final stage's RUN: apt-get update, apt-get install,
// setcap and the removal of apt's lists, joined by &&.
func (f *finalStage) run(in instruction) error {
	cmds, err := splitShell(in.rest, f.args.lookup)
	if err != nil {
		return f.r.lineError(in, "%v", err)
	}
	updated, cleaned := false, false
	for _, c := range cmds {
		switch {
		case len(c) == 2 && c[0] == "apt-get" && c[1] == "update":
			updated = true
		case len(c) > 1 && c[0] == "apt-get" && c[1] == "install":
			if !updated || cleaned {
				return f.r.lineError(in, "apt-get install must follow apt-get update and precede rm -rf /var/lib/apt/lists/* in the same RUN")
			}
			if err := f.install(in, c[2:]); err != nil {
				return err
			}
		case len(c) > 0 && c[0] == "setcap":
			if err := f.setcap(in, c); err != nil {
				return err
			}
		case strings.Join(c, " ") == "rm -rf /var/lib/apt/lists/*":
			cleaned = true
		default:
			return f.r.lineError(in, "command %q is not reproduced by the image build (it knows apt-get update, apt-get install -y --no-install-recommends, setcap and rm -rf /var/lib/apt/lists/*)", strings.Join(c, " "))
		}
	}
	if updated && !cleaned {
		return f.r.lineError(in, "a RUN with apt-get update must end with rm -rf /var/lib/apt/lists/*, as the image build removes them")
	}
	return nil
}

var debianPackage = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)

// install reads apt-get install's flags and packages.
func (f *finalStage) install(in instruction, words []string) error {
	if len(f.r.Setcap) > 0 {
		return f.r.lineError(in, "apt-get install after setcap is not reproduced: the image build installs every package before the setcap steps")
	}
	norecommends := false
	for _, w := range words {
		switch {
		case w == "-y" || w == "--yes":
		case w == "--no-install-recommends":
			norecommends = true
		case strings.HasPrefix(w, "-"):
			return f.r.lineError(in, "apt-get install flag %s is not reproduced by the image build", w)
		case !debianPackage.MatchString(w):
			return f.r.lineError(in, "%q is not a plain package name (versions, releases and globs are not reproduced)", w)
		default:
			f.r.Packages = append(f.r.Packages, w)
		}
	}
	if !norecommends {
		return f.r.lineError(in, "apt-get install without --no-install-recommends is not reproduced: mmdebstrap installs no recommended packages")
	}
	if len(f.r.Packages) == 0 {
		return f.r.lineError(in, "apt-get install names no package")
	}
	f.installed = true
	return nil
}

// setcap reads `setcap CAPABILITIES PATH`.
func (f *finalStage) setcap(in instruction, c []string) error {
	if len(c) != 3 || !path.IsAbs(c[2]) || path.Clean(c[2]) != c[2] {
		return f.r.lineError(in, "want setcap CAPABILITIES /ABSOLUTE/PATH, got %q", strings.Join(c, " "))
	}
	if _, err := parseCapText(c[1]); err != nil {
		return f.r.lineError(in, "%v", err)
	}
	if !f.installed {
		return f.r.lineError(in, "setcap before apt-get install is not reproduced: the image build installs every package first")
	}
	f.r.Setcap = append(f.r.Setcap, Setcap{Capabilities: c[1], Path: c[2]})
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
