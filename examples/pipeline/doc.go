// Command pipeline runs Lookout's observer pipeline on its own, without an
// agent: a scripted series of tool calls, a budget, and the Resource
// observer, printing each assessment as a model would see it.
//
//	go run ./examples/pipeline
package main
