package childproc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/routeshift/routeshift/internal/freeport"
)

// The test binary runs itself as the child processes: helperEnv names the
// part it plays.
const helperEnv = "CHILDPROC_TEST_HELPER"

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		helper(role)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper plays role:
//   - serve: answers CHILDPROC_TEST_STATUS (200 unless set) on
//     http://CHILDPROC_TEST_ADDR/healthz, prints CHILDPROC_TEST_GREETING,
//     and exits 0 on SIGTERM;
//   - fail: prints a message and exits with status 3;
//   - group: starts a grandchild in its group that ignores SIGTERM,
//     prints its PID, and exits 0 on SIGTERM or, with
//     CHILDPROC_TEST_ON_TERM=ignore, ignores it;
//   - sleep: ignores SIGTERM and sleeps;
//   - parent: starts a sleep child with Start, ends threads of its own the
//     way the Go runtime does, checks that the child still runs, prints
//     its PID and sleeps.
func helper(role string) {
	switch role {
	case "serve":
		status := http.StatusOK
		if s := os.Getenv("CHILDPROC_TEST_STATUS"); s != "" {
			status, _ = strconv.Atoi(s)
		}
		l, err := net.Listen("tcp", os.Getenv("CHILDPROC_TEST_ADDR"))
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("serving;", os.Getenv("CHILDPROC_TEST_GREETING"))
		terms := make(chan os.Signal, 1)
		signal.Notify(terms, syscall.SIGTERM)
		go func() {
			_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
		}()
		<-terms
	case "fail":
		fmt.Fprintln(os.Stderr, "boom: cannot start")
		os.Exit(3)
	case "group":
		terms := make(chan os.Signal, 1)
		signal.Notify(terms, syscall.SIGTERM)
		if os.Getenv("CHILDPROC_TEST_ON_TERM") == "ignore" {
			signal.Ignore(syscall.SIGTERM)
		}
		grandchild := exec.Command(os.Args[0])
		grandchild.Env = append(os.Environ(), helperEnv+"=sleep")
		if err := grandchild.Start(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Printf("grandchild %d\n", grandchild.Process.Pid)
		<-terms
	case "sleep":
		signal.Ignore(syscall.SIGTERM)
		select {}
	case "parent":
		// Started from a goroutine that ends, as a test's goroutine does,
		// and whose thread the runtime may hand to any goroutine. The main
		// thread is kept out of the way: the runtime never ends it.
		runtime.LockOSThread()
		var child *Process
		var err error
		started := make(chan struct{})
		go func() {
			defer close(started)
			child, err = Start(helperCommand("sleep"), Options{})
		}()
		<-started
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		endThreads()
		time.Sleep(100 * time.Millisecond)
		if exited, err := child.Exited(); exited {
			fmt.Printf("the child died with its thread: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("child %d\n", child.Pid())
		select {}
	default:
		fmt.Fprintf(os.Stderr, "no helper %q\n", role)
		os.Exit(2)
	}
}

// endThreads makes the Go runtime end threads, as it does with the thread
// of a goroutine that exits while locked to it.
func endThreads() {
	for range 200 {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(done)
		}()
		<-done
	}
}

// helperCommand runs the test binary as role, with env added.
func helperCommand(role string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), helperEnv+"="+role), env...)
	return cmd
}

// syncBuffer is a log safe for two output streams.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start starts role and stops it when t ends.
func start(t *testing.T, name, role string, log *syncBuffer, env ...string) *Process {
	t.Helper()
	p, err := Start(helperCommand(role, env...), Options{Name: name, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(time.Second) })
	return p
}

// gone reports whether process pid has ended: it is not there, or a
// zombie its new parent has not reaped yet.
func gone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || strings.HasPrefix(s[i+1:], " Z")
}

// waitGone waits up to 10 s until pid has ended.
func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !gone(pid); {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("%s (PID %d) still runs", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func healthURL(t *testing.T) (addr, url string) {
	t.Helper()
	port, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	addr = "127.0.0.1:" + strconv.Itoa(port)
	return addr, "http://" + addr + "/healthz"
}

// TestWaitHealthy: a child with its environment added to the parent's
// answers 200 on its health URL, writes to the log, and stops cleanly on
// SIGTERM.
func TestWaitHealthy(t *testing.T) {
	addr, url := healthURL(t)
	log := &syncBuffer{}
	p := start(t, "server", "serve", log, "CHILDPROC_TEST_ADDR="+addr, "CHILDPROC_TEST_GREETING=hello from the environment")
	if err := p.WaitHealthy(context.Background(), nil, url, time.Minute); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "hello from the environment") {
		t.Errorf("the log holds %q, want the greeting from the added environment", log.String())
	}
	if !strings.Contains(p.Tail(), "hello from the environment") {
		t.Errorf("Tail = %q, want the greeting", p.Tail())
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Errorf("Stop = %v, want nil: the server exits 0 on SIGTERM", err)
	}
	if exited, err := p.Exited(); !exited || err != nil {
		t.Errorf("Exited = %v, %v after Stop, want true, nil", exited, err)
	}
	waitGone(t, "the server", p.Pid())
}

// TestWaitHealthyExit: a child that exits while it is waited for is
// reported at once, with its exit status, the URL and its output.
func TestWaitHealthyExit(t *testing.T) {
	_, url := healthURL(t)
	p := start(t, "failing", "fail", &syncBuffer{})
	began := time.Now()
	err := p.WaitHealthy(context.Background(), nil, url, time.Minute)
	if err == nil {
		t.Fatal("WaitHealthy = nil for a process that exited")
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("WaitHealthy took %s to notice the exit", took)
	}
	for _, want := range []string{"failing exited with exit status 3 before " + url, "connection refused", "boom: cannot start"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("WaitHealthy = %q, want it to contain %q", err, want)
		}
	}
	var exit *exec.ExitError
	if exited, exitErr := p.Exited(); !exited || !errors.As(exitErr, &exit) || exit.ExitCode() != 3 {
		t.Errorf("Exited = %v, %v, want true and exit status 3", exited, exitErr)
	}
}

// TestWaitHealthyTimeout: a URL that does not answer 200 within the
// timeout fails with the process, the URL, the last answer and the output.
func TestWaitHealthyTimeout(t *testing.T) {
	addr, url := healthURL(t)
	p := start(t, "unhealthy", "serve", &syncBuffer{}, "CHILDPROC_TEST_ADDR="+addr, "CHILDPROC_TEST_STATUS=503")
	err := p.WaitHealthy(context.Background(), nil, url, time.Second)
	if err == nil {
		t.Fatal("WaitHealthy = nil for a URL answering 503")
	}
	for _, want := range []string{"unhealthy not ready after 1s: " + url + ": 503 Service Unavailable", "unhealthy's output ends:\nserving;"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("WaitHealthy = %q, want it to contain %q", err, want)
		}
	}
}

// TestWaitHealthyCanceled: the end of the context ends the wait with its
// error.
func TestWaitHealthyCanceled(t *testing.T) {
	_, url := healthURL(t)
	p := start(t, "sleeper", "sleep", &syncBuffer{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if err := p.WaitHealthy(ctx, nil, url, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitHealthy = %v, want context.Canceled", err)
	}
}

// TestStopGroup: Stop ends the whole group, a member that ignores SIGTERM
// too, both when the leader exits on SIGTERM and when it has to be killed.
func TestStopGroup(t *testing.T) {
	for _, tt := range []struct {
		onTerm  string
		timeout time.Duration
		killed  bool
	}{{"exit", 10 * time.Second, false}, {"ignore", 500 * time.Millisecond, true}} {
		t.Run("leader "+tt.onTerm+"s SIGTERM", func(t *testing.T) {
			log := &syncBuffer{}
			p := start(t, "leader", "group", log, "CHILDPROC_TEST_ON_TERM="+tt.onTerm)
			var grandchild int
			for deadline := time.Now().Add(30 * time.Second); grandchild == 0; time.Sleep(20 * time.Millisecond) {
				if _, err := fmt.Sscanf(log.String(), "grandchild %d", &grandchild); err != nil && time.Now().After(deadline) {
					t.Fatalf("no grandchild: %q", log.String())
				}
			}
			t.Cleanup(func() {
				if !gone(grandchild) {
					_ = syscall.Kill(grandchild, syscall.SIGKILL)
				}
			})
			err := p.Stop(tt.timeout)
			if tt.killed {
				if !errors.Is(err, ErrKilled) || !strings.Contains(err.Error(), "leader did not stop within 500ms of SIGTERM") {
					t.Errorf("Stop = %v, want it killed", err)
				}
			} else if err != nil {
				t.Errorf("Stop = %v, want nil", err)
			}
			waitGone(t, "the leader", p.Pid())
			waitGone(t, "the grandchild that ignores SIGTERM", grandchild)
		})
	}
}

// TestParentDeath: a child started with Start dies when its parent is
// killed, and not before, although the parent's runtime ends threads.
func TestParentDeath(t *testing.T) {
	parent := helperCommand("parent")
	parent.Stderr = os.Stderr
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	var child int
	if _, scanErr := fmt.Sscanf(line, "child %d", &child); scanErr != nil {
		t.Fatalf("the parent says %q (%v)", line, err)
	}
	t.Cleanup(func() {
		if !gone(child) {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if gone(child) {
		t.Fatal("the child ended before its parent")
	}
	_ = parent.Process.Kill()
	_ = parent.Wait()
	waitGone(t, "the child of the killed parent", child)
}

// TestStartError: a program that cannot start is named in the error.
func TestStartError(t *testing.T) {
	_, err := Start(exec.Command("/nonexistent/program"), Options{})
	if err == nil || !strings.Contains(err.Error(), "starting program") {
		t.Errorf("Start = %v, want an error starting program", err)
	}
}

// TestTail: the tail keeps the last bytes, from the start of a line.
func TestTail(t *testing.T) {
	tl := &tail{max: 16}
	for _, s := range []string{"first line\n", "second line\n", "third\n"} {
		_, _ = tl.Write([]byte(s))
	}
	if got, want := tl.String(), "(…)\nthird\n"; got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
	short := &tail{max: 64}
	_, _ = short.Write([]byte("all of it\n"))
	if got := short.String(); got != "all of it\n" {
		t.Errorf("tail = %q, want all of it", got)
	}
}
