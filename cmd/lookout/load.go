package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// stdinName is the file name that stands for standard input.
const stdinName = "-"

// sniffLimit bounds the start of a file read to tell its format. The
// bytes read are kept and the rest of the file is read after them, so each
// file is opened and read once, and a pipe reads like a file.
const sniffLimit = 1 << 20

// sniffBytes is how much of a file whose start is not a JSON object is
// searched for an ATIF schema version.
const sniffBytes = 4 << 10

var atifVersion = regexp.MustCompile(`"schema_version"\s*:\s*"ATIF-`)

// input is a file named on the command line, opened once.
type input struct {
	name   string // as given; stdinName for standard input
	format format // what sniff made of its start
	object bool   // it starts, after white space, with '{' as a record does
	// foreign says what the file is when it is one JSON document that is
	// not ATIF, such as another agent's session: empty otherwise.
	foreign string
	r       io.Reader // the whole content, from its first byte
	close   func() error
}

// open opens the file name, or standard input for stdinName, and reads
// enough of its start to tell its format. Gzip-compressed content is
// decompressed, whatever the file's name.
func (e *env) open(name string) (*input, error) {
	src, closer, err := e.source(name)
	if err != nil {
		return nil, err
	}
	src, closer, compressed, err := gunzip(src, closer)
	if err != nil {
		closer()
		return nil, err
	}
	head, err := readHead(src, compressed)
	if err != nil {
		closer()
		return nil, err
	}
	object := bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{"))
	in := &input{name: name, format: sniff(head), object: object, r: io.MultiReader(bytes.NewReader(head), src), close: closer}
	if in.format == formatJSONL {
		in.foreign = foreignDocument(head)
	}
	return in, nil
}

// foreignDocument says what head, the start of a file that is not ATIF,
// holds when it is one JSON document over several lines rather than JSON
// Lines: a JSON object or array indented, its first line "{" or "[", or
// a whole JSON value over several lines. A record cut short, on one line,
// is not one. It names the likely origin by the document's keys, or those
// of its first element. It returns "" for anything else.
func foreignDocument(head []byte) string {
	trimmed := bytes.TrimSpace(head)
	first, _, multiline := bytes.Cut(trimmed, []byte("\n"))
	first = bytes.TrimSpace(first)
	opened := len(first) == 1 && (first[0] == '{' || first[0] == '[')
	if !multiline || !opened && (json.Valid(first) || !json.Valid(trimmed)) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	open, _ := dec.Token()
	isArray := open == json.Delim('[')
	if isArray {
		if tok, _ := dec.Token(); tok != json.Delim('{') {
			return "a JSON array"
		}
	}
	keys := objectKeys(dec)
	if origin := likelyOrigin(keys, isArray); origin != "" {
		return origin
	}
	if isArray {
		return fmt.Sprintf("a JSON array of objects (keys %s)", strings.Join(keys[:min(len(keys), 6)], ", "))
	}
	return fmt.Sprintf("a JSON document (keys %s)", strings.Join(keys[:min(len(keys), 6)], ", "))
}

// objectKeys reads the members of the object dec is in, to its end or as
// far as the input goes, and returns their names.
func objectKeys(dec *json.Decoder) []string {
	var keys []string
	for {
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return keys
		}
		keys = append(keys, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
}

// origins name the agents whose session files Lookout is given instead
// of a trajectory, by the keys their documents (or, for an array, its
// elements) have.
var origins = []struct {
	array bool
	keys  []string
	name  string
}{
	{false, []string{"sessionId", "projectHash", "messages"}, "a gemini-cli session"},
	{false, []string{"trajectory_format", "messages"}, "a mini-swe-agent trajectory"},
	{false, []string{"info", "messages"}, "a mini-swe-agent trajectory"},
	{true, []string{"conversations", "agent", "episode"}, "Harbor traces (a *.traces.json file)"},
	{true, []string{"source", "action"}, "an OpenHands event log"},
	{true, []string{"source", "observation"}, "an OpenHands event log"},
	{true, []string{"role", "content"}, "a list of chat messages"},
	{false, []string{"messages"}, "a chat transcript (messages)"},
}

// likelyOrigin names the agent whose file has keys, or "".
func likelyOrigin(keys []string, array bool) string {
	for _, o := range origins {
		if o.array != array {
			continue
		}
		all := true
		for _, k := range o.keys {
			all = all && slices.Contains(keys, k)
		}
		if all {
			return o.name
		}
	}
	return ""
}

// foreignError is the error for a file that is one JSON document of
// another kind: what it is, and what Lookout reads.
func foreignError(what string) error {
	return fmt.Errorf("not a trajectory Lookout reads: it looks like %s, one JSON document that is neither ATIF nor JSON Lines of Lookout records", what)
}

// source opens the file name, or returns standard input for stdinName,
// with the function that closes it.
func (e *env) source(name string) (io.Reader, func() error, error) {
	if name == stdinName {
		return e.stdin, func() error { return nil }, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, &unreadableError{err}
	}
	return f, f.Close, nil
}

// readHead reads the start of src, up to sniffLimit bytes. An error
// reading compressed content is most likely a broken stream, which is
// invalid input; any other error makes the file unreadable.
func readHead(src io.Reader, compressed bool) ([]byte, error) {
	head, err := io.ReadAll(io.LimitReader(src, sniffLimit))
	switch {
	case err == nil:
		return head, nil
	case compressed:
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return nil, &unreadableError{err}
}

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// gunzip returns src decompressed when it starts as a gzip stream does,
// and src as it is otherwise, with a closer that closes what closer does
// and the decompressor, and whether src was compressed. A stream that
// starts as gzip but has no valid header is invalid input.
func gunzip(src io.Reader, closer func() error) (io.Reader, func() error, bool, error) {
	packed := &counted{r: src}
	br := bufio.NewReader(packed)
	magic, err := br.Peek(len(gzipMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, closer, false, &unreadableError{err}
	}
	if !bytes.Equal(magic, gzipMagic) {
		return br, closer, false, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, closer, true, fmt.Errorf("gzip: %w", err)
	}
	return &bombCheck{r: zr, packed: packed}, func() error { return errors.Join(zr.Close(), closer()) }, true, nil
}

// Past bombFloor bytes decompressed, a gzip stream that decompresses to
// more than bombRatio times the bytes read of it is refused as a
// decompression bomb: JSON Lines of records compress some 10 to 50 times,
// while a stream of one byte repeated, the usual bomb, compresses about
// 1,000 times.
const bombRatio = 250

// bombFloor is a variable so that tests can check the refusal without
// decompressing 64 MiB.
var bombFloor int64 = 64 << 20

// errBomb is the error of a stream bombCheck refuses.
var errBomb = fmt.Errorf("gzip: the file decompresses to more than %d times its size (a decompression bomb?); decompress it yourself to read it", bombRatio)

// bombCheck reads a decompressed stream, failing with errBomb once it is
// past bombFloor bytes and more than bombRatio times the bytes of packed
// read so far.
type bombCheck struct {
	r      io.Reader
	packed *counted
	n      int64
}

func (b *bombCheck) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > bombFloor && b.n > bombRatio*b.packed.n {
		return n, errBomb
	}
	return n, err
}

// counted counts the bytes read through it.
type counted struct {
	r io.Reader
	n int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// trajectorySuffixes are the file names read in a directory.
var trajectorySuffixes = []string{".jsonl", ".jsonl.gz"}

// expand replaces each directory among args by the trajectory files in it
// (see filesIn); other arguments are kept as they are, for open to read
// or report. A file in a directory that is not a regular one is skipped
// with a warning.
func (e *env) expand(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		found, err := filesIn(arg, e.warn)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	return files, nil
}

// filesIn returns the files a command-line argument stands for: when arg
// is a directory, every regular file under it, at any depth, whose name
// ends in .jsonl or .jsonl.gz, sorted by path; otherwise arg itself. A
// directory that cannot be walked or holds no such file cannot be read.
func filesIn(arg string, warn func(string, ...any)) ([]string, error) {
	if !isDir(arg) {
		return []string{arg}, nil
	}
	found, err := trajectoryFiles(arg, warn)
	if err != nil {
		return nil, &unreadableError{fmt.Errorf("read %s: %w", arg, err)}
	}
	if len(found) == 0 {
		return nil, &unreadableError{fmt.Errorf("read %s: a directory with no *.jsonl or *.jsonl.gz files", arg)}
	}
	slices.Sort(found)
	return found, nil
}

// isDir reports whether arg names a directory; standard input is none.
func isDir(arg string) bool {
	if arg == stdinName {
		return false
	}
	info, err := os.Stat(arg)
	return err == nil && info.IsDir()
}

// trajectoryFiles returns the regular files under dir, at any depth,
// whose name ends in one of trajectorySuffixes, in the order they are
// walked; a symbolic link counts when it leads to a regular file. Others
// of those names (a FIFO, a device, a link to one, a link that leads
// nowhere or round in a loop) would never end or never open: warn names
// each one skipped.
func trajectoryFiles(dir string, warn func(string, ...any)) ([]string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !hasSuffix(d.Name(), trajectorySuffixes) {
			return nil
		}
		if why := irregular(path, d); why != "" {
			warn("skipped %s: %s", path, why)
			return nil
		}
		found = append(found, path)
		return nil
	})
	return found, err
}

// irregular says why the walked entry d at path is not a regular file, or
// a link to one, to read; "" when it is.
func irregular(path string, d fs.DirEntry) string {
	if d.Type().IsRegular() {
		return ""
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return kind(d.Type()) + ", not a regular file"
	}
	fi, err := os.Stat(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case err != nil:
		return "a symbolic link that leads to no file: " + err.Error()
	case !fi.Mode().IsRegular():
		return "a symbolic link to " + kind(fi.Mode()) + ", not to a regular file"
	}
	return ""
}

func hasSuffix(name string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// mediaDir is where the local media paths of an ATIF input are looked up:
// the file's folder, or the current one for standard input.
func (in *input) mediaDir() string {
	if in.name == stdinName {
		return "."
	}
	return filepath.Dir(in.name)
}

// sniff tells an ATIF document from JSON Lines by the start of a file,
// head. The file is ATIF when its first JSON value is an object whose
// schema_version is a string starting with "ATIF-", or an object with
// steps and no kind (ATIF allows leaving the version out). When head ends
// before that object does, what was seen of it decides: ATIF when it had
// steps and no kind yet. When the start is not a JSON object at all, the
// file is ATIF when its first sniffBytes hold an ATIF schema_version.
// Anything else is treated as JSON Lines.
func sniff(head []byte) format {
	sn, f, ok := sniffObject(head)
	if ok {
		return f
	}
	switch {
	case sn.kind:
		return formatJSONL
	case sn.steps || atifVersion.Match(head[:min(len(head), sniffBytes)]):
		return formatATIF
	}
	return formatJSONL
}

// sniffObject scans the members of head's first JSON value when it is an
// object, and returns what it saw of them and the format they decide,
// with ok false when they decide none.
func sniffObject(head []byte) (sn objectSniff, f format, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return sn, formatJSONL, false
	}
	f, ok = sn.scan(dec)
	return sn, f, ok
}

// objectSniff is what sniff has seen of the members of the first object:
// whether it has steps, and whether it has a kind.
type objectSniff struct{ steps, kind bool }

// scan reads the members of the object dec is in until one decides the
// format or the object ends, and returns the format. It reports false
// when head ends, or stops being JSON, before that.
func (sn *objectSniff) scan(dec *json.Decoder) (format, bool) {
	for {
		tok, err := dec.Token()
		if err != nil {
			return formatJSONL, false
		}
		if tok == json.Delim('}') {
			return sn.whole(), true
		}
		isATIF, err := sn.member(dec, tok)
		if err != nil {
			return formatJSONL, false
		}
		if isATIF {
			return formatATIF, true
		}
	}
}

// member notes the member named tok and reads its value, reporting
// whether it is an ATIF schema_version.
func (sn *objectSniff) member(dec *json.Decoder, tok json.Token) (bool, error) {
	sn.note(tok)
	var value json.RawMessage
	if err := dec.Decode(&value); err != nil {
		return false, err
	}
	return tok == "schema_version" && isATIFVersion(value), nil
}

// note remembers whether the object has the member named by tok, steps
// or kind, which tell the formats apart when the object has no
// schema_version.
func (sn *objectSniff) note(tok json.Token) {
	switch tok {
	case "steps":
		sn.steps = true
	case "kind":
		sn.kind = true
	}
}

// whole is the format of a whole object without an ATIF schema_version:
// ATIF when it has steps and no kind.
func (sn *objectSniff) whole() format {
	if sn.steps && !sn.kind {
		return formatATIF
	}
	return formatJSONL
}

// isATIFVersion reports whether value is a string starting with "ATIF-".
func isATIFVersion(value json.RawMessage) bool {
	var version string
	return json.Unmarshal(value, &version) == nil && strings.HasPrefix(version, "ATIF-")
}

// load reads the records of a trajectory file: JSON Lines as written, or
// an ATIF document imported into records. A torn last line is reported on
// stderr and the records before it are kept. An ATIF document that breaks
// the ATIF rules is refused with every problem listed, unless repair is
// set: it is then imported as well as it can be. A file that is not ATIF
// and whose only line is not even the start of a record is refused.
func load(e *env, path string, repair bool) ([]recorder.Record, error) {
	in, err := e.open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer in.close()
	if in.foreign != "" {
		return nil, fmt.Errorf("read %s: %w", path, foreignError(in.foreign))
	}
	if in.format == formatATIF {
		records, err := importATIF(in, repair)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return records, nil
	}
	return loadJSONL(e, in, path)
}

// loadJSONL reads the records of in, a JSON Lines file, warning of a torn
// last line. A file whose only line is not even the start of a record is
// refused.
func loadJSONL(e *env, in *input, path string) ([]recorder.Record, error) {
	records, tear, err := recorder.ReadAll(in.r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if tear == nil {
		return records, nil
	}
	if len(records) == 0 && !in.object {
		// A record cut short by a crash starts as a record does; this
		// does not.
		return nil, fmt.Errorf("read %s: neither JSON Lines of Lookout records nor an ATIF document: %s", path, describeTear(tear))
	}
	e.warn("%s: %s; the records before it are used", path, describeTear(tear))
	return records, nil
}

// importATIF reads a whole ATIF document and imports it into records,
// with the local media it names read from its folder. Without repair, a
// document that Validate (media checks included) finds problems in is
// refused with a *atif.ValidationError listing them.
func importATIF(in *input, repair bool) ([]recorder.Record, error) {
	data, err := io.ReadAll(in.r)
	if err != nil {
		return nil, err
	}
	if !repair {
		if problems := atif.ValidateIn(in.mediaDir(), data, nil); problems != nil {
			return nil, &invalidATIFError{problems}
		}
	}
	t, err := atif.Decode(data)
	if err != nil {
		return nil, err
	}
	return atif.ToRecordsIn(in.mediaDir(), t)
}

// invalidATIFError is an ATIF document refused for breaking the ATIF
// rules. It lists every problem, one per line, and says how to import the
// document anyway.
type invalidATIFError struct{ problems []atif.Problem }

func (e *invalidATIFError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "not a valid ATIF document (%s; --repair imports it anyway):", count(len(e.problems), "problem", "problems"))
	for i, p := range e.problems {
		if i == maxProblemsShown {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.problems)-i)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// loadAllWith reads the files args stand for (see expand), in order, into
// one slice, refusing invalid ATIF documents unless repair is set: it
// then imports them as well as it can.
func loadAllWith(e *env, args []string, repair bool) ([]recorder.Record, error) {
	paths, err := e.expand(args)
	if err != nil {
		return nil, err
	}
	var all []recorder.Record
	for i, p := range paths {
		records, err := load(e, p, repair)
		if err != nil {
			return nil, err
		}
		all = append(all, records...)
		e.progress.step("reading files", i+1, len(paths))
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
