package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// format is what a file holds.
type format int

const (
	formatJSONL format = iota // recorder records, one per line
	formatATIF                // one ATIF document
)

// sniffBytes is how much of a file that is not valid JSON is searched for
// an ATIF schema version.
const sniffBytes = 4 << 10

var atifVersion = regexp.MustCompile(`"schema_version"\s*:\s*"ATIF-`)

// sniff tells an ATIF document from JSON Lines by content. The file is
// ATIF when its first JSON value is an object whose schema_version is a
// string starting with "ATIF-", or an object with steps and no kind (ATIF
// allows leaving the version out); when the first value is not valid JSON,
// when its first bytes hold an ATIF schema_version. Anything else is
// treated as JSON Lines.
func sniff(path string) (format, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(sniffBytes)
	head = bytes.Clone(head)
	var first struct {
		SchemaVersion json.RawMessage `json:"schema_version"`
		Steps         json.RawMessage `json:"steps"`
		Kind          json.RawMessage `json:"kind"`
	}
	if err := json.NewDecoder(br).Decode(&first); err != nil {
		if atifVersion.Match(head) {
			return formatATIF, nil
		}
		return formatJSONL, nil
	}
	var version string
	if json.Unmarshal(first.SchemaVersion, &version) == nil && strings.HasPrefix(version, "ATIF-") {
		return formatATIF, nil
	}
	if first.Steps != nil && first.Kind == nil {
		return formatATIF, nil
	}
	return formatJSONL, nil
}

// load reads the records of a trajectory file: JSON Lines as written, or
// an ATIF document imported into records. A torn last line is reported on
// stderr and the records before it are kept.
func load(e *env, path string) ([]recorder.Record, error) {
	kind, err := sniff(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if kind == formatATIF {
		t, err := atif.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		records, err := atif.ToRecords(t)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return records, nil
	}
	records, tear, err := recorder.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if tear != nil {
		e.warn("%s: %s; the records before it are used", path, describeTear(tear))
	}
	return records, nil
}

// loadAll reads every file, in order, into one slice.
func loadAll(e *env, paths []string) ([]recorder.Record, error) {
	var all []recorder.Record
	for _, p := range paths {
		records, err := load(e, p)
		if err != nil {
			return nil, err
		}
		all = append(all, records...)
	}
	return all, nil
}

func describeTear(t *recorder.Tear) string {
	return fmt.Sprintf("line %d is torn (%d bytes at offset %d, a write cut short)", t.Line, t.Bytes, t.Offset)
}

// writeJSON writes v indented, without escaping HTML characters.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
