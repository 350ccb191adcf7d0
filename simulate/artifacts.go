package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"unicode"
	"unicode/utf8"

	"github.com/lookout-go/lookout/recorder"
)

// Artifact file names inside a run's folder.
const (
	ConversationFile = "conversation.jsonl"
	TracesFile       = "stepTraces.json"
	MetaFile         = "trajectory.meta.json"
)

// maxNameLen bounds a sanitised folder name, in bytes.
const maxNameLen = 120

// hashLen is the length of the "-" and hex digest that SafeName appends to
// a name it had to cut.
const hashLen = 1 + 8

// SafeName turns any string into a single safe path element. Letters and
// digits of any script (with their combining marks), '-', '_' and '.' are
// kept; everything else, such as path separators, spaces, control and
// format characters and invalid UTF-8, becomes '_'. A leading or trailing
// dot becomes '_', so "." and ".." cannot result and no platform strips the
// name. A name longer than 120 bytes is cut and ends in '-' and eight hex
// digits hashed from the whole input, so long names that differ only past
// the cut stay distinct. The empty string becomes "_". SafeName of its own
// output returns it unchanged.
func SafeName(s string) string { return safeName(s, maxNameLen) }

// safeName is SafeName with a length limit of limit bytes.
func safeName(s string, limit int) string {
	b := make([]byte, 0, min(len(s), limit+utf8.UTFMax))
	for i, r := range s {
		b = appendSafe(b, r, i > 0 && i < len(s)-1)
	}
	if len(b) == 0 {
		return "_"
	}
	if len(b) <= limit {
		return string(b)
	}
	return hashCut(b, s, limit)
}

// appendSafe appends r to b when it is safe in a file name, and '_' when
// it is not. A dot is safe only inside the name (inner), never at an end.
func appendSafe(b []byte, r rune, inner bool) []byte {
	switch {
	case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), r == '-', r == '_':
		return utf8.AppendRune(b, r)
	case r == '.' && inner:
		return append(b, '.')
	}
	return append(b, '_')
}

// hashCut cuts the safe name b, made from s, to fit in limit bytes with a
// hash of the whole of s after it, cutting on a rune boundary, so that
// names which differ only past the cut stay distinct.
func hashCut(b []byte, s string, limit int) string {
	cut := limit - hashLen
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%s-%08x", b[:cut], h.Sum32())
}

// WriteArtifacts writes the run's artifacts into a folder named after its
// conversation id (sanitised with SafeName) under root, and returns the
// folder. Every text in them is redacted as a Lookout recorder redacts it
// (recorder.Secrets), unless the Runner kept secrets (Runner.KeepSecrets). Files are created 0600 and folders 0700; each file is written to
// a temporary name and renamed, so a reader never sees half a file.
//
//   - conversation.jsonl: the dataset lines (see Line)
//   - stepTraces.json: every StepTrace, as a JSON array on one line
//   - trajectory.meta.json: the scenario definition, final step states and End
func WriteArtifacts(root string, r *Result) (string, error) {
	dir, err := childDir(root, r.ConversationID)
	if err != nil {
		return "", err
	}
	return dir, writeArtifactsIn(dir, r, writeFileAtomic)
}

// childDir joins a sanitised name under root and checks it stays there.
func childDir(root, name string) (string, error) {
	n := SafeName(name)
	if !filepath.IsLocal(n) {
		return "", fmt.Errorf("%w: %q", ErrUnsafePath, name)
	}
	return filepath.Join(root, n), nil
}

// writeArtifactsIn writes the artifacts of r into dir, each with write,
// redacted unless the run keeps secrets.
func writeArtifactsIn(dir string, r *Result, write func(dir, name string, data []byte) error) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, a := range artifacts {
		b, err := a.encode(r)
		if err != nil {
			return err
		}
		if err := write(dir, a.name, r.redact(b)); err != nil {
			return err
		}
	}
	return nil
}

// artifacts are the files of a run's folder, in the order they are
// written, each with the function that encodes it.
var artifacts = []struct {
	name   string
	encode func(*Result) ([]byte, error)
}{
	{ConversationFile, encodeConversation},
	{TracesFile, encodeTraces},
	{MetaFile, encodeMeta},
}

// encodeConversation encodes the result's dataset lines as JSONL.
func encodeConversation(r *Result) ([]byte, error) {
	var conv bytes.Buffer
	if err := r.encodeLines(&conv); err != nil {
		return nil, err
	}
	return conv.Bytes(), nil
}

// redact returns b, JSON text of the result's, with the secrets in it
// replaced by recorder.Redacted, as the recorder's built-in Secrets
// redactor finds them, unless the run keeps secrets (Runner.KeepSecrets).
func (r *Result) redact(b []byte) []byte {
	if r.keepSecrets {
		return b
	}
	s := string(b)
	if red := recorder.Secrets().Redact(s); red != s {
		return []byte(red)
	}
	return b
}

// encodeTraces encodes the result's traces as a JSON array on one line:
// the traces, the bulk of a run's bytes, are written compact.
func encodeTraces(r *Result) ([]byte, error) {
	traces := r.Traces
	if traces == nil {
		traces = []StepTrace{}
	}
	b, err := json.Marshal(traces)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// encodeMeta encodes the result's Meta as indented JSON, for people to
// read.
func encodeMeta(r *Result) ([]byte, error) {
	b, err := json.MarshalIndent(newMeta(r), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeFile writes data to dir/name, 0600, in place, and syncs it to
// disk. A batch writes a job's artifacts so, then syncs the folder, and
// writes its marker last with writeFileAtomic: a folder without a marker
// is unfinished whatever its files hold, so the artifacts need no rename
// of their own, which halves the directory updates of a job, and a marker
// that survives a crash or a power cut finds its artifacts on disk.
func writeFile(dir, name string, data []byte) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = syncFile(f)
	}
	return errors.Join(err, f.Close())
}

// writeFileAtomic writes data to dir/name through a 0600 temporary file,
// synced to disk, and a rename, and then syncs dir, so that the file is
// on disk, whole, once it returns.
func writeFileAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = syncFile(f)
	}
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncFile and syncDir flush a file, and a folder's entries, to disk;
// tests watch their order.
var (
	syncFile = (*os.File).Sync
	syncDir  = syncFolder
)

// syncFolder flushes the entries of the folder dir to disk. Windows
// cannot open a folder for it, and orders its metadata itself.
func syncFolder(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// Meta is the content of trajectory.meta.json: the scenario as declared
// (functions appear as labels), the final step states and how the run ended.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Meta struct {
	ConversationID string         `json:"conversationId"`
	Name           string         `json:"name,omitempty"`
	Goal           string         `json:"goal"`
	Persona        Persona        `json:"persona"`
	Graph          *GraphMeta     `json:"steps,omitempty"`
	MaxTurns       int            `json:"maxTurns"`
	LoopLimit      int            `json:"loopLimit"`
	Goals          []string       `json:"goals,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	Opening        string         `json:"opening,omitempty"`
	Script         map[int]string `json:"script,omitempty"`
	StopSignal     string         `json:"stopSignal,omitempty"`
	Criteria       []string       `json:"criteria,omitempty"`
	JudgeEveryTurn bool           `json:"judgeEveryTurn,omitempty"`
	// Interrupts is the scenario's interrupt policy, by tool.
	Interrupts      InterruptPolicy `json:"interrupts,omitempty"`
	OnRankerFailure RankerFailure   `json:"onRankerFailure,omitempty"`
	StepStates      []StepState     `json:"stepStates,omitempty"`
	End             End             `json:"end"`
	// Usage is Result.Usage: what each role's model did.
	Usage map[string]*ModelUsage `json:"usage,omitempty"`
}

// GraphMeta describes a step graph in trajectory.meta.json.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type GraphMeta struct {
	Steps     []StepMeta `json:"steps"`
	Start     string     `json:"start,omitempty"`
	Terminals []string   `json:"terminals,omitempty"`
}

// StepMeta describes one step. Satisfaction is "custom" or "default".
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type StepMeta struct {
	ID            string             `json:"id"`
	Instruction   string             `json:"instruction"`
	Hints         []string           `json:"hints,omitempty"`
	Preconditions []PreconditionMeta `json:"preconditions,omitempty"`
	MaxAttempts   int                `json:"maxAttempts,omitempty"`
	TimeoutMs     int64              `json:"timeoutMs,omitempty"`
	Satisfaction  string             `json:"satisfaction"`
}

// PreconditionMeta describes a precondition: Type is "stepSatisfied" (with
// StepID) or "custom" (with Name).
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type PreconditionMeta struct {
	Type   string `json:"type"`
	StepID string `json:"stepId,omitempty"`
	Name   string `json:"name,omitempty"`
}

func newMeta(r *Result) Meta {
	m := Meta{ConversationID: r.ConversationID, StepStates: r.Steps, End: r.End, Usage: r.Usage}
	sc := r.Scenario
	if sc == nil {
		return m
	}
	m.Name, m.Goal, m.Persona, m.Metadata = sc.Name, sc.Goal, sc.Persona, sc.Metadata
	m.MaxTurns, m.LoopLimit = sc.maxTurns(), sc.loopLimit()
	m.Opening, m.Script, m.StopSignal, m.Criteria = sc.Opening, sc.Script, sc.StopSignal, sc.Criteria
	m.JudgeEveryTurn = sc.JudgeEveryTurn
	m.Interrupts, m.OnRankerFailure = sc.Interrupts, sc.OnRankerFailure
	for _, g := range sc.Goals {
		m.Goals = append(m.Goals, g.Name)
	}
	if sc.Graph != nil {
		m.Graph = graphMeta(sc.Graph)
	}
	return m
}

// graphMeta describes the graph g.
func graphMeta(g *Graph) *GraphMeta {
	gm := &GraphMeta{Start: g.Start, Terminals: g.Terminals, Steps: []StepMeta{}}
	for _, st := range g.Steps {
		gm.Steps = append(gm.Steps, stepMeta(st))
	}
	return gm
}

// stepMeta describes the step st; its Satisfaction is "custom" when it has
// its own check, else "default".
func stepMeta(st Step) StepMeta {
	sm := StepMeta{
		ID: st.ID, Instruction: st.Instruction, Hints: st.Hints,
		MaxAttempts: st.MaxAttempts, TimeoutMs: st.Timeout.Milliseconds(), Satisfaction: "default",
	}
	if st.Satisfied != nil {
		sm.Satisfaction = "custom"
	}
	for _, p := range st.Preconditions {
		sm.Preconditions = append(sm.Preconditions, p.meta())
	}
	return sm
}

// meta describes the precondition.
func (p Precondition) meta() PreconditionMeta {
	if p.Step != "" {
		return PreconditionMeta{Type: "stepSatisfied", StepID: p.Step}
	}
	return PreconditionMeta{Type: "custom", Name: p.Name}
}
