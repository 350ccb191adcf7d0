package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// secrets are secrets of shapes the recorder redacts, as the simulated
// user, the agent and a tool write them, with the part that must not
// leak.
var secrets = []struct{ text, value string }{
	{"my key is sk-proj-abcdefghijklmnop1234", "sk-proj-abcdefghijklmnop1234"},
	{"use Authorization: Bearer abcdefgh12345678", "abcdefgh12345678"},
	{"the AWS key AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
	{"token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	{"my password=hunter2hunter2", "hunter2hunter2"},
	{"log in at https://ana:s3cr3tpassw0rd@example.com", "s3cr3tpassw0rd"},
}

// leaky is an agent that repeats the user's message, passes it to a tool
// and gets it back.
func leaky() TargetFunc {
	return func(_ context.Context, h []*schema.Message) ([]*schema.Message, error) {
		text := h[len(h)-1].Content
		args, _ := json.Marshal(map[string]string{"note": text})
		return []*schema.Message{
			schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "save", Arguments: string(args)}}}),
			schema.ToolMessage("saved: "+text, "c1", schema.WithToolName("save")),
			schema.AssistantMessage("You said: "+text, nil),
		}, nil
	}
}

func secretBatch(t *testing.T, keep bool) string {
	t.Helper()
	var turns []scripted.Turn
	for _, s := range secrets {
		turns = append(turns, scripted.Reply(s.text))
	}
	up := newProvider(t, scripted.New(turns...), always(0))
	out := t.TempDir()
	sc := &Scenario{Name: "leak", Goal: "share " + secrets[0].text, MaxTurns: len(secrets), Metadata: map[string]any{"note": secrets[1].text}}
	b := &Batch{Scenarios: []*Scenario{sc}, OutDir: out, Progress: io.Discard,
		Runner: &Runner{UserModel: up.client(t), KeepSecrets: keep}, Target: leaky()}
	_, err := b.Run(context.Background())
	require.NoError(t, err)
	return out
}

// files reads every file under dir.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == LockFile {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = b
		return err
	}))
	return out
}

func TestWhatSimulateWritesIsRedacted(t *testing.T) {
	written := files(t, secretBatch(t, false))
	require.Len(t, written, 4)
	for path, b := range written {
		for _, s := range secrets {
			assert.NotContains(t, string(b), s.value, "%s leaks", filepath.Base(path))
		}
		if filepath.Base(path) != DoneFile {
			assert.Contains(t, string(b), "[REDACTED]", path)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			if strings.HasSuffix(path, ".jsonl") {
				assert.True(t, json.Valid(line), "%s: %s", path, line)
			}
		}
		if !strings.HasSuffix(path, ".jsonl") {
			assert.True(t, json.Valid(b), path)
		}
	}

	t.Run("WriteJSONL too", func(t *testing.T) {
		res, err := (&Runner{UserModel: stepUser()}).Run(context.Background(), &Scenario{Goal: "g", Opening: secrets[0].text, MaxTurns: 1}, leaky())
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, res.WriteJSONL(&b))
		assert.NotContains(t, b.String(), secrets[0].value)
		dir, err := WriteArtifacts(t.TempDir(), res)
		require.NoError(t, err)
		for path, b := range files(t, dir) {
			assert.NotContains(t, string(b), secrets[0].value, path)
		}
	})

	t.Run("unless the runner keeps secrets", func(t *testing.T) {
		var all bytes.Buffer
		for _, b := range files(t, secretBatch(t, true)) {
			all.Write(b)
		}
		for _, s := range secrets {
			assert.Contains(t, all.String(), s.value)
		}
	})
}
