package otelexport

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/lookout-go/lookout/recorder"
)

// Attributes Lookout adds beside the GenAI conventions, under its own
// namespace.
const (
	RunIDKey          = attribute.Key("lookout.run.id")          // invoke_agent: the run id
	OutcomeKey        = attribute.Key("lookout.run.outcome")     // invoke_agent: the run's outcome
	StopReasonKey     = attribute.Key("lookout.run.stop_reason") // invoke_agent: why the run stopped, when recorded
	CallIndexKey      = attribute.Key("lookout.tool.call_index") // execute_tool: the call_index of its tool_ended record
	ToolsWithheldKey  = attribute.Key("lookout.model.tools_withheld")
	AssessmentKey     = attribute.Key("lookout.assessment.markdown")
	AfterCallKey      = attribute.Key("lookout.assessment.after_call_index")
	ObserversKey      = attribute.Key("lookout.assessment.observers")
	SeveritiesKey     = attribute.Key("lookout.assessment.severities")
	BudgetResourceKey = attribute.Key("lookout.budget.resource")
	BudgetAmountKey   = attribute.Key("lookout.budget.amount")
	BudgetUsedKey     = attribute.Key("lookout.budget.used")
	BudgetLimitKey    = attribute.Key("lookout.budget.limit")
	ExtensionKey      = attribute.Key("lookout.extension.name")
	CostKey           = attribute.Key("lookout.cost.usd")   // chat: the call's cost; invoke_agent: its calls' cost, in US dollars
	MCPServerKey      = attribute.Key("lookout.mcp.server") // execute_tool: the MCP server that served the call
	MCPToolKey        = attribute.Key("lookout.mcp.tool")   // execute_tool: the tool's name on that server
)

// Span event names.
const (
	AssessmentEvent     = "lookout.assessment"      // an assessment record
	BudgetChargedEvent  = "lookout.budget.charged"  // a budget record of event "charged"
	BudgetExceededEvent = "lookout.budget.exceeded" // a budget record of event "exceeded"
	ExtensionEvent      = "lookout.extension"       // an extension record
)

// Values of error.type besides a run's outcome.
const (
	// ToolErrorType marks a tool call that failed.
	ToolErrorType = "tool_error"
	// IncompleteType marks a span whose end was not recorded: a model
	// call without a response, a tool call without its end, a run
	// without run_ended. A call ends at the next model request or its
	// run's end; a run at its last record or its last child's end.
	IncompleteType = "incomplete"
)

// ScopeName is the instrumentation scope of every span.
const ScopeName = "github.com/lookout-go/lookout/otelexport"

// builder turns records into spans. It takes a run's records in seq order,
// runs interleaved, with a parent's run_started before its children's, as
// a Recorder writes them; it hands each span to emit once the span ends.
// It is not safe for concurrent use.
type builder struct {
	opts Options
	runs map[string]*runState
	emit func(*tracetest.SpanStub)
	// measure, when set, takes each model call that ended with its
	// response, for the metrics.
	measure func(*tracetest.SpanStub, *recorder.ModelResponse)
}

// The operation names, as written in span names.
var (
	opInvokeAgent = semconv.GenAIOperationNameInvokeAgent.Value.AsString()
	opChat        = semconv.GenAIOperationNameChat.Value.AsString()
	opExecuteTool = semconv.GenAIOperationNameExecuteTool.Value.AsString()
)

// scope is the instrumentation scope of every span.
var scope = instrumentation.Scope{Name: ScopeName, SchemaURL: schemaURL}

// runState is what the builder holds of a run until its tree ends.
type runState struct {
	id      string
	depth   int       // below the root it is known under
	parent  *runState // when known
	root    *runState
	members []*runState // on a root, the runs of its tree
	span    tracetest.SpanStub
	model   string // the first model the run requested, else the first that answered
	agent   string // the model the agent is configured with
	usage   usage
	chat    *openChat               // the model call in flight
	tools   []*openTool             // tool calls in flight, in start order
	byCall  map[string]trace.SpanID // latest tool span by call id, for children
	descs   map[string]string       // tool descriptions by name, from the run's latest definitions
	last    time.Time
	ended   bool
	conv    string // the conversation id its run_started names, on a root
}

// openChat is a model call in flight.
type openChat struct {
	model string // as requested
	span  *tracetest.SpanStub
}

// openTool is a tool call in flight.
type openTool struct {
	callID, name string
	span         *tracetest.SpanStub
}

// takeTool removes and returns the span of the tool call in flight that a
// tool_ended of callID and name ends: the first started with that call id,
// or, without one, the first of that name. The call index cannot match
// them: a call's index is given when it ends.
func (st *runState) takeTool(callID, name string) *tracetest.SpanStub {
	i := slices.IndexFunc(st.tools, func(t *openTool) bool {
		if callID != "" {
			return t.callID == callID
		}
		return t.callID == "" && t.name == name
	})
	if i < 0 {
		return nil
	}
	t := st.tools[i]
	st.tools = slices.Delete(st.tools, i, i+1)
	return t.span
}

// usage sums what the run's responses reported: tokens, cost, and the
// first provider named, by them or else by the run's children.
type usage struct {
	reported bool
	tokens   recorder.TokenUsage
	cost     float64
	provider string
}

func newBuilder(o *Options, emit func(*tracetest.SpanStub)) *builder {
	return &builder{opts: o.withDefaults(), runs: map[string]*runState{}, emit: emit}
}

// add takes one record.
func (b *builder) add(r *recorder.Record) {
	if recorder.IsNilPayload(r.Payload) {
		return
	}
	st := b.run(r)
	if st.ended {
		return
	}
	if r.RecordedAt.After(st.last) {
		st.last = r.RecordedAt
	}
	if !b.addCall(st, r) {
		b.addRunRecord(st, r)
	}
}

// addCall takes a record of a model or tool call. It reports whether r
// was one.
func (b *builder) addCall(st *runState, r *recorder.Record) bool {
	switch p := r.Payload.(type) {
	case *recorder.ModelRequest:
		b.openChat(st, r, p)
	case *recorder.ModelResponse:
		b.endChat(st, r, p)
	case *recorder.ToolStarted:
		b.openTool(st, r, p)
	case *recorder.ToolEnded:
		b.endTool(st, r, p)
	default:
		return false
	}
	return true
}

// addRunRecord takes a record of the run itself: its start, which names
// its agent, its end, and the records that are events of its span.
func (b *builder) addRunRecord(st *runState, r *recorder.Record) {
	switch p := r.Payload.(type) {
	case *recorder.RunStarted:
		st.name(p.AgentName)
		st.agent = p.AgentModel
		if p.AgentVersion != "" {
			st.span.Attributes = append(st.span.Attributes, agentVersionKey.String(p.AgentVersion))
		}
	case *recorder.AssessmentRecord:
		b.event(st, AssessmentEvent, r.RecordedAt, assessmentAttrs(p))
	case *recorder.BudgetRecord:
		b.event(st, budgetEvent(p), r.RecordedAt, []attribute.KeyValue{
			BudgetResourceKey.String(p.Resource), BudgetAmountKey.Int64(p.Amount),
			BudgetUsedKey.Int64(p.Used), BudgetLimitKey.Int64(p.Limit),
		})
	case *recorder.Extension:
		b.event(st, ExtensionEvent, r.RecordedAt, []attribute.KeyValue{ExtensionKey.String(p.Name)})
	case *recorder.RunEnded:
		b.endRun(st, r.RecordedAt, p)
	}
}

// name names the run's span after its agent, when it has a name.
func (st *runState) name(agent string) {
	if agent == "" {
		return
	}
	st.span.Name = opInvokeAgent + " " + agent
	st.span.Attributes = append(st.span.Attributes, semconv.GenAIAgentName(agent))
}

// budgetEvent is the name of the event of a budget record.
func budgetEvent(p *recorder.BudgetRecord) string {
	if p.Event == recorder.BudgetExceeded {
		return BudgetExceededEvent
	}
	return BudgetChargedEvent
}

// run returns r's run, started at r when it is new: under its parent's
// span in its parent's trace when the parent is known, under the parent
// tool call that started it when run_started names one.
func (b *builder) run(r *recorder.Record) *runState {
	if st, ok := b.runs[r.RunID]; ok {
		return st
	}
	st := &runState{id: r.RunID, byCall: map[string]trace.SpanID{}, last: r.RecordedAt}
	if started, ok := r.Payload.(*recorder.RunStarted); ok {
		st.conv = started.ConversationID
	}
	traceID := TraceID(r.RunID)
	var parentSpan trace.SpanID
	if r.ParentRunID != "" {
		traceID, parentSpan = b.underParent(st, r)
	}
	if st.root == nil {
		st.root = st
	}
	st.root.members = append(st.root.members, st)
	st.span = b.stub(opInvokeAgent, trace.SpanKindInternal, traceID, RunSpanID(r.RunID), parentSpan, r.RecordedAt)
	st.span.Attributes = append(st.span.Attributes, semconv.GenAIOperationNameInvokeAgent, b.conversation(st), RunIDKey.String(r.RunID))
	b.runs[r.RunID] = st
	return st
}

// underParent links st, new, to the parent run that r names, when the
// parent is known, and returns the trace and the span st goes under: the
// parent's, or the parent tool call's when run_started names one. A
// parent missing from the records is taken for the root.
func (b *builder) underParent(st *runState, r *recorder.Record) (trace.TraceID, trace.SpanID) {
	parentSpan := RunSpanID(r.ParentRunID)
	parent, ok := b.runs[r.ParentRunID]
	if !ok {
		return TraceID(r.ParentRunID), parentSpan
	}
	st.root, st.parent, st.depth = parent.root, parent, parent.depth+1
	if started, ok := r.Payload.(*recorder.RunStarted); ok {
		if id, ok := parent.byCall[started.ParentToolCallID]; ok {
			parentSpan = id
		}
	}
	return parent.span.SpanContext.TraceID(), parentSpan
}

// conversation is the run's gen_ai.conversation.id: the conversation its
// root run was recorded in (the runs of one session, or the turns of a
// simulated conversation), else the root run's id, the id the ATIF export
// gives as the session id.
func (b *builder) conversation(st *runState) attribute.KeyValue {
	if st.root.conv != "" {
		return semconv.GenAIConversationID(st.root.conv)
	}
	return semconv.GenAIConversationID(st.root.id)
}

func (b *builder) stub(name string, kind trace.SpanKind, traceID trace.TraceID, id, parent trace.SpanID, start time.Time) tracetest.SpanStub {
	s := tracetest.SpanStub{
		Name:                 name,
		SpanContext:          trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: id, TraceFlags: trace.FlagsSampled}),
		SpanKind:             kind,
		StartTime:            start,
		Resource:             b.opts.Resource,
		InstrumentationScope: scope,
	}
	if parent.IsValid() {
		s.Parent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: parent, TraceFlags: trace.FlagsSampled})
	}
	return s
}

// openChat starts a chat span; a call still in flight got no response
// and ends here.
func (b *builder) openChat(st *runState, r *recorder.Record, p *recorder.ModelRequest) {
	if st.chat != nil {
		b.endIncompleteChat(st, r.RecordedAt)
	}
	if st.model == "" && p.Model != "" {
		st.model = p.Model
	}
	for _, d := range p.ToolDefinitions {
		if st.descs == nil {
			st.descs = map[string]string{}
		}
		st.descs[d.Name] = d.Description
	}
	s := b.child(st, opChat, trace.SpanKindClient, r.Seq, r.RecordedAt)
	s.Attributes = append(s.Attributes, semconv.GenAIOperationNameChat, b.conversation(st))
	if p.Stream {
		s.Attributes = append(s.Attributes, streamKey.Bool(true))
	}
	if p.ToolsWithheld {
		s.Attributes = append(s.Attributes, ToolsWithheldKey.Bool(true))
	}
	st.chat = &openChat{model: p.Model, span: &s}
}

// named gives a chat span its name and the attributes every chat span
// has: the model asked for (as requested, else as the response or the
// agent's configuration names it) and the provider.
func named(s *tracetest.SpanStub, model, provider string) {
	s.Name = opChat
	if model != "" {
		s.Name = opChat + " " + model
		s.Attributes = append(s.Attributes, semconv.GenAIRequestModel(model))
	}
	s.Attributes = append(s.Attributes, semconv.GenAIProviderNameKey.String(providerName(provider)))
}

// responseAttrs are a chat span's attributes from its response.
func responseAttrs(kv []attribute.KeyValue, p *recorder.ModelResponse) []attribute.KeyValue {
	if p.Model != "" {
		kv = append(kv, semconv.GenAIResponseModel(p.Model))
	}
	if id := responseID(p.Message); id != "" {
		kv = append(kv, semconv.GenAIResponseID(id))
	}
	if p.FinishReason != "" {
		kv = append(kv, semconv.GenAIResponseFinishReasons(p.FinishReason))
	}
	if p.UsageReported {
		kv = usageAttrs(kv, p.Usage)
	}
	if p.CostUSD > 0 {
		kv = append(kv, CostKey.Float64(p.CostUSD))
	}
	if p.Error != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(other))
	}
	return kv
}

// endChat ends the chat span in flight with the response, or makes one of
// the response alone, started Latency before it.
func (b *builder) endChat(st *runState, r *recorder.Record, p *recorder.ModelResponse) {
	c := st.chat
	st.chat = nil
	if c == nil {
		s := b.child(st, opChat, trace.SpanKindClient, r.Seq, r.RecordedAt.Add(-p.Latency))
		s.Attributes = append(s.Attributes, semconv.GenAIOperationNameChat, b.conversation(st))
		c = &openChat{span: &s}
	}
	if st.model == "" && p.Model != "" {
		st.model = p.Model
	}
	if st.usage.provider == "" {
		st.usage.provider = p.Provider
	}
	if p.UsageReported {
		st.usage.reported = true
		addUsage(&st.usage.tokens, p.Usage)
	}
	st.usage.cost += p.CostUSD
	s := c.span
	named(s, cmp.Or(c.model, p.Model, st.agent), p.Provider)
	s.Attributes = responseAttrs(s.Attributes, p)
	if p.Error != "" {
		s.Status = sdktrace.Status{Code: codes.Error, Description: p.Error}
	}
	s.EndTime = r.RecordedAt
	b.emitCall(s, p)
}

// child returns a span of st's trace under st's span, with the id of the
// record at seq.
func (b *builder) child(st *runState, name string, kind trace.SpanKind, seq uint64, start time.Time) tracetest.SpanStub {
	return b.stub(name, kind, st.span.SpanContext.TraceID(), CallSpanID(st.id, seq), st.span.SpanContext.SpanID(), start)
}

// emitCall emits the span of a model call that p ended, and measures the
// call for the metrics.
func (b *builder) emitCall(s *tracetest.SpanStub, p *recorder.ModelResponse) {
	b.emit(s)
	if b.measure != nil {
		b.measure(s, p)
	}
}

func toolName(name string) string {
	return opExecuteTool + " " + name
}

// toolAttrs are an execute_tool span's attributes: its description is the
// one the run last offered the tool with.
func (st *runState) toolAttrs(name, callID string) []attribute.KeyValue {
	kv := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(name), semconv.GenAIToolTypeKey.String("function")}
	if callID != "" {
		kv = append(kv, semconv.GenAIToolCallID(callID))
	}
	if d := st.descs[name]; d != "" {
		kv = append(kv, semconv.GenAIToolDescription(d))
	}
	return kv
}

func (b *builder) openTool(st *runState, r *recorder.Record, p *recorder.ToolStarted) {
	s := b.child(st, toolName(p.Name), trace.SpanKindInternal, r.Seq, r.RecordedAt)
	s.Attributes = mcpAttrs(append(s.Attributes, st.toolAttrs(p.Name, p.CallID)...), p)
	if b.opts.ToolContent && p.Arguments != "" {
		s.Attributes = append(s.Attributes, semconv.GenAIToolCallArgumentsKey.String(p.Arguments))
	}
	st.tools = append(st.tools, &openTool{callID: p.CallID, name: p.Name, span: &s})
	if p.CallID != "" {
		st.byCall[p.CallID] = s.SpanContext.SpanID()
	}
}

// endTool ends the tool span of the call, or makes one of the end alone,
// started Duration before it.
func (b *builder) endTool(st *runState, r *recorder.Record, p *recorder.ToolEnded) {
	s := st.takeTool(p.CallID, p.Name)
	if s == nil {
		c := b.child(st, toolName(p.Name), trace.SpanKindInternal, r.Seq, r.RecordedAt.Add(-p.Duration))
		c.Attributes = append(c.Attributes, st.toolAttrs(p.Name, p.CallID)...)
		s = &c
	}
	s.Attributes = append(s.Attributes, CallIndexKey.Int(p.CallIndex))
	if b.opts.ToolContent && !p.IsError && p.Result != "" {
		s.Attributes = append(s.Attributes, semconv.GenAIToolCallResultKey.String(p.Result))
	}
	if p.IsError {
		s.Attributes = append(s.Attributes, semconv.ErrorTypeKey.String(ToolErrorType))
		s.Status = sdktrace.Status{Code: codes.Error, Description: p.Error}
	}
	s.EndTime = r.RecordedAt
	b.emit(s)
}

func assessmentAttrs(p *recorder.AssessmentRecord) []attribute.KeyValue {
	kv := []attribute.KeyValue{AssessmentKey.String(p.Markdown), AfterCallKey.Int(p.AfterCallIndex)}
	if len(p.Observers) > 0 {
		names := make([]string, len(p.Observers))
		severities := make([]string, len(p.Observers))
		for i, o := range p.Observers {
			names[i], severities[i] = o.Name, o.Severity
		}
		kv = append(kv, ObserversKey.StringSlice(names), SeveritiesKey.StringSlice(severities))
	}
	return kv
}

// event adds an event to st's span, or counts it dropped past MaxEvents.
func (b *builder) event(st *runState, name string, at time.Time, kv []attribute.KeyValue) {
	if b.opts.MaxEvents >= 0 && len(st.span.Events) >= b.opts.MaxEvents {
		st.span.DroppedEvents++
		return
	}
	st.span.Events = append(st.span.Events, sdktrace.Event{Name: name, Time: at, Attributes: kv})
}

// endRun ends the run's calls still in flight and its span, with end
// (nil when run_ended was not recorded) at time at.
func (b *builder) endRun(st *runState, at time.Time, end *recorder.RunEnded) {
	b.endCalls(st, at)
	s := &st.span
	if m := cmp.Or(st.model, st.agent); m != "" {
		s.Attributes = append(s.Attributes, semconv.GenAIRequestModel(m))
	}
	s.Attributes = append(s.Attributes, semconv.GenAIProviderNameKey.String(providerName(st.usage.provider)))
	if st.usage.reported {
		s.Attributes = usageAttrs(s.Attributes, st.usage.tokens)
	}
	if st.usage.cost > 0 {
		s.Attributes = append(s.Attributes, CostKey.Float64(st.usage.cost))
	}
	setOutcome(s, end)
	s.EndTime = at
	st.ended = true
	if p := st.parent; p != nil {
		if at.After(p.last) {
			// A parent that ends without run_ended ends after its children.
			p.last = at
		}
		if p.usage.provider == "" {
			// A run that calls no model itself, such as a workflow,
			// has the provider of its first child that named one.
			p.usage.provider = st.usage.provider
		}
	}
	b.emit(s)
	b.forget(st)
}

// endCalls ends the run's model and tool calls still in flight at at.
func (b *builder) endCalls(st *runState, at time.Time) {
	if st.chat != nil {
		b.endIncompleteChat(st, at)
	}
	for _, t := range st.tools {
		b.endIncomplete(t.span, at)
	}
	st.tools = nil
}

// setOutcome gives a run's span its outcome and stop reason from end, and
// an error status unless the run completed; end is nil for a run without
// run_ended.
func setOutcome(s *tracetest.SpanStub, end *recorder.RunEnded) {
	if end == nil {
		s.Attributes = append(s.Attributes, semconv.ErrorTypeKey.String(IncompleteType))
		s.Status = sdktrace.Status{Code: codes.Error, Description: "no run_ended record"}
		return
	}
	s.Attributes = append(s.Attributes, OutcomeKey.String(string(end.Outcome)))
	if end.StopReason != "" {
		s.Attributes = append(s.Attributes, StopReasonKey.String(end.StopReason))
	}
	if end.Outcome != recorder.OutcomeCompleted {
		s.Attributes = append(s.Attributes, semconv.ErrorTypeKey.String(string(end.Outcome)))
		s.Status = sdktrace.Status{Code: codes.Error, Description: cmp.Or(end.Error, end.StopReason)}
	}
}

// forget drops the runs of st's tree once its root has ended: until then a
// child may still start under any of them.
func (b *builder) forget(st *runState) {
	root := st.root
	if !root.ended {
		return
	}
	for _, m := range root.members {
		if m.ended {
			delete(b.runs, m.id)
		}
	}
	root.members = slices.DeleteFunc(root.members, func(m *runState) bool { return m.ended })
}

// endIncompleteChat ends the model call in flight, whose response was
// not recorded, at at.
func (b *builder) endIncompleteChat(st *runState, at time.Time) {
	c := st.chat
	st.chat = nil
	named(c.span, cmp.Or(c.model, st.agent), st.usage.provider)
	b.endIncomplete(c.span, at)
}

// endIncomplete ends a call span whose end was not recorded.
func (b *builder) endIncomplete(s *tracetest.SpanStub, at time.Time) {
	s.Attributes = append(s.Attributes, semconv.ErrorTypeKey.String(IncompleteType))
	s.Status = sdktrace.Status{Code: codes.Error, Description: "no end recorded"}
	s.EndTime = at
	b.emit(s)
}

// finish ends every run still open at its last record or its children's
// end, whichever is later: children first, then in run id order.
func (b *builder) finish() {
	open := make([]*runState, 0, len(b.runs))
	for _, st := range b.runs {
		if !st.ended {
			open = append(open, st)
		}
	}
	// Children first, so that a root forgets its whole tree.
	slices.SortFunc(open, func(x, y *runState) int {
		return cmp.Or(cmp.Compare(y.depth, x.depth), strings.Compare(x.id, y.id))
	})
	for _, st := range open {
		b.endRun(st, st.last, nil)
	}
}
