package simulate

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// FailedFile is the marker written last, atomically, into a run's folder
// when the run ended with an error. A batch runs such jobs again; Merge
// takes them, with their error, unless told to skip failed runs.
const FailedFile = "failed.json"

// Module is the module path of Lookout, whose version enters every
// fingerprint.
const Module = "github.com/lookout-go/lookout"

// Marker is the content of DoneFile and FailedFile: which job the folder
// holds, how its run ended, and the fingerprint of what was run.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Marker struct {
	ConversationID string     `json:"conversationId"`
	Index          int        `json:"index"`
	ScenarioIndex  int        `json:"scenarioIndex"`
	Repetition     int        `json:"repetition"`
	Scenario       string     `json:"scenario,omitempty"`
	Reason         StopReason `json:"reason"`
	Completed      bool       `json:"completed"`
	Passed         bool       `json:"passed"`
	Error          string     `json:"error,omitempty"`
	ErrorSide      Side       `json:"errorSide,omitempty"`
	Fingerprint    string     `json:"fingerprint"`
	LookoutVersion string     `json:"lookoutVersion"`
}

// LookoutVersion is the version of the Lookout module in this build, as
// the build records it, or "(devel)".
func LookoutVersion() string {
	versionOnce.Do(func() {
		lookoutVersion = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok {
			lookoutVersion = cmp.Or(moduleVersion(bi, Module), lookoutVersion)
		}
	})
	return lookoutVersion
}

// moduleVersion returns the version that the build bi records for the
// module path, the main module or a dependency, or "" when it records
// none. A replacement's version, when it has one, wins.
func moduleVersion(bi *debug.BuildInfo, path string) string {
	v := ""
	for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
		if m.Path == path && m.Version != "" {
			v = versionOf(m)
		}
	}
	return v
}

// versionOf returns the version of m, or of its replacement when that has
// one.
func versionOf(m *debug.Module) string {
	if m.Replace != nil && m.Replace.Version != "" {
		return m.Replace.Version
	}
	return m.Version
}

var (
	versionOnce    sync.Once
	lookoutVersion string
)

// spec is what a fingerprint covers: the scenario as declared, the
// runner's options that change a run, the batch's Version and Lookout's.
// Functions enter by their labels (goal and precondition names, whether a
// step has a custom check), so a change inside a function's body needs a
// new Batch.Version.
type spec struct {
	Scenario Meta           `json:"scenario"`
	Options  map[string]any `json:"options,omitempty"`
	Version  string         `json:"version,omitempty"`
	Lookout  string         `json:"lookout"`
}

// Fingerprint returns the fingerprint of job j in batch b: a SHA-256, in
// hex, of the scenario's definition, the batch Runner's options (context
// turns, call timeout, retry attempts, model names) when the batch has one,
// Batch.Version and Lookout's version. A job whose DoneFile holds another
// fingerprint runs again.
func (b *Batch) Fingerprint(j Job) string {
	s := spec{Scenario: describe(j.Scenario), Version: b.Version, Lookout: LookoutVersion()}
	if r := b.Runner; r != nil {
		s.Options = map[string]any{
			"userContextTurns": r.userContextTurns(), "rankContextTurns": r.rankContextTurns(),
			"callTimeout": r.CallTimeout.String(), "attempts": r.retry().maxAttempts(), "models": r.ModelNames,
		}
		if r.KeepSecrets {
			s.Options["keepSecrets"] = true
		}
	}
	raw, _ := json.Marshal(s)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// describe is the scenario's Meta without a run's outcome, and with an
// empty conversation id, which the job's folder carries already.
func describe(sc *Scenario) Meta {
	m := newMeta(&Result{Scenario: sc})
	m.ConversationID = ""
	return m
}

// readMarker reads the marker file name in dir; ok is false when it does
// not exist or cannot be read as a Marker.
func readMarker(dir, name string) (Marker, bool) {
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return Marker{}, false
	}
	var m Marker
	if json.Unmarshal(raw, &m) != nil {
		return Marker{}, false
	}
	return m, true
}

// writeMarker writes m as the marker name in dir, atomically, through
// redact.
func writeMarker(dir, name string, m Marker, redact func([]byte) []byte) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return writeFileAtomic(dir, name, redact(append(raw, '\n')))
}

// isTemp reports whether a file name is one of writeFileAtomic's
// temporary files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp")
}

// removeTemps removes the temporary files that writes cut short by a
// killed process left in out and in its job folders. The caller holds the
// batch lock, so no write of another batch is under way.
func removeTemps(out string) error {
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		p := filepath.Join(out, e.Name())
		switch {
		case e.IsDir():
			errs = append(errs, removeTempsIn(p))
		case isTemp(e.Name()):
			errs = append(errs, os.Remove(p))
		}
	}
	return errors.Join(errs...)
}

func removeTempsIn(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() && isTemp(e.Name()) {
			errs = append(errs, removeIfExists(filepath.Join(dir, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// removeIfExists removes the file at path; a file already gone is no
// error.
func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
