package observer_test

import (
	"fmt"
	"time"

	"github.com/lookout-go/lookout/observer"
)

var start = time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)

// A run with an hour's deadline 35 minutes in, a quarter of its tokens

// spent: plenty of runway.

// The full pipeline: a 30-minute run with limits on tokens and tool calls,

// assessed after its 47th call, 22 minutes in.

// Two minutes left of two hours, 97% of the tokens spent.

// When the pace so far would spend the tokens before the deadline, the

// observer says so and raises its severity.

// Tool calls are being spent faster than the deadline allows.

func ExampleAssessment_Render() {
	a := observer.Assessment{
		Observer: "Stall",
		Summary:  "The same call keeps coming back with the same answer.",
		Severity: observer.Caution,
		Observations: []observer.Observation{{
			Category:    "loop",
			Description: "read_file was called 4 times with the same path.",
			Evidence:    "#12 read_file path=go.mod\n#13 read_file path=go.mod",
		}},
		Suggestions: []string{"Use what you already read."},
	}
	fmt.Println(a.Render())
	// Output:
	// ### Stall [caution]
	//
	// The same call keeps coming back with the same answer.
	//
	// **loop**: read_file was called 4 times with the same path.
	// ```
	// #12 read_file path=go.mod
	// #13 read_file path=go.mod
	// ```
	//
	// **Suggestions**:
	// - Use what you already read.
}

func ExampleFormatCount() {
	fmt.Println("You have used " + observer.FormatCount(48050) + " of " + observer.FormatCount(50000) + " tokens.")
	// Output: You have used 48,050 of 50,000 tokens.
}
