package recorder

import "fmt"

// MaxBodyDepth is how many levels of arrays and objects the JSON a caller
// hands over whole may nest: an extension body, an *Unknown payload and a
// tool definition's parameter schema. encoding/json, and so every reader
// of this package, stops at 10,000 levels for a whole record, which wraps
// these values in a few levels of its own; the margin also leaves room for
// formats that nest them deeper still, such as ATIF. The recorder does not
// write a record holding deeper JSON: Run.Extension returns an error, and
// other calls fail the record under the Policy, as a failed write does.
const MaxBodyDepth = 9000

// tooDeep reports whether the arrays and objects of the JSON text b nest
// deeper than MaxBodyDepth.
func tooDeep(b []byte) bool {
	if len(b) <= MaxBodyDepth {
		return false // each level takes at least one byte
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > MaxBodyDepth {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// checkDepth returns an error wrapping ErrEncode when p holds JSON that
// nests deeper than MaxBodyDepth. owned says p came from a typed method
// that has checked it already.
func checkDepth(p Payload, owned bool) error {
	var deep string
	switch t := p.(type) {
	case *Extension:
		if !owned && tooDeep(t.Body) {
			deep = "extension body"
		}
	case *Unknown:
		if tooDeep(t.Body) {
			deep = "payload"
		}
	case *ModelRequest:
		for _, d := range t.ToolDefinitions {
			if tooDeep(d.Parameters) {
				deep = fmt.Sprintf("parameters of tool %q", d.Name)
				break
			}
		}
	default:
		return nil
	}
	if deep == "" {
		return nil
	}
	return fmt.Errorf("%w: %s nests deeper than %d levels", ErrEncode, deep, MaxBodyDepth)
}
