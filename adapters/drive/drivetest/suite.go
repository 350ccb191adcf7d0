package drivetest

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/session"
)

// Adapter is what an adapter's tests hand to [RunSuite]: how to build and
// run an agent its own way, and the few facts in which the adapters
// rightly differ. It is read-only once built and safe for concurrent use
// when its functions are.
type Adapter struct {
	// Run builds an agent on in.Model and in.Tools with Lookout configured
	// by in.Config, runs it once on in.Query with in.Ctx, and returns what
	// it produced. A streamed run is read to its end.
	Run func(t testing.TB, in Input) Outcome
	// New validates cfg the way the adapter's constructor does.
	New func(cfg *lookout.Config) error
	// Session is the adapter's lookup of the run's session from inside a
	// tool.
	Session func(ctx context.Context) (*session.Store, bool)
	// AgentName is the name a run is recorded under.
	AgentName string
	// InputMessages is how many message records a one-query run's input
	// is recorded as.
	InputMessages int
	// WrapUpDescribesTools says the wrap-up turn still describes the tools
	// and forbids calling them through the tool choice; otherwise it
	// offers no tools at all.
	WrapUpDescribesTools bool
}

// Input is one run for [Adapter.Run]. It is a value; the run owns its
// model and tools.
type Input struct {
	Model  model.ToolCallingChatModel
	Tools  []tool.BaseTool
	Config *lookout.Config
	// Ctx carries the session the run uses.
	Ctx   context.Context
	Query string
	Mode  Mode
	// TextThenCalls says a streamed reply may carry text before its tool
	// calls, so the agent must read the whole stream to see them.
	TextThenCalls bool
}

// Outcome is what a run produced: the agent's final message, or the error
// that ended the run. It is a value, safe to read from any goroutine.
type Outcome struct {
	Final *schema.Message
	Err   error
}

// Mode is how a run is driven. The zero Mode is [Generate]. It is a
// value, safe for concurrent use.
type Mode int

// The modes.
const (
	// Generate runs the agent without streaming. The zero Mode.
	Generate Mode = iota
	// Stream runs the agent with streaming and reads the output to its end.
	Stream
)

// Streaming reports whether m streams.
func (m Mode) Streaming() bool { return m == Stream }

func (m Mode) String() string {
	if m == Stream {
		return "stream"
	}
	return "generate"
}

// Both is the two modes, Generate first.
var both = []Mode{Generate, Stream}

// Spec is one run of a scenario: the model with its script, the tools,
// the configuration and a check over what the run produced. A nil Store
// means a fresh one, a nil Config the defaults and an empty Query "do the
// task". A Spec is used by one run; it is not for concurrent use.
type spec struct {
	Model         model.ToolCallingChatModel
	Tools         []tool.BaseTool
	Config        *lookout.Config
	Store         *session.Store
	Query         string
	TextThenCalls bool
	// Ctx, if set, derives the caller's ctx for the run.
	Ctx   func(t *testing.T, ctx context.Context) context.Context
	Check func(t *testing.T, r result)
}

// Result is what a [spec]'s check sees. It is a value, safe to read from
// any goroutine.
type result struct {
	Outcome
	Mode Mode
	// Store is the session the run used.
	Store *session.Store
	// Adapter is the adapter under test.
	Adapter Adapter
}

// RunFunc runs one spec in one mode and then its check. It is called from
// the scenario's test goroutine.
type runFunc func(t *testing.T, s spec, m Mode) result

// Scenario is one behaviour both adapters share. Build makes a fresh
// spec for each mode in Modes (Generate only when Modes is empty); a
// scenario that needs several runs sets Runs instead and drives them.
// Scenarios are built fresh by [scenarios]; one is safe for concurrent
// use only if its functions are.
type scenario struct {
	Name  string
	Modes []Mode
	Build func(t *testing.T, a Adapter) spec
	Runs  func(t *testing.T, a Adapter, run runFunc)
}

// Run runs every scenario of the kit through a, each as a subtest named
// after the behaviour it checks.
func Run(t *testing.T, a Adapter) {
	for _, sc := range scenarios() {
		t.Run(sc.Name, func(t *testing.T) { runScenario(t, a, sc) })
	}
}

// runScenario runs one scenario through a.
func runScenario(t *testing.T, a Adapter, sc scenario) {
	run := func(t *testing.T, s spec, m Mode) result {
		t.Helper()
		return runSpec(t, a, s, m)
	}
	if sc.Runs != nil {
		sc.Runs(t, a, run)
		return
	}
	modes := sc.Modes
	if len(modes) == 0 {
		modes = []Mode{Generate}
	}
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) { run(t, sc.Build(t, a), m) })
	}
}

func runSpec(t *testing.T, a Adapter, s spec, m Mode) result {
	t.Helper()
	store := s.Store
	if store == nil {
		store = session.New(nil)
	}
	query := s.Query
	if query == "" {
		query = "do the task"
	}
	ctx := session.NewContext(context.Background(), store)
	if s.Ctx != nil {
		ctx = s.Ctx(t, ctx)
	}
	o := a.Run(t, Input{
		Model: s.Model, Tools: s.Tools, Config: s.Config,
		Ctx: ctx, Query: query,
		Mode: m, TextThenCalls: s.TextThenCalls,
	})
	// The run has ended: a recording is complete once its Recorder has
	// delivered what the run queued.
	adaptertest.Flush(t)
	r := result{Outcome: o, Mode: m, Store: store, Adapter: a}
	if s.Check != nil {
		s.Check(t, r)
	}
	return r
}
