package abharness_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/internal/abharness"
)

// reader plays, behind the loopback OpenAI server, a model that lists the
// directory, then rereads the manifest it finds there until a block's
// Stall section names a file, and then reads that ecosystem's lock file.
func reader(s abharness.Scenario) scripted.ReplyFunc {
	return func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		last := in[len(in)-1]
		call := func(tool, args string) *schema.Message {
			return &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{Function: schema.FunctionCall{Name: tool, Arguments: args}}}}
		}
		if last.Role == schema.Tool && strings.Contains(last.Content, "locked") {
			return &schema.Message{Role: schema.Assistant, Content: "acme-log 1.4.2"}, nil
		}
		if last.Role == schema.User && strings.Contains(last.Content, "### Stall") {
			for _, v := range s.Variants {
				if strings.Contains(last.Content, "path="+v.Key) {
					return call(v.Fix.Tool, v.Fix.Args), nil
				}
			}
		}
		for _, m := range in {
			if m.Role == schema.Tool && strings.HasSuffix(m.Content, "README.md") {
				return call("read_file", `{"path":"`+strings.SplitN(m.Content, "\n", 2)[0]+`"}`), nil
			}
		}
		return call("list_dir", `{"path":"."}`), nil
	}
}

// TestALiveModelThroughTheOpenAIClient runs the live agent through the
// eino-ext OpenAI client against the loopback server: the model reads the
// block it is sent as the last user message, so the block saves the calls
// it would waste, and the placebo none.
func TestALiveModelThroughTheOpenAIClient(t *testing.T) {
	s := abharness.Scenarios()[0]
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Forever(scripted.Func(reader(s)))))
	defer srv.Close()
	ctx := context.Background()
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.BaseURL(), APIKey: "k", Model: "m"})
	require.NoError(t, err)
	m, err := cm.WithTools(abharness.Tools())
	require.NoError(t, err)

	agents := map[string]abharness.NewAgent{"model": func(s abharness.Scenario, _ abharness.Variant, _ uint64) abharness.Agent {
		return abharness.NewLive(m, s)
	}}
	r, err := abharness.Measure(ctx, []abharness.Scenario{s}, 4, agents, abharness.Block, abharness.Placebo)
	require.NoError(t, err)
	block, ok := r.Cell("Stall", "model", abharness.Block)
	require.True(t, ok)
	require.Len(t, block.Shown, 4)
	assert.Equal(t, 1.0, block.Effect())
	placebo, _ := r.Cell("Stall", "model", abharness.Placebo)
	assert.Equal(t, 0.0, placebo.Effect())
}
