package image

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
)

// capNames are the kernel's capability names by number (linux/capability.h).
var capNames = []string{
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid",
	"setpcap", "linux_immutable", "net_bind_service", "net_broadcast", "net_admin", "net_raw",
	"ipc_lock", "ipc_owner", "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
	"sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time", "sys_tty_config", "mknod",
	"lease", "audit_write", "audit_control", "setfcap", "mac_override", "mac_admin", "syslog",
	"wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
}

// fileCaps is a file capability set: what setcap writes and the kernel
// reads from the security.capability extended attribute.
type fileCaps struct {
	permitted, inheritable uint64 // bit n is capability n
	effective              bool
}

func (c fileCaps) String() string {
	return fmt.Sprintf("permitted %s, inheritable %s, effective %t",
		capList(c.permitted), capList(c.inheritable), c.effective)
}

func capList(mask uint64) string {
	var names []string
	for mask != 0 {
		n := bits.TrailingZeros64(mask)
		names = append(names, "cap_"+capNames[n])
		mask &^= 1 << n
	}
	return "[" + strings.Join(names, ",") + "]"
}

// parseCapText reads the one-clause form setcap takes, CAPS OP FLAGS
// [OP FLAGS]... with CAPS like cap_a,cap_b, OP one of = + - and FLAGS of
// e, i, p, applied to a file that has no capabilities yet.
func parseCapText(text string) (fileCaps, error) {
	opAt := strings.IndexAny(text, "=+-")
	if opAt <= 0 {
		return fileCaps{}, fmt.Errorf("capabilities %q: want cap_name[,cap_name...]=FLAGS", text)
	}
	var mask uint64
	for _, name := range strings.Split(text[:opAt], ",") {
		n := capNumber(name)
		if n < 0 {
			return fileCaps{}, fmt.Errorf("capabilities %q: unknown capability %q", text, name)
		}
		mask |= 1 << n
	}
	var sets [3]uint64 // e, i, p
	for rest := text[opAt:]; rest != ""; {
		op := rest[0]
		end := strings.IndexAny(rest[1:], "=+-") + 1
		if end == 0 {
			end = len(rest)
		}
		if err := applyCapOp(&sets, op, rest[1:end], mask); err != nil {
			return fileCaps{}, fmt.Errorf("capabilities %q: %v", text, err)
		}
		rest = rest[end:]
	}
	c := fileCaps{effective: sets[0] != 0, inheritable: sets[1], permitted: sets[2]}
	if c.effective && sets[0] != c.permitted|c.inheritable {
		return fileCaps{}, fmt.Errorf("capabilities %q: a file's effective flag covers all its permitted and inheritable capabilities", text)
	}
	return c, nil
}

func applyCapOp(sets *[3]uint64, op byte, flags string, mask uint64) error {
	if op == '=' {
		for i := range sets {
			sets[i] &^= mask
		}
	}
	for _, f := range flags {
		i := strings.IndexRune("eip", f)
		if i < 0 {
			return fmt.Errorf("unknown flag %q (want e, i or p)", f)
		}
		if op == '-' {
			sets[i] &^= mask
		} else {
			sets[i] |= mask
		}
	}
	return nil
}

func capNumber(name string) int {
	for n, known := range capNames {
		if strings.EqualFold(name, "cap_"+known) {
			return n
		}
	}
	return -1
}

// decodeCapXattr reads a security.capability value (struct
// vfs_cap_data, revisions 1 to 3; little endian).
func decodeCapXattr(v []byte) (fileCaps, error) {
	if len(v) < 4 {
		return fileCaps{}, fmt.Errorf("security.capability of %d bytes is too short", len(v))
	}
	magic := binary.LittleEndian.Uint32(v)
	want := map[uint32]int{0x01000000: 12, 0x02000000: 20, 0x03000000: 24}[magic&0xff000000]
	if want == 0 || len(v) != want {
		return fileCaps{}, fmt.Errorf("security.capability revision %#x with %d bytes is not one the kernel writes", magic&0xff000000, len(v))
	}
	c := fileCaps{effective: magic&1 != 0}
	c.permitted = uint64(binary.LittleEndian.Uint32(v[4:]))
	c.inheritable = uint64(binary.LittleEndian.Uint32(v[8:]))
	if len(v) >= 20 {
		c.permitted |= uint64(binary.LittleEndian.Uint32(v[12:])) << 32
		c.inheritable |= uint64(binary.LittleEndian.Uint32(v[16:])) << 32
	}
	return c, nil
}
