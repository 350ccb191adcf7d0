package detectorbench

import "testing"

// BenchmarkRealRuns replays the repository's real runs through the
// default observers, each with a new pipeline, and reports the time per
// call (ns/call), run setup included: a profile of it shows where real
// calls spend their time.
func BenchmarkRealRuns(b *testing.B) {
	cases, err := Load("testdata/real")
	if err != nil {
		b.Fatal(err)
	}
	calls := 0
	for _, c := range cases {
		calls += len(c.Calls)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, c := range cases {
			if _, err := replay(c, Specs()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
}
