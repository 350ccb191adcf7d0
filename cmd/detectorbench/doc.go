// Command detectorbench replays a folder of labelled agent runs through the
// built-in detectors (Stall, Errors, Drift) with their defaults and prints
// each detector's true and false positives and negatives:
//
//	go run ./cmd/detectorbench DIR
//
// A labelled episode counts as found (TP) when the detector speaks within
// it or one call either side, and as missed (FN) otherwise; each run of
// consecutive calls after which it speaks outside every episode is one
// false alarm (FP); a run with no episode for it in which it stays quiet
// is a true negative (TN). Each false alarm or miss is listed under the
// table. The file format is described in internal/detectorbench. It exits
// with status 2 for bad usage and 1 when the folder cannot be replayed.
package main
