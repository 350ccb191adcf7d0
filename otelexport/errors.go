package otelexport

import "errors"

// ErrUnknownRun is returned by the offline export when Options.RunID names
// a run the records do not hold.
var ErrUnknownRun = errors.New("otelexport: no such run in the records")

// ErrNoExporter is returned by NewSink when it is given no exporter.
var ErrNoExporter = errors.New("otelexport: no span exporter")
