package messages_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/openaicheck"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

func TestEveryImportedFixtureExportsValidOpenAIMessages(t *testing.T) {
	root, err := openaicheck.SharedFixtures()
	if err != nil {
		t.Skipf("shared fixtures not found: %v", err)
	}
	var files []string
	for _, sub := range []string{"atif", "atif-real"} {
		_ = filepath.WalkDir(filepath.Join(root, sub), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
				if problems, err := atif.ValidateFile(path, nil); err == nil && problems == nil {
					files = append(files, path)
				}
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no ATIF fixtures")
	}
	for _, file := range files {
		t.Run(strings.TrimPrefix(file, root), func(t *testing.T) {
			tr, err := atif.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			records, err := atif.ToRecordsIn(filepath.Dir(file), tr)
			if err != nil {
				t.Fatal(err)
			}
			if problems := openaicheck.Conversations(records); problems != nil {
				t.Errorf("%d problems:\n%s", len(problems), strings.Join(problems[:min(len(problems), 10)], "\n"))
			}
		})
	}
}

func TestMultimodalInputExportsValidParts(t *testing.T) {
	if _, ok := openaicheck.Find(); !ok {
		t.Skip("chat message schema not found next to the module")
	}
	wav, png, url := "UklGRg==", "AAAA", "https://example.com/a.png"
	m := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &png, MIMEType: "image/png"}}},
		{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{MessagePartCommon: schema.MessagePartCommon{Base64Data: &wav, MIMEType: "audio/wav"}}},
		{Type: schema.ChatMessagePartTypeVideoURL},
	}}
	records := []recorder.Record{{SchemaVersion: recorder.SchemaVersion, RunID: "r", Payload: &recorder.Message{Message: m}}}
	if problems := openaicheck.Conversations(records); problems != nil {
		t.Error(problems)
	}
}
