package otelexport_test

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"go.yaml.in/yaml/v3"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// The GenAI semantic conventions the export follows, as their YAML
// model and pages define them, read from ../shared when it is there.
// The YAML library is test-only and already in the module graph, through
// the OpenTelemetry Collector's pdata.
var specDir = filepath.Join("..", "..", "shared", "specs", "otel-genai-v1.41.0")

// yamlGroup is a group of model/*.yaml: an attribute group, a span or a
// metric,
// with the attributes it defines or refers to.
type yamlGroup struct {
	ID         string     `yaml:"id"`
	Type       string     `yaml:"type"`
	SpanKind   string     `yaml:"span_kind"`
	MetricName string     `yaml:"metric_name"`
	Instrument string     `yaml:"instrument"`
	Unit       string     `yaml:"unit"`
	Extends    string     `yaml:"extends"`
	Attributes []yamlAttr `yaml:"attributes"`
}

// yamlAttr is an attribute of a group: its definition in the registry
// (id, type) or a reference to one (ref) with its requirement level.
type yamlAttr struct {
	ID          string    `yaml:"id"`
	Ref         string    `yaml:"ref"`
	Type        yaml.Node `yaml:"type"`
	Requirement yaml.Node `yaml:"requirement_level"`
}

// requirement is a requirement level, with its condition for
// conditionally_required.
type requirement struct {
	level, condition string
}

// conventions are the spans, attributes and types of the conventions.
type conventions struct {
	groups map[string]yamlGroup
	types  map[string]string // by attribute: string, int, double, boolean, string[], any; enum for members
	mcp    map[string]requirement
}

func loadConventions(t *testing.T) *conventions {
	t.Helper()
	if _, err := os.Stat(specDir); err != nil {
		t.Skipf("the conventions are not at %s: %v", specDir, err)
	}
	c := &conventions{groups: map[string]yamlGroup{}, types: map[string]string{}}
	for _, file := range []string{"registry.yaml", "spans.yaml", "metrics.yaml"} {
		data, err := os.ReadFile(filepath.Join(specDir, "model", file))
		require.NoError(t, err)
		var doc struct {
			Groups []yamlGroup `yaml:"groups"`
		}
		require.NoError(t, yaml.Unmarshal(data, &doc), file)
		for _, g := range doc.Groups {
			c.groups[g.ID] = g
			for _, a := range g.Attributes {
				if a.ID != "" {
					c.types[a.ID] = typeOf(a.Type)
				}
			}
		}
	}
	require.NotEmpty(t, c.types["gen_ai.provider.name"], "the registry was read")
	// The MCP attributes are defined in the pages only.
	mcpPage := readTable(t, "mcp.md", "span.mcp.client")
	c.mcp = map[string]requirement{}
	for attr, cols := range mcpPage {
		c.mcp[attr] = levelOfCell(cols[2])
	}
	for attr, cols := range readTable(t, "registry-attributes-mcp.md", "") {
		c.types[attr] = cols[2]
	}
	require.Equal(t, "required", c.mcp["mcp.method.name"].level, "the MCP page was read")
	return c
}

// typeOf is an attribute's type in the registry: a scalar name, or enum
// for one of listed members.
func typeOf(n yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return "enum"
}

// levelOf is a requirement level as the YAML gives it: a name, or a
// one-key map from a level to its condition. ok is false when the
// attribute gives none.
func levelOf(n yaml.Node) (r requirement, ok bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		return requirement{level: n.Value}, true
	case yaml.MappingNode:
		return requirement{level: n.Content[0].Value, condition: n.Content[1].Value}, true
	}
	return requirement{}, false
}

// levelOfCell is a requirement level as a page's table gives it, such as
// "`Conditionally Required` If and only if the operation fails.".
func levelOfCell(cell string) requirement {
	name, cond, _ := strings.Cut(strings.TrimPrefix(cell, "`"), "`")
	return requirement{level: strings.ReplaceAll(strings.ToLower(name), " ", "_"), condition: strings.TrimSpace(cond)}
}

// readTable returns the rows of the first attribute table of a page, or
// of the table of the section of the semconv id given, by attribute:
// each row's cells.
func readTable(t *testing.T, page, section string) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(specDir, "docs", page))
	require.NoError(t, err)
	defer f.Close()
	rows := map[string][]string{}
	in := section == ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case section != "" && strings.HasPrefix(line, "<!-- semconv "+section+" "):
			in = true
		case in && strings.HasPrefix(line, "<!-- endsemconv"):
			return rows
		case in && strings.HasPrefix(line, "| "):
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			_, name, ok := strings.Cut(cells[0], "`")
			if name, _, _ = strings.Cut(name, "`"); ok && strings.Contains(name, ".") && len(cells) > 3 {
				rows[name] = cells
			}
		case in && len(rows) > 0 && line == "":
			if section == "" {
				return rows
			}
		}
	}
	require.NoError(t, sc.Err())
	return rows
}

// requirements returns the attributes of group id, with those of the
// groups it extends, by attribute: a group's own requirement overrides
// the one it extends, and an attribute that gives none keeps the one
// extended, else is recommended.
func (c *conventions) requirements(id string) map[string]requirement {
	g, ok := c.groups[id]
	if !ok {
		return nil
	}
	out := map[string]requirement{}
	if g.Extends != "" {
		maps.Copy(out, c.requirements(g.Extends))
	}
	for _, a := range g.Attributes {
		r, ok := levelOf(a.Requirement)
		if _, had := out[a.Ref]; !ok && had {
			continue
		}
		if !ok {
			r = requirement{level: "recommended"}
		}
		out[a.Ref] = r
	}
	return out
}

// spanGroups are the spans of the conventions each operation's spans are.
var spanGroups = map[string]string{
	"chat":         "span.gen_ai.inference.client",
	"invoke_agent": "span.gen_ai.invoke_agent.internal",
	"execute_tool": "span.gen_ai.execute_tool.internal",
}

// testingT is the part of *testing.T the checks use.
type testingT interface {
	Helper()
	Errorf(format string, args ...any)
}

// runFacts is what a run's records say that decides a condition.
type runFacts struct {
	agent, version string
	model          bool // the records name a model the run asks for
}

func factsOf(records []recorder.Record) map[string]*runFacts {
	facts := map[string]*runFacts{}
	for _, r := range records {
		f := facts[r.RunID]
		if f == nil {
			f = &runFacts{}
			facts[r.RunID] = f
		}
		switch p := r.Payload.(type) {
		case *recorder.RunStarted:
			f.agent, f.version = p.AgentName, p.AgentVersion
			f.model = f.model || p.AgentModel != ""
		case *recorder.ModelRequest:
			f.model = f.model || p.Model != ""
		case *recorder.ModelResponse:
			f.model = f.model || p.Model != ""
		}
	}
	return facts
}

// checked is a span to check, with its attributes, its run's facts and
// whether its model_request asked for a streamed reply.
type checked struct {
	span     *tracepb.Span
	attrs    map[string]*commonpb.AnyValue
	run      *runFacts
	streamed bool
}

// conditions decide whether a conditionally required attribute's
// condition holds for a span, from the records.
var conditions = map[string]func(c checked) bool{
	"error.type":             func(c checked) bool { return c.span.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR },
	"gen_ai.request.model":   func(c checked) bool { return c.run.model },
	"gen_ai.conversation.id": func(checked) bool { return true }, // the root run's id, when no conversation is recorded
	"gen_ai.agent.name":      func(c checked) bool { return c.run.agent != "" },
	"gen_ai.agent.version":   func(c checked) bool { return c.run.version != "" },
	"server.port":            func(c checked) bool { return c.attrs["server.address"] != nil },
	"gen_ai.tool.name":       func(checked) bool { return true }, // on MCP spans: a tools/call is about a tool
	"gen_ai.request.stream":  func(c checked) bool { return c.streamed },
}

// unrecorded are the conditionally required attributes whose condition
// the records never meet, as they hold nothing the attribute could say.
var unrecorded = map[string]string{
	"gen_ai.request.choice.count": "the records hold no candidate count",
	"gen_ai.request.seed":         "the records hold no seed",
	"gen_ai.output.type":          "the records hold no requested output format",
	"gen_ai.agent.id":             "an Eino agent has a name and no id",
	"gen_ai.agent.description":    "the records hold no agent description",
	"gen_ai.data_source.id":       "the records name no data source",
	"gen_ai.prompt.name":          "a tools/call names no prompt",
	"mcp.resource.uri":            "a tools/call names no resource",
	"jsonrpc.request.id":          "the records hold no JSON-RPC id: the call is seen through Eino's tool, not the MCP session",
	"rpc.response.status_code":    "the records hold no JSON-RPC error code",
}

// check checks the OTLP JSON export of records against the conventions,
// counting the spans checked by group in seen.
func (c *conventions) check(t *testing.T, records []recorder.Record, seen map[string]int) {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, otelexport.WriteJSON(&out, records, nil))
	var spans []*tracepb.Span
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		if !bytes.HasPrefix(line, []byte(`{"resourceSpans"`)) {
			continue
		}
		req, err := otelexport.UnmarshalJSON(line)
		require.NoError(t, err)
		spans = append(spans, protoSpans(req)...)
	}
	require.NotEmpty(t, spans)
	runOf := map[string]string{}
	for _, s := range spans {
		if id := protoAttrs(s.Attributes)["lookout.run.id"]; id != nil {
			runOf[string(s.SpanId)] = id.GetStringValue()
		}
	}
	facts := factsOf(records)
	streamed := map[string]bool{} // by span id
	for _, r := range records {
		if p, ok := r.Payload.(*recorder.ModelRequest); ok && p.Stream {
			id := otelexport.CallSpanID(r.RunID, r.Seq)
			streamed[string(id[:])] = true
		}
	}
	for _, s := range spans {
		a := protoAttrs(s.Attributes)
		run := runOf[string(s.SpanId)]
		if run == "" {
			run = runOf[string(s.ParentSpanId)]
		}
		require.Contains(t, facts, run, "span %s belongs to a recorded run", s.Name)
		cs := checked{span: s, attrs: a, run: facts[run], streamed: streamed[string(s.SpanId)]}
		if cs.streamed {
			seen["streamed"]++
		}
		group := spanGroups[a["gen_ai.operation.name"].GetStringValue()]
		require.NotEmpty(t, group, "span %s has a GenAI operation", s.Name)
		seen[group]++
		c.checkSpan(t, cs, group)
		if a["mcp.method.name"] != nil {
			seen["span.mcp.client"]++
			checkRequired(t, cs, "span.mcp.client", c.mcp)
		}
		c.checkTypes(t, cs)
	}
}

// checkMetrics checks the OTLP JSON metrics of records against the
// metrics of the conventions, counting the metrics checked in seen.
func (c *conventions) checkMetrics(t *testing.T, records []recorder.Record, seen map[string]int) {
	t.Helper()
	named := false
	for _, f := range factsOf(records) {
		named = named || f.model
	}
	for _, req := range metricLines(t, records, nil) {
		for _, m := range req.ResourceMetrics[0].ScopeMetrics[0].Metrics {
			group := "metric." + m.Name
			g, ok := c.groups[group]
			require.True(t, ok, "%s is a metric of the conventions", m.Name)
			seen[group]++
			assert.Equal(t, "histogram", g.Instrument)
			assert.NotNil(t, m.GetHistogram(), "%s is a histogram", m.Name)
			assert.Equal(t, g.Unit, m.Unit, m.Name)
			for _, p := range m.GetHistogram().GetDataPoints() {
				a := protoAttrs(p.Attributes)
				cs := checked{span: &tracepb.Span{Name: m.Name}, attrs: a, run: &runFacts{model: named}}
				if a["error.type"] != nil {
					cs.span.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR}
				}
				checkRequired(t, cs, group, c.requirements(group))
				c.checkTypes(t, cs)
			}
		}
	}
}

// checkSpan checks a span's name, kind and attributes against group.
func (c *conventions) checkSpan(t *testing.T, cs checked, group string) {
	t.Helper()
	g := c.groups[group]
	kinds := map[string]tracepb.Span_SpanKind{"client": tracepb.Span_SPAN_KIND_CLIENT, "internal": tracepb.Span_SPAN_KIND_INTERNAL}
	assert.Equal(t, kinds[g.SpanKind], cs.span.Kind, "%s: kind", cs.span.Name)
	op := cs.attrs["gen_ai.operation.name"].GetStringValue()
	target := map[string]string{"chat": "gen_ai.request.model", "invoke_agent": "gen_ai.agent.name", "execute_tool": "gen_ai.tool.name"}[op]
	want := op
	if v := cs.attrs[target]; v != nil {
		want += " " + v.GetStringValue()
	}
	assert.Equal(t, want, cs.span.Name, "the name is {gen_ai.operation.name} {%s}", target)
	if op == "chat" {
		assert.Equal(t, cs.streamed, cs.attrs["gen_ai.request.stream"] != nil, "%s: gen_ai.request.stream if and only if the call streamed", cs.span.Name)
	}
	reqs := c.requirements(group)
	require.NotEmpty(t, reqs, group)
	checkRequired(t, cs, group, reqs)
}

// checkRequired checks that a span has every required attribute of reqs
// and every conditionally required one whose condition holds.
func checkRequired(t testingT, cs checked, group string, reqs map[string]requirement) {
	t.Helper()
	for _, attr := range slices.Sorted(maps.Keys(reqs)) {
		r := reqs[attr]
		switch r.level {
		case "required":
			assert.Contains(t, cs.attrs, attr, "%s (%s): required", cs.span.Name, group)
		case "conditionally_required":
			holds, known := conditions[attr]
			if !known {
				assert.Contains(t, unrecorded, attr, "%s: no rule decides %s's condition %q", group, attr, r.condition)
				continue
			}
			if holds(cs) {
				assert.Contains(t, cs.attrs, attr, "%s (%s): conditionally required, %q, and it holds", cs.span.Name, group, r.condition)
			}
		}
	}
}

// otlpTypes are the registry's types of OTLP's values.
var otlpTypes = map[string]func(*commonpb.AnyValue) bool{
	"string":   func(v *commonpb.AnyValue) bool { _, ok := v.Value.(*commonpb.AnyValue_StringValue); return ok },
	"enum":     func(v *commonpb.AnyValue) bool { _, ok := v.Value.(*commonpb.AnyValue_StringValue); return ok },
	"int":      func(v *commonpb.AnyValue) bool { _, ok := v.Value.(*commonpb.AnyValue_IntValue); return ok },
	"double":   func(v *commonpb.AnyValue) bool { _, ok := v.Value.(*commonpb.AnyValue_DoubleValue); return ok },
	"boolean":  func(v *commonpb.AnyValue) bool { _, ok := v.Value.(*commonpb.AnyValue_BoolValue); return ok },
	"any":      func(*commonpb.AnyValue) bool { return true },
	"string[]": isStrings,
}

func isStrings(v *commonpb.AnyValue) bool {
	arr, ok := v.Value.(*commonpb.AnyValue_ArrayValue)
	if !ok {
		return false
	}
	for _, e := range arr.ArrayValue.Values {
		if _, ok := e.Value.(*commonpb.AnyValue_StringValue); !ok {
			return false
		}
	}
	return true
}

// checkTypes checks that every gen_ai.* and mcp.* attribute of a span is
// one the registry defines, of its type.
func (c *conventions) checkTypes(t *testing.T, cs checked) {
	t.Helper()
	for attr, v := range cs.attrs {
		if !strings.HasPrefix(attr, "gen_ai.") && !strings.HasPrefix(attr, "mcp.") {
			continue
		}
		typ, ok := c.types[attr]
		if !assert.True(t, ok, "%s: %s is not in the registry", cs.span.Name, attr) {
			continue
		}
		is := otlpTypes[typ]
		require.NotNil(t, is, "type %q of %s", typ, attr)
		assert.True(t, is(v), "%s: %s is a %s, not %v", cs.span.Name, attr, typ, v)
	}
}

// variant is how a scenario's models answer: scripted in process or
// through eino-ext's OpenAI client, streamed or not.
type variant struct {
	name      string
	mk        modelFor
	streaming bool
}

var variants = []variant{
	{"scripted", scriptedModel, false},
	{"scripted streaming", scriptedModel, true},
	{"openai client", openAIModel, false},
	{"openai client streaming", openAIModel, true},
}

// Every scenario's export follows the conventions: each span is named
// and of the kind they say, with every attribute they require, every
// conditionally required one whose condition the records meet, and
// every gen_ai.* and mcp.* attribute of its registry type; each metric
// is of the instrument and unit they say, its points with the attributes
// they require.
func TestTheExportOfEveryScenarioFollowsTheConventions(t *testing.T) {
	conv := loadConventions(t)
	seen := map[string]int{}
	// checkAll checks the spans and metrics of one query's records.
	checkAll := func(t *testing.T, v variant, records []recorder.Record) {
		calls := map[string]int{}
		conv.check(t, records, calls)
		assert.True(t, !v.streaming || calls["streamed"] > 0, "a streamed query's model calls stream")
		for k, n := range calls {
			seen[k] += n
		}
		conv.checkMetrics(t, records, seen)
	}
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		for _, v := range variants {
			t.Run(fmt.Sprintf("%s, %s", name, v.name), func(t *testing.T) {
				checkAll(t, v, recordADK(t, scenarios[name], v.mk, v.streaming))
			})
		}
	}
	for _, v := range variants {
		t.Run("react with an MCP tool, "+v.name, func(t *testing.T) {
			checkAll(t, v, recordReact(t, v.mk, v.streaming))
		})
	}
	checks := append(slices.Collect(maps.Values(spanGroups)), "span.mcp.client", "metric.gen_ai.client.token.usage", "metric.gen_ai.client.operation.duration")
	for _, group := range checks {
		assert.Positive(t, seen[group], "no %s span was checked", group)
	}
}

// probe is a testingT that notes a failure.
type probe struct{ failed bool }

func (*probe) Helper()                 {}
func (p *probe) Errorf(string, ...any) { p.failed = true }

// The requirements come from the YAML, with what a span extends, and a
// span without a required attribute fails the check.
func TestTheConventionsCheckFailsASpanWithoutARequiredAttribute(t *testing.T) {
	conv := loadConventions(t)
	reqs := conv.requirements("span.gen_ai.inference.client")
	assert.Equal(t, "required", reqs["gen_ai.provider.name"].level)
	assert.Equal(t, "required", reqs["gen_ai.operation.name"].level, "kept from the group extended")
	assert.Equal(t, requirement{"conditionally_required", "If available."}, reqs["gen_ai.request.model"])

	var p probe
	checkRequired(&p, checked{span: &tracepb.Span{Name: "chat"}, attrs: map[string]*commonpb.AnyValue{}, run: &runFacts{}}, "chat", reqs)
	assert.True(t, p.failed, "a chat span without gen_ai.provider.name fails")
}
