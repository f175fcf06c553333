package install

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// imagePath is the PATH of the image's base, debian:12-slim.
const imagePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// image is what the Dockerfile's final stage says about the container a
// manifest runs: the test reads it from the Dockerfile so that the two
// cannot drift.
type image struct {
	// Entrypoint is ENTRYPOINT (the exec form).
	Entrypoint []string
	// UID and GID are USER's, the container's user unless the pod names one.
	UID, GID int64
	// FileCaps maps a path in the image to the capabilities setcap gives it
	// there (for example "cap_net_bind_service=+ep").
	FileCaps map[string]string
	// Binary is the path the routeshift binary is copied to.
	Binary string
}

var (
	userLine   = regexp.MustCompile(`(?m)^USER\s+(\d+):(\d+)\s*$`)
	entryLine  = regexp.MustCompile(`(?m)^ENTRYPOINT\s+(\[.*\])\s*$`)
	setcapCall = regexp.MustCompile(`setcap\s+(\S+)\s+(/\S+)`)
	copyBinary = regexp.MustCompile(`(?m)^COPY\s+--from=build\s+\S+/routeshift\s+(/\S+)\s*$`)
)

// readImage reads the final stage of the Dockerfile at path.
func readImage(path string) (image, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return image{}, err
	}
	stage := string(raw)
	if i := strings.LastIndex(stage, "\nFROM "); i >= 0 {
		stage = stage[i:]
	}
	var img image
	m := userLine.FindStringSubmatch(stage)
	if m == nil {
		return image{}, fmt.Errorf("%s: the final stage has no USER UID:GID line", path)
	}
	img.UID, _ = strconv.ParseInt(m[1], 10, 64)
	img.GID, _ = strconv.ParseInt(m[2], 10, 64)
	if m = entryLine.FindStringSubmatch(stage); m == nil {
		return image{}, fmt.Errorf("%s: the final stage has no ENTRYPOINT in exec form", path)
	}
	if err := json.Unmarshal([]byte(m[1]), &img.Entrypoint); err != nil {
		return image{}, fmt.Errorf("%s: ENTRYPOINT: %w", path, err)
	}
	if m = copyBinary.FindStringSubmatch(stage); m == nil {
		return image{}, fmt.Errorf("%s: the final stage does not copy the routeshift binary from the build stage", path)
	}
	img.Binary = m[1]
	img.FileCaps = map[string]string{}
	for _, c := range setcapCall.FindAllStringSubmatch(stage, -1) {
		img.FileCaps[c[2]] = c[1]
	}
	return img, nil
}
