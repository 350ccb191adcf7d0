package atif

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// object checks that val is an object holding only known keys and every
// required key.
func (v *validator) object(path string, val any, spec fields) (map[string]any, bool) {
	m, ok := val.(map[string]any)
	if !ok {
		v.add(path, RuleType, "expected an object, got %s", jsonType(val))
		return nil, false
	}
	v.checkKeys(path, m, spec)
	return m, true
}

func (v *validator) checkKeys(path string, m map[string]any, spec fields) {
	for _, k := range sortedKeys(m) {
		if _, known := spec[k]; !known {
			v.add(join(path, k), RuleUnknownField, "unexpected field (not part of ATIF)")
		}
	}
	for _, k := range sortedKeys(spec) {
		if _, has := m[k]; spec[k] && !has {
			v.add(join(path, k), RuleMissingField, "required field is missing")
		}
	}
}

// value returns m[key] when it is set to something other than null. A
// null in a required field is reported; a missing one was reported by
// checkKeys already.
func (v *validator) value(path string, m map[string]any, key string, required bool, want string) (any, bool) {
	x, has := m[key]
	if !has {
		return nil, false
	}
	if x == nil {
		if required {
			v.add(join(path, key), RuleType, "expected %s, got null", want)
		}
		return nil, false
	}
	return x, true
}

func (v *validator) str(path string, m map[string]any, key string, required bool) (string, bool) {
	x, ok := v.value(path, m, key, required, "a string")
	if !ok {
		return "", false
	}
	s, ok := x.(string)
	if !ok {
		v.add(join(path, key), RuleType, "expected a string, got %s", jsonType(x))
	}
	return s, ok
}

func (v *validator) integer(path string, m map[string]any, key string, required bool) (int64, bool) {
	x, ok := v.value(path, m, key, required, "an integer")
	if !ok {
		return 0, false
	}
	n, ok := asInteger(x)
	if !ok {
		v.add(join(path, key), RuleType, "expected an integer, got %s", describe(x))
	}
	return n, ok
}

func (v *validator) number(path string, m map[string]any, key string, required bool) (float64, bool) {
	x, ok := v.value(path, m, key, required, "a number")
	if !ok {
		return 0, false
	}
	f, ok := asFloat(x)
	if !ok {
		v.add(join(path, key), RuleType, "expected a number, got %s", describe(x))
	}
	return f, ok
}

func (v *validator) boolean(path string, m map[string]any, key string) {
	if x, ok := v.value(path, m, key, false, "a boolean"); ok {
		if _, isBool := x.(bool); !isBool {
			v.add(join(path, key), RuleType, "expected a boolean, got %s", jsonType(x))
		}
	}
}

func (v *validator) dict(path string, m map[string]any, key string, required bool) (map[string]any, bool) {
	x, ok := v.value(path, m, key, required, "an object")
	if !ok {
		return nil, false
	}
	d, ok := x.(map[string]any)
	if !ok {
		v.add(join(path, key), RuleType, "expected an object, got %s", jsonType(x))
	}
	return d, ok
}

func (v *validator) list(path string, m map[string]any, key string, required bool) ([]any, bool) {
	x, ok := v.value(path, m, key, required, "a list")
	if !ok {
		return nil, false
	}
	l, ok := x.([]any)
	if !ok {
		v.add(join(path, key), RuleType, "expected a list, got %s", jsonType(x))
	}
	return l, ok
}

// present returns m[key] when it is set and not null.
func present(m map[string]any, key string) (any, bool) {
	x, ok := m[key]
	return x, ok && x != nil
}

// asInteger accepts JSON integers: a number written without a fraction or
// exponent that fits in 64 bits. The upstream models also take 3.0 for 3;
// this validator does not, so that every document it accepts decodes into
// the Go types.
func asInteger(x any) (int64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// asFloat accepts JSON numbers that fit in a float64.
func asFloat(x any) (float64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func jsonType(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

// describe is jsonType, quoting numbers so that 1.5 or 1e999 reads as
// the reason an integer or float was refused.
func describe(x any) string {
	if n, ok := x.(json.Number); ok {
		return "the number " + n.String()
	}
	return jsonType(x)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
