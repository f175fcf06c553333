package node

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/routeshift/routeshift/certs"
)

// validity of every certificate of a node: longer than any test, and than
// a person trying the manifests by hand with `make cluster` would keep one.
const validity = 30 * 24 * time.Hour

// identity is a client certificate the API server maps to a user and its
// groups, and the kubeconfig file that presents it.
type identity struct {
	file   string
	user   string
	groups []string
}

// identities of the components, in the names the API server's bootstrap
// RBAC (and the Node authorizer, for the kubelet) expects.
var identities = []identity{
	{file: "admin", user: "routeshift-node-admin", groups: []string{"system:masters"}},
	{file: "controller-manager", user: "system:kube-controller-manager"},
	{file: "scheduler", user: "system:kube-scheduler"},
	{file: "kube-proxy", user: "system:kube-proxy"},
	{file: "kubelet", user: "system:node:" + Name, groups: []string{"system:nodes"}},
	// The API server's client certificate towards kubelets (logs, exec).
	{file: "apiserver-kubelet-client", user: "kube-apiserver-kubelet-client", groups: []string{"system:masters"}},
}

// writePKI makes the node's CA, the serving certificates of the API server
// and the kubelet, the service-account signing key and one client
// certificate and kubeconfig per identity, into dir (keys 0600).
func writePKI(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := certs.NewCA("routeshift node CA")
	if err != nil {
		return err
	}
	// ca.key lets kube-controller-manager sign CertificateSigningRequests.
	files := map[string][]byte{"ca.crt": ca.CertPEM, "ca.key": ca.KeyPEM}
	apiserver, err := ca.Issue(certs.Options{CommonName: "kube-apiserver", Validity: validity,
		DNSNames: []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost"},
		IPs:      []net.IP{net.ParseIP(NodeIP), net.ParseIP(APIServerServiceIP), net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		return err
	}
	files["apiserver.crt"], files["apiserver.key"] = apiserver.CertPEM, apiserver.KeyPEM
	kubelet, err := ca.Issue(certs.Options{CommonName: Name, Validity: validity,
		DNSNames: []string{Name}, IPs: []net.IP{net.ParseIP(NodeIP)}})
	if err != nil {
		return err
	}
	files["kubelet-serving.crt"], files["kubelet-serving.key"] = kubelet.CertPEM, kubelet.KeyPEM
	signer, err := certs.Generate(certs.Options{CommonName: "service-account-signer", Validity: validity}, nil)
	if err != nil {
		return err
	}
	files["sa.crt"], files["sa.key"] = signer.CertPEM, signer.KeyPEM
	for _, id := range identities {
		kp, err := ca.Issue(certs.Options{CommonName: id.user, Organization: id.groups, ClientAuth: true, Validity: validity})
		if err != nil {
			return err
		}
		files[id.file+".crt"], files[id.file+".key"] = kp.CertPEM, kp.KeyPEM
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	for _, id := range identities {
		if err := writeKubeconfig(dir, id.file, ca.CertPEM, files[id.file+".crt"], files[id.file+".key"]); err != nil {
			return err
		}
	}
	return nil
}

// writeKubeconfig writes dir/<name>.kubeconfig for the API server on the
// node's address, with the certificates embedded.
func writeKubeconfig(dir, name string, ca, cert, key []byte) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[Name] = &clientcmdapi.Cluster{Server: fmt.Sprintf("https://%s:%d", NodeIP, APIServerPort), CertificateAuthorityData: ca}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts[Name] = &clientcmdapi.Context{Cluster: Name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = Name
	return clientcmd.WriteToFile(*cfg, filepath.Join(dir, name+".kubeconfig"))
}
