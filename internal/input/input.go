// Package input reads the Kubernetes objects the offline commands work on:
// YAML or JSON files, several documents per file, List objects, OpenShift
// Templates (processed as `oc process` would), and "-" for standard input.
// It decodes them as the API server decodes a request body, with the same
// libraries and the same strictness, and checks Routes against the Route
// CRD's schema as the API server does before storing one. Every object
// remembers where it came from, so errors can name the file, document and
// line.
//
// It imports routecore (for the Route type) and manifests (for the CRD);
// it must not import the adapters (webhook, ingress, haproxy).
package input

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/parallel"
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
	// Strict lists what the API server's strict decoding reports about the
	// document the object came from that JSON no longer shows: keys given
	// twice in YAML.
	Strict []string
	// Err is set when the object cannot be used as written, for example a
	// Template parameter it refers to has no value. It names the source.
	Err error
}

// Options change how input is read.
type Options struct {
	// Params are Template parameter values by name, as `oc process -p`
	// takes them; they win over the values the Templates give.
	Params map[string]string
}

// Read reads every object from the named files in order; "-" reads stdin.
// A file that holds no object at all is an error. When ctx ends, Read
// stops, even while it waits for standard input, and returns ctx's error.
func Read(ctx context.Context, paths []string, stdin io.Reader, opts Options) ([]Object, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input: name files with -f (use -f - for standard input)")
	}
	r := newReader(opts)
	var objs []Object
	for _, p := range paths {
		data, name, err := readFile(ctx, p, stdin)
		if err != nil {
			return nil, err
		}
		got, err := r.parse(name, data)
		if err != nil {
			return nil, err
		}
		objs = append(objs, got...)
	}
	return objs, r.checkParams()
}

// Parse reads the objects of data, from the named source.
func Parse(source string, data []byte, opts Options) ([]Object, error) {
	r := newReader(opts)
	objs, err := r.parse(source, data)
	if err != nil {
		return nil, err
	}
	return objs, r.checkParams()
}

func readFile(ctx context.Context, path string, stdin io.Reader) ([]byte, string, error) {
	if path == "-" {
		data, err := readAll(ctx, stdin)
		if err != nil {
			return nil, "", fmt.Errorf("reading standard input: %w", err)
		}
		return data, "<stdin>", nil
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("reading input: %w", err)
	}
	return data, path, nil
}

// readAll reads r to its end, or until ctx ends: a pipe nobody writes to
// must not keep a command from stopping.
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(r)
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// reader reads objects and remembers the Template parameters it met, so
// that a --param naming none of them is reported.
type reader struct {
	params map[string]string
	known  map[string]bool
}

func newReader(opts Options) *reader {
	return &reader{params: opts.Params, known: map[string]bool{}}
}

// checkParams refuses parameter values no Template of the input has a
// parameter for, as `oc process` refuses them.
func (r *reader) checkParams() error {
	var unknown []string
	for name := range r.params {
		if !r.known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("--param %s: no Template in the input has a parameter of that name", strings.Join(unknown, ", --param "))
}

// document is one YAML document or JSON value of a file, as JSON.
type document struct {
	index  int
	line   int
	json   []byte
	strict []string
}

// parse splits data into documents, as kubectl does: a file that starts
// with "{" is a stream of JSON objects, anything else YAML documents
// separated by "---" lines. Documents that hold only comments are skipped;
// a file with no document, and a document that is null, are errors.
func (r *reader) parse(source string, data []byte) ([]Object, error) {
	var docs []document
	var err error
	if utilyaml.IsJSONBuffer(data) {
		docs, err = jsonDocuments(source, data)
	} else {
		docs, err = yamlDocuments(source, data)
	}
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no objects: the input is empty or holds only comments and \"---\"", source)
	}
	var objs []Object
	for _, doc := range docs {
		where := fmt.Sprintf("%s, document %d (line %d)", source, doc.index, doc.line)
		if string(bytes.TrimSpace(doc.json)) == "null" {
			return nil, fmt.Errorf("%s: the document is null, not a Kubernetes object: remove it", where)
		}
		got, err := r.expand(where, doc.json, doc.strict)
		if err != nil {
			return nil, err
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// jsonDocuments reads a stream of JSON values. Each is kept as written, so
// decoding sees exactly the bytes the API server would; anything after a
// value that is not another value is an error.
func jsonDocuments(source string, data []byte) ([]document, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []document
	// line is the line at offset counted; it is counted on from the last
	// value (from the start each time would be quadratic in a long stream).
	line, counted := 1, 0
	for {
		start := int(dec.InputOffset())
		for start < len(data) && isJSONSpace(data[start]) {
			start++
		}
		line += bytes.Count(data[counted:start], []byte("\n"))
		counted = start
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			at := start
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				at = int(syntax.Offset)
			}
			return nil, fmt.Errorf("%s, line %d: not valid JSON: %v", source, lineAt(data, at), err)
		}
		docs = append(docs, document{index: len(docs) + 1, line: line, json: raw})
	}
}

func isJSONSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// lineAt is the line number of offset in data, counting from 1.
func lineAt(data []byte, offset int) int {
	return bytes.Count(data[:min(offset, len(data))], []byte("\n")) + 1
}

// yamlDocuments converts each YAML document to JSON as the API server's
// YAML decoding does. A key given twice is what its strict decoding
// reports; the last value wins, as without it.
func yamlDocuments(source string, data []byte) ([]document, error) {
	raw, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("%s, %w", source, err)
	}
	docs := make([]document, len(raw))
	errs := make([]error, len(raw))
	// Each document converts on its own; a stream of thousands of objects
	// (kubectl get -A -o yaml) is spread over the cores.
	parallel.Range(len(raw), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			docs[i], errs[i] = yamlDocument(source, raw[i])
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// yamlDocument converts one YAML document to JSON. A document that only
// lenient decoding accepts (a key given twice) is converted, and what
// strict decoding said is kept for the report.
func yamlDocument(source string, doc rawDocument) (document, error) {
	if js, ok := fastYAMLToJSON(doc.text); ok {
		return document{index: doc.index, line: doc.line, json: js}, nil
	}
	var strict []string
	js, err := yaml.YAMLToJSONStrict(doc.text)
	if err != nil {
		var lenient error
		if js, lenient = yaml.YAMLToJSON(doc.text); lenient != nil {
			return document{}, fmt.Errorf("%s, document %d (line %d): not valid YAML or JSON: %v",
				source, doc.index, doc.line, cleanYAMLError(lenient, doc.first))
		}
		strict = []string{cleanYAMLError(err, doc.first)}
	}
	return document{index: doc.index, line: doc.line, json: js, strict: strict}, nil
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

// expand makes objects of one JSON value: a List gives its items, a
// Template its processed objects, anything else itself.
func (r *reader) expand(where string, js []byte, strict []string) ([]Object, error) {
	var h header
	if err := json.Unmarshal(js, &h); err != nil {
		return nil, fmt.Errorf("%s: not a Kubernetes object: %v", where, err)
	}
	if h.Kind == "" || h.APIVersion == "" {
		return nil, fmt.Errorf("%s: not a Kubernetes object: apiVersion and kind are required", where)
	}
	switch {
	case isTemplate(h.APIVersion, h.Kind):
		return r.template(where, js, strict)
	case strings.HasSuffix(h.Kind, "List"):
		var objs []Object
		for i, item := range h.Items {
			got, err := r.expand(fmt.Sprintf("%s, item %d", where, i), item, strict)
			if err != nil {
				return nil, err
			}
			objs = append(objs, got...)
		}
		return objs, nil
	}
	return []Object{{Source: where, APIVersion: h.APIVersion, Kind: h.Kind,
		Name: h.Metadata.Name, Namespace: h.Metadata.Namespace, JSON: js, Strict: strict}}, nil
}

// rawDocument is the text of one YAML document: line is where its content
// starts, first where its text (comments included) starts.
type rawDocument struct {
	index, line, first int
	text               []byte
}

// splitDocuments splits YAML at "---" lines (a comment may follow), numbering
// the documents that hold more than comments and remembering the line each
// one's content starts on.
func splitDocuments(data []byte) ([]rawDocument, error) {
	var docs []rawDocument
	var cur bytes.Buffer
	start, line, first := 0, 0, 1
	flush := func() {
		if start > 0 {
			docs = append(docs, rawDocument{index: len(docs) + 1, line: start, first: first, text: bytes.Clone(cur.Bytes())})
		}
		cur.Reset()
		start, first = 0, line+1
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "---" || strings.HasPrefix(text, "--- ") || strings.HasPrefix(text, "---\t") {
			flush()
			continue
		}
		if t := strings.TrimSpace(text); start == 0 && t != "" && !strings.HasPrefix(t, "#") {
			start = line
		}
		cur.WriteString(text)
		cur.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	flush()
	return docs, nil
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
