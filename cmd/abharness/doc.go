// Command abharness measures whether the observers' block changes what an
// agent does (see internal/abharness): for each observer, the share of
// wasted calls the block saves against no block, and a placebo block's,
// with 95% bootstrap intervals over the seeds, as a markdown table.
//
// Offline, scripted agents stand in for a model:
//
//	go run ./cmd/abharness
//
// With -live, the agent is the model behind OPENAI_BASE_URL (an
// OpenAI-compatible endpoint; OPENAI_API_KEY and OPENAI_MODEL too), given
// the scenarios' tools, on -seeds seeds per scenario:
//
//	OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_MODEL=qwen3 go run ./cmd/abharness -live -seeds 20
package main
