package input

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// fastYAMLToJSON converts the YAML that kubectl and people commonly write
// (block mappings and sequences, plain and quoted one-line scalars, flow
// collections on one line, literal blocks) to the JSON the YAML library
// makes of it, byte for byte, in a fraction of its time. It gives up
// (false) on anything else: anchors, tags, multi-line plain or quoted
// scalars, folded blocks, scalars whose YAML 1.1 type is not plainly a
// string, an integer, a boolean or null, non-ASCII text, a key given
// twice. The caller then uses the library, which converts it or words the
// error.
func fastYAMLToJSON(doc []byte) ([]byte, bool) {
	if !bytes.HasSuffix(doc, []byte("\n")) {
		return nil, false // a literal block's last line break depends on it
	}
	for _, c := range doc {
		if c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' {
			return nil, false // the library checks what is printable, comments too
		}
	}
	p := &fastParser{}
	for line := range bytes.SplitSeq(doc, []byte("\n")) {
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		text := line[indent:]
		if bytes.IndexByte(line, '\r') >= 0 || len(text) > 0 && (text[0] == '\t' || text[0] == '%') || bytes.HasPrefix(text, []byte("...")) && indent == 0 {
			return nil, false
		}
		p.lines = append(p.lines, fastLine{indent: indent, text: text, raw: line})
	}
	p.next()
	if p.at >= len(p.lines) || p.lines[p.at].indent != 0 {
		return nil, false
	}
	root, ok := p.mapping(0)
	if !ok || p.next() < len(p.lines) {
		return nil, false
	}
	return root.appendJSON(make([]byte, 0, len(doc))), true
}

type fastLine struct {
	indent int
	text   []byte // after the indentation
	raw    []byte
}

type fastParser struct {
	lines []fastLine
	at    int
}

// fastNode is a mapping (keys and values), a sequence (items) or a scalar
// as JSON.
type fastNode struct {
	keys   []string
	values []*fastNode
	items  []*fastNode
	seq    bool
	json   []byte
}

// next moves to the next line that is neither blank nor a comment, and
// returns its index.
func (p *fastParser) next() int {
	for p.at < len(p.lines) {
		t := p.lines[p.at].text
		if len(bytes.TrimRight(t, " ")) > 0 && t[0] != '#' {
			break
		}
		p.at++
	}
	return p.at
}

// isItem is true for a sequence entry line: "-" alone or "- ...".
func isItem(t []byte) bool {
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ')
}

// mapping reads a block mapping whose keys are at indent.
func (p *fastParser) mapping(indent int) (*fastNode, bool) {
	n := &fastNode{}
	for p.next() < len(p.lines) {
		l := p.lines[p.at]
		if l.indent < indent {
			break
		}
		if l.indent > indent || isItem(l.text) {
			return nil, false
		}
		key, rest, ok := splitKey(l.text)
		if !ok || slices.Contains(n.keys, key) {
			return nil, false
		}
		p.at++
		v, ok := p.value(indent, rest, true)
		if !ok {
			return nil, false
		}
		n.keys, n.values = append(n.keys, key), append(n.values, v)
	}
	return n, true
}

// value reads what follows "key:" or "- " on a line of indent: rest, or
// the block below it.
func (p *fastParser) value(indent int, rest []byte, inMapping bool) (*fastNode, bool) {
	rest = bytes.Trim(rest, " ")
	if len(rest) == 0 {
		if p.next() >= len(p.lines) {
			return &fastNode{json: []byte("null")}, true
		}
		l := p.lines[p.at]
		switch {
		case l.indent > indent && isItem(l.text):
			return p.sequence(l.indent)
		case l.indent > indent:
			return p.mapping(l.indent)
		case l.indent == indent && inMapping && isItem(l.text):
			return p.sequence(indent)
		}
		return &fastNode{json: []byte("null")}, true
	}
	if rest[0] == '|' {
		if !inMapping {
			return nil, false
		}
		return p.literal(indent, rest)
	}
	v, end, ok := inlineValue(rest, 0, false)
	if !ok || end != len(rest) {
		return nil, false
	}
	// a deeper line after a one-line value continues it
	if p.next() < len(p.lines) && p.lines[p.at].indent > indent {
		return nil, false
	}
	return v, true
}

// sequence reads a block sequence whose "-" are at indent.
func (p *fastParser) sequence(indent int) (*fastNode, bool) {
	n := &fastNode{seq: true, items: []*fastNode{}}
	for p.next() < len(p.lines) {
		l := &p.lines[p.at]
		if l.indent < indent || l.indent == indent && !isItem(l.text) {
			break
		}
		if l.indent > indent {
			return nil, false
		}
		body := l.text[1:]
		col := indent + 1
		for len(body) > 0 && body[0] == ' ' {
			body, col = body[1:], col+1
		}
		var v *fastNode
		var ok bool
		switch {
		case len(body) == 0:
			p.at++
			v, ok = p.value(indent, nil, false)
		case isItem(body) || body[0] == '|' || body[0] == '#':
			return nil, false
		default:
			if _, _, isKey := splitKey(body); isKey {
				// "- key: value" starts a mapping at the key's column
				l.indent, l.text = col, body
				v, ok = p.mapping(col)
			} else {
				p.at++
				v, ok = p.value(indent, body, false)
			}
		}
		if !ok {
			return nil, false
		}
		n.items = append(n.items, v)
	}
	return n, true
}

// literal reads a literal block scalar ("|" or "|-") under a key of indent.
func (p *fastParser) literal(indent int, header []byte) (*fastNode, bool) {
	strip := false
	switch string(header) {
	case "|":
	case "|-":
		strip = true
	default:
		return nil, false
	}
	var b strings.Builder
	blockIndent := -1
	newlines := 0
	for p.at < len(p.lines) {
		l := p.lines[p.at]
		if len(l.text) == 0 {
			if len(l.raw) > 0 {
				return nil, false // spaces-only lines: leave them to the library
			}
			newlines++
			p.at++
			continue
		}
		if blockIndent < 0 {
			if l.indent <= indent || newlines > 0 {
				return nil, false
			}
			blockIndent = l.indent
		}
		if l.indent < blockIndent {
			if l.indent > indent {
				return nil, false
			}
			break
		}
		b.WriteString(strings.Repeat("\n", newlines))
		newlines = 0
		b.Write(l.raw[blockIndent:])
		b.WriteByte('\n')
		p.at++
	}
	if blockIndent < 0 {
		return nil, false
	}
	s := b.String()
	if strip {
		s = strings.TrimSuffix(s, "\n")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' {
			return nil, false
		}
	}
	return &fastNode{json: appendJSONString(nil, s)}, true
}

// splitKey splits "key: rest" or "key:" with a plain key that is plainly
// a string.
func splitKey(t []byte) (string, []byte, bool) {
	i := 0
	for i < len(t) && isKeyByte(t[i]) {
		i++
	}
	if i == 0 || i >= len(t) || t[i] != ':' || i+1 < len(t) && t[i+1] != ' ' {
		return "", nil, false
	}
	key := string(t[:i])
	if !plainString(key) {
		return "", nil, false
	}
	return key, t[i+1:], true
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}

// plainString is true when YAML 1.1 reads the plain scalar s, which starts
// with a letter or "_" or "/", as a string.
func plainString(s string) bool {
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '/') {
		return false
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

// inlineValue reads a scalar or flow collection at s[i:]; in a flow
// collection, a plain scalar ends at ",", "]" or "}". It returns the
// value and where it ends, trailing spaces skipped.
func inlineValue(s []byte, i int, flow bool) (*fastNode, int, bool) {
	var n *fastNode
	var ok bool
	switch s[i] {
	case '{':
		n, i, ok = flowMapping(s, i+1)
	case '[':
		n, i, ok = flowSequence(s, i+1)
	case '"':
		var v string
		v, i, ok = doubleQuoted(s, i+1)
		n = &fastNode{json: appendJSONString(nil, v)}
	case '\'':
		var v string
		v, i, ok = singleQuoted(s, i+1)
		n = &fastNode{json: appendJSONString(nil, v)}
	default:
		j := i
		for j < len(s) && !(flow && (s[j] == ',' || s[j] == ']' || s[j] == '}')) {
			j++
		}
		var js []byte
		js, ok = plainJSON(string(bytes.TrimRight(s[i:j], " ")), flow)
		n, i = &fastNode{json: js}, j
	}
	for ok && i < len(s) && s[i] == ' ' {
		i++
	}
	return n, i, ok
}

// plainJSON is the JSON of a plain scalar: a string, an integer, a
// boolean or null.
func plainJSON(s string, flow bool) ([]byte, bool) {
	if s == "" || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.ContainsAny(s, "#\t") {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f || flow && strings.IndexByte("[]{}:", s[i]) >= 0 {
			return nil, false
		}
	}
	switch s {
	case "true", "True", "TRUE":
		return []byte("true"), true
	case "false", "False", "FALSE":
		return []byte("false"), true
	case "null", "Null", "NULL", "~":
		return []byte("null"), true
	}
	if isDecimal(s) {
		return []byte(s), true
	}
	if s[0] >= '0' && s[0] <= '9' && strings.ContainsAny(s, unitLetters) {
		return appendJSONString(nil, s), true
	}
	if strings.IndexByte("&*!|>'\"%@`{}[],?:-<=", s[0]) >= 0 || !plainString(s) {
		return nil, false
	}
	return appendJSONString(nil, s), true
}

// unitLetters are characters that no YAML 1.1 integer, float or timestamp
// holds: a plain scalar that starts with a digit and holds one ("8m",
// "512Ki", "10.0.0.0/8") is a string.
const unitLetters = "ghjklmpqrsuvwyGHJKLMPQRSUVWY/"

// isDecimal is true for an integer without a sign, a leading zero or an
// underscore that fits in int64 (YAML 1.1 reads those the same as JSON).
func isDecimal(s string) bool {
	if len(s) > 18 || s[0] < '1' || s[0] > '9' {
		return s == "0"
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func flowMapping(s []byte, i int) (*fastNode, int, bool) {
	n := &fastNode{}
	i = skipSpaces(s, i)
	if i < len(s) && s[i] == '}' {
		return n, i + 1, true
	}
	for i < len(s) {
		j := i
		for j < len(s) && isKeyByte(s[j]) {
			j++
		}
		key := string(s[i:j])
		if j == i || j+1 >= len(s) || s[j] != ':' || s[j+1] != ' ' || !plainString(key) || slices.Contains(n.keys, key) {
			return nil, 0, false
		}
		i = skipSpaces(s, j+1)
		if i >= len(s) {
			return nil, 0, false
		}
		v, end, ok := inlineValue(s, i, true)
		if !ok {
			return nil, 0, false
		}
		n.keys, n.values = append(n.keys, key), append(n.values, v)
		var closed bool
		if i, closed, ok = flowSeparator(s, end, '}'); !ok || closed {
			return n, i, ok
		}
	}
	return nil, 0, false
}

func flowSequence(s []byte, i int) (*fastNode, int, bool) {
	n := &fastNode{seq: true, items: []*fastNode{}}
	i = skipSpaces(s, i)
	if i < len(s) && s[i] == ']' {
		return n, i + 1, true
	}
	for i < len(s) {
		v, end, ok := inlineValue(s, i, true)
		if !ok {
			return nil, 0, false
		}
		n.items = append(n.items, v)
		var closed bool
		if i, closed, ok = flowSeparator(s, end, ']'); !ok || closed {
			return n, i, ok
		}
	}
	return nil, 0, false
}

// flowSeparator reads what follows an entry of a flow collection at s[i]:
// the closing bracket (closed) or a comma; it returns where the next
// entry or the rest of the line starts.
func flowSeparator(s []byte, i int, closing byte) (next int, closed, ok bool) {
	switch {
	case i >= len(s):
		return 0, false, false
	case s[i] == closing:
		return i + 1, true, true
	case s[i] == ',':
		return skipSpaces(s, i+1), false, true
	}
	return 0, false, false
}

func skipSpaces(s []byte, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// doubleQuoted reads a one-line double-quoted scalar from after its
// opening quote, with the escapes JSON shares.
func doubleQuoted(s []byte, i int) (string, int, bool) {
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c < 0x20 || c >= 0x7f:
			return "", 0, false
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", 0, false
		}
		switch s[i+1] {
		case '"', '\\':
			b.WriteByte(s[i+1])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		default:
			return "", 0, false
		}
		i += 2
	}
	return "", 0, false
}

// singleQuoted reads a one-line single-quoted scalar from after its
// opening quote.
func singleQuoted(s []byte, i int) (string, int, bool) {
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		case c == '\'':
			return b.String(), i + 1, true
		case c < 0x20 || c >= 0x7f:
			return "", 0, false
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, false
}

// appendJSON writes n as encoding/json writes what the YAML library
// decodes: mapping keys sorted.
func (n *fastNode) appendJSON(b []byte) []byte {
	switch {
	case n.json != nil:
		return append(b, n.json...)
	case n.seq:
		b = append(b, '[')
		for i, v := range n.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.appendJSON(b)
		}
		return append(b, ']')
	}
	order := make([]int, len(n.keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, c int) int { return strings.Compare(n.keys[a], n.keys[c]) })
	b = append(b, '{')
	for i, k := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, n.keys[k])
		b = append(b, ':')
		b = n.values[k].appendJSON(b)
	}
	return append(b, '}')
}

// appendJSONString writes an ASCII string as encoding/json does, HTML
// characters escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '<', '>', '&':
			b = append(b, `\u00`...)
			b = strconv.AppendUint(b, uint64(c), 16)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
