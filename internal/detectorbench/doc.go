// Package detectorbench replays labelled agent runs through the built-in
// detectors and scores where they speak against where a careful reader
// says they should. cmd/detectorbench prints its table.
//
// A case is a JSON file:
//
//	{"id": "...", "task": "the first user message", "scope": [],
//	 "labels": {"stall": ["11-13"], "errors": ["6-8"], "drift": []},
//	 "calls": [{"tool": "bash", "args": {"command": "ls"}, "result": "...", "ok": true, "error": "", "at": 30.5}]}
//
// labels name, per detector, the call ranges (1-based) where it should
// produce an assessment; an empty list means it should stay quiet. A case
// may also name its agent "family" and its "kind" of task. A folder may
// keep the labels apart, in labels.json: {"id": {"stall": [...],
// "errors": [...], "drift": [...], "why": "the reader's reason"}}, one
// entry for each case. testdata/real holds 291 real runs labelled so, and
// the converter that made them.
package detectorbench
