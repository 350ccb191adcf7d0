package summary_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/scripted"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// benchRecords is a run of n tool-calling turns: per turn a model
// response, a tool start and a tool end (every tenth failing), and every
// fifth turn an assessment; a user message every 50 turns.
func benchRecords(n int) []recorder.Record {
	tp := newTape().start("run", "", "bench")
	out := strings.Repeat("output ", 40)
	for i := range n {
		if i%50 == 0 {
			tp.user("run", "prompt "+strconv.Itoa(i))
		}
		id := "c" + strconv.Itoa(i)
		tool := "tool" + strconv.Itoa(i%5)
		tp.reply("run", "", 100, 20, id, tool).toolStart("run", id, tool)
		if i%10 == 9 {
			tp.toolFail("run", id, tool, "failed")
		} else {
			tp.toolEnd("run", id, tool, out)
		}
		if i%5 == 4 {
			tp.assess("run", "stall", "info", "resource", "warning")
		}
	}
	return tp.end("run", recorder.OutcomeCompleted, "").records
}

func BenchmarkAnalyze(b *testing.B) {
	records := benchRecords(10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		summary.Analyze(records)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(records)), "ns/record")
}

func BenchmarkSplit(b *testing.B) {
	records := benchRecords(10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		summary.Split(records)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(records)), "ns/record")
}

// BenchmarkSummarize measures the work around the model: splitting, the
// bounded request for each of 200 prompts, and parsing the answers. The
// model answers at once.
func BenchmarkSummarize(b *testing.B) {
	records := benchRecords(10_000)
	m := &fakeModel{reply: func(int, []*schema.Message) (*schema.Message, error) {
		return schema.AssistantMessage(goodAnswer, nil), nil
	}, forget: true}
	s, err := summary.New(&summary.Config{Model: m})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Summarize(ctx, records); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/prompt")
}

// BenchmarkSummarizeLoopback summarizes 2,000 prompts, 16 at a time,
// through the eino-ext OpenAI client and a loopback server whose model
// takes 100 ms per answer: the scale target (≤ 30 s per op).
func BenchmarkSummarizeLoopback(b *testing.B) {
	const prompts = 2000
	records := manyPrompts(prompts)
	slow := scripted.Func(func(ctx context.Context, _ []*schema.Message, _ *model.Options) (*schema.Message, error) {
		t := time.NewTimer(100 * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return schema.AssistantMessage(goodAnswer, nil), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Forever(slow)).WithCapture(false))
	defer srv.Close()
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 16
	defer transport.CloseIdleConnections()
	cm, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
		BaseURL: srv.BaseURL(), APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: transport},
	})
	if err != nil {
		b.Fatal(err)
	}
	s, err := summary.New(&summary.Config{Model: cm, Concurrency: 16})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ps, err := s.Summarize(context.Background(), records)
		if err != nil {
			b.Fatal(err)
		}
		if st := ps.Stats(); st.Summarized != prompts {
			b.Fatalf("summarized %d of %d", st.Summarized, prompts)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*prompts), "ns/prompt")
}
