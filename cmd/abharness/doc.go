// Command abharness runs the scripted A/B scenarios of internal/abharness,
// with and without the assessment block injected, on an oblivious and an
// attentive scripted agent, and prints the outcomes and the share of each
// observer's assessments each agent followed, as markdown tables:
//
//	go run ./cmd/abharness
package main
