package runtime

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// RefusedError is HAProxy refusing a configuration: haproxy -c ran and
// found errors in it. Words is what HAProxy printed.
type RefusedError struct {
	Words string
	Err   error
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%v: %s", e.Err, e.Words) }

func (e *RefusedError) Unwrap() error { return e.Err }

// Alerts are the lines of HAProxy's words that say what is wrong, without
// their "[ALERT] (pid) : config : " prefix and without the closing
// summaries ("Error(s) found in configuration file", "Fatal errors found
// in configuration.").
func (e *RefusedError) Alerts() []string {
	var out []string
	for line := range strings.SplitSeq(e.Words, "\n") {
		_, rest, ok := strings.Cut(line, "[ALERT]")
		if !ok {
			continue
		}
		if i := strings.Index(rest, " : "); i >= 0 {
			rest = rest[i+3:]
		}
		rest = strings.TrimPrefix(strings.TrimSpace(rest), "config : ")
		if strings.HasPrefix(rest, "Error(s) found in configuration file") || strings.HasPrefix(rest, "Fatal errors found in configuration") {
			continue
		}
		out = append(out, rest)
	}
	return out
}

// Check runs haproxy -c on the configuration in dir, whose -f arguments
// (relative to dir) are configArgs. It returns a *RefusedError when HAProxy
// refuses it, and another error when HAProxy could not be run. A
// configuration without errors but without a listener (exit status 2) is
// accepted: it loads. It runs without -q, which would hide why HAProxy
// refuses a configuration.
func Check(haproxy, dir string, configArgs []string) error {
	return CheckContext(context.Background(), haproxy, dir, configArgs)
}

// CheckContext is Check, stopping HAProxy when ctx ends (the error is
// then ctx's).
func CheckContext(ctx context.Context, haproxy, dir string, configArgs []string) error {
	args := []string{"-c"}
	for _, f := range configArgs {
		args = append(args, "-f", filepath.Join(dir, f))
	}
	out, err := exec.CommandContext(ctx, haproxy, args...).CombinedOutput()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case err == nil, errors.As(err, &exit) && exit.ExitCode() == 2:
		return nil
	case errors.As(err, &exit):
		return &RefusedError{Words: strings.TrimSpace(string(out)), Err: err}
	}
	return fmt.Errorf("running %s -c: %w", haproxy, err)
}
