// Package input reads the Kubernetes objects the offline commands work on:
// YAML or JSON files, several documents per file, List objects, and "-" for
// standard input. Every object remembers where it came from, so errors can
// name the file, document and line.
package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is one object read from the input, as JSON, with its type and
// where it was found.
type Object struct {
	// Source names the object's place for error messages, for example
	// `routes.yaml, document 2 (line 14)`.
	Source string
	// APIVersion and Kind as written.
	APIVersion string
	Kind       string
	// Name and Namespace from metadata, when present.
	Name      string
	Namespace string
	// JSON is the object.
	JSON []byte
}

// Read reads every object from the named files in order; "-" reads stdin.
func Read(paths []string, stdin io.Reader) ([]Object, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input: name files with -f (use -f - for standard input)")
	}
	var objs []Object
	for _, p := range paths {
		data, name, err := readFile(p, stdin)
		if err != nil {
			return nil, err
		}
		got, err := Parse(name, data)
		if err != nil {
			return nil, err
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

func readFile(path string, stdin io.Reader) ([]byte, string, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, "", fmt.Errorf("reading standard input: %w", err)
		}
		return data, "<stdin>", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("reading input: %w", err)
	}
	return data, path, nil
}

// Parse splits data from the named source into objects. Empty documents are
// skipped; List objects are expanded into their items.
func Parse(source string, data []byte) ([]Object, error) {
	var objs []Object
	for _, doc := range splitDocuments(data) {
		where := fmt.Sprintf("%s, document %d (line %d)", source, doc.index, doc.line)
		js, err := yaml.YAMLToJSONStrict(doc.text)
		if err != nil {
			return nil, fmt.Errorf("%s: not valid YAML or JSON: %v", where, cleanYAMLError(err, doc.line))
		}
		if string(js) == "null" {
			continue
		}
		got, err := expand(where, js)
		if err != nil {
			return nil, err
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// header is what every object shares.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

func expand(where string, js []byte) ([]Object, error) {
	var h header
	if err := json.Unmarshal(js, &h); err != nil {
		return nil, fmt.Errorf("%s: not a Kubernetes object: %v", where, err)
	}
	if h.Kind == "" || h.APIVersion == "" {
		return nil, fmt.Errorf("%s: not a Kubernetes object: apiVersion and kind are required", where)
	}
	if strings.HasSuffix(h.Kind, "List") {
		var objs []Object
		for i, item := range h.Items {
			got, err := expand(fmt.Sprintf("%s, item %d", where, i), item)
			if err != nil {
				return nil, err
			}
			objs = append(objs, got...)
		}
		return objs, nil
	}
	return []Object{{Source: where, APIVersion: h.APIVersion, Kind: h.Kind,
		Name: h.Metadata.Name, Namespace: h.Metadata.Namespace, JSON: js}}, nil
}

// DecodeStrict decodes o into out, refusing unknown and duplicate fields
// with an error that names the object and the field path.
func DecodeStrict(o Object, out any) error {
	strict, err := kjson.UnmarshalStrict(o.JSON, out, kjson.DisallowUnknownFields, kjson.DisallowDuplicateFields)
	if err != nil {
		return fmt.Errorf("%s: %v", o.Source, err)
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%s: %s (check the spelling against the API reference)", o.Source, strings.Join(msgs, "; "))
	}
	return nil
}

type document struct {
	index int
	line  int
	text  []byte
}

// splitDocuments splits YAML at "---" lines, numbering the non-empty
// documents and remembering each one's first line. A JSON file is one
// document.
func splitDocuments(data []byte) []document {
	var docs []document
	var cur bytes.Buffer
	start, line := 1, 0
	flush := func() {
		if strings.TrimSpace(stripComments(cur.String())) != "" {
			docs = append(docs, document{index: len(docs) + 1, line: start, text: bytes.Clone(cur.Bytes())})
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "---" || strings.HasPrefix(text, "--- ") || strings.HasPrefix(text, "---\t") {
			flush()
			start = line + 1
			continue
		}
		cur.WriteString(text)
		cur.WriteByte('\n')
	}
	flush()
	return docs
}

func stripComments(s string) string {
	var b strings.Builder
	for l := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			b.WriteString(t)
		}
	}
	return b.String()
}

var yamlLine = regexp.MustCompile(`\bline (\d+)\b`)

// cleanYAMLError drops the library's wrapping from a YAML error, puts it on
// one line, and makes its line numbers count from the top of the file
// rather than of the document.
func cleanYAMLError(err error, firstLine int) string {
	msg := err.Error()
	for _, prefix := range []string{"error converting YAML to JSON: ", "yaml: ", "unmarshal errors:"} {
		msg = strings.TrimSpace(strings.TrimPrefix(msg, prefix))
	}
	msg = strings.Join(strings.Fields(msg), " ")
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(m[len("line "):])
		return "line " + strconv.Itoa(n+firstLine-1)
	})
}
