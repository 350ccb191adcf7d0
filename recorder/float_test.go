package recorder

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzFloatsEncodeAsStrconvWritesThem checks that the encoder's floats,
// the counts of thousandths it writes itself included, are what it wrote
// with strconv alone.
func FuzzFloatsEncodeAsStrconvWritesThem(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 0.3, 0.1, -0.25, 1, 12.5, 999999999.999, 1e9, 0.001, 0.0005, 1e-7, 1e21, 123456.789, 0.1 + 0.2} {
		f.Add(v)
	}
	check := func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		var e encoder
		got := string(e.float(nil, v))
		want := string(appendShortest(nil, v))
		if got != want {
			t.Fatalf("%v (%b): wrote %s, want %s", v, math.Float64bits(v), got, want)
		}
	}
	f.Fuzz(func(t *testing.T, v float64) {
		check(t, v)
		// The counts of thousandths near v, and their neighbours.
		k := math.Round(v * 1000)
		for _, w := range []float64{k / 1000, k / 100, k / 10, math.Nextafter(k/1000, 0), math.Nextafter(k/1000, math.Inf(1))} {
			check(t, w)
		}
	})
}

func TestFloatsOfFewDecimalsEncodeAsStrconvWritesThem(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		k := r.Int64N(2e12) - 1e12
		for _, v := range []float64{float64(k) / 1000, float64(k%1e6) / 1000, float64(k%1e4) / 100} {
			var e encoder
			if got, want := string(e.float(nil, v)), string(appendShortest(nil, v)); got != want {
				t.Fatalf("%v: wrote %s, want %s", v, got, want)
			}
		}
	}
}
