package wstest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRoundTrip: RoundTrip against Echo directly gets its message back; a
// server that does not upgrade makes it fail.
func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantErr string
	}{
		{name: "echo", handler: Echo},
		{name: "no upgrade", handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }, wantErr: "upgrade answered 200 OK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewTLSServer(tt.handler)
			defer srv.Close()
			err := RoundTrip(srv.Listener.Addr().String(), "ws.example.com", "hello")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("RoundTrip: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("RoundTrip: %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
}
