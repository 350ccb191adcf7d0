// Command simulate drives a travel-planner agent with a simulated user
// through a four-step plan, prints the conversation and how it ended, and
// writes the run's artifacts.
//
// By default both sides are scripted and the program runs offline. With
// OPENAI_API_KEY set (and optionally OPENAI_BASE_URL and OPENAI_MODEL), the
// agent, the user and the step ranker all use that model instead.
//
//	go run ./examples/simulate            # artifacts go to a new temporary folder
//	go run ./examples/simulate -out runs  # artifacts go to runs/lisbon-trip
//
// The agent is an ADK ChatModelAgent with four tools (search_flights,
// search_hotels, book, send_itinerary) behind simtarget.Agent, with
// Lookout's middleware attached: the artifacts folder also holds the
// agent's trajectory, trajectory.jsonl, one recorded run per turn. The plan's
// first step is the start step, the second is chosen by the ranker, and the
// last two are gated by preconditions. Two goals check that the agent really
// booked the right flight and hotel and sent the itinerary.
//
// Pitfalls: with a real model the conversation differs on every run and may
// end on max-turns or agent-loop instead of goal-reached; that is what the
// simulation is for. The artifacts folder is named after the conversation id
// ("lisbon-trip"), so running twice with the same -out replaces the earlier
// run's files.
package main
