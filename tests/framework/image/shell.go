package image

import (
	"fmt"
	"strings"
)

// splitShell splits the text of a RUN, LABEL or ARG instruction into
// commands (separated by &&) of words, the way sh would: quotes group,
// backslash escapes, ${NAME} and $NAME expand through lookup. Anything with
// a meaning the image build could not reproduce (;, |, redirections,
// command substitution, subshells, a lone &) is an error, so that it is
// refused rather than misread. Glob characters stay literal: only rm's
// /var/lib/apt/lists/* uses one, and it is matched as text.
func splitShell(s string, lookup func(string) (string, bool)) ([][]string, error) {
	t := shellTokens{lookup: lookup}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		var err error
		switch t.quote {
		case '\'':
			i = t.singleQuoted(rs, i)
		case '"':
			i, err = t.doubleQuoted(rs, i)
		default:
			i, err = t.unquoted(rs, i)
		}
		if err != nil {
			return nil, err
		}
	}
	if t.quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", t.quote)
	}
	t.endWord()
	if len(t.cmd) == 0 && len(t.cmds) > 0 {
		return nil, fmt.Errorf("&& at the end of the command")
	}
	t.endCommand()
	return t.cmds, nil
}

// shellTokens is splitShell's state.
type shellTokens struct {
	lookup func(string) (string, bool)
	quote  rune // 0, '\'' or '"'
	word   strings.Builder
	inWord bool // a word has started, even if empty ("")
	cmd    []string
	cmds   [][]string
}

func (t *shellTokens) endWord() {
	if t.inWord {
		t.cmd = append(t.cmd, t.word.String())
		t.word.Reset()
		t.inWord = false
	}
}

func (t *shellTokens) endCommand() {
	if len(t.cmd) > 0 {
		t.cmds = append(t.cmds, t.cmd)
	}
	t.cmd = nil
}

func (t *shellTokens) singleQuoted(rs []rune, i int) int {
	if rs[i] == '\'' {
		t.quote = 0
	} else {
		t.word.WriteRune(rs[i])
	}
	return i
}

func (t *shellTokens) doubleQuoted(rs []rune, i int) (int, error) {
	switch r := rs[i]; {
	case r == '"':
		t.quote = 0
	case r == '\\' && i+1 < len(rs) && strings.ContainsRune("$\"\\`", rs[i+1]):
		t.word.WriteRune(rs[i+1])
		return i + 1, nil
	case r == '$':
		return t.expand(rs, i)
	case r == '`':
		return i, fmt.Errorf("command substitution (`) is not supported")
	default:
		t.word.WriteRune(r)
	}
	return i, nil
}

func (t *shellTokens) unquoted(rs []rune, i int) (int, error) {
	r := rs[i]
	switch {
	case r == ' ' || r == '\t' || r == '\n':
		t.endWord()
	case r == '&' && i+1 < len(rs) && rs[i+1] == '&':
		t.endWord()
		if len(t.cmd) == 0 {
			return i, fmt.Errorf("&& without a command before it")
		}
		t.endCommand()
		return i + 1, nil
	case strings.ContainsRune(";|&<>()`#", r):
		return i, fmt.Errorf("shell syntax %q is not supported (only words, quotes, $NAME and &&)", r)
	case r == '\\' && i+1 < len(rs):
		t.inWord = true
		t.word.WriteRune(rs[i+1])
		return i + 1, nil
	case r == '\'' || r == '"':
		t.inWord = true
		t.quote = r
	case r == '$':
		return t.expand(rs, i)
	default:
		t.inWord = true
		t.word.WriteRune(r)
	}
	return i, nil
}

// expand reads $NAME or ${NAME} at rs[i] and writes its value.
func (t *shellTokens) expand(rs []rune, i int) (int, error) {
	rest := string(rs[i+1:])
	var name string
	var used int
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexRune(rest, '}')
		if end < 0 {
			return i, fmt.Errorf("unterminated ${")
		}
		name, used = rest[1:end], len([]rune(rest[:end+1]))
	} else {
		n := 0
		for n < len(rest) && isNameByte(rest[n], n == 0) {
			n++
		}
		name, used = rest[:n], n
	}
	if !validName(name) {
		return i, fmt.Errorf("unsupported expansion after $ (only $NAME and ${NAME} of a declared ARG)")
	}
	value, ok := t.lookup(name)
	if !ok {
		return i, fmt.Errorf("$%s is not a declared ARG of this stage", name)
	}
	// An empty expansion outside quotes is no word at all, as in sh.
	if value != "" {
		t.inWord = true
	}
	t.word.WriteString(value)
	return i + used, nil
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || !first && c >= '0' && c <= '9'
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return true
}
