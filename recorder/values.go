package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/cloudwego/eino/schema"
)

// message appends m as encoding/json writes a *schema.Message.
func (e *encoder) message(b []byte, m *schema.Message) []byte {
	start := len(b)
	b = appendStringField(b, `,"role":`, string(m.Role))
	b = appendStringField(b, `,"content":`, m.Content)
	if len(m.MultiContent) > 0 {
		b = e.reflected(append(b, `,"multi_content":`...), m.MultiContent)
	}
	if len(m.UserInputMultiContent) > 0 {
		b = e.reflected(append(b, `,"user_input_multi_content":`...), m.UserInputMultiContent)
	}
	if len(m.AssistantGenMultiContent) > 0 {
		b = e.reflected(append(b, `,"assistant_output_multi_content":`...), m.AssistantGenMultiContent)
	}
	b = appendNonEmptyField(b, `,"name":`, m.Name)
	if len(m.ToolCalls) > 0 {
		b = e.toolCalls(append(b, `,"tool_calls":`...), m.ToolCalls)
	}
	b = appendNonEmptyField(b, `,"tool_call_id":`, m.ToolCallID)
	b = appendNonEmptyField(b, `,"tool_name":`, m.ToolName)
	if m.ResponseMeta != nil {
		b = e.responseMeta(append(b, `,"response_meta":`...), m.ResponseMeta)
	}
	b = appendNonEmptyField(b, `,"reasoning_content":`, m.ReasoningContent)
	if len(m.Extra) > 0 {
		b = e.anyMap(append(b, `,"extra":`...), m.Extra)
	}
	return closeObject(b, start)
}

// toolCalls appends a message's tool calls as a JSON array.
func (e *encoder) toolCalls(b []byte, calls []schema.ToolCall) []byte {
	start := len(b)
	remember := e.rememberCalls(len(calls))
	for i := range calls {
		c := &calls[i]
		b = append(b, ',')
		call := len(b)
		if c.Index != nil {
			b = appendIntField(b, `,"index":`, int64(*c.Index))
		}
		b = appendStringField(b, `,"id":`, c.ID)
		b = appendStringField(b, `,"type":`, c.Type)
		b = append(b, `,"function":`...)
		fn := len(b)
		b = appendNonEmptyField(b, `,"name":`, c.Function.Name)
		if args := c.Function.Arguments; args != "" {
			b = append(b, `,"arguments":`...)
			at := len(b)
			b = appendString(b, args)
			if remember {
				e.rememberCall(args, b[at:])
			}
		}
		b = closeObject(b, fn)
		if len(c.Extra) > 0 {
			b = e.anyMap(append(b, `,"extra":`...), c.Extra)
		}
		b = closeObject(b, call)
	}
	return closeArray(b, start)
}

// responseMeta appends a message's response metadata as a JSON object.
func (e *encoder) responseMeta(b []byte, m *schema.ResponseMeta) []byte {
	start := len(b)
	b = appendNonEmptyField(b, `,"finish_reason":`, m.FinishReason)
	if u := m.Usage; u != nil {
		b = append(b, `,"usage":`...)
		usage := len(b)
		b = appendIntField(b, `,"prompt_tokens":`, int64(u.PromptTokens))
		b = appendIntField(b, `,"prompt_token_details":{"cached_tokens":`, int64(u.PromptTokenDetails.CachedTokens))
		b = appendIntField(b, `,"cache_write_tokens":`, int64(u.PromptTokenDetails.CacheWriteTokens))
		b = appendIntField(b, `},"completion_tokens":`, int64(u.CompletionTokens))
		b = appendIntField(b, `,"total_tokens":`, int64(u.TotalTokens))
		b = append(b, `,"completion_token_details":`...)
		details := len(b)
		b = appendNonZeroField(b, `,"reasoning_tokens":`, int64(u.CompletionTokensDetails.ReasoningTokens))
		b = closeObject(b, details)
		b = closeObject(b, usage)
	}
	if m.LogProbs != nil {
		b = e.reflected(append(b, `,"logprobs":`...), m.LogProbs)
	}
	return closeObject(b, start)
}

// extras appends an Extras field unless it is empty.
func (e *encoder) extras(b []byte, x Extras) []byte {
	if len(x) == 0 {
		return b
	}
	return e.anyMap(append(b, `,"extra":`...), x)
}

// anyMap appends m as a JSON object with its keys sorted, as
// encoding/json writes maps.
func (e *encoder) anyMap(b []byte, m map[string]any) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	start := len(b)
	if len(m) == 1 {
		for k, v := range m {
			b = append(appendString(append(b, ','), k), ':')
			b = e.anyValue(b, v)
		}
		return closeObject(b, start)
	}
	var room [8]string
	keys := room[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(appendString(append(b, ','), k), ':')
		b = e.anyValue(b, m[k])
	}
	return closeObject(b, start)
}

// anyValue appends v, a value of a map[string]any, as encoding/json
// writes it: JSON's own types directly, any other through encoding/json.
func (e *encoder) anyValue(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, t)
	case bool:
		return strconv.AppendBool(b, t)
	case float64:
		return e.float(b, t)
	case int:
		return appendInt(b, int64(t))
	case int64:
		return appendInt(b, t)
	case map[string]any:
		return e.anyMap(b, t)
	case []any:
		if t == nil {
			return append(b, "null"...)
		}
		start := len(b)
		for _, x := range t {
			b = e.anyValue(append(b, ','), x)
		}
		return closeArray(b, start)
	}
	return e.reflected(b, v)
}

// appendStringMap appends m as a JSON object with its keys sorted, as
// encoding/json writes maps.
func appendStringMap(b []byte, m map[string]string) []byte {
	var room [8]string
	keys := room[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	start := len(b)
	for _, k := range keys {
		b = append(appendString(append(b, ','), k), ':')
		b = appendString(b, m[k])
	}
	return closeObject(b, start)
}

// raw appends a JSON text given whole (a tool's parameter schema, an
// extension body) compacted, as encoding/json writes a json.RawMessage.
func (e *encoder) raw(b []byte, v json.RawMessage) []byte {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, v); err != nil {
		e.fail(err)
		return b
	}
	return buf.Bytes()
}

// floatField appends key, given whole, and f.
func (e *encoder) floatField(b []byte, key string, f float64) []byte {
	return e.float(append(b, key...), f)
}

// nonZeroFloatField is floatField for a field left out when zero.
func (e *encoder) nonZeroFloatField(b []byte, key string, f float64) []byte {
	if f == 0 {
		return b
	}
	return e.floatField(b, key, f)
}

// float appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form only for very small and
// very large magnitudes, with a one-digit exponent not padded. NaN and the
// infinities have no JSON form and fail the payload.
func (e *encoder) float(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.fail(fmt.Errorf("json: unsupported value: %v", f))
		return b
	}
	if b, ok := appendThousandths(b, f); ok {
		return b
	}
	return appendShortest(b, f)
}

// appendShortest appends f, finite, as encoding/json writes it: strconv's
// shortest decimal, with an exponent outside [1e-6, 1e21).
func appendShortest(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		// e-07 is written e-7.
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// appendThousandths appends f as strconv writes it shortest, when f is
// the float nearest a count of thousandths below 1e9 in magnitude, other
// than zero (a threshold, a price): the decimal of that count, which no
// shorter one rounds to f, as a float that far below 2^53 is a thousandth
// apart from its neighbours many times over. Otherwise it reports false
// and appends nothing.
func appendThousandths(b []byte, f float64) ([]byte, bool) {
	m := f * 1000
	if !(m > -1e12 && m < 1e12) || m == 0 || m != math.Trunc(m) || float64(int64(m))/1000 != f {
		return b, false
	}
	n := int64(m)
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	b = appendUint(b, uint64(n/1000))
	if frac := n % 1000; frac != 0 {
		t := digitTriples[frac][:]
		switch {
		case frac%100 == 0:
			t = t[:1]
		case frac%10 == 0:
			t = t[:2]
		}
		b = append(append(b, '.'), t...)
	}
	return b, true
}

// reflectEncoder reuses an encoding/json encoder and its buffer for the
// values the encoder does not write itself.
type reflectEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var reflectEncoders = sync.Pool{New: func() any {
	e := new(reflectEncoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// reflected appends v as encoding/json writes it, with HTML escaping off.
// A MarshalJSON method that panics fails the payload: encoding must not
// take the caller down.
func (e *encoder) reflected(b []byte, v any) (out []byte) {
	r := reflectEncoders.Get().(*reflectEncoder)
	defer func() {
		if p := recover(); p != nil {
			e.fail(fmt.Errorf("panic while encoding: %v", p))
			out = b
			return
		}
		reflectEncoders.Put(r)
	}()
	r.buf.Reset()
	if err := r.enc.Encode(v); err != nil {
		e.fail(err)
		return b
	}
	// Encode ends with a newline that the record must not carry.
	return append(b, bytes.TrimSuffix(r.buf.Bytes(), []byte{'\n'})...)
}
