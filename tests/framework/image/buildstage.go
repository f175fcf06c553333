package image

import (
	"path"
	"strings"
)

// buildStage is what a build stage of the Dockerfile builds.
type buildStage struct {
	name  string
	build GoBuild // zero when the stage runs no go build
}

// buildStageState is parseBuildStage's state.
type buildStageState struct {
	r      *Recipe
	args   *stageArgs
	stage  buildStage
	copied bool // COPY . . seen: the stage's working directory is the context
}

// parseBuildStage reads a stage that builds a Go binary from the build
// context: FROM golang:..., ARG, WORKDIR, COPY from the context, RUN go mod
// download and RUN [NAME=VALUE ...] go build ... -o PATH. The image build
// runs that go build in the context directory with the local Go, so any
// other instruction is refused as one it cannot reproduce.
func (r *Recipe) parseBuildStage(st []instruction, used map[string]bool) (buildStage, error) {
	image, name, err := r.fromImage(st[0])
	if err != nil {
		return buildStage{}, err
	}
	if !strings.HasPrefix(image, "golang:") || name == "" {
		return buildStage{}, r.lineError(st[0], "a build stage must be FROM golang:VERSION AS NAME: the image build runs its go build with the local Go")
	}
	s := buildStageState{r: r, args: &stageArgs{values: map[string]string{}, overrides: r.overrides, used: used}}
	s.stage.name = name
	for _, in := range st[1:] {
		if err := s.instruction(in); err != nil {
			return buildStage{}, err
		}
	}
	return s.stage, nil
}

func (s *buildStageState) instruction(in instruction) error {
	r := s.r
	switch in.keyword {
	case "ARG":
		return r.declare(s.args, in)
	case "WORKDIR":
		if s.copied || !path.IsAbs(in.rest) || strings.ContainsAny(in.rest, " $") {
			return r.lineError(in, "want one absolute WORKDIR before COPY . .")
		}
	case "COPY":
		return s.copy(in)
	case "RUN":
		return s.run(in)
	default:
		return r.lineError(in, "%s in build stage %s is not reproduced by the image build; teach tests/framework/image to reproduce it before using it", in.keyword, s.stage.name)
	}
	return nil
}

// copy accepts copies from the build context into the working directory;
// after `COPY . .` the stage's working directory holds the whole context.
func (s *buildStageState) copy(in instruction) error {
	w := strings.Fields(in.rest)
	if len(w) < 2 || strings.HasPrefix(w[0], "--") || (w[len(w)-1] != "." && w[len(w)-1] != "./") {
		return s.r.lineError(in, "want COPY SOURCE... ./ from the build context, without flags")
	}
	if len(w) == 2 && w[0] == "." {
		s.copied = true
	}
	return nil
}

// run accepts `go mod download` and one `go build`.
func (s *buildStageState) run(in instruction) error {
	cmds, err := splitShell(in.rest, s.args.lookup)
	if err != nil {
		return s.r.lineError(in, "%v", err)
	}
	if len(cmds) != 1 {
		return s.r.lineError(in, "want one command per RUN in a build stage")
	}
	c := cmds[0]
	if strings.Join(c, " ") == "go mod download" {
		return nil
	}
	env := c
	for len(c) > 0 && strings.Contains(c[0], "=") && validName(strings.SplitN(c[0], "=", 2)[0]) {
		c = c[1:]
	}
	env = env[:len(env)-len(c)]
	if len(c) < 2 || c[0] != "go" || c[1] != "build" {
		return s.r.lineError(in, "command %q is not reproduced by the image build (it knows go mod download and go build)", strings.Join(c, " "))
	}
	if !s.copied || s.stage.build.Output != "" {
		return s.r.lineError(in, "want one go build, after COPY . .")
	}
	return s.goBuild(in, env, c[1:])
}

// goBuild records the go build, taking -o out of its arguments.
func (s *buildStageState) goBuild(in instruction, env, args []string) error {
	b := GoBuild{Env: env}
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-o" && i+1 < len(args):
			b.Output = args[i+1]
			i++
		case strings.HasPrefix(args[i], "-o="):
			b.Output = strings.TrimPrefix(args[i], "-o=")
		default:
			b.Args = append(b.Args, args[i])
		}
	}
	if !path.IsAbs(b.Output) || strings.HasSuffix(b.Output, "/") {
		return s.r.lineError(in, "go build needs -o /ABSOLUTE/FILE, which the final stage copies")
	}
	s.stage.build = b
	return nil
}
