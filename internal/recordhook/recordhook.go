// Package recordhook lets the adapters hand the recorder a record they
// wrote themselves, through a function the recorder sets, so that the
// recorder exports no name that serves them alone.
package recordhook

import "context"

// EmitExtension records, in trace (a *recorder.Trace), the extension ext
// (a *recorder.Extension) as Trace.Emit does, for a body that is valid
// JSON written by code, holding no text from elsewhere but the JSON string
// Body[from:to], its quotes included. The built-in secrets scan reads that
// string only, and the whole body when it finds a secret there; redactors
// of Options.Redactors read the whole body. Package recorder sets it when
// it is initialized.
var EmitExtension func(ctx context.Context, trace, ext any, from, to int) error
