package adaptertest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/openaicheck"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// EveryCall configures an observer that speaks after every tool
// call.
func EveryCall() []observer.Spec {
	return []observer.Spec{{Observer: Probe{}, Trigger: observer.Trigger{OnEveryCall: true}}}
}

// EveryKindOfTool returns one tool of each kind Eino runs: invokable,
// streaming, enhanced invokable and enhanced streaming, with a failing
// variant of the streaming and the enhanced invokable ones.
func EveryKindOfTool() []tool.BaseTool {
	return []tool.BaseTool{
		Echo("plain"),
		StreamTool{Name: "streamed", Chunks: []string{"part one, ", "part two"}},
		StreamTool{Name: "broken_stream", Chunks: []string{"half"}, Err: errors.New("connection reset")},
		RichTool{Name: "rich", Text: "a picture of a cat"},
		RichTool{Name: "rich_failing", Err: errors.New("no camera")},
		RichStreamTool{Name: "rich_streamed", Chunks: []string{"frame 1 ", "frame 2"}},
	}
}

// Ended waits until the last record in sink ends a root run, and returns
// the records. Both adapters may write a run's end from another goroutine
// just after the caller has the run's output.
func Ended(t testing.TB, sink *recorder.MemorySink) []recorder.Record {
	t.Helper()
	require.Eventually(t, func() bool {
		recs := sink.Records()
		if len(recs) == 0 {
			return false
		}
		last := recs[len(recs)-1]
		_, ok := last.Payload.(*recorder.RunEnded)
		return ok && last.ParentRunID == ""
	}, 5*time.Second, time.Millisecond)
	return sink.Records()
}

// ToolMessages returns the tool messages among msgs.
func ToolMessages(msgs []*schema.Message) []*schema.Message {
	var out []*schema.Message
	for _, m := range msgs {
		if m != nil && m.Role == schema.Tool {
			out = append(out, m)
		}
	}
	return out
}

// MessageText returns a message's text: its content and its text parts.
func MessageText(m *schema.Message) string {
	var b strings.Builder
	b.WriteString(m.Content)
	for _, p := range m.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// RequireExceeded checks that err is a budget stop of resource, as both
// errors.Is and errors.As see it, and returns the *budget.ExceededError.
func RequireExceeded(t testing.TB, err error, resource budget.Resource) *budget.ExceededError {
	t.Helper()
	require.ErrorIs(t, err, budget.ErrExceeded)
	var ex *budget.ExceededError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, resource, ex.Resource)
	return ex
}

// NewRecorder returns a Recorder writing to sink with opts, closed when
// the test ends. [Flush] flushes every Recorder a test made this way.
// When sink is a *recorder.MemorySink, the conversation of every run it
// recorded must then export as valid OpenAI messages (see
// [CheckOpenAIMessages]).
func NewRecorder(t testing.TB, sink recorder.Sink, opts *recorder.Options) *recorder.Recorder {
	rec := recorder.New(sink, opts)
	recordersMu.Lock()
	recorders[t] = append(recorders[t], rec)
	recordersMu.Unlock()
	t.Cleanup(func() {
		recordersMu.Lock()
		delete(recorders, t)
		recordersMu.Unlock()
		_ = rec.Close(context.Background())
		if mem, ok := sink.(*recorder.MemorySink); ok {
			CheckOpenAIMessages(t, mem.Records())
		}
	})
	return rec
}

// CheckOpenAIMessages exports every run in records as OpenAI-style
// messages and fails t for each message that breaks the Chat Completions
// message schema (when the shared schema is there) or the tool-call
// pairing rules.
func CheckOpenAIMessages(t testing.TB, records []recorder.Record) {
	t.Helper()
	for _, p := range openaicheck.Conversations(records) {
		t.Errorf("openai export: %s", p)
	}
}

// Flush flushes every Recorder that test t made with [NewRecorder], so
// that their sinks hold every record queued so far.
func Flush(t testing.TB) {
	t.Helper()
	recordersMu.Lock()
	recs := slices.Clone(recorders[t])
	recordersMu.Unlock()
	for _, rec := range recs {
		require.NoError(t, rec.Flush(context.Background()))
	}
}

var (
	recordersMu sync.Mutex
	recorders   = map[testing.TB][]*recorder.Recorder{}
)

// Probe is an observer that speaks whenever it is asked, so that a test
// can find its section in every model input after a tool call. Its summary
// names the call it ran after.
type Probe struct{}

// Name returns "Probe".
func (Probe) Name() string { return "Probe" }

// ShouldRun always reports true.
func (Probe) ShouldRun(context.Context, *observer.Context) bool { return true }

// Observe says which call it ran after, and suggests carrying on, so
// that feedback efficacy counts it.
func (Probe) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{Summary: "Probed after call " + strconv.FormatInt(oc.CallIndex, 10) + ".", Severity: observer.Info,
		Suggestions: []string{"Carry on."}}, nil
}
