package report

import "errors"

// ErrNoRecords is returned by Write when it is given no records.
var ErrNoRecords = errors.New("report: no records")
