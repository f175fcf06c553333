package runtime

import (
	"testing"
	"time"
)

// TestStateTransitions: every transition of State, from the states it can
// be in, to the state and step it must give.
func TestStateTransitions(t *testing.T) {
	var (
		notStarted = State{}
		running    = State{Started: true, Ready: true, Disk: DiskLoaded}
		unsynced   = State{Started: true, Disk: DiskLoaded} // serves the empty model that bound the ports
		held       = State{Started: true, Ready: true, Disk: DiskHeld, HeldComplete: true}
		heldFirst  = State{Started: true, Disk: DiskHeld}
		unknown    = State{Started: true, Ready: true, Disk: DiskUnknown, Failures: 1}
		failing    = State{Started: true, Ready: true, Disk: DiskLoaded, Failures: 3}
	)
	type step = func(State) (State, Step)
	only := func(f func(State) State) step { return func(s State) (State, Step) { return f(s), StepNone } }
	tests := []struct {
		name     string
		from     State
		event    step
		want     State
		wantStep Step
	}{
		// Written: where a written configuration goes.
		{"first configuration starts HAProxy", notStarted, func(s State) (State, Step) { return s.Written(true, false) },
			State{Disk: DiskHeld}, StepLoadNow},
		{"first complete configuration starts HAProxy", notStarted, func(s State) (State, Step) { return s.Written(true, true) },
			State{Disk: DiskHeld, HeldComplete: true}, StepLoadNow},
		{"servers alone: runtime API", running, func(s State) (State, Step) { return s.Written(false, true) },
			running, StepRuntimeAPI},
		{"servers alone while held: loaded with the held one", held, func(s State) (State, Step) { return s.Written(false, true) },
			held, StepLoadWhenDue},
		{"servers alone after a failure: reloaded", unknown, func(s State) (State, Step) { return s.Written(false, true) },
			State{Started: true, Ready: true, Disk: DiskHeld, HeldComplete: true, Failures: 1}, StepLoadWhenDue},
		{"reload: held until due", running, func(s State) (State, Step) { return s.Written(true, true) },
			held, StepLoadWhenDue},
		{"first complete model: loaded at once", unsynced, func(s State) (State, Step) { return s.Written(true, true) },
			State{Started: true, Disk: DiskHeld, HeldComplete: true}, StepLoadNow},
		{"incomplete model: held until due", unsynced, func(s State) (State, Step) { return s.Written(true, false) },
			State{Started: true, Disk: DiskHeld}, StepLoadWhenDue},
		{"a newer configuration replaces the held one", heldFirst, func(s State) (State, Step) { return s.Written(true, true) },
			State{Started: true, Disk: DiskHeld, HeldComplete: true}, StepLoadNow},

		// Failures on the way.
		{"write failed: nothing held, files unknown", held, only(State.WriteFailed),
			State{Started: true, Ready: true, Disk: DiskUnknown}, StepNone},
		{"refused: nothing held, files unknown", held, only(State.Refused),
			State{Started: true, Ready: true, Disk: DiskUnknown}, StepNone},
		{"load failed: files unknown", held, only(State.LoadFailed),
			State{Started: true, Ready: true, Disk: DiskUnknown}, StepNone},
		{"runtime API refused: loaded at once", running, func(s State) (State, Step) { return s.RuntimeRefused(true) },
			held, StepLoadNow},
		{"certificate refused: files unknown", running, only(State.CertificateRefused),
			State{Started: true, Ready: true, Disk: DiskUnknown}, StepNone},

		// Loads.
		{"runtime update of a complete model: ready", unsynced, only(func(s State) State { return s.RuntimeUpdated(true) }),
			State{Started: true, Ready: true, Disk: DiskLoaded}, StepNone},
		{"runtime update of an incomplete model: not ready", unsynced, only(func(s State) State { return s.RuntimeUpdated(false) }),
			unsynced, StepNone},
		{"started", State{Disk: DiskHeld}, only(State.ProcessStarted), State{Started: true, Disk: DiskHeld}, StepNone},
		{"complete configuration loaded: ready", State{Started: true, Disk: DiskHeld, HeldComplete: true},
			only(func(s State) State { return s.Loaded(true) }), running, StepNone},
		{"loaded, health checks not turned off: not ready yet", State{Started: true, Disk: DiskHeld, HeldComplete: true},
			only(func(s State) State { return s.Loaded(false) }), unsynced, StepNone},
		{"incomplete configuration loaded: not ready", heldFirst, only(func(s State) State { return s.Loaded(true) }),
			unsynced, StepNone},
		{"loaded keeps ready", held, only(func(s State) State { return s.Loaded(false) }), running, StepNone},

		// Ticks of RELOAD_INTERVAL.
		{"tick, due: load", held, func(s State) (State, Step) { return s, s.Due(true) }, held, StepLoadNow},
		{"tick, not due: wait", held, func(s State) (State, Step) { return s, s.Due(false) }, held, StepNone},
		{"tick, nothing held", running, func(s State) (State, Step) { return s, s.Due(true) }, running, StepNone},
		{"tick after a failure: nothing held", unknown, func(s State) (State, Step) { return s, s.Due(true) }, unknown, StepNone},

		// HAProxy's life.
		{"exited: not ready", running, only(State.Exited), unsynced, StepNone},
		{"restarted: ready", unsynced, only(State.Restarted), running, StepNone},
		{"stopped: not ready", running, only(State.Stopped), unsynced, StepNone},

		// Back-off.
		{"failed: one more", failing, only(State.Failed), State{Started: true, Ready: true, Disk: DiskLoaded, Failures: 4}, StepNone},
		{"applied: no failures", failing, only(State.Applied), running, StepNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, step := tt.event(tt.from)
			if got != tt.want || step != tt.wantStep {
				t.Errorf("from %+v:\n got %+v, %v\nwant %+v, %v", tt.from, got, step, tt.want, tt.wantStep)
			}
		})
	}
}

// TestRetryDelay: after a failure the latest configuration is applied
// again after RELOAD_INTERVAL, then twice as long after each further
// failure, never longer than maxRetryDelay unless RELOAD_INTERVAL is.
func TestRetryDelay(t *testing.T) {
	for _, c := range []struct {
		interval time.Duration
		failures int
		want     time.Duration
	}{
		{5 * time.Second, 1, 5 * time.Second},
		{5 * time.Second, 2, 10 * time.Second},
		{5 * time.Second, 3, 20 * time.Second},
		{5 * time.Second, 5, 80 * time.Second},
		{5 * time.Second, 6, maxRetryDelay},
		{5 * time.Second, 1000, maxRetryDelay},
		{time.Second, 1, time.Second},
		{time.Second, 4, 8 * time.Second},
		{10 * time.Minute, 1, 10 * time.Minute},
		{10 * time.Minute, 3, 10 * time.Minute},
	} {
		if got := RetryDelay(c.interval, c.failures); got != c.want {
			t.Errorf("RetryDelay(%v, %d) = %v, want %v", c.interval, c.failures, got, c.want)
		}
	}
}
