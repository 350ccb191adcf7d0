package otelexport

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"

	"github.com/lookout-go/lookout/recorder"
)

// The GenAI client metrics, with the units, descriptions and bucket
// boundaries the conventions give them.
const (
	tokenUsageName = "gen_ai.client.token.usage"
	tokenUsageUnit = "{token}"
	tokenUsageDesc = "Number of input and output tokens used."
	durationName   = "gen_ai.client.operation.duration"
	durationUnit   = "s"
	durationDesc   = "GenAI operation duration."
)

var (
	tokenBounds    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBounds = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

// The gen_ai.token.type of each token count.
var (
	inputTokens  = semconv.GenAITokenTypeKey.String("input")
	outputTokens = semconv.GenAITokenTypeKey.String("output")
)

// metricKeys are the attributes of a chat span that its measurements
// carry, the conventions' attributes of the client metrics.
var metricKeys = map[attribute.Key]bool{
	semconv.GenAIOperationNameKey: true, semconv.GenAIProviderNameKey: true,
	semconv.GenAIRequestModelKey: true, semconv.GenAIResponseModelKey: true, semconv.ErrorTypeKey: true,
}

// measurement is one model call as the client metrics count it: a call
// whose response was recorded.
type measurement struct {
	attrs         []attribute.KeyValue
	start, end    time.Time
	usage         bool // the provider reported usage
	input, output int64
}

// measure returns the measurement of the call whose span s the response
// p ended.
func measure(s *tracetest.SpanStub, p *recorder.ModelResponse) measurement {
	m := measurement{start: s.StartTime, end: s.EndTime, usage: p.UsageReported, input: p.Usage.PromptTokens, output: p.Usage.CompletionTokens}
	for _, kv := range s.Attributes {
		if metricKeys[kv.Key] {
			m.attrs = append(m.attrs, kv)
		}
	}
	return m
}

// each calls f with each value of m and its attributes: the duration
// and, when usage was reported, the input and output tokens.
func (m *measurement) each(duration func(float64, []attribute.KeyValue), tokens func(int64, []attribute.KeyValue)) {
	duration(m.end.Sub(m.start).Seconds(), m.attrs)
	if m.usage {
		attrs := slices.Clip(m.attrs)
		tokens(m.input, append(attrs, inputTokens))
		tokens(m.output, append(attrs, outputTokens))
	}
}

// instruments record measurements through a MeterProvider, for the live
// sink.
type instruments struct {
	tokens   metric.Int64Histogram
	duration metric.Float64Histogram
}

func newInstruments(mp metric.MeterProvider) (*instruments, error) {
	m := mp.Meter(ScopeName, metric.WithSchemaURL(schemaURL))
	tokens, err := m.Int64Histogram(tokenUsageName, metric.WithUnit(tokenUsageUnit), metric.WithDescription(tokenUsageDesc),
		metric.WithExplicitBucketBoundaries(tokenBounds...))
	if err != nil {
		return nil, fmt.Errorf("otelexport: %s: %w", tokenUsageName, err)
	}
	duration, err := m.Float64Histogram(durationName, metric.WithUnit(durationUnit), metric.WithDescription(durationDesc),
		metric.WithExplicitBucketBoundaries(durationBounds...))
	if err != nil {
		return nil, fmt.Errorf("otelexport: %s: %w", durationName, err)
	}
	return &instruments{tokens: tokens, duration: duration}, nil
}

func (in *instruments) record(m measurement) {
	ctx := context.Background()
	m.each(func(v float64, kv []attribute.KeyValue) { in.duration.Record(ctx, v, metric.WithAttributes(kv...)) },
		func(v int64, kv []attribute.KeyValue) { in.tokens.Record(ctx, v, metric.WithAttributes(kv...)) })
}

// histogram sums values by attribute set, as an SDK histogram with
// explicit bucket boundaries does.
type histogram struct {
	bounds []float64
	points map[attribute.Distinct]*histPoint
}

type histPoint struct {
	set           attribute.Set
	count         uint64
	sum, min, max float64
	buckets       []uint64
}

func (h *histogram) record(v float64, kv []attribute.KeyValue) {
	set := attribute.NewSet(kv...)
	p, ok := h.points[set.Equivalent()]
	if !ok {
		if h.points == nil {
			h.points = map[attribute.Distinct]*histPoint{}
		}
		p = &histPoint{set: set, min: v, max: v, buckets: make([]uint64, len(h.bounds)+1)}
		h.points[set.Equivalent()] = p
	}
	p.count++
	p.sum += v
	p.min, p.max = min(p.min, v), max(p.max, v)
	// A bucket holds the values up to its bound, the bound included.
	i, _ := slices.BinarySearch(h.bounds, v)
	p.buckets[i]++
}

// proto returns the histogram's points, ordered by their attributes, as
// a delta over start to end.
func (h *histogram) proto(name, unit, desc string, start, end time.Time) *metricspb.Metric {
	points := make([]*histPoint, 0, len(h.points))
	for _, p := range h.points {
		points = append(points, p)
	}
	enc := attribute.DefaultEncoder()
	slices.SortFunc(points, func(x, y *histPoint) int { return cmp.Compare(x.set.Encoded(enc), y.set.Encoded(enc)) })
	out := &metricspb.Histogram{AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA}
	for _, p := range points {
		sum, lo, hi := p.sum, p.min, p.max
		out.DataPoints = append(out.DataPoints, &metricspb.HistogramDataPoint{
			Attributes: keyValues(p.set.ToSlice()), StartTimeUnixNano: unixNano(start.UnixNano()), TimeUnixNano: unixNano(end.UnixNano()),
			Count: p.count, Sum: &sum, Min: &lo, Max: &hi, BucketCounts: p.buckets, ExplicitBounds: h.bounds,
		})
	}
	return &metricspb.Metric{Name: name, Unit: unit, Description: desc, Data: &metricspb.Metric_Histogram{Histogram: out}}
}

// treeMetrics are the metrics of the model calls of one run tree.
type treeMetrics struct {
	start, end        time.Time
	tokens, durations histogram
}

func newTreeMetrics() *treeMetrics {
	return &treeMetrics{tokens: histogram{bounds: tokenBounds}, durations: histogram{bounds: durationBounds}}
}

func (t *treeMetrics) add(m measurement) {
	if t.start.IsZero() || m.start.Before(t.start) {
		t.start = m.start
	}
	if m.end.After(t.end) {
		t.end = m.end
	}
	m.each(t.durations.record, func(v int64, kv []attribute.KeyValue) { t.tokens.record(float64(v), kv) })
}

// request returns the tree's metrics as an OTLP export request: the
// token usage, when a call reported it, and the durations.
func (t *treeMetrics) request(res *resource.Resource) *colmetricspb.ExportMetricsServiceRequest {
	sm := &metricspb.ScopeMetrics{Scope: &commonpb.InstrumentationScope{Name: ScopeName}, SchemaUrl: schemaURL}
	if len(t.tokens.points) > 0 {
		sm.Metrics = append(sm.Metrics, t.tokens.proto(tokenUsageName, tokenUsageUnit, tokenUsageDesc, t.start, t.end))
	}
	sm.Metrics = append(sm.Metrics, t.durations.proto(durationName, durationUnit, durationDesc, t.start, t.end))
	return &colmetricspb.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource:     &resourcepb.Resource{Attributes: keyValues(res.Attributes())},
		ScopeMetrics: []*metricspb.ScopeMetrics{sm},
		SchemaUrl:    res.SchemaURL(),
	}}}
}

// WriteMetricsJSON writes the GenAI client metrics of records (see
// Spans for what records hold), gen_ai.client.token.usage and
// gen_ai.client.operation.duration, in the OTLP JSON encoding: one
// ExportMetricsServiceRequest per root run whose tree made a model call,
// in the order of WriteJSON's traces, one per line. Each request holds
// the tree's model calls with a recorded response as delta histograms
// over the time from its first call's start to its last call's end, with
// the conventions' bucket boundaries. The same records and options always
// give the same bytes. The OpenTelemetry file format holds one signal per
// file: write traces and metrics to files of their own.
func WriteMetricsJSON(w io.Writer, records []recorder.Record, opts *Options) error {
	o := opts.withDefaults()
	ex, err := build(records, &o, true)
	if err != nil {
		return err
	}
	for _, t := range ex.trees {
		if len(t.durations.points) == 0 {
			continue
		}
		line, err := marshalJSON(t.request(o.Resource))
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}
