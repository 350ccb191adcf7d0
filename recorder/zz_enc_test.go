package recorder_test

import (
	"context"
	"io"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

func BenchmarkZZEncodeMix(b *testing.B) {
	ctx := context.Background()
	mem := recorder.NewMemorySink()
	rec := recorder.New(mem, &recorder.Options{QueueSize: 1 << 16, Block: true})
	run, _ := rec.StartRun(ctx, recorder.RunInfo{})
	m := newAgentMix()
	for i := range 10 {
		m.emit(ctx, run, i)
	}
	rec.Close(ctx)
	recs := mem.Records()
	s := recorder.NewWriterSink(io.Discard, nil)
	for i := 0; b.Loop(); i++ {
		for j := range recs {
			s.Write(ctx, &recs[j])
		}
	}
}
