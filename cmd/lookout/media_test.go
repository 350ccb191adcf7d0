package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// fourRunsOneImage records four runs, the third of which is given an
// image by a path relative to the recording, and returns the recording's
// path. With the image, the image file is written next to it.
func fourRunsOneImage(t *testing.T, withFile bool) string {
	url := "shots/screen.png"
	image := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "what is this?"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: "image/png"}}},
	}}
	var records []recorder.Record
	for i, id := range []string{"run-a", "run-b", "run-c", "run-d"} {
		msg := schema.UserMessage("hi")
		if i == 2 {
			msg = image
		}
		records = append(records, runRecords(t, id, msg)...)
	}
	input := writeFile(t, "four.jsonl", encode(t, records))
	if withFile {
		require.NoError(t, os.MkdirAll(filepath.Join(filepath.Dir(input), "shots"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(input), "shots", "screen.png"), []byte("\x89PNG fake"), 0o600))
	}
	return input
}

// A run whose local image is missing is not written; the other runs are.
func TestAMissingImageFailsItsRunOnly(t *testing.T) {
	dir := t.TempDir()
	r := lookout("export", "--format", "atif", "-o", dir, fourRunsOneImage(t, false))
	assert.Equal(t, exitProblems, r.code)
	assert.Contains(t, r.stderr, "run run-c")
	assert.Contains(t, r.stderr, "--media copy or skip")
	assert.Len(t, strings.Fields(r.stdout), 3, "three runs written")
	assert.NoFileExists(t, filepath.Join(dir, "run-c.trajectory.json"))
}

// --media copy writes the image with the document; --media skip leaves
// it out. Every run is written, valid.
func TestMediaCopyOrSkipWritesEveryRun(t *testing.T) {
	for _, mode := range []string{"copy", "skip"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			r := lookout("export", "--format", "atif", "--media", mode, "-o", dir, fourRunsOneImage(t, mode == "copy"))
			require.Equal(t, exitOK, r.code, r.stderr)
			written := strings.Fields(r.stdout)
			require.Len(t, written, 4)
			for _, w := range written {
				problems, err := atif.ValidateFile(w, nil)
				require.NoError(t, err)
				assert.Empty(t, problems, w)
			}
			doc, err := os.ReadFile(filepath.Join(dir, "run-c.trajectory.json"))
			require.NoError(t, err)
			if mode == "copy" {
				assert.Contains(t, string(doc), `"path": "media/`)
			} else {
				assert.Contains(t, string(doc), "[image omitted: shots/screen.png]")
			}
		})
	}
}
