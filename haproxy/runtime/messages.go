package runtime

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/go-logr/logr"
)

// HAProxy's own messages: what its master and workers print on standard
// error, a line each, "[SEVERITY] (pid) : text". HAProxy prints some at
// every reload and stop with the severity WARNING, which no setting
// changes: one "Proxy NAME stopped" per frontend and backend when a
// previous worker stops, and the master's words about workers that
// exited. Passed on as they are, they would bury the warnings that say
// something is wrong, so the router judges each line (Judge) and logs the
// routine ones at debug level.

// Level is how the router logs a line of HAProxy's.
type Level int

const (
	// LevelDebug: NOTICEs and what HAProxy prints at every reload and
	// stop; logged at debug level.
	LevelDebug Level = iota
	// LevelInfo: text that continues no message, logged at info level.
	LevelInfo
	// LevelWarning: a WARNING that says something is wrong; logged at
	// info level with severity WARNING.
	LevelWarning
	// LevelAlert: an ALERT; logged at error level.
	LevelAlert
)

// Message is one line HAProxy printed.
type Message struct {
	// Severity is HAProxy's: NOTICE, WARNING, ALERT (or DIAG), empty for a
	// line without the prefix.
	Severity string
	// PID is the process that printed it (0 without the prefix).
	PID int
	// Text is the line without the prefix.
	Text string
}

var messagePrefix = regexp.MustCompile(`^\[([A-Z]+)\] +\((\d+)\) : `)

// ParseMessage splits a line of HAProxy's output into its parts.
func ParseMessage(line string) Message {
	line = strings.TrimRight(line, "\r\n")
	m := messagePrefix.FindStringSubmatch(line)
	if m == nil {
		return Message{Text: line}
	}
	pid, _ := strconv.Atoi(m[2])
	return Message{Severity: m[1], PID: pid, Text: line[len(m[0]):]}
}

// routineWarnings are the WARNINGs HAProxy 2.6 prints at every reload and
// stop (a previous worker's proxies stopping, workers that exited without
// an error, the master exiting) and about server slots the router puts in
// or out of maintenance through the runtime API (an endpoint went or
// came). HAProxy may put what it was doing first ("CLI : ", "config : ").
var routineWarnings = regexp.MustCompile(`^(?:(?:CLI|config) : )?(?:` +
	`Proxy \S+ stopped \(cumulated conns: FE: \d+, BE: \d+\)\.` +
	`|(?:Former|Current) worker \(\d+\) exited with code 0 \(Exit\)` +
	`|Exiting Master process\.\.\.` +
	`|All workers exited\. Exiting\.\.\. \(0\)` +
	`|Server \S+ is going DOWN for maintenance\. .*` +
	`|Server \S+ is UP/READY \(leaving forced maintenance\)\.` +
	`)$`)

// terminatedWorker is the master's ALERT about a worker that SIGTERM
// ended: Stop sends it to close the connections left.
var terminatedWorker = regexp.MustCompile(`^(?:(?:CLI|config) : )?(?:Former|Current) worker \(\d+\) exited with code 143 \(Terminated\)$`)

// Judge says how the router logs m. stopping says whether the router is
// stopping HAProxy (Stop), which ends workers with SIGTERM.
func (m Message) Judge(stopping bool) Level {
	switch m.Severity {
	case "":
		return LevelInfo
	case "NOTICE":
		return LevelDebug
	case "ALERT":
		if stopping && terminatedWorker.MatchString(m.Text) {
			return LevelDebug
		}
		return LevelAlert
	}
	if routineWarnings.MatchString(m.Text) {
		return LevelDebug
	}
	return LevelWarning
}

var (
	fdLimitAlert      = regexp.MustCompile(`FD limit \((\d+)\) too low for maxconn=(\d+)/maxsock=(\d+)\.`)
	privilegedBinding = regexp.MustCompile(`cannot bind socket \(Permission denied\) for \[.*:(\d+)\]`)
)

// Hint is what to change in the router's deployment for an alert whose
// own words name no setting of the router's, or "".
func (m Message) Hint() string {
	// HAProxy could not raise its open-file limit to what maxconn and the
	// servers' health checks need (the router fits maxconn to the limit
	// with room for about 1,000 checked servers: there are more). Its
	// "ulimit-n" cannot go beyond the hard limit HAProxy inherits.
	if f := fdLimitAlert.FindStringSubmatch(m.Text); f != nil {
		limit, _ := strconv.Atoi(f[1])
		maxconn, _ := strconv.Atoi(f[2])
		need, _ := strconv.Atoi(f[3])
		hint := fmt.Sprintf("HAProxy needs %d open files (2 per connection of maxconn, 1 per health-checked server, some for sockets) "+
			"and gets %d: it refuses connections once they run out. Raise the router container's hard open-file limit "+
			"(nofile: the container runtime's default, LimitNOFILE of its service) to at least %d", need, limit, need)
		if fit := maxconn - (need-limit+fdsPerConnection-1)/fdsPerConnection; fit > 0 {
			hint += fmt.Sprintf(", or lower ROUTER_MAX_CONNECTIONS to %d", fit)
		}
		return hint
	}
	// A port below 1024 needs NET_BIND_SERVICE, which HAProxy, run as
	// another user than root, has only from its file capability.
	if b := privilegedBinding.FindStringSubmatch(m.Text); b != nil {
		if port, _ := strconv.Atoi(b[1]); port < 1024 {
			return fmt.Sprintf("port %d is below 1024: HAProxy needs the capability NET_BIND_SERVICE. The image gives the haproxy binary "+
				"the file capability cap_net_bind_service, which works only in a container that keeps NET_BIND_SERVICE "+
				"(securityContext.capabilities.add) and allows privilege escalation (allowPrivilegeEscalation: true), as the "+
				"host-network overlay sets; or listen on ports from 1024 (ROUTER_SERVICE_HTTP_PORT, ROUTER_SERVICE_HTTPS_PORT)", port)
		}
	}
	return ""
}

// relay passes HAProxy's output on into the router's log, a line at a
// time, at the level Judge gives it. A line without the prefix continues
// the message before it and is logged like it.
type relay struct {
	log      logr.Logger
	stopping func() bool

	mu      sync.Mutex
	partial []byte
	// last is the latest line with the prefix, and level its level.
	last  Message
	level Level
}

func (r *relay) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.partial = append(r.partial, p...)
	for {
		line, rest, ok := bytes.Cut(r.partial, []byte("\n"))
		if !ok {
			break
		}
		r.line(string(line))
		r.partial = rest
	}
	return len(p), nil
}

func (r *relay) line(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	m, level := ParseMessage(line), LevelInfo
	switch {
	case m.Severity == "" && r.last.Severity != "":
		m.Severity, m.PID, level = r.last.Severity, r.last.PID, r.level
	case m.Severity != "":
		level = m.Judge(r.stopping())
		r.last, r.level = m, level
	}
	kv := []any{"severity", m.Severity, "pid", m.PID}
	if hint := m.Hint(); hint != "" {
		kv = append(kv, "hint", hint)
	}
	switch level {
	case LevelDebug:
		r.log.V(1).Info(m.Text, kv...)
	case LevelInfo:
		r.log.Info(m.Text)
	case LevelWarning:
		r.log.Info(m.Text, kv...)
	case LevelAlert:
		r.log.Error(nil, m.Text, kv...)
	}
}
