package secretleak_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/internal/secretcorpus"
	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
	"github.com/lookout-go/lookout/recorder/summary"
	"github.com/lookout-go/lookout/replay"
	"github.com/lookout-go/lookout/report"
)

// shell is a tool that answers each command with a text of the corpus.
type shell struct{ answers map[string]string }

func (shell) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "shell", Desc: "runs a command"}, nil
}

func (s shell) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var a struct{ Cmd string }
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", err
	}
	return s.answers[a.Cmd], nil
}

// script is the agent's work: the user's query holds the corpus's first
// text; then, three texts at a time, the model says one and calls the
// shell with another, which answers with the third; the model's last
// answer holds the last.
func script(corpus []secretcorpus.Secret) (query string, turns []scripted.Turn, answers map[string]string) {
	answers = map[string]string{}
	query = "Look at this:\n" + corpus[0].Text
	rest := corpus[1:]
	for len(rest) >= 3 {
		args, _ := json.Marshal(map[string]string{"cmd": rest[0].Text})
		answers[rest[0].Text] = rest[1].Text
		turns = append(turns, scripted.Reply(rest[2].Text).Call("shell", string(args)))
		rest = rest[3:]
	}
	final := "Done."
	for _, s := range rest {
		final += "\n" + s.Text
	}
	return query, append(turns, scripted.Reply(final)), answers
}

// runAgent runs the scripted agent through adk.Runner with Lookout,
// recording with rec, and closes rec.
func runAgent(t *testing.T, rec *recorder.Recorder, corpus []secretcorpus.Secret) {
	t.Helper()
	ctx := context.Background()
	query, turns, answers := script(corpus)
	mw, err := lookoutadk.New(ctx, &lookout.Config{Recorder: rec, OnError: func(_ context.Context, err error) { t.Errorf("lookout: %v", err) }})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "ops", Description: "Runs commands.", Instruction: "You run commands.", Model: scripted.New(turns...),
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{shell{answers}}}},
		Handlers:      []adk.ChatModelAgentMiddleware{mw},
		MaxIterations: len(turns) + 1,
	})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, query)
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
	}
	require.NoError(t, rec.Close(ctx))
}

// leaked returns what of the corpus's secrets output holds, as it is or
// escaped as JSON or HTML escape it.
func leaked(corpus []secretcorpus.Secret, output []byte) []string {
	text := string(output)
	unescaped := html.UnescapeString(text)
	var found []string
	for _, s := range corpus {
		for _, v := range append(append([]string(nil), s.Secrets...), s.Pieces...) {
			quoted, _ := json.Marshal(v)
			if strings.Contains(text, v) || strings.Contains(unescaped, v) || strings.Contains(text, string(quoted[1:len(quoted)-1])) {
				found = append(found, fmt.Sprintf("%s %s: %q", s.Provider, s.Shape, v))
			}
		}
	}
	return found
}

func checkClean(t *testing.T, corpus []secretcorpus.Secret, what string, output []byte) {
	t.Helper()
	require.NotEmpty(t, output, what)
	if l := leaked(corpus, output); len(l) > 0 {
		t.Errorf("%s leaks %d secrets: %s", what, len(l), strings.Join(l, "\n"))
	}
}

// TestNoSecretOfTheCorpusLeavesTheProcess runs an agent whose user
// message, answers, tool arguments and tool results carry every secret of
// the corpus, and looks for them in every byte Lookout writes of it.
func TestNoSecretOfTheCorpusLeavesTheProcess(t *testing.T) {
	corpus := secretcorpus.Secrets()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	file, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	spans := tracetest.NewInMemoryExporter()
	live, err := otelexport.NewSink(spans, nil)
	require.NoError(t, err)
	runAgent(t, recorder.New(recorder.FanOut(file, live), &recorder.Options{Block: true}), corpus)

	jsonl, err := os.ReadFile(path)
	require.NoError(t, err)
	checkClean(t, corpus, "the JSON Lines trajectory", jsonl)
	records, _, err := recorder.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(records), len(corpus))

	stubs, err := json.Marshal(spans.GetSpans())
	require.NoError(t, err)
	checkClean(t, corpus, "the live OTLP spans", stubs)

	traj, err := atif.FromRecords(records, nil)
	require.NoError(t, err)
	doc, err := atif.Encode(traj)
	require.NoError(t, err)
	checkClean(t, corpus, "the ATIF export", doc)

	msgs, err := messages.FromRecords(records, nil)
	require.NoError(t, err)
	var openai bytes.Buffer
	require.NoError(t, messages.Write(&openai, msgs))
	checkClean(t, corpus, "the OpenAI messages export", openai.Bytes())

	var otlp bytes.Buffer
	require.NoError(t, otelexport.WriteJSON(&otlp, records, nil))
	checkClean(t, corpus, "the OTLP export", otlp.Bytes())

	var page bytes.Buffer
	require.NoError(t, report.Write(&page, records, &report.Options{MaxBytes: 64 << 20, MaxTextBytes: 1 << 20}))
	checkClean(t, corpus, "the HTML report", page.Bytes())
}

// TestARecordedCassetteHoldsNoSecretOfTheCorpus records a cassette, as
// replay.Open does with -update, from the same agent.
func TestARecordedCassetteHoldsNoSecretOfTheCorpus(t *testing.T) {
	corpus := secretcorpus.Secrets()
	t.Setenv(replay.UpdateEnv, "1")
	path := filepath.Join(t.TempDir(), "cassette.jsonl")
	_, turns, _ := script(corpus)
	c, err := replay.Open(path, &replay.Options{Live: scripted.New(turns...)})
	require.NoError(t, err)
	runAgent(t, c.Recorder(), corpus)
	require.NoError(t, c.Close(context.Background()))
	cassette, err := os.ReadFile(path)
	require.NoError(t, err)
	checkClean(t, corpus, "the cassette", cassette)
}

// capture is a chat model that keeps the requests it is sent.
type capture struct {
	mu  sync.Mutex
	got []byte
}

func (c *capture) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	b, _ := json.Marshal(in)
	c.mu.Lock()
	c.got = append(c.got, b...)
	c.mu.Unlock()
	return schema.AssistantMessage(`{"summary":"ran commands","confidence":"high"}`, nil), nil
}

func (c *capture) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, fmt.Errorf("no stream")
}

// TestASummaryRequestHoldsNoSecretOfTheCorpus summarizes a trajectory
// recorded with KeepSecrets: what the summarizing model is sent is
// redacted all the same.
func TestASummaryRequestHoldsNoSecretOfTheCorpus(t *testing.T) {
	corpus := secretcorpus.Secrets()
	mem := recorder.NewMemorySink()
	runAgent(t, recorder.New(mem, &recorder.Options{KeepSecrets: true, Block: true}), corpus)
	records := mem.Records()
	require.NotEmpty(t, leaked(corpus, mustJSON(t, records)), "the records keep their secrets")

	m := &capture{}
	s, err := summary.New(&summary.Config{Model: m, MaxFieldBytes: 1 << 20, MaxRequestBytes: 64 << 20})
	require.NoError(t, err)
	prompts, err := s.Summarize(context.Background(), records)
	require.NoError(t, err)
	require.NotEmpty(t, prompts)
	checkClean(t, corpus, "the summary requests", m.got)
}

func mustJSON(t *testing.T, records []recorder.Record) []byte {
	var b bytes.Buffer
	for _, r := range records {
		line, err := r.AppendJSON(nil)
		require.NoError(t, err)
		b.Write(line)
	}
	return b.Bytes()
}
