package runtime

import (
	"fmt"
	"strings"
)

// CertificateOp is one kind of change to the certificates HAProxy serves
// that its runtime API makes without a reload.
type CertificateOp int

const (
	// CertificateSet loads new content into a certificate HAProxy has
	// loaded (set ssl cert, commit ssl cert): every bind line and crt-list
	// entry that uses it serves the new certificate to new handshakes.
	CertificateSet CertificateOp = iota
	// CertificateNew creates a certificate HAProxy does not have yet and
	// loads its content (new ssl cert, set ssl cert, commit ssl cert), for
	// a crt-list entry to use.
	CertificateNew
	// CertificateDelete removes a certificate no crt-list entry uses any
	// more (del ssl cert).
	CertificateDelete
	// CrtListAdd adds an entry to a crt-list (add ssl crt-list).
	CrtListAdd
	// CrtListDelete removes the entry of a certificate from a crt-list
	// (del ssl crt-list).
	CrtListDelete
)

// CertificateUpdate is one change of HAProxy's certificates through the
// runtime API.
type CertificateUpdate struct {
	Op CertificateOp
	// Name is the certificate as HAProxy knows it: the path of its file as
	// haproxy.cfg or the crt-list names it.
	Name string
	// File is that file relative to the working directory, whose content
	// (in Output.Files) CertificateSet and CertificateNew load.
	File string
	// CrtList is the crt-list as haproxy.cfg names it, and Entry the line
	// CrtListAdd adds ("<certificate> [<options>] <sni>").
	CrtList, Entry string
}

// Loads reports whether the update loads a certificate's content: what
// routeshift_router_certificate_updates_total counts.
func (u CertificateUpdate) Loads() bool { return u.Op == CertificateSet || u.Op == CertificateNew }

// certificateLoads counts the updates that load a certificate's content.
func certificateLoads(updates []CertificateUpdate) int {
	n := 0
	for _, u := range updates {
		if u.Loads() {
			n++
		}
	}
	return n
}

// runtimeCommand is one runtime API command and the text its answer
// contains when it succeeded.
type runtimeCommand struct {
	line, ok string
}

// certificateCommands are the runtime API commands of u; data is the
// certificate file's content (PEM, without empty lines) for the ops that
// load it.
func certificateCommands(u CertificateUpdate, data []byte) []runtimeCommand {
	set := []runtimeCommand{
		{"set ssl cert " + u.Name + " <<\n" + strings.TrimRight(string(data), "\n") + "\n", "Transaction "},
		{"commit ssl cert " + u.Name, "Success!"},
	}
	switch u.Op {
	case CertificateSet:
		return set
	case CertificateNew:
		return append([]runtimeCommand{{"new ssl cert " + u.Name, "New empty certificate store"}}, set...)
	case CertificateDelete:
		return []runtimeCommand{{"del ssl cert " + u.Name, "deleted!"}}
	case CrtListAdd:
		return []runtimeCommand{{"add ssl crt-list " + u.CrtList + " <<\n" + u.Entry + "\n", "Success!"}}
	case CrtListDelete:
		return []runtimeCommand{{"del ssl crt-list " + u.CrtList + " " + u.Name, "deleted in crtlist"}}
	}
	return nil
}

// CertificateRefusedError is HAProxy refusing the content of a
// certificate file through the runtime API (set ssl cert or commit ssl
// cert): a certificate it cannot load, which a reload would refuse too.
// HAProxy keeps serving the certificate it had.
type CertificateRefusedError struct {
	// File is the certificate's file, relative to the working directory.
	File string
	// Message is HAProxy's answer.
	Message string
}

func (e *CertificateRefusedError) Error() string {
	return "HAProxy refuses certificate " + e.File + ": " + e.Message
}

// updateCertificates applies the certificate updates, in order, through
// the runtime API of the current worker. It stops at the first command
// that fails (aborting a certificate transaction it leaves open): the
// later updates may depend on it. HAProxy refusing a certificate's content
// is a *CertificateRefusedError.
func (p *Process) updateCertificates(updates []CertificateUpdate, files map[string]File) error {
	for _, u := range updates {
		for _, c := range certificateCommands(u, files[u.File].Data) {
			out, err := p.master("@1 " + c.line)
			if err == nil && strings.Contains(out, c.ok) {
				continue
			}
			if u.Loads() {
				_, _ = p.master("@1 abort ssl cert " + u.Name)
			}
			verb, _, _ := strings.Cut(c.line, " <<")
			if err != nil {
				return fmt.Errorf("%s: %w", verb, err)
			}
			answer := refusal(out)
			if u.Loads() {
				return &CertificateRefusedError{File: u.File, Message: answer}
			}
			return fmt.Errorf("%s: %s", verb, answer)
		}
	}
	p.metrics.certificateUpdates.WithLabelValues(CertificateUpdateRuntime).Add(float64(certificateLoads(updates)))
	return nil
}

// refusal is the runtime API's answer without its progress lines
// ("Committing …", "Failed!"), on one line.
func refusal(answer string) string {
	var out []string
	for line := range strings.SplitSeq(answer, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "Failed!" && !strings.HasPrefix(line, "Committing ") {
			out = append(out, line)
		}
	}
	return strings.Join(out, " ")
}
