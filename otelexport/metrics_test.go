package otelexport_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// metricLines writes the metrics of records and decodes each line.
func metricLines(t *testing.T, records []recorder.Record, opts *otelexport.Options) []*colmetricspb.ExportMetricsServiceRequest {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, otelexport.WriteMetricsJSON(&out, records, opts))
	var reqs []*colmetricspb.ExportMetricsServiceRequest
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var req colmetricspb.ExportMetricsServiceRequest
		require.NoError(t, protojson.Unmarshal([]byte(line), &req), line)
		reqs = append(reqs, &req)
	}
	return reqs
}

// encode joins attributes as histograms keys their points.
func encode(kvs []attribute.KeyValue) string {
	vals := make([]string, len(kvs))
	for i, kv := range kvs {
		vals[i] = string(kv.Key) + "=" + kv.Value.Emit()
	}
	return strings.Join(vals, ",")
}

// histograms returns the histogram points of a request by metric name,
// each point keyed by its attributes' values joined with commas.
func histograms(req *colmetricspb.ExportMetricsServiceRequest) map[string]map[string]*metricspb.HistogramDataPoint {
	out := map[string]map[string]*metricspb.HistogramDataPoint{}
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				points := map[string]*metricspb.HistogramDataPoint{}
				for _, p := range m.GetHistogram().GetDataPoints() {
					var vals []string
					for _, kv := range p.Attributes {
						vals = append(vals, kv.Key+"="+kv.Value.GetStringValue())
					}
					points[strings.Join(vals, ",")] = p
				}
				out[m.Name] = points
			}
		}
	}
	return out
}

func TestTheMetricsCountEachModelCallByItsAttributes(t *testing.T) {
	reqs := metricLines(t, tree(t), nil)
	require.Len(t, reqs, 1, "one request per root run")
	sm := reqs[0].ResourceMetrics[0].ScopeMetrics[0]
	assert.Equal(t, otelexport.ScopeName, sm.Scope.Name)
	assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", sm.SchemaUrl)
	require.Len(t, sm.Metrics, 2)
	assert.Equal(t, "{token}", sm.Metrics[0].Unit)
	assert.Equal(t, "s", sm.Metrics[1].Unit)
	assert.Equal(t, metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA, sm.Metrics[0].GetHistogram().AggregationTemporality)

	h := histograms(reqs[0])
	const lead = "gen_ai.operation.name=chat,gen_ai.provider.name=_OTHER,gen_ai.request.model=gpt-4o-mini"
	input := h["gen_ai.client.token.usage"][lead+",gen_ai.token.type=input"]
	require.NotNil(t, input, "the lead's calls' input tokens: %v", h)
	assert.Equal(t, uint64(2), input.Count)
	assert.Equal(t, 1000.0, input.GetSum())
	assert.Equal(t, 300.0, input.GetMin())
	assert.Equal(t, 700.0, input.GetMax())
	assert.Equal(t, []uint64{0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}, input.BucketCounts, "300 and 700 are in (256, 1024]")
	assert.Equal(t, 50.0, h["gen_ai.client.token.usage"][lead+",gen_ai.token.type=output"].GetSum())
	assert.Len(t, h["gen_ai.client.token.usage"], 2, "the researcher's call reported no usage")

	durations := h["gen_ai.client.operation.duration"]
	require.Len(t, durations, 2)
	assert.Equal(t, uint64(2), durations[lead].Count)
	assert.Equal(t, 2.0, durations[lead].GetSum(), "a second each, request to response")
	assert.Equal(t, uint64(1), durations["gen_ai.operation.name=chat,gen_ai.provider.name=_OTHER"].Count, "the researcher's call names no model")
	assert.Equal(t, uint64(at(1).UnixNano()), durations[lead].StartTimeUnixNano, "from the first call's start")
	assert.Equal(t, uint64(at(15).UnixNano()), durations[lead].TimeUnixNano, "to the last call's end")
}

func TestAFailedModelCallIsTimedWithItsErrorType(t *testing.T) {
	s := oneCallRecords(t)
	h := histograms(metricLines(t, s, nil)[0])
	p := h["gen_ai.client.operation.duration"]["error.type=_OTHER,gen_ai.operation.name=chat,gen_ai.provider.name=openai,gen_ai.request.model=gpt-4o"]
	require.NotNil(t, p, "%v", h)
	assert.Equal(t, uint64(1), p.Count)
	assert.NotContains(t, h, "gen_ai.client.token.usage", "no usage was reported")
}

// oneCallRecords records a run whose one model call failed.
func oneCallRecords(t *testing.T) []recorder.Record {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: ticking()})
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1", AgentName: "worker", AgentModel: "gpt-4o"})
	require.NoError(t, err)
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{}))
	require.NoError(t, run.ModelResponse(ctx, recorder.ModelResponse{Error: "HTTP 500", Provider: "OpenAI"}))
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeError}))
	require.NoError(t, rec.Close(ctx))
	return sink.Records()
}

func TestTwoMetricsExportsOfOneRecordingAreByteIdentical(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, otelexport.WriteMetricsJSON(&a, tree(t), nil))
	require.NoError(t, otelexport.WriteMetricsJSON(&b, tree(t), nil))
	require.NotZero(t, a.Len())
	assert.Equal(t, a.String(), b.String())
}

func TestRunIDPicksTheMetricsOfTheRunAndItsChildren(t *testing.T) {
	reqs := metricLines(t, tree(t), &otelexport.Options{RunID: "run-researcher"})
	require.Len(t, reqs, 1)
	durations := histograms(reqs[0])["gen_ai.client.operation.duration"]
	assert.Len(t, durations, 1, "the researcher's call alone: %v", durations)

	records := []recorder.Record{
		{RunID: "r", RecordedAt: at(0), Payload: &recorder.RunStarted{AgentName: "idle"}},
		{RunID: "r", Seq: 1, RecordedAt: at(1), Payload: &recorder.RunEnded{Outcome: recorder.OutcomeCompleted}},
	}
	assert.Empty(t, metricLines(t, records, nil), "a run tree without model calls has no line")
}

// The live sink records, through a MeterProvider, what the offline
// export counts for the same records.
func TestTheSinkRecordsTheMetricsThroughAMeterProvider(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { require.NoError(t, mp.Shutdown(ctx)) }()
	sink, err := otelexport.NewSink(tracetest.NewInMemoryExporter(), &otelexport.SinkOptions{MeterProvider: mp})
	require.NoError(t, err)
	records := tree(t)
	for i := range records {
		require.NoError(t, sink.Write(ctx, &records[i]))
	}
	require.NoError(t, sink.Close(ctx))

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	require.Len(t, rm.ScopeMetrics, 1)
	assert.Equal(t, otelexport.ScopeName, rm.ScopeMetrics[0].Scope.Name)
	live := map[string]map[string][2]float64{} // by metric, by attributes: count and sum
	for _, m := range rm.ScopeMetrics[0].Metrics {
		live[m.Name] = map[string][2]float64{}
		switch data := m.Data.(type) {
		case metricdata.Histogram[int64]:
			for _, p := range data.DataPoints {
				live[m.Name][encode(p.Attributes.ToSlice())] = [2]float64{float64(p.Count), float64(p.Sum)}
			}
		case metricdata.Histogram[float64]:
			for _, p := range data.DataPoints {
				live[m.Name][encode(p.Attributes.ToSlice())] = [2]float64{float64(p.Count), p.Sum}
			}
		}
	}
	offline := map[string]map[string][2]float64{}
	for name, points := range histograms(metricLines(t, records, nil)[0]) {
		offline[name] = map[string][2]float64{}
		for k, p := range points {
			offline[name][k] = [2]float64{float64(p.Count), p.GetSum()}
		}
	}
	assert.Equal(t, offline, live)
}
