// Command detectorbench replays a folder of labelled agent runs through the
// built-in observers with their defaults (Resources every 10 calls and
// after 3 consecutive errors; Stall, Errors and Drift on every call) and
// prints each detector's true and false positives and negatives:
//
//	go run ./cmd/detectorbench DIR
//
// With -table it prints, per detector, a Markdown table by agent family
// (precision, recall, median delay in calls, false alarms per 100 calls)
// and the cost of each call by family; -replays n replays each run n
// times and keeps each call's least cost:
//
//	go run ./cmd/detectorbench -table -replays 15 internal/detectorbench/testdata/real
//
// A labelled episode counts as found (TP) when the detector speaks within
// it or one call either side, and as missed (FN) otherwise; each run of
// consecutive calls after which it speaks outside every episode is one
// false alarm (FP); a run with no episode for it in which it stays quiet
// is a true negative (TN). Each false alarm or miss is listed under the
// table. The file format is described in internal/detectorbench. It exits
// with status 2 for bad usage and 1 when the folder cannot be replayed.
package main
