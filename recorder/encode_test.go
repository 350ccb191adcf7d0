package recorder_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// encodingJSONLine is the reference encoding of a record: the envelope
// and the payload as encoding/json writes them with their struct tags,
// HTML escaping off, the time in UTC.
func encodingJSONLine(r *recorder.Record) ([]byte, error) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		SchemaVersion int              `json:"schema_version"`
		Seq           uint64           `json:"seq"`
		RunID         string           `json:"run_id"`
		ParentRunID   string           `json:"parent_run_id"`
		Depth         int              `json:"depth"`
		RecordedAt    time.Time        `json:"recorded_at"`
		Kind          recorder.Kind    `json:"kind"`
		Payload       recorder.Payload `json:"payload"`
	}{r.SchemaVersion, r.Seq, r.RunID, r.ParentRunID, r.Depth, r.RecordedAt.UTC(), r.Kind(), r.Payload})
	return []byte(strings.TrimSuffix(buf.String(), "\n")), err
}

// oddStrings are strings that JSON writes with care.
var oddStrings = []string{
	"", "plain", "call_1", `{"dir":"/"}`, "quote\" back\\slash /slash",
	"ctl\x00\x01\x07\x1f\x7f\t\r\n\b\f", "bad utf8 \xff\xfe\xc3 end", "\xe2\x80", "sep \u2028 \u2029",
	"émoji 🎉 中文", "<system-reminder>a & b</system-reminder>", "\u00e9\U0001F600\ufffd",
	strings.Repeat("eight by", 9) + "\"", strings.Repeat("x", 7) + "\x80" + strings.Repeat("y", 9),
	"sk-" + strings.Repeat("a", 20),
}

// oddFloats are float64 values whose JSON form is easy to get wrong.
var oddFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 0.3, 1.5, 1e-6, 9.99e-7, 1e-7, 1.2345e-9, 1e20, 1e21, 1.5e300,
	-2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789.125, 1 << 53, 3e-10,
}

// oddInts are integers at the edges of their types.
var oddInts = []int64{0, 1, -1, 9, 10, 99, 100, -100, 1 << 31, -1 << 31, 1 << 40, math.MaxInt64, math.MinInt64}

// rawTexts are JSON texts as a caller may hand them over whole.
var rawTexts = []string{
	`{}`, `[]`, `null`, `{"type":"object","properties":{"dir":{"type":"string"}}}`,
	"{\n  \"a\": [1, 2],\n\t\"s\": \"x y\"\n}\n", ` "text" `, `[1.5e3, -0, true]`,
}

// filler sets values at random, as a decoder of hostile input could.
type filler struct {
	rnd   *rand.Rand
	depth int
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
	anyType  = reflect.TypeFor[any]()
)

// fill sets v, settable, to a random value of its type.
func (f *filler) fill(v reflect.Value) {
	if f.depth > 6 {
		return
	}
	f.depth++
	defer func() { f.depth-- }()
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(f.time()))
		return
	case v.Type() == rawType:
		if f.rnd.IntN(4) > 0 {
			v.SetBytes([]byte(rawTexts[f.rnd.IntN(len(rawTexts))]))
		}
		return
	case v.Type() == anyType:
		if x := f.anyValue(); x != nil {
			v.Set(reflect.ValueOf(x))
		}
		return
	}
	f.fillKind(v)
}

// fillKind fills v by its kind.
func (f *filler) fillKind(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.rnd.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := oddInts[f.rnd.IntN(len(oddInts))]
		if v.OverflowInt(n) {
			n = int64(f.rnd.IntN(100)) - 50
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.rnd.IntN(300)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(oddFloats[f.rnd.IntN(len(oddFloats))])
	case reflect.Pointer:
		if f.rnd.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			f.fill(v.Elem())
		}
	case reflect.Slice:
		f.fillSlice(v)
	case reflect.Map:
		f.fillMap(v)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	}
}

func (f *filler) fillSlice(v reflect.Value) {
	switch f.rnd.IntN(4) {
	case 0:
		return // nil
	case 1:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	n := 1 + f.rnd.IntN(3)
	v.Set(reflect.MakeSlice(v.Type(), n, n))
	for i := range n {
		f.fill(v.Index(i))
	}
}

func (f *filler) fillMap(v reflect.Value) {
	switch f.rnd.IntN(4) {
	case 0:
		return // nil
	case 1:
		v.Set(reflect.MakeMap(v.Type()))
		return
	}
	v.Set(reflect.MakeMap(v.Type()))
	for range 1 + f.rnd.IntN(10) {
		k := reflect.New(v.Type().Key()).Elem()
		f.fill(k)
		e := reflect.New(v.Type().Elem()).Elem()
		f.fill(e)
		v.SetMapIndex(k, e)
	}
}

func (f *filler) str() string {
	if f.rnd.IntN(4) == 0 {
		b := make([]byte, f.rnd.IntN(24))
		for i := range b {
			b[i] = byte(f.rnd.IntN(256))
		}
		return string(b)
	}
	return oddStrings[f.rnd.IntN(len(oddStrings))]
}

func (f *filler) time() time.Time {
	t := time.Unix(f.rnd.Int64N(1<<36)-1<<35, int64(f.rnd.IntN(1e9))*int64(f.rnd.IntN(2)))
	switch f.rnd.IntN(3) {
	case 0:
		return t.UTC()
	case 1:
		return t.In(time.FixedZone("x", 5*3600+30*60))
	}
	return time.Time{}
}

// anyValue returns a value of a map[string]any: JSON's own types, as a
// decoder makes them, and others a caller may put there.
func (f *filler) anyValue() any {
	switch f.rnd.IntN(12) {
	case 0:
		return nil
	case 1:
		return f.rnd.IntN(2) == 0
	case 2:
		return oddFloats[f.rnd.IntN(len(oddFloats))]
	case 3:
		return int(oddInts[f.rnd.IntN(len(oddInts))])
	case 4:
		return oddInts[f.rnd.IntN(len(oddInts))]
	case 5:
		m := map[string]any{}
		f.fill(reflect.ValueOf(&m).Elem())
		return m
	case 6:
		var s []any
		f.fill(reflect.ValueOf(&s).Elem())
		return s
	case 7:
		return json.RawMessage(rawTexts[f.rnd.IntN(len(rawTexts))])
	case 8:
		return schema.RoleType(f.str())
	case 9:
		return float32(1.1)
	case 10:
		return []string{f.str()}
	}
	return f.str()
}

// payloadTypes are every payload type a record can hold but *Unknown,
// which keeps its bytes.
var payloadTypes = []reflect.Type{
	reflect.TypeFor[recorder.RunStarted](), reflect.TypeFor[recorder.RunEnded](),
	reflect.TypeFor[recorder.ModelRequest](), reflect.TypeFor[recorder.ModelResponse](),
	reflect.TypeFor[recorder.Message](), reflect.TypeFor[recorder.ToolStarted](),
	reflect.TypeFor[recorder.ToolEnded](), reflect.TypeFor[recorder.AssessmentRecord](),
	reflect.TypeFor[recorder.BudgetRecord](), reflect.TypeFor[recorder.Extension](),
}

// TestRecordsEncodeAsEncodingJSONWritesThem fills every payload type, the
// eino message inside included, at random many times over and holds that
// AppendJSON writes what encoding/json writes, byte for byte, and that
// both lines decode to the same record. A field added to a record type,
// or to eino's message, that the encoder does not know fails it.
func TestRecordsEncodeAsEncodingJSONWritesThem(t *testing.T) {
	f := &filler{rnd: rand.New(rand.NewPCG(1, 2))}
	rounds := 3000
	if testing.Short() {
		rounds = 300
	}
	for i := range rounds {
		typ := payloadTypes[i%len(payloadTypes)]
		v := reflect.New(typ)
		f.fill(v.Elem())
		r := &recorder.Record{
			SchemaVersion: f.rnd.IntN(2), Seq: f.rnd.Uint64(), RunID: f.str(), ParentRunID: f.str(),
			Depth: f.rnd.IntN(5), RecordedAt: f.time(), Payload: v.Interface().(recorder.Payload),
		}
		want, wantErr := encodingJSONLine(r)
		got, err := r.AppendJSON(nil)
		if wantErr != nil || err != nil {
			require.Error(t, err, "encoding/json fails with %v", wantErr)
			require.Error(t, wantErr, "encoding/json succeeds with %s", want)
			require.ErrorIs(t, err, recorder.ErrEncode)
			continue
		}
		require.Equal(t, string(want), string(got), "%s payload %#v", typ, r.Payload)
		var fromGot, fromWant recorder.Record
		require.NoError(t, json.Unmarshal(got, &fromGot))
		require.NoError(t, json.Unmarshal(want, &fromWant))
		require.Equal(t, fromWant, fromGot)
	}
}

// TestOddRecordsEncodeAsEncodingJSONWritesThem spells out the cases the
// random ones may miss.
func TestOddRecordsEncodeAsEncodingJSONWritesThem(t *testing.T) {
	zero := 0
	cases := map[string]recorder.Payload{
		"a message with no fields":   &recorder.Message{},
		"a message with only extras": &recorder.Message{Extra: recorder.Extras{"b": 1.0, "a": []any{}, "c": map[string]any(nil)}},
		"run limits of one deadline": &recorder.RunStarted{Limits: recorder.RunLimits{Deadline: t0.In(time.FixedZone("y", -90*60))}},
		"a media part":               &recorder.ToolEnded{Name: "shot", Parts: []recorder.Part{{Type: recorder.PartText, Text: "<b>"}, {Type: recorder.PartImage, Media: &recorder.Media{MIMEType: "image/png", Data: []byte{0, 1, 2, 250, 251}, DurationSec: 1e-7}}}},
		"a tool call of index 0":     &recorder.ModelResponse{Message: &schema.Message{ToolCalls: []schema.ToolCall{{Index: &zero, Function: schema.FunctionCall{Arguments: "{}"}}}}},
		"a response of no usage":     &recorder.ModelResponse{Message: &schema.Message{ResponseMeta: &schema.ResponseMeta{LogProbs: &schema.LogProbs{}}}},
		"an empty injected list":     &recorder.ModelRequest{Injected: []recorder.InjectedMessage{}},
		"large numbers":              &recorder.RunEnded{Usage: recorder.RunUsage{PromptTokens: math.MaxInt64, CostUSD: 1e21, ModelCalls: math.MinInt64}},
		"tiny thresholds":            &recorder.RunStarted{Thresholds: &recorder.Thresholds{CautionAt: 1e-7, WarningAt: -0.000001}},
		"a child's parent tool call": &recorder.RunStarted{AgentName: "kid", Turn: 2, ParentToolCallID: "call <1> & \u2028", Limits: recorder.RunLimits{MaxTokens: 5}},
		"nine metadata keys":         &recorder.RunStarted{Metadata: map[string]string{"i": "9", "h": "8", "g": "7", "f": "6", "e": "5", "d": "4", "c": "3", "b": "2", "a": "1"}},
		"a spaced extension body":    &recorder.Extension{Name: "n", Body: json.RawMessage("[ 1 ,\n 2 ]")},
		"multimodal parts":           &recorder.Message{Message: &schema.Message{UserInputMultiContent: []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "<hi>"}}}},
		"a payload type of a caller": &customPayload{Note: "<b>", N: 3},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			r := &recorder.Record{SchemaVersion: 1, RunID: "r", RecordedAt: t0, Payload: p}
			want, err := encodingJSONLine(r)
			require.NoError(t, err)
			got, err := r.AppendJSON(nil)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// customPayload is a payload type of a caller's, which encoding/json
// writes.
type customPayload struct {
	Note string `json:"note"`
	N    int    `json:"n,omitempty"`
}

func (*customPayload) Kind() recorder.Kind { return "my.custom" }

// TestValuesJSONCannotHoldFailTheRecord holds that a float JSON has no
// form for, or a deadline RFC 3339 cannot write, is an encoding error.
func TestValuesJSONCannotHoldFailTheRecord(t *testing.T) {
	for name, p := range map[string]recorder.Payload{
		"NaN cost":      &recorder.ModelResponse{CostUSD: math.NaN()},
		"infinite cost": &recorder.RunEnded{Usage: recorder.RunUsage{CostUSD: math.Inf(-1)}},
		"NaN extra":     &recorder.Message{Extra: recorder.Extras{"x": math.NaN()}},
		"late deadline": &recorder.RunStarted{Limits: recorder.RunLimits{Deadline: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		"bad body":      &recorder.Extension{Name: "x", Body: json.RawMessage("{")},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder.Record{RunID: "r", RecordedAt: t0, Payload: p}
			_, wantErr := encodingJSONLine(r)
			require.Error(t, wantErr)
			b, err := r.AppendJSON([]byte("keep"))
			require.ErrorIs(t, err, recorder.ErrEncode)
			assert.Equal(t, "keep", string(b))
		})
	}
}

// TestTimesEncodeAsRFC3339NanoInUTC holds that recorded_at is written as
// time.RFC3339Nano writes the time in UTC, by AppendJSON and by a sink
// that writes record after record, whose times may share their second.
func TestTimesEncodeAsRFC3339NanoInUTC(t *testing.T) {
	east := time.FixedZone("east", 3*3600)
	times := []time.Time{
		t0, t0.Add(1), t0.Add(time.Millisecond), t0.Add(time.Second), t0.In(east), t0.Add(-time.Second),
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC), {}, time.Date(0, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(2025, 1, 2, 3, 4, 5, 120000000, east), time.Date(2025, 1, 2, 3, 4, 5, 0, time.Local),
	}
	var out strings.Builder
	sink := recorder.NewWriterSink(&out, nil)
	ctx := t.Context()
	for _, at := range times {
		r := recorder.Record{RunID: "r", RecordedAt: at, Payload: &recorder.BudgetRecord{}}
		line, err := r.AppendJSON(nil)
		require.NoError(t, err)
		want := fmt.Sprintf(`"recorded_at":"%s"`, at.UTC().Format(time.RFC3339Nano))
		assert.Contains(t, string(line), want)
		require.NoError(t, sink.Write(ctx, &r))
	}
	require.NoError(t, sink.Flush(ctx))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, len(times))
	for i, at := range times {
		assert.Contains(t, lines[i], fmt.Sprintf(`"recorded_at":"%s"`, at.UTC().Format(time.RFC3339Nano)))
	}
}

// TestASinkWritesTheEnvelopeOfEachRecordsRun holds that a sink writing
// the records of runs that interleave gives each record its own run's
// id, parent and depth.
func TestASinkWritesTheEnvelopeOfEachRecordsRun(t *testing.T) {
	var out strings.Builder
	sink := recorder.NewWriterSink(&out, nil)
	ctx := t.Context()
	var want []recorder.Record
	for i, run := range []struct {
		id, parent string
		depth      int
	}{{"a", "", 0}, {"a", "", 0}, {"b", "a", 1}, {"b", "a", 2}, {"b", "c", 2}, {"a", "", 0}, {"", "", 0}} {
		r := recorder.Record{SchemaVersion: 1, Seq: uint64(i), RunID: run.id, ParentRunID: run.parent, Depth: run.depth, RecordedAt: t0, Payload: &recorder.BudgetRecord{}}
		want = append(want, r)
		require.NoError(t, sink.Write(ctx, &r))
	}
	require.NoError(t, sink.Flush(ctx))
	got, tear, err := recorder.ReadAll(strings.NewReader(out.String()))
	require.NoError(t, err)
	require.Nil(t, tear)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].RunID, got[i].RunID, "record %d", i)
		assert.Equal(t, want[i].ParentRunID, got[i].ParentRunID, "record %d", i)
		assert.Equal(t, want[i].Depth, got[i].Depth, "record %d", i)
	}
}

// TestASinkWritesEachRecordsSeq holds that a sink writing records whose
// seqs mostly follow one another, across every carry of a digit, with
// jumps, repeats, a new schema version and the largest seq, writes each
// record as Record.AppendJSON does.
func TestASinkWritesEachRecordsSeq(t *testing.T) {
	var out strings.Builder
	sink := recorder.NewWriterSink(&out, nil)
	ctx := t.Context()
	var want strings.Builder
	seqs := []uint64{0, 0, 1, 5}
	for s := uint64(8); s < 1012; s++ {
		seqs = append(seqs, s)
	}
	seqs = append(seqs, 99999, 100000, 100001, 7, 8, math.MaxUint64-1, math.MaxUint64, 0, 1)
	for i, seq := range seqs {
		r := recorder.Record{SchemaVersion: 1 + i%500/499, Seq: seq, RunID: "a", RecordedAt: t0, Payload: &recorder.BudgetRecord{}}
		line, err := r.AppendJSON(nil)
		require.NoError(t, err)
		want.Write(append(line, '\n'))
		require.NoError(t, sink.Write(ctx, &r))
	}
	require.NoError(t, sink.Flush(ctx))
	require.Equal(t, want.String(), out.String())
}

// TestASinkWritesEachRequestsInjectedMessages holds that a sink writing
// requests one after another, most injecting what the one before did,
// writes each request's own injected messages.
func TestASinkWritesEachRequestsInjectedMessages(t *testing.T) {
	a := "## Trajectory Assessment\n\n- 3 calls left \"soon\""
	big := strings.Repeat(a, 1000)
	contents := [][]string{{a}, {a}, {strings.Clone(a)}, {strings.ToUpper(a)}, {a}, {"other"}, {a, "other"}, {""}, {a}, {big}, {big}, {a}, {}}
	var out strings.Builder
	sink := recorder.NewWriterSink(&out, nil)
	ctx := t.Context()
	for i, cs := range contents {
		p := &recorder.ModelRequest{Injected: []recorder.InjectedMessage{}}
		for _, c := range cs {
			p.Injected = append(p.Injected, recorder.InjectedMessage{Kind: recorder.InjectedAssessment, Role: "user", Content: c})
		}
		require.NoError(t, sink.Write(ctx, &recorder.Record{Seq: uint64(i), RunID: "r", RecordedAt: t0, Payload: p}))
	}
	require.NoError(t, sink.Flush(ctx))
	recs, tear, err := recorder.ReadAll(strings.NewReader(out.String()))
	require.NoError(t, err)
	require.Nil(t, tear)
	require.Len(t, recs, len(contents))
	for i, r := range recs {
		var got []string
		for _, m := range r.Payload.(*recorder.ModelRequest).Injected {
			got = append(got, m.Content)
		}
		assert.Equal(t, len(contents[i]), len(got), "request %d", i)
		for j := range got {
			assert.Equal(t, contents[i][j], got[j], "request %d message %d", i, j)
		}
	}
}

// TestASinkWritesEachAssessmentsMarkdown holds that a sink writing
// assessments among the requests that inject them, as an agent records
// them, writes each record as encoding/json writes it alone: an
// assessment is copied from the last one written, recorded or injected,
// only when it is the same.
func TestASinkWritesEachAssessmentsMarkdown(t *testing.T) {
	a := "## Trajectory Assessment\n\n- 3 calls left \"soon\""
	big := strings.Repeat(a, 1000)
	assessment := func(markdown string) recorder.Payload {
		return &recorder.AssessmentRecord{Markdown: markdown, AfterCallIndex: 10}
	}
	request := func(content string) recorder.Payload {
		return &recorder.ModelRequest{Injected: []recorder.InjectedMessage{{Kind: recorder.InjectedAssessment, Role: "user", Content: content}}}
	}
	assertASinkWritesEachAsEncodingJSONDoes(t, []recorder.Payload{assessment(a), request(a), request(strings.Clone(a)), assessment(a),
		assessment(strings.ToUpper(a)), request(a), assessment(""), request(""), assessment(a), assessment(big), request(big),
		assessment(big), request(a), assessment(a)})
}

// FuzzTimesEncodeAsTheTimePackageWrites checks that a record's time, and
// the deadline of its run's limits, are written as the time package
// writes them (RFC 3339 with the nanoseconds, the time in UTC and the
// deadline in its location), and that a time it cannot write fails the
// record as it does.
func FuzzTimesEncodeAsTheTimePackageWrites(f *testing.F) {
	for _, s := range []int64{0, -1, 951782400, 4107542400, -62135596800, 253402300799, -62167219200, 253402300800, 1 << 40} {
		f.Add(s, int64(123456789), 0)
		f.Add(s, int64(0), 90)
	}
	f.Fuzz(func(t *testing.T, sec, ns int64, minutes int) {
		sec %= 400 << 40
		zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", 0), time.FixedZone("", (minutes%(30*60))*60)}
		for _, loc := range zones {
			at := time.Unix(sec, ns%1e9).In(loc)
			r := recorder.Record{RunID: "r", RecordedAt: at, Payload: &recorder.RunStarted{Limits: recorder.RunLimits{Deadline: at}}}
			b, err := r.AppendJSON(nil)
			stamp, stampErr := at.UTC().MarshalText()
			deadline, deadlineErr := at.MarshalText()
			if stampErr != nil || deadlineErr != nil {
				require.ErrorIs(t, err, recorder.ErrEncode, "%v", at)
				continue
			}
			require.NoError(t, err, "%v", at)
			var got struct {
				RecordedAt string `json:"recorded_at"`
				Payload    struct {
					Limits struct {
						Deadline string `json:"deadline"`
					} `json:"limits"`
				} `json:"payload"`
			}
			require.NoError(t, json.Unmarshal(b, &got))
			assert.Equal(t, string(stamp), got.RecordedAt)
			if !at.IsZero() { // a zero deadline is left out
				assert.Equal(t, string(deadline), got.Payload.Limits.Deadline)
			}
		}
	})
}

// TestASinkWritesEachRunsLimits holds that a sink writing run_started
// records one after another, most with the limits of the one before but
// for the deadline, writes each record as a record alone encodes: the
// limits it copies from the last run's are the run's own.
func TestASinkWritesEachRunsLimits(t *testing.T) {
	d := t0.Add(time.Hour)
	limits := []recorder.RunLimits{
		{Timeout: time.Hour, Deadline: d, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		{Timeout: time.Hour, Deadline: d.Add(time.Second), MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		{Timeout: time.Hour, Deadline: d, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40, MaxModelCalls: 3},
		{Timeout: time.Minute, Deadline: d, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40, MaxModelCalls: 3},
		{Timeout: time.Minute, Deadline: d, MaxTokens: 5, MaxToolCalls: 1 << 40, MaxModelCalls: 3},
		{Timeout: time.Minute, Deadline: d.In(time.FixedZone("", 3600)), MaxTokens: 5, MaxToolCalls: 1 << 40, MaxModelCalls: 3},
		{Timeout: time.Minute, Deadline: d, MaxTokens: 5, MaxToolCalls: 1 << 40, MaxModelCalls: 3},
		{Deadline: d},
		{},
		{},
		{Timeout: time.Hour, Deadline: d, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
	}
	var out strings.Builder
	sink := recorder.NewWriterSink(&out, nil)
	ctx := t.Context()
	var want strings.Builder
	for i, l := range limits {
		r := &recorder.Record{Seq: uint64(i), RunID: "r", RecordedAt: t0, Payload: &recorder.RunStarted{AgentName: "a", Limits: l}}
		require.NoError(t, sink.Write(ctx, r))
		b, err := r.AppendJSON(nil)
		require.NoError(t, err)
		want.Write(b)
		want.WriteByte('\n')
	}
	require.NoError(t, sink.Flush(ctx))
	assert.Equal(t, want.String(), out.String())
}

// TestASinkWritesEachToolCallsArguments holds that a sink writing the
// tool_started records of a model response's tool calls, whose arguments
// it copies from the response it wrote before, writes each record as a
// record alone encodes: the arguments of the call started, whichever of
// the response's it is, and arguments of no call of it encoded afresh.
func TestASinkWritesEachToolCallsArguments(t *testing.T) {
	first, second := `{"path":"a.go"}`, "{\"cmd\":\"ls\\n\"}"
	index := 0
	calls := []schema.ToolCall{
		{Index: &index, ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "read", Arguments: first}},
		{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "run", Arguments: second}},
		{ID: "c3", Type: "function", Function: schema.FunctionCall{Name: "none"}},
	}
	payloads := []recorder.Payload{
		&recorder.ModelResponse{Message: &schema.Message{Role: schema.Assistant, ToolCalls: calls}},
		&recorder.ToolStarted{CallID: "c2", Name: "run", Arguments: second},
		&recorder.ToolStarted{CallID: "c1", Name: "read", Arguments: strings.Clone(first)},
		&recorder.ToolStarted{CallID: "c3", Name: "none"},
		&recorder.ToolStarted{CallID: "c4", Name: "read", Arguments: `{"path":"b.go"}`},
		&recorder.ModelResponse{Message: &schema.Message{Role: schema.Assistant, ToolCalls: calls[2:]}},
		&recorder.ToolStarted{CallID: "c1", Name: "read", Arguments: first},
	}
	assertASinkWritesEachAsEncodingJSONDoes(t, payloads)
}

// assertASinkWritesEachAsEncodingJSONDoes writes payloads, one after
// another, to one sink as records of one run, and fails the test unless
// the sink writes each as encoding/json writes the record alone: what
// the sink copies from the records it wrote before is the record's own.
func assertASinkWritesEachAsEncodingJSONDoes(t *testing.T, payloads []recorder.Payload) {
	t.Helper()
	var out strings.Builder
	sink := recorder.NewWriterSink(&out, nil)
	ctx := t.Context()
	var want strings.Builder
	for i, p := range payloads {
		r := &recorder.Record{SchemaVersion: 1, Seq: uint64(i), RunID: "r", RecordedAt: t0, Payload: p}
		require.NoError(t, sink.Write(ctx, r))
		b, err := encodingJSONLine(r)
		require.NoError(t, err)
		want.Write(b)
		want.WriteByte('\n')
	}
	require.NoError(t, sink.Flush(ctx))
	assert.Equal(t, want.String(), out.String())
}

// TestStringsEncodeAsEncodingJSONWritesThemWhereverTheirSpecialBytesFall
// puts each character JSON writes with care, alone and after another, at
// every position of strings up to 20 bytes long: the encoder looks at
// eight bytes at a time, and at the last eight of a string at once.
func TestStringsEncodeAsEncodingJSONWritesThemWhereverTheirSpecialBytesFall(t *testing.T) {
	specials := []string{`"`, `\`, "\n", "\x01", "\x1f", " ", "\x7f", "é", "\u2028", "\xff", "\xe2\x80", "🎉"}
	for n := range 21 {
		for p := range n + 1 {
			for _, first := range specials {
				for _, second := range append([]string{""}, specials...) {
					assertStringEncodesAsEncodingJSON(t, strings.Repeat("a", p)+first+second+strings.Repeat("b", n-p))
				}
			}
		}
	}
}

// TestStringsOfEscapesOnlyEncodeAsEncodingJSONWritesThem gives the
// encoder strings that grow most as they are written, each byte an escape
// of two or six bytes, into a slice with no room to spare.
func TestStringsOfEscapesOnlyEncodeAsEncodingJSONWritesThem(t *testing.T) {
	for _, s := range []string{strings.Repeat("\x00", 300), strings.Repeat(`"`, 300), strings.Repeat("\xff\n", 150), strings.Repeat("\u2028\x01", 100)} {
		assertStringEncodesAsEncodingJSON(t, s)
	}
}

// TestRandomStringsEncodeAsEncodingJSONWritesThem strings together, at
// random, plain runs of every length and the characters JSON writes with
// care, so that escapes and characters past ASCII fall on every side of
// the words the encoder copies.
func TestRandomStringsEncodeAsEncodingJSONWritesThem(t *testing.T) {
	pieces := []string{"a", "bcdefgh", "0123456789abcdef", `"`, `\`, "\n", "\t", "\x00", "\x1f", "\x7f",
		"é", "中", "🎉", "\u2028", "\u2029", "\xff", "\xe2\x80", "<&>", " "}
	rnd := rand.New(rand.NewPCG(3, 4))
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for range rounds {
		var sb strings.Builder
		for range rnd.IntN(24) {
			sb.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		assertStringEncodesAsEncodingJSON(t, sb.String())
	}
}

// assertStringEncodesAsEncodingJSON fails the test unless a record
// holding s is written as encoding/json writes it.
func assertStringEncodesAsEncodingJSON(t *testing.T, s string) {
	t.Helper()
	r := recorder.Record{SchemaVersion: 1, RecordedAt: t0, Payload: &recorder.ToolEnded{Name: s}}
	got, err := r.AppendJSON(nil)
	require.NoError(t, err)
	want, err := encodingJSONLine(&r)
	require.NoError(t, err)
	if string(got) != string(want) {
		t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
	}
}
