package runtime

import (
	"slices"
	"testing"
)

// TestCertificateCommands: the runtime API commands of each certificate
// update, with the payload the certificate's content or the crt-list entry
// gives them, and the answers that mean success.
func TestCertificateCommands(t *testing.T) {
	const pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
	tests := []struct {
		name string
		u    CertificateUpdate
		want []runtimeCommand
	}{
		{"set", CertificateUpdate{Op: CertificateSet, Name: "/w/certs/ns_a.pem", File: "certs/ns_a.pem"}, []runtimeCommand{
			{"set ssl cert /w/certs/ns_a.pem <<\n" + pem, "Transaction "},
			{"commit ssl cert /w/certs/ns_a.pem", "Success!"}}},
		{"new", CertificateUpdate{Op: CertificateNew, Name: "/w/certs/ns_a.pem", File: "certs/ns_a.pem"}, []runtimeCommand{
			{"new ssl cert /w/certs/ns_a.pem", "New empty certificate store"},
			{"set ssl cert /w/certs/ns_a.pem <<\n" + pem, "Transaction "},
			{"commit ssl cert /w/certs/ns_a.pem", "Success!"}}},
		{"delete", CertificateUpdate{Op: CertificateDelete, Name: "/w/certs/ns_a.pem"}, []runtimeCommand{
			{"del ssl cert /w/certs/ns_a.pem", "deleted!"}}},
		{"add entry", CertificateUpdate{Op: CrtListAdd, Name: "/w/certs/ns_a.pem", CrtList: "/w/conf/crt-list",
			Entry: "/w/certs/ns_a.pem [alpn h2,http/1.1] a.example.com"}, []runtimeCommand{
			{"add ssl crt-list /w/conf/crt-list <<\n/w/certs/ns_a.pem [alpn h2,http/1.1] a.example.com\n", "Success!"}}},
		{"delete entry", CertificateUpdate{Op: CrtListDelete, Name: "/w/certs/ns_a.pem", CrtList: "/w/conf/crt-list"}, []runtimeCommand{
			{"del ssl crt-list /w/conf/crt-list /w/certs/ns_a.pem", "deleted in crtlist"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := certificateCommands(tt.u, []byte(pem+"\n")); !slices.Equal(got, tt.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
	answer := "Committing /w/certs/ns_a.pem.\nunable to load SSL certificate into SSL Context '/w/certs/ns_a.pem'.\nFailed!\n\n"
	if got, want := refusal(answer), "unable to load SSL certificate into SSL Context '/w/certs/ns_a.pem'."; got != want {
		t.Errorf("refusal = %q, want %q", got, want)
	}
	loads := []CertificateUpdate{{Op: CertificateSet}, {Op: CertificateNew}, {Op: CertificateDelete}, {Op: CrtListAdd}, {Op: CrtListDelete}}
	if n := certificateLoads(loads); n != 2 {
		t.Errorf("certificateLoads = %d, want 2 (set and new)", n)
	}
}
