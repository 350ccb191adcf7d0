package simulate

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// judgeServer is a judge model served on loopback, with the prompts it
// was sent.
type judgeServer struct {
	*provider
	mu      sync.Mutex
	prompts []string
}

// lastPrompt is the prompt of the last request the judge served.
func (j *judgeServer) lastPrompt(t *testing.T) string {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	require.NotEmpty(t, j.prompts)
	return j.prompts[len(j.prompts)-1]
}

// ruleJudge serves, on loopback, a judge model that passes criterion 1
// when its prompt shows the line want, and marks it final when it fails
// while the conversation goes on and the prompt shows failFor.
func ruleJudge(t *testing.T, want, failFor string) *judgeServer {
	j := &judgeServer{}
	j.provider = newProvider(t, scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		p := in[len(in)-1].Content
		j.mu.Lock()
		j.prompts = append(j.prompts, p)
		j.mu.Unlock()
		passed := strings.Contains(p, want)
		final := !passed && failFor != "" && strings.Contains(p, failFor)
		return schema.AssistantMessage(fmt.Sprintf(`{"criteria":[{"index":1,"passed":%t,"score":%d,"reason":"seen","final":%t}]}`,
			passed, map[bool]int{true: 1}[passed], final), nil), nil
	}))), always(0))
	return j
}

// booking calls book, whose result carries no tool name, as messages read
// back from the OpenAI shape do not, then answers.
func booking(result string) TargetFunc {
	return func(context.Context, []*schema.Message) ([]*schema.Message, error) {
		return []*schema.Message{
			schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "book", Arguments: `{"flight":"TP123"}`}}}),
			schema.ToolMessage(result, "c1"),
			schema.AssistantMessage("Booked!", nil),
		}, nil
	}
}

func claiming() TargetFunc {
	return func(context.Context, []*schema.Message) ([]*schema.Message, error) {
		return []*schema.Message{schema.AssistantMessage("Booked!", nil)}, nil
	}
}

func TestTheJudgeSeesToolCallsAndResults(t *testing.T) {
	ctx := context.Background()
	const criterion = "The assistant booked TP123 with the book tool"
	jp := ruleJudge(t, `Assistant called tool book with {"flight":"TP123"}`+"\nTool result from book: confirmed", "")
	judge := NewJudge(jp.client(t))
	sc := &Scenario{Goal: "book TP123", MaxTurns: 1, Criteria: []string{criterion}}
	for _, tc := range []struct {
		name   string
		target Target
		passed bool
	}{
		{"passes when the call was made", booking("confirmed"), true},
		{"fails when the agent only says so", claiming(), false},
		{"fails when the tool failed", booking("Error: no seats"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := (&Runner{UserModel: stepUser(), Judge: judge}).Run(ctx, sc, tc.target)
			require.NoError(t, err)
			require.Len(t, res.End.Criteria, 1)
			assert.Equal(t, tc.passed, res.End.Criteria[0].Passed)
			assert.Equal(t, tc.passed, res.End.Passed, "a scenario judged on its criteria alone passes on them")
		})
	}
	prompt := jp.lastPrompt(t)
	assert.Contains(t, prompt, "Tool result from book (the tool failed): no seats")
}

func TestTheJudgeStopsARunOnAFailureForGood(t *testing.T) {
	ctx := context.Background()
	jp := ruleJudge(t, "Assistant called tool book", "Booked!")
	sc := &Scenario{Goal: "book TP123", MaxTurns: 5, Criteria: []string{"never claims a booking it did not make"}, JudgeEveryTurn: true}
	res, err := (&Runner{UserModel: stepUser(), Judge: NewJudge(jp.client(t))}).Run(ctx, sc, claiming())
	require.NoError(t, err)
	assert.Equal(t, StopJudge, res.End.Reason)
	assert.Equal(t, 1, res.End.Turns, "stopped after the first turn")
	assert.False(t, res.End.Passed)
	assert.True(t, res.End.Criteria[0].Final)
	assert.Contains(t, jp.lastPrompt(t), "The conversation is not over")
	assert.Equal(t, 1, res.Usage[RoleJudge].Calls, "the stopping verdict is the run's")

	res, err = (&Runner{UserModel: stepUser(), Judge: NewJudge(jp.client(t))}).Run(ctx, sc, booking("confirmed"))
	require.NoError(t, err)
	assert.Equal(t, StopMaxTurns, res.End.Reason)
	assert.True(t, res.End.Passed)
	assert.False(t, res.End.Criteria[0].Final, "a final verdict is not final once the run ended")
	assert.Equal(t, 5, res.Usage[RoleJudge].Calls, "four turns judged on the way, and the end")
}

// searchTool calls a search service on loopback, which answers 503.
func searchTool(t *testing.T) tool.InvokableTool {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	st, err := utils.InferTool("search", "searches flights", func(ctx context.Context, _ struct{}) (string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		return "", fmt.Errorf("search service: status code: %d", resp.StatusCode)
	})
	require.NoError(t, err)
	return st
}

// toolAgent calls search through an Eino ToolsNode, with no Lookout
// middleware, so that the tool's error ends its turn; partial says
// whether it hands back the call it made with the error.
func toolAgent(t *testing.T, partial bool) TargetFunc {
	tn, err := compose.NewToolNode(context.Background(), &compose.ToolsNodeConfig{Tools: []tool.BaseTool{searchTool(t)}})
	require.NoError(t, err)
	return func(ctx context.Context, _ []*schema.Message) ([]*schema.Message, error) {
		call := schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "search", Arguments: `{}`}}})
		if _, err := tn.Invoke(ctx, call); err != nil {
			if partial {
				return []*schema.Message{call}, fmt.Errorf("agent: %s", strings.ReplaceAll(err.Error(), "invoke", "run"))
			}
			return nil, err
		}
		return []*schema.Message{call}, nil
	}
}

func TestAToolsTransientFailureIsTheTools(t *testing.T) {
	ctx := context.Background()
	for _, partial := range []bool{false, true} {
		t.Run(fmt.Sprintf("partial output %t", partial), func(t *testing.T) {
			res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g"}, toolAgent(t, partial))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrTool)
			assert.NotErrorIs(t, err, ErrInfrastructure)
			assert.Equal(t, SideTool, res.End.ErrorSide)
			assert.Equal(t, "search", res.End.ErrorTool)
			assert.Contains(t, res.End.Summary, "The tool search failed")
		})
	}

	t.Run("and the run counts in pass^k", func(t *testing.T) {
		out := t.TempDir()
		b := &Batch{Scenarios: []*Scenario{{Name: "s", Goal: "g", MaxTurns: 2}}, Repetitions: 2, OutDir: out, Progress: io.Discard,
			Setup: func(context.Context, Job) (*Runner, Target, error) {
				return &Runner{UserModel: stepUser()}, toolAgent(t, false), nil
			}}
		_, err := b.Run(ctx)
		require.NoError(t, err)
		s, err := ReadBatch([]string{out}, nil, nil)
		require.NoError(t, err)
		assert.Equal(t, map[Side]int{SideTool: 2}, s.FailuresBySide)
		assert.Equal(t, []float64{0, 0}, s.PassK)
	})
}

// With one run of a scenario lost to the infrastructure, pass^k stops at
// the runs that scenario has left, and never rises with k.
func TestPassKNeverRisesWithK(t *testing.T) {
	ctx := context.Background()
	down := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("ok"))), always(503))
	agentDown := down.client(t)
	out := t.TempDir()
	b := &Batch{Scenarios: []*Scenario{
		{Name: "good", Goal: "g", Goals: []Goal{ToolCalled("book")}, MaxTurns: 1},
		{Name: "bad", Goal: "g", Goals: []Goal{ToolCalled("book")}, MaxTurns: 1},
	}, Repetitions: 4, OutDir: out, Progress: io.Discard,
		Setup: func(_ context.Context, j Job) (*Runner, Target, error) {
			r := &Runner{UserModel: stepUser(), Retry: NoRetry}
			switch {
			case j.ScenarioIndex == 0:
				return r, booking("confirmed"), nil
			case j.Repetition == 3:
				return r, TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
					_, err := agentDown.Generate(ctx, h)
					return nil, err
				}), nil
			}
			return r, claiming(), nil
		}}
	_, err := b.Run(ctx)
	require.NoError(t, err)
	s, err := ReadBatch([]string{out}, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, s.FailuresBySide[SideInfrastructure])
	assert.Equal(t, 3, s.Repetitions)
	assert.Equal(t, []float64{0.5, 0.5, 0.5}, s.PassK)
	for k := 1; k < len(s.PassK); k++ {
		assert.LessOrEqual(t, s.PassK[k], s.PassK[k-1])
	}
}
