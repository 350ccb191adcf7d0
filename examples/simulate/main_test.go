package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/simulate"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestScriptedRunReachesTheGoalAndWritesArtifacts(t *testing.T) {
	m := scriptedModels()
	out := t.TempDir()
	var buf bytes.Buffer
	require.NoError(t, run(context.Background(), &buf, out, m))
	got := buf.String()
	for _, want := range []string{
		"[turn 0 · step flights · start]",
		"[turn 1 · step hotels · llm-ranked]",
		"[turn 2 · step book · preconditions-ordered]",
		"[turn 3 · step itinerary · preconditions-ordered]",
		"agent calls book {\"flight\":\"TP663\",\"hotel\":\"Baixa Sol\"}",
		"tool send_itinerary: itinerary LX-4821 sent to ana@example.com",
		"Stop reason: goal-reached (completed: true)",
		"Artifacts: " + filepath.Join(out, "lisbon-trip"),
	} {
		assert.Contains(t, got, want)
	}
	for _, f := range []string{simulate.ConversationFile, simulate.TracesFile, simulate.MetaFile} {
		assert.FileExists(t, filepath.Join(out, "lisbon-trip", f))
	}
	data, err := os.ReadFile(filepath.Join(out, "lisbon-trip", simulate.ConversationFile))
	require.NoError(t, err)
	lines, err := simulate.ReadJSONL(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Len(t, lines, 4)

	// Lookout recorded the agent: one run per turn, each complete.
	records, tear, err := recorder.ReadFile(filepath.Join(out, "lisbon-trip", "trajectory.jsonl"))
	require.NoError(t, err)
	require.Nil(t, tear)
	runs := map[string]bool{}
	ended := 0
	for _, r := range records {
		runs[r.RunID] = true
		if _, ok := r.Payload.(*recorder.RunEnded); ok {
			ended++
		}
	}
	assert.Len(t, runs, 4)
	assert.Equal(t, 4, ended)

	// The agent's last model call saw the whole conversation.
	agent := m.agent.(*scripted.Model)
	last := agent.Requests()[agent.Calls()-1]
	var users []string
	for _, msg := range last.Messages {
		if msg.Role == schema.User {
			users = append(users, msg.Content)
		}
	}
	assert.Len(t, users, 4)
	assert.Equal(t, 4, last.CountContaining("€"), "every tool result and reply quoting a price is still there")
}

// fakeLLM answers as the agent, the user or the ranker, from the request.
func fakeLLM(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
	sys := in[0].Content
	last := in[len(in)-1]
	call := func(name, args string) (*schema.Message, error) {
		return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: name, Arguments: args}}}), nil
	}
	switch {
	case strings.Contains(sys, "Score every candidate"):
		ids := regexp.MustCompile(`(?m)^- ([a-z]+):`).FindAllStringSubmatch(last.Content, -1)
		var parts []string
		for _, id := range ids {
			parts = append(parts, `{"stepId":"`+id[1]+`","score":0.8}`)
		}
		return schema.AssistantMessage(`{"scores":[`+strings.Join(parts, ",")+`]}`, nil), nil
	case strings.Contains(sys, "role-playing"):
		_, instr, _ := strings.Cut(last.Content, "What to do in this message: ")
		instr, _, _ = strings.Cut(instr, "\n")
		return schema.AssistantMessage("Hi, "+strings.ToLower(instr), nil), nil
	case last.Role == schema.Tool:
		return schema.AssistantMessage("Here you go: "+last.Content, nil), nil
	}
	q := last.Content
	switch {
	case strings.Contains(q, "book"):
		return call("book", `{"flight":"TP663","hotel":"Baixa Sol"}`)
	case strings.Contains(q, "itinerary"):
		return call("send_itinerary", `{"email":"ana@example.com"}`)
	case strings.Contains(q, "hotel"):
		return call("search_hotels", `{"city":"Lisbon","nights":3}`)
	case strings.Contains(q, "flights"):
		return call("search_flights", `{"from":"AMS","to":"LIS","date":"2025-05-12"}`)
	}
	return schema.AssistantMessage("How can I help?", nil), nil
}

func TestOpenAIPathOverLoopback(t *testing.T) {
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Forever(scripted.Func(fakeLLM))))
	defer srv.Close()
	env := map[string]string{"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_MODEL": "fake-llm"}
	ctx := context.Background()
	m, err := modelsFromEnv(ctx, func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "fake-llm", m.name)

	var buf bytes.Buffer
	require.NoError(t, run(ctx, &buf, t.TempDir(), m))
	out := buf.String()
	assert.Contains(t, out, "Simulated conversation (fake-llm models)")
	assert.Contains(t, out, "[turn 1 · step hotels · llm-ranked]")
	assert.Contains(t, out, "Stop reason: goal-reached (completed: true)")
}

func TestModelsFromEnvDefaultsToScripted(t *testing.T) {
	m, err := modelsFromEnv(context.Background(), func(string) string { return "" })
	require.NoError(t, err)
	assert.Equal(t, "scripted", m.name)
}

func Example() {
	var buf bytes.Buffer
	dir, _ := os.MkdirTemp("", "simulate-example")
	defer os.RemoveAll(dir)
	if err := run(context.Background(), &buf, dir, scriptedModels()); err != nil {
		fmt.Println(err)
	}
	// The artifacts folder changes from run to run; print the rest.
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !strings.HasPrefix(line, "Artifacts: ") {
			fmt.Println(line)
		}
	}
	// Output:
	// Simulated conversation (scripted models)
	//
	// [turn 0 · step flights · start]
	//   user: Hi! Any flights from Amsterdam to Lisbon on 12 May?
	//   agent calls search_flights {"from":"AMS","to":"LIS","date":"2025-05-12"}
	//   tool search_flights: AMS→LIS 2025-05-12: TP663 09:40 €142; KL1693 14:05 €171
	//   agent: TP663 leaves at 09:40 for €142; KL1693 at 14:05 for €171. Shall I look for a hotel?
	//
	// [turn 1 · step hotels · llm-ranked]
	//   user: Great. I also need a hotel in central Lisbon for 3 nights, Baixa if possible.
	//   agent calls search_hotels {"city":"Lisbon","area":"Baixa","nights":3}
	//   tool search_hotels: Lisbon, 3 nights: Baixa Sol €95/night; Alfama Rio €120/night
	//   agent: Baixa Sol is €95 a night, Alfama Rio €120. Which one?
	//
	// [turn 2 · step book · preconditions-ordered]
	//   user: Please book TP663 and Baixa Sol.
	//   agent calls book {"flight":"TP663","hotel":"Baixa Sol"}
	//   tool book: booked TP663 and Baixa Sol, confirmation LX-4821
	//   agent: Done: TP663 and Baixa Sol are booked, confirmation LX-4821.
	//
	// [turn 3 · step itinerary · preconditions-ordered]
	//   user: Thanks! Can you email me the itinerary? ana@example.com
	//   agent calls send_itinerary {"email":"ana@example.com"}
	//   tool send_itinerary: itinerary LX-4821 sent to ana@example.com
	//   agent: Sent the itinerary LX-4821 to ana@example.com. Have a great trip!
	//
	// Stop reason: goal-reached (completed: true)
	// lisbon-trip: stopped with goal-reached after 4 turns; goal completed.
	// Steps: flights satisfied (1 attempt), hotels satisfied (1 attempt), book satisfied (1 attempt), itinerary satisfied (1 attempt).
	// Goals: called book met in turn 2, called send_itinerary met in turn 3.
}
