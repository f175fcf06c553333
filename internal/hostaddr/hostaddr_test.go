package hostaddr

import (
	"errors"
	"net"
	"testing"
)

func TestIsLocal(t *testing.T) {
	own, err := IPv4()
	if err != nil {
		t.Fatalf("IPv4: %v", err)
	}
	tests := []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.2", true},
		{"::1", true},
		{own, true},
		{"192.0.2.1", false}, // TEST-NET-1: documentation only, never assigned
		{"2001:db8::1", false},
	}
	for _, tt := range tests {
		if got := isLocal(net.ParseIP(tt.ip)); got != tt.want {
			t.Errorf("isLocal(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
}

// peerConn is a connection from a chosen address.
type peerConn struct {
	net.Conn
	peer net.Addr
}

func (c peerConn) RemoteAddr() net.Addr { return c.peer }

// queue is a listener that hands out given connections, then fails.
type queue struct {
	net.Listener
	conns []net.Conn
}

func (q *queue) Accept() (net.Conn, error) {
	if len(q.conns) == 0 {
		return nil, errors.New("no more connections")
	}
	c := q.conns[0]
	q.conns = q.conns[1:]
	return c, nil
}

func TestLocalOnlySkipsRemotePeers(t *testing.T) {
	remote, _ := net.Pipe()
	local, _ := net.Pipe()
	l := LocalOnly(&queue{conns: []net.Conn{
		peerConn{remote, &net.TCPAddr{IP: net.ParseIP("192.0.2.1"), Port: 4000}},
		peerConn{local, &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 4001}},
	}})
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RemoteAddr().String(); got != "127.0.0.1:4001" {
		t.Errorf("accepted %s, want the local peer 127.0.0.1:4001", got)
	}
	if _, err := remote.Write([]byte("x")); err == nil {
		t.Error("the remote peer's connection is still open")
	}
	if _, err := l.Accept(); err == nil {
		t.Error("Accept after the last connection returned no error")
	}
}

// A real connection from this machine's own address is served.
func TestLocalOnlyServesThisMachine(t *testing.T) {
	own, err := IPv4()
	if err != nil {
		t.Fatal(err)
	}
	tl, err := net.Listen("tcp", net.JoinHostPort(own, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	l := LocalOnly(tl)
	go func() {
		if c, err := net.Dial("tcp", tl.Addr().String()); err == nil {
			_, _ = c.Write([]byte("hi"))
			c.Close()
		}
	}()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 2)
	if _, err := c.Read(buf); err != nil || string(buf) != "hi" {
		t.Errorf("read %q, %v; want \"hi\"", buf, err)
	}
}
