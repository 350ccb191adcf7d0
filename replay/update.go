package replay

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lookout-go/lookout/recorder"
)

// UpdateEnv is the environment variable that, set to a true value ("1",
// "true"), makes [Update] report true.
const UpdateEnv = "LOOKOUT_REPLAY_UPDATE"

// Update reports whether cassettes are to be recorded again from a live
// model rather than replayed: the -update flag is set, as the usual Go
// convention for golden files has it, or [UpdateEnv] is true. The flag
// is read only if it is defined: a test package that wants it declares
// it, as golden-file tests do:
//
//	var _ = flag.Bool("update", false, "record the cassettes again")
//
// It must be called after flag.Parse, which go test does before the
// tests run.
func Update() bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if on, ok := g.Get().(bool); ok && on {
				return true
			}
		}
	}
	on, _ := strconv.ParseBool(os.Getenv(UpdateEnv))
	return on
}

// recording is the state of a cassette in record mode.
type recording struct {
	rec *recorder.Recorder
}

// Open returns the cassette at path for a test. When [Update] is false
// it is [Load]. When it is true the cassette is in record mode:
// [Cassette.Model] returns Options.Live, tools run live, [Cassette.Now]
// is time.Now, and [Cassette.Recorder] writes a new recording to path,
// replacing the old one, which [Cassette.Close] finishes. The recording
// is redacted as Options say (KeepSecrets, Redactors), so that it
// replays with the same Options. Record mode writes JSON Lines; a path
// ending in .json (ATIF) can only be replayed.
func Open(path string, opts *Options) (*Cassette, error) {
	if !Update() {
		return Load(path, opts)
	}
	c := &Cassette{path: path}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Live == nil {
		return nil, errNoModel
	}
	sink, err := newSink(path)
	if err != nil {
		return nil, err
	}
	rec := recorder.New(sink, &recorder.Options{KeepSecrets: c.opts.KeepSecrets, Redactors: c.opts.Redactors, Block: true})
	c.recording = &recording{rec: rec}
	return c, nil
}

// newSink creates the JSON Lines file at path, and its directory, to
// record a new cassette into.
func newSink(path string) (*recorder.FileSink, error) {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return nil, fmt.Errorf("replay: %s: record mode writes JSON Lines, not ATIF", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	sink, err := recorder.NewFileSink(path, &recorder.FileOptions{Truncate: true})
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return sink, nil
}

// Recording reports whether the cassette is in record mode.
func (c *Cassette) Recording() bool { return c.recording != nil }

// Recorder returns the recorder that writes the cassette in record mode,
// for lookout.Config.Recorder, and nil when replaying.
func (c *Cassette) Recorder() *recorder.Recorder {
	if c.recording == nil {
		return nil
	}
	return c.recording.rec
}

// Close finishes a recording: it writes out what the recorder holds and
// closes the file. When replaying it does nothing. It is idempotent.
func (c *Cassette) Close(ctx context.Context) error {
	if c.recording == nil {
		return nil
	}
	return c.recording.rec.Close(ctx)
}
