package webhook

import (
	"os"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.MainWith(m, framework.Options{ControllerManager: true, Webhook: true}))
}
