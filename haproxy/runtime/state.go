package runtime

import "time"

// Disk says how the files in the working directory relate to the
// configuration HAProxy runs.
type Disk int

const (
	// DiskLoaded: the files are what HAProxy runs (or nothing has been
	// written yet).
	DiskLoaded Disk = iota
	// DiskHeld: the files hold a newer configuration than HAProxy runs,
	// written and waiting to be loaded (RELOAD_INTERVAL).
	DiskHeld
	// DiskUnknown: writing, checking or loading a configuration failed:
	// the files and what HAProxy runs may differ from any rendering. The
	// next configuration is written in full against the last good files
	// and loaded by a reload.
	DiskUnknown
)

func (d Disk) String() string { return [...]string{"loaded", "held", "unknown"}[d] }

// State is everything the Process decides with: whether HAProxy runs and
// serves a complete configuration, how the files on disk relate to it, and
// how many attempts in a row have failed. Its methods are its transitions;
// they decide, the Process acts.
type State struct {
	// Started: HAProxy's master process has been started.
	Started bool
	// Ready: HAProxy serves a complete configuration (from a synced
	// snapshot).
	Ready bool
	Disk  Disk
	// HeldComplete: the held configuration (Disk is DiskHeld) is
	// complete; loading it makes HAProxy ready.
	HeldComplete bool
	// Failures counts the consecutive failed attempts to apply the latest
	// configuration; while there are any, it is applied again after
	// RetryDelay.
	Failures int
}

// Step is what the Process does after a transition.
type Step int

const (
	// StepNone: nothing more.
	StepNone Step = iota
	// StepRuntimeAPI: apply the server updates through the runtime API;
	// the written files need no load.
	StepRuntimeAPI
	// StepLoadNow: check the held configuration and load it now (start
	// HAProxy, or reload it).
	StepLoadNow
	// StepLoadWhenDue: load the held configuration once RELOAD_INTERVAL
	// has passed since the last load.
	StepLoadWhenDue
)

func (s Step) String() string {
	return [...]string{"none", "runtime API", "load now", "load when due"}[s]
}

// hold is s with a configuration written and waiting to be loaded.
func (s State) hold(complete bool) State {
	s.Disk, s.HeldComplete = DiskHeld, complete
	return s
}

// forget is s with the files on disk of unknown relation to HAProxy, and
// nothing held.
func (s State) forget() State {
	s.Disk, s.HeldComplete = DiskUnknown, false
	return s
}

// Written: the latest configuration has been written to disk; reload says
// whether the renderer asks for a reload. A configuration is loaded at
// once when HAProxy does not run yet, and when it is the first complete
// one (an empty configuration bound the ports, and every request gets a
// 503 until then); otherwise no sooner than RELOAD_INTERVAL after the last
// load. Server changes alone go through the runtime API, unless a held or
// failed configuration is to be loaded anyway.
func (s State) Written(reload, complete bool) (State, Step) {
	switch {
	case !s.Started:
		return s.hold(complete), StepLoadNow
	case !reload && s.Disk == DiskLoaded:
		return s, StepRuntimeAPI
	case complete && !s.Ready:
		return s.hold(complete), StepLoadNow
	default:
		return s.hold(complete), StepLoadWhenDue
	}
}

// WriteFailed: writing the files failed part way. Whatever was held is
// forgotten: the next configuration is written in full.
func (s State) WriteFailed() State { return s.forget() }

// RuntimeUpdated: the runtime API applied the server updates.
func (s State) RuntimeUpdated(complete bool) State {
	s.Ready = s.Ready || complete
	return s
}

// CertificateRefused: HAProxy refused a certificate's content through the
// runtime API, part way through the updates: what it runs is known only
// as far as the last good files go, and the next configuration is loaded
// in full. Nothing is held.
func (s State) CertificateRefused() State { return s.forget() }

// RuntimeRefused: HAProxy refused a server update; the files on disk are
// right and are loaded at once instead.
func (s State) RuntimeRefused(complete bool) (State, Step) {
	return s.hold(complete), StepLoadNow
}

// Due is what a tick of RELOAD_INTERVAL does: load a held configuration
// when the interval has passed since the last load.
func (s State) Due(intervalPassed bool) Step {
	if s.Disk == DiskHeld && intervalPassed {
		return StepLoadNow
	}
	return StepNone
}

// ProcessStarted: HAProxy's master process was started.
func (s State) ProcessStarted() State {
	s.Started = true
	return s
}

// Refused: HAProxy refused the held configuration (haproxy -c before a
// start, the master on a reload). The last good files
// are written back; the held configuration is forgotten.
func (s State) Refused() State { return s.forget() }

// LoadFailed: starting or reloading HAProxy failed: it may run an older
// configuration than the files on disk.
func (s State) LoadFailed() State { return s.forget() }

// Loaded: HAProxy loaded the held configuration; healthChecksOff says
// whether the health checks of lone endpoints could then be turned off
// (until they are, HAProxy is not ready).
func (s State) Loaded(healthChecksOff bool) State {
	s.Ready = s.Ready || (s.HeldComplete && healthChecksOff)
	s.Disk, s.HeldComplete = DiskLoaded, false
	return s
}

// Exited: HAProxy died; it is started again with the files on disk.
func (s State) Exited() State {
	s.Ready = false
	return s
}

// Restarted: HAProxy runs again after it died.
func (s State) Restarted() State {
	s.Ready = true
	return s
}

// Stopped: HAProxy was stopped.
func (s State) Stopped() State {
	s.Ready = false
	return s
}

// Failed: an attempt to apply the latest configuration failed.
func (s State) Failed() State {
	s.Failures++
	return s
}

// Applied: the latest configuration was applied.
func (s State) Applied() State {
	s.Failures = 0
	return s
}

// maxRetryDelay caps the backoff between attempts to apply a configuration
// that failed (unless RELOAD_INTERVAL is longer).
const maxRetryDelay = 2 * time.Minute

// RetryDelay is how long to wait before applying the latest configuration
// again after the n-th consecutive failure: RELOAD_INTERVAL, doubled with
// each further failure, at most maxRetryDelay.
func RetryDelay(interval time.Duration, n int) time.Duration {
	limit := max(maxRetryDelay, interval)
	d := interval
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
