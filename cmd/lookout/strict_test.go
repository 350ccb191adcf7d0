package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/openaicheck"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// invalidATIF breaks two ATIF rules: an unknown step source and a
// schema_version no ATIF release has.
const invalidATIF = `{"schema_version":"ATIF-v1.9","agent":{"name":"a","version":"1"},
"steps":[{"step_id":1,"source":"invalid_source","message":"hi"}]}`

func TestInspectAndExportRefuseAnInvalidATIFDocumentAndListItsProblems(t *testing.T) {
	path := writeFile(t, "bad.trajectory.json", []byte(invalidATIF))
	for _, args := range [][]string{{"inspect", path}, {"export", "--format", "atif", path}, {"export", "--format", "openai", path}} {
		r := lookout(args...)
		assert.Equal(t, exitProblems, r.code, args)
		assert.Empty(t, r.stdout, args)
		assert.Contains(t, r.stderr, "not a valid ATIF document (2 problems; --repair imports it anyway)", args)
		assert.Contains(t, r.stderr, "schema_version: unknown schema_version", args)
		assert.Contains(t, r.stderr, "steps[0].source: source must be", args)
	}
}

func TestRepairImportsAnInvalidATIFDocumentAsWellAsItCan(t *testing.T) {
	path := writeFile(t, "bad.trajectory.json", []byte(invalidATIF))
	r := lookout("inspect", "--repair", path)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "runs: 1")

	r = lookout("export", "--format", "atif", "--repair", path)
	require.Equal(t, exitOK, r.code, r.stderr)
	doc, err := atif.Decode([]byte(r.stdout))
	require.NoError(t, err)
	assert.Equal(t, atif.Version, doc.SchemaVersion)
	assert.Equal(t, atif.SourceUser, doc.Steps[0].Source)
}

func TestAFileThatIsNeitherJSONLinesNorATIFIsRefused(t *testing.T) {
	// One line without a newline, which reads like a torn last line.
	path := writeFile(t, "notes.jsonl", []byte("this is not a trajectory"))
	for _, cmd := range []string{"inspect", "export"} {
		args := []string{cmd, path}
		if cmd == "export" {
			args = []string{cmd, "--format", "atif", path}
		}
		r := lookout(args...)
		assert.Equal(t, exitProblems, r.code, cmd)
		assert.Contains(t, r.stderr, "neither JSON Lines of Lookout records nor an ATIF document", cmd)
	}
}

func TestExportWritesNothingWhenOneFileIsRefused(t *testing.T) {
	// Two root runs; the second's file is a link out of the folder.
	records := append(recordTrajectory(t), runRecords(t, "run-9", schema.UserMessage("hi"))...)
	input := writeFile(t, "two.jsonl", encode(t, records))
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "run-9.trajectory.json")))

	r := lookout("export", "--format", "atif", "-o", dir, input)
	assert.Equal(t, exitProblems, r.code)
	assert.Contains(t, r.stderr, "nothing was written")
	assert.NoFileExists(t, filepath.Join(dir, "run-1.trajectory.json"), "the first run's file was written before the refusal")
	assert.NoFileExists(t, outside)
}

func TestExportRefusesADocumentWhoseMediaIsMissing(t *testing.T) {
	missing := "screens/missing.png"
	msg := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &missing, MIMEType: "image/png"}}},
	}}
	input := writeFile(t, "run.jsonl", encode(t, runRecords(t, "run-1", msg)))
	dir := t.TempDir()
	r := lookout("export", "--format", "atif", "-o", dir, input)
	assert.Equal(t, exitProblems, r.code)
	assert.Contains(t, r.stderr, "referenced image file does not exist: screens/missing.png")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestExportWritesInlineMediaNextToTheDocument(t *testing.T) {
	data := "iVBORw0KGgo=" // the PNG signature
	msg := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "what is this?"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "image/png"}}},
	}}
	input := writeFile(t, "run.jsonl", encode(t, runRecords(t, "run-1", msg)))

	r := lookout("export", "--format", "atif", input)
	assert.Equal(t, exitProblems, r.code)
	assert.Contains(t, r.stderr, "1 media file to write next to the document; export it with -o DIR")

	dir := t.TempDir()
	r = lookout("export", "--format", "atif", "-o", dir, input)
	require.Equal(t, exitOK, r.code, r.stderr)
	path := strings.TrimSpace(r.stdout)
	problems, err := atif.ValidateFile(path, nil)
	require.NoError(t, err)
	assert.Empty(t, problems, "the image the document names exists")
	doc, err := atif.ReadFile(path)
	require.NoError(t, err)
	image := doc.Steps[0].Message.Parts[1].Source.Path
	assert.True(t, strings.HasPrefix(image, "media/"), image)
	got, err := os.ReadFile(filepath.Join(dir, image))
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG\r\n\x1a\n", string(got))
}

func TestTheComputerUseTrajectoryKeepsItsScreenshotsThroughImportAndExport(t *testing.T) {
	src := filepath.Join(fixtureDir(t), "..", "atif-real", "harbor-jobs-multimodal", "computer-use-oncall-debug__kFdZhTa", "trajectory.json")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("multimodal fixture not found: %v", err)
	}
	dir := t.TempDir()
	r := lookout("export", "--format", "atif", "-o", dir, src)
	require.Equal(t, exitOK, r.code, r.stderr)
	path := strings.TrimSpace(r.stdout)
	problems, err := atif.ValidateFile(path, nil)
	require.NoError(t, err)
	assert.Empty(t, problems)
	doc, err := atif.ReadFile(path)
	require.NoError(t, err)
	images := 0
	for _, s := range doc.Steps {
		if s.Observation == nil {
			continue
		}
		for _, res := range s.Observation.Results {
			if res.Content == nil {
				continue
			}
			for _, p := range res.Content.Parts {
				if p.Type == atif.PartImage {
					images++
					info, err := os.Stat(filepath.Join(dir, p.Source.Path))
					require.NoError(t, err)
					assert.Equal(t, int64(152823), info.Size())
				}
			}
		}
	}
	assert.Equal(t, 15, images)
}

// runRecords records one root run with id that gets msg and ends.
func runRecords(t *testing.T, id string, msg *schema.Message) []recorder.Record {
	t.Helper()
	sink := recorder.NewMemorySink()
	now := time.Date(2025, 6, 1, 13, 0, 0, 0, time.UTC)
	rec := recorder.New(sink, &recorder.Options{Clock: func() time.Time { now = now.Add(time.Second); return now }})
	run, err := rec.StartRun(t.Context(), recorder.RunInfo{RunID: id, AgentName: "a"})
	require.NoError(t, err)
	require.NoError(t, run.Message(t.Context(), msg))
	require.NoError(t, run.End(t.Context(), recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, rec.Close(t.Context()))
	return sink.Records()
}

func TestOpenAIExportOfEveryRunIsValid(t *testing.T) {
	for _, run := range []string{"run-1", "run-2"} {
		r := lookout("export", "--format", "openai", "--run", run, trajectoryFile(t))
		require.Equal(t, exitOK, r.code, r.stderr)
		var raw []json.RawMessage
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			raw = append(raw, json.RawMessage(line))
		}
		assert.Empty(t, openaicheck.Check(raw), run)
	}
}

func TestExportRemovesWhatItWroteWhenALaterWriteFails(t *testing.T) {
	records := append(recordTrajectory(t), runRecords(t, "run-9", schema.UserMessage("hi"))...)
	input := writeFile(t, "two.jsonl", encode(t, records))
	dir := t.TempDir()
	// A folder where the second run's file goes: every check passes, the
	// write fails.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "run-9.trajectory.json"), 0o700))

	r := lookout("export", "--format", "atif", "-o", dir, input)
	assert.Equal(t, exitProblems, r.code)
	assert.Contains(t, r.stderr, "is a directory", "the write failed, not a check")
	assert.Contains(t, r.stderr, "nothing was written")
	assert.NoFileExists(t, filepath.Join(dir, "run-1.trajectory.json"))
}

// summarize refuses an invalid ATIF document as inspect does, and imports
// it with --repair.
func TestSummarizeRefusesInvalidATIFUnlessRepairing(t *testing.T) {
	path := writeFile(t, "bad.json", []byte(invalidATIFForSummarize))
	r := lookout("summarize", path)
	assert.Equal(t, 1, r.code, r.stdout)
	r = lookout("summarize", "--repair", path)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "runs: 1")
}

const invalidATIFForSummarize = `{"schema_version":"ATIF-v1.6","session_id":"s","agent":{"name":"a","version":"1"},` +
	`"steps":[{"step_id":1,"source":"invalid_source","message":"hi"}]}`
