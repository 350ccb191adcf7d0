package main

import "os"

// Example runs the program: its output is the same on every run because
// the example drives a simulated clock.
func Example() {
	if err := run(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// ## Trajectory Assessment
	//
	// _Generated after tool call #10_
	//
	// ### Resources [caution]
	//
	// You have 23 minutes remaining before the deadline. You have used 15,700 of 50,000 tokens (31% of budget). 34,300 tokens remaining. You have made 10 of 40 allowed tool calls. 30 calls remaining. At this pace tokens run out in about 21 calls (about 14 minutes), before the deadline. At this pace tool calls run out in about 20 minutes, before the deadline.
	//
	// **Suggestions**:
	// - Be mindful of remaining resources when planning next steps.
	//
	// ## Trajectory Assessment
	//
	// _Generated after tool call #16_
	//
	// ### Resources [caution]
	//
	// You have 19 minutes remaining before the deadline. You have used 27,040 of 50,000 tokens (54% of budget). 22,960 tokens remaining. You have made 16 of 40 allowed tool calls. 24 calls remaining. At this pace tokens run out in about 13 calls (about 9 minutes), before the deadline. At this pace tool calls run out in about 16 minutes, before the deadline.
	//
	// **Suggestions**:
	// - Be mindful of remaining resources when planning next steps.
	//
	// ## Trajectory Assessment
	//
	// _Generated after tool call #26_
	//
	// ### Resources [warning]
	//
	// You have 12 minutes remaining before the deadline. You have used 49,140 of 50,000 tokens (98% of budget). 860 tokens remaining. You have made 26 of 40 allowed tool calls. 14 calls remaining. At this pace tokens run out in less than one call (about 18 seconds), before the deadline. At this pace tool calls run out in about 9 minutes, before the deadline.
	//
	// **Suggestions**:
	// - Prioritize completing the most critical remaining work.
	// - Consider wrapping up with a summary of progress and remaining tasks.
	//
	// stopped: budget exceeded: tokens: 51570 of 50000 used
	// used 51570 tokens in 27 model calls and 26 tool calls
}
