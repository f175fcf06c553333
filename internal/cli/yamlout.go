package cli

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	yamlv2 "go.yaml.in/yaml/v2"
)

// yamlDocument returns v, a value decoded from JSON (maps, slices,
// strings, int64, bool, nil), as one YAML document, byte for byte as
// yaml.v2 writes it. The common shapes of Kubernetes objects are written
// here directly, which is many times faster; a document holding anything
// else (a string yaml.v2 would fold, escape or write as a block other than
// a plain literal; a map key with a digit, whose order yaml.v2 decides by
// number; a float; a sequence of sequences) is written by yaml.v2.
func yamlDocument(v any) ([]byte, error) {
	if out, ok := fastYAML(v); ok {
		return out, nil
	}
	return yamlv2.Marshal(v)
}

// fastYAML writes v as yaml.v2 would, or reports false for a value it
// leaves to yaml.v2.
func fastYAML(v any) ([]byte, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, false
	}
	w := yamlWriter{buf: make([]byte, 0, 1024)}
	if !w.mapping(m, 0, false) {
		return nil, false
	}
	return w.buf, true
}

// yamlWriter writes block-style YAML. Each method returns false, leaving
// buf in an unspecified state, for what it does not write as yaml.v2
// would.
type yamlWriter struct {
	buf []byte
}

// mapping writes a non-empty map's entries at indent, in yaml.v2's key
// order. inItem is true when the first key follows a sequence item's
// "- " on the same line.
func (w *yamlWriter) mapping(m map[string]any, indent int, inItem bool) bool {
	keys := make([]string, 0, len(m))
	for k := range m {
		if _, ok := keyScalar(k); !ok || len(k) > 100 || strings.ContainsFunc(k, unicode.IsDigit) {
			return false
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	for i, k := range keys {
		if i > 0 || !inItem {
			w.indent(indent)
		}
		out, _ := keyScalar(k)
		w.buf = append(w.buf, out...)
		w.buf = append(w.buf, ':')
		if !w.value(m[k], indent, indent+len(out)+2) {
			return false
		}
	}
	return true
}

// value writes what follows a map key's colon: a scalar on the same
// line, starting at column, or a nested map or sequence on the next lines.
func (w *yamlWriter) value(v any, indent, column int) bool {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			w.buf = append(w.buf, " {}\n"...)
			return true
		}
		w.buf = append(w.buf, '\n')
		return w.mapping(v, indent+2, false)
	case []any:
		if len(v) == 0 {
			w.buf = append(w.buf, " []\n"...)
			return true
		}
		w.buf = append(w.buf, '\n')
		// yaml.v2 does not indent a sequence under a map key.
		return w.sequence(v, indent)
	case string:
		if literalString(v) {
			w.buf = append(w.buf, " |"...)
			if !strings.HasSuffix(v, "\n") {
				w.buf = append(w.buf, '-')
			}
			w.buf = append(w.buf, '\n')
			for line := range strings.SplitSeq(strings.TrimSuffix(v, "\n"), "\n") {
				w.indent(indent + 2)
				w.buf = append(w.buf, line...)
				w.buf = append(w.buf, '\n')
			}
			return true
		}
	}
	w.buf = append(w.buf, ' ')
	return w.scalar(v, column)
}

// sequence writes a non-empty sequence's items at indent.
func (w *yamlWriter) sequence(items []any, indent int) bool {
	for _, item := range items {
		w.indent(indent)
		w.buf = append(w.buf, '-')
		switch item := item.(type) {
		case map[string]any:
			if len(item) == 0 {
				w.buf = append(w.buf, " {}\n"...)
				continue
			}
			w.buf = append(w.buf, ' ')
			if !w.mapping(item, indent+2, true) {
				return false
			}
		case []any:
			return false // nested sequences are rare
		default:
			w.buf = append(w.buf, ' ')
			if !w.scalar(item, indent+2) {
				return false
			}
		}
	}
	return true
}

// scalar writes a scalar that starts at column, and its line's end.
func (w *yamlWriter) scalar(v any, column int) bool {
	switch v := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case bool:
		w.buf = strconv.AppendBool(w.buf, v)
	case int64:
		w.buf = strconv.AppendInt(w.buf, v, 10)
	case string:
		out, ok := stringScalar(v)
		if !ok || strings.Contains(out, " ") && column+len(out) > yamlWidth {
			return false
		}
		w.buf = append(w.buf, out...)
	default:
		return false
	}
	w.buf = append(w.buf, '\n')
	return true
}

func (w *yamlWriter) indent(n int) {
	for range n {
		w.buf = append(w.buf, ' ')
	}
}

// yamlWidth is the column after which yaml.v2 breaks a scalar at a
// space. A scalar that ends before it is written on one line.
const yamlWidth = 80

// keyScalar is a map key as yaml.v2 writes it: a word (see plainWord),
// or a word YAML would read as a boolean or null, double-quoted.
func keyScalar(s string) (string, bool) {
	switch {
	case plainWord(s):
		return s, true
	case typedWord(s):
		return `"` + s + `"`, true
	}
	return "", false
}

// stringScalar is a string value as yaml.v2 writes it on one line, when
// the line is short enough not to be broken: plain (a word, or text that
// YAML cannot read as anything but a string), double-quoted when YAML
// would read it as a boolean, null or number ("true", "80"), or
// single-quoted when a colon or an indicator makes plain text ambiguous
// ("*", "a: b").
func stringScalar(s string) (string, bool) {
	switch {
	case plainWord(s) || plainText(s):
		return s, true
	case typedWord(s):
		return `"` + s + `"`, true
	case singleQuoted(s):
		return "'" + strings.ReplaceAll(s, "'", "''") + "'", true
	}
	return "", false
}

// plainText reports whether s is text yaml.v2 writes plain: words
// separated by single spaces, of letters, digits, printable ASCII
// punctuation, and colons followed by something else than a space and
// "#" that does not follow a space; starting with a letter
// or "/", or with a digit when it holds "/" or "," (which no YAML number
// or timestamp does).
func plainText(s string) bool {
	if s == "" || s[len(s)-1] == ' ' {
		return false
	}
	switch c := s[0]; {
	case isASCIILetter(c) || c == '/':
	case '0' <= c && c <= '9':
		if !strings.ContainsAny(s, "/,") {
			return false
		}
	default:
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isASCIILetter(c) || '0' <= c && c <= '9' || strings.IndexByte(".,;=+*()_/-$@%?&!~^<>|\"'[]{}`", c) >= 0:
		case c == '#':
			if s[i-1] == ' ' {
				return false
			}
		case c == ' ':
			if s[i+1] == ' ' {
				return false
			}
		case c == ':':
			if i+1 == len(s) || s[i+1] == ' ' {
				return false
			}
		default:
			return false
		}
	}
	return !typedWord(s) && !(len(s) <= 5 && isBoolWord(strings.ToLower(s)))
}

// singleQuoted reports whether yaml.v2 single-quotes s: printable ASCII
// text, without spaces at its ends, that would be ambiguous plain because
// it starts with an indicator ("*", "&", "!", "|", ">", "'", "\"", "%",
// "@", "`", "#", "[", "{", "]", "}", ",") or holds ": " or " #".
func singleQuoted(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return strings.IndexByte("*&!|>'\"%@`#[{]},", s[0]) >= 0 || strings.Contains(s, ": ") || strings.Contains(s, " #")
}

// typedWord reports whether s is a word YAML 1.1 reads as a boolean or
// null, or a decimal integer without leading zeros.
func typedWord(s string) bool {
	// lower case, capitalised or upper case, as YAML 1.1 spells them
	if lower := strings.ToLower(s); isBoolWord(lower) && (s[1:] == lower[1:] || s == strings.ToUpper(s)) {
		return true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// isBoolWord reports whether s, in lower case, is a word YAML 1.1 reads as
// a boolean or null.
func isBoolWord(s string) bool {
	switch s {
	case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}

// plainWord reports whether yaml.v2 writes s unquoted as it is: names,
// hosts, paths, annotation keys and durations. It must start with a
// letter or "/" and hold only letters, digits and "._/-", and not be one
// of the words YAML 1.1 reads as a boolean or null; or start with a digit
// and hold only digits and letters, at least one of them, none of which
// can make it read as a number ("e", "x", "o", "b"): "60s", "1h30m".
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	if '0' <= s[0] && s[0] <= '9' {
		return quantity(s)
	}
	if !isASCIILetter(s[0]) && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && !('0' <= c && c <= '9') && c != '.' && c != '_' && c != '/' && c != '-' {
			return false
		}
	}
	return !(len(s) <= 5 && isBoolWord(strings.ToLower(s)))
}

// quantity reports whether s, starting with a digit, is digits and
// letters with a letter YAML numbers never hold.
func quantity(s string) bool {
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
		case strings.IndexByte("eExXoObB", c) >= 0:
			return false
		case isASCIILetter(c):
			letter = true
		default:
			return false
		}
	}
	return letter
}

// literalString reports whether yaml.v2 writes s as a literal block ("|"
// or "|-") whose lines are s's lines: printable ASCII, no line starting
// or ending with a space, no empty line, and at most one final newline.
// PEM certificates and keys are such strings.
func literalString(s string) bool {
	if !strings.Contains(s, "\n") {
		return false
	}
	body := strings.TrimSuffix(s, "\n")
	if body == "" || strings.HasSuffix(body, "\n") {
		return false
	}
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || line[0] == ' ' || line[len(line)-1] == ' ' {
			return false
		}
		for i := 0; i < len(line); i++ {
			if line[i] < 0x20 || line[i] > 0x7e {
				return false
			}
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// compareKeys orders map keys without digits as yaml.v2 does: character
// by character, where any other character comes before a letter, and a
// key before the longer keys it begins.
func compareKeys(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		la, lb := isASCIILetter(ca), isASCIILetter(cb)
		if la != lb {
			if la {
				return 1
			}
			return -1
		}
		return int(ca) - int(cb)
	}
	return len(a) - len(b)
}
