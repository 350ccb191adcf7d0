package lookoutadk_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// biller sits in front of the scripted OpenAI handler and adds up the
// usage of every answer it sends with status 200: what a provider bills.
// failed is closed once it has sent a 500.
type biller struct {
	next    http.Handler
	replies atomic.Int64
	tokens  atomic.Int64
	failed  chan struct{}
	once    sync.Once
}

func (b *biller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := &capturer{ResponseWriter: w, status: http.StatusOK}
	b.next.ServeHTTP(c, r)
	switch c.status {
	case http.StatusOK:
		if total, ok := billedTokens(c.body.Bytes()); ok {
			b.replies.Add(1)
			b.tokens.Add(total)
		}
	case http.StatusInternalServerError:
		b.once.Do(func() { close(b.failed) })
	}
}

// billedTokens reads the usage of a completion, or of the SSE stream of
// one, as sent on the wire.
func billedTokens(body []byte) (int64, bool) {
	type usage struct {
		Usage *struct {
			TotalTokens int64 `json:"total_tokens"`
		} `json:"usage"`
	}
	var u usage
	if json.Unmarshal(body, &u) == nil && u.Usage != nil {
		return u.Usage.TotalTokens, true
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var chunk usage
		if json.Unmarshal([]byte(data), &chunk) == nil && chunk.Usage != nil {
			return chunk.Usage.TotalTokens, true
		}
	}
	return 0, false
}

// capturer keeps the status and a copy of the body of a response.
type capturer struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capturer) WriteHeader(status int) {
	c.status = status
	c.ResponseWriter.WriteHeader(status)
}

func (c *capturer) Write(p []byte) (int, error) {
	c.body.Write(p)
	return c.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush the stream.
func (c *capturer) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// branchOf names the branch a request comes from, by its instruction.
func branchOf(in []*schema.Message) string {
	for _, m := range in {
		if m.Role == schema.System {
			name, _ := strings.CutPrefix(m.Content, "branch ")
			return name
		}
	}
	return ""
}

func hasToolResult(in []*schema.Message) bool {
	for _, m := range in {
		if m.Role == schema.Tool {
			return true
		}
	}
	return false
}

func searchCall(id string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "search", Arguments: `{"q":"x"}`}}})
}

// parallelBranches answers four branches: "fails" gets a 500 once the
// first call of "slow" has arrived; "slow" holds that call until the 500
// has gone out, then searches and answers; "searcher" searches and
// answers; "quick" answers at once. So "slow" is always in flight when
// "fails" fails.
func parallelBranches(failed <-chan struct{}) *scripted.Model {
	slowArrived := make(chan struct{})
	var once sync.Once
	return scripted.New(scripted.Forever(scripted.Func(func(ctx context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		switch branch := branchOf(in); branch {
		case "fails":
			select {
			case <-slowArrived:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return nil, errBranchDown
		case "slow":
			if hasToolResult(in) {
				return schema.AssistantMessage("slow done", nil), nil
			}
			once.Do(func() { close(slowArrived) })
			select {
			case <-failed:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return searchCall("slow-search"), nil
		case "searcher":
			if hasToolResult(in) {
				return schema.AssistantMessage("searcher done", nil), nil
			}
			return searchCall("searcher-search"), nil
		case "quick":
			return schema.AssistantMessage("quick done", nil), nil
		default:
			return nil, fmt.Errorf("a request from no known branch: %q", branch)
		}
	})))
}

// When one branch of a parallel workflow fails while others are still
// running, every token the provider billed is charged to the budget and
// recorded, one model_response per billed reply, and every run recorded
// ends. 200 runs (20 with -short), half of them
// streaming, on the eino-ext OpenAI client against a loopback server.
func TestAParallelBranchFailureLosesNoBilledToken(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 20
	}
	for i := range runs {
		streaming := i%2 == 1
		if !parallelFailureRun(t, streaming) {
			t.Fatalf("run %d (streaming=%v) failed; stopping", i, streaming)
		}
	}
}

// parallelFailureRun runs the query once and reports whether every check
// held.
func parallelFailureRun(t *testing.T, streaming bool) bool {
	t.Helper()
	ctx := context.Background()
	bill := &biller{failed: make(chan struct{})}
	bill.next = scripted.OpenAIHandler(parallelBranches(bill.failed))
	srv := httptest.NewServer(bill)
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()

	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Recorder: rec,
		Limits:   budget.Limits{MaxTokens: 1 << 40},
		OnError:  func(context.Context, error) {},
	})
	require.NoError(t, err)
	var branches []adk.Agent
	for _, name := range []string{"fails", "slow", "searcher", "quick"} {
		chat, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
			BaseURL: srv.URL + "/v1", APIKey: "test-key", Model: "gpt-4o-mini", HTTPClient: &http.Client{Transport: tr},
		})
		require.NoError(t, err)
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: name, Description: "the " + name + " branch", Instruction: "branch " + name, Model: chat,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
			Handlers:    []adk.ChatModelAgentMiddleware{mw},
		})
		require.NoError(t, err)
		branches = append(branches, a)
	}
	root, err := adk.NewParallelAgent(ctx, &adk.ParallelAgentConfig{Name: "fanout", Description: "fans out", SubAgents: branches})
	require.NoError(t, err)

	store := session.New(nil)
	// Only a guard against a hang: no run comes near it.
	runCtx, cancel := context.WithTimeout(session.NewContext(ctx, store), time.Minute)
	defer cancel()
	o := drain(adk.NewRunner(runCtx, adk.RunnerConfig{Agent: mw.Agent(root), EnableStreaming: streaming}).Query(runCtx, "do the task"))
	require.NoError(t, rec.Close(ctx))
	srv.Close() // waits for the handlers, so every billed reply is counted

	ok := assert.Error(t, o.err, "the failing branch's error reaches the caller")
	billed := bill.tokens.Load()
	ok = assert.Positive(t, bill.replies.Load(), "the slow branch's first reply, at least, was billed after the failure") && ok
	b, _ := lookout.BudgetOf(store)
	ok = assert.Equal(t, billed, b.TokensUsed, "every billed token is charged") && ok

	records := sink.Records()
	var responses, responseTokens, endedTokens int64
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.ModelResponse:
			if p.UsageReported {
				responses++
				responseTokens += p.Usage.TotalTokens
			}
		case *recorder.RunEnded:
			endedTokens += p.Usage.TotalTokens
		}
	}
	ok = assert.Equal(t, bill.replies.Load(), responses, "one model_response with usage per billed reply") && ok
	ok = assert.Equal(t, billed, responseTokens, "the model_responses record every billed token") && ok
	ok = assert.Equal(t, billed, endedTokens, "the runs' run_ended records add up to every billed token") && ok
	return endsInOrder(t, records) && ok
}

// endsInOrder checks that every run recorded has a run_ended that is its
// last record. The root's need not be the last of all: it is written when
// the caller sees the failed branch's error, and the other branches go on.
func endsInOrder(t *testing.T, records []recorder.Record) bool {
	t.Helper()
	ended := map[string]bool{}
	started := map[string]bool{}
	ok := true
	for _, r := range records {
		if ended[r.RunID] {
			ok = assert.Fail(t, "a record after its run's end", "%s of run %s", r.Kind(), r.RunID) && ok
		}
		switch r.Payload.(type) {
		case *recorder.RunStarted:
			started[r.RunID] = true
		case *recorder.RunEnded:
			ended[r.RunID] = true
		}
	}
	for id := range started {
		ok = assert.True(t, ended[id], "run %s has a run_ended", id) && ok
	}
	return assert.NotEmpty(t, records) && ok
}
