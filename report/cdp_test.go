package report_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// browser is headless Chromium driven over the Chrome DevTools Protocol.
// It talks over --remote-debugging-pipe: JSON messages ended by a NUL
// byte, written to the browser's fd 3 and read from its fd 4. A pipe needs
// no port and no websocket, so the standard library is enough.
type browser struct {
	cmd     *exec.Cmd
	in      *os.File // the browser reads commands from it
	out     *os.File // the browser writes answers and events to it
	r       *bufio.Reader
	next    int
	session string
	// events are the events read so far, in order.
	events []cdpMessage
}

// answerTimeout bounds the wait for one answer or event, so that a
// browser that stops answering fails the test instead of hanging it.
const answerTimeout = 30 * time.Second

// cdpMessage is a command's answer or an event.
type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// chromiumPath finds Debian's chromium. Without it the test is skipped,
// except in CI, whose script installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// startBrowser starts headless Chromium with a fresh profile and opens a
// blank page in it, with the Runtime, Log, Network and Page domains on.
// The browser is stopped when the test ends.
func startBrowser(t *testing.T, ctx context.Context) *browser {
	t.Helper()
	path := chromiumPath(t)
	toBrowser, in, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3 and fd 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b := &browser{cmd: cmd, in: in, out: out, r: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		// Ask politely, then make sure; either way wait for the process.
		b.send(ctx, "", "Browser.close", nil)
		in.Close()
		done := make(chan struct{})
		go func() {
			cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		out.Close()
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", stderr.String())
		}
	})
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call(t, ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call(t, ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	for _, domain := range []string{"Runtime", "Log", "Network", "Page"} {
		b.call(t, ctx, b.session, domain+".enable", nil, nil)
	}
	b.viewport(t, ctx, desktopWidth, desktopHeight, false)
	return b
}

// desktopWidth and desktopHeight are the viewport pages are opened in,
// in CSS pixels, unless a test sets another.
const desktopWidth, desktopHeight = 1200, 900

// viewport sets the page's viewport, as a phone's when mobile is set.
func (b *browser) viewport(t *testing.T, ctx context.Context, width, height int, mobile bool) {
	t.Helper()
	scale := 1
	if mobile {
		scale = 3
	}
	b.call(t, ctx, b.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile}, nil)
}

// send writes one command and returns its id.
func (b *browser) send(ctx context.Context, session, method string, params any) (int, error) {
	b.next++
	msg := map[string]any{"id": b.next, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, err
	}
	if d, ok := ctx.Deadline(); ok {
		b.in.SetWriteDeadline(d)
	}
	_, err = b.in.Write(append(data, 0))
	return b.next, err
}

// read reads the next message, keeping events.
func (b *browser) read(ctx context.Context) (cdpMessage, error) {
	if d, ok := ctx.Deadline(); ok {
		b.out.SetReadDeadline(d)
	}
	line, err := b.r.ReadBytes(0)
	if err != nil {
		return cdpMessage{}, fmt.Errorf("read from chromium: %w", err)
	}
	var m cdpMessage
	if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
		return cdpMessage{}, fmt.Errorf("decode %q: %w", line, err)
	}
	if m.Method != "" {
		b.events = append(b.events, m)
	}
	return m, nil
}

// call sends a command and decodes its result into result, if not nil.
func (b *browser) call(t *testing.T, ctx context.Context, session, method string, params, result any) {
	t.Helper()
	if err := b.callErr(ctx, session, method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func (b *browser) callErr(ctx context.Context, session, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	id, err := b.send(ctx, session, method, params)
	if err != nil {
		return err
	}
	for {
		m, err := b.read(ctx)
		if err != nil {
			return err
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("chromium: %s (%d)", m.Error.Message, m.Error.Code)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}

// waitFor reads until the page sends the event method, or ctx ends.
func (b *browser) waitFor(t *testing.T, ctx context.Context, method string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	for _, e := range b.events {
		if e.Method == method && e.SessionID == b.session {
			return
		}
	}
	for {
		m, err := b.read(ctx)
		if errors.Is(err, io.EOF) || err != nil {
			t.Fatalf("waiting for %s: %v", method, err)
		}
		if m.Method == method && m.SessionID == b.session {
			return
		}
	}
}

// open loads url and waits for its load event.
func (b *browser) open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	b.events = b.events[:0]
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	b.call(t, ctx, b.session, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("navigate to %s: %s", url, nav.ErrorText)
	}
	b.waitFor(t, ctx, "Page.loadEventFired")
}

// eval evaluates a JavaScript expression in the page and decodes its
// value, which must be JSON, into v.
func (b *browser) eval(t *testing.T, ctx context.Context, expr string, v any) {
	t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	b.call(t, ctx, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res)
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluate %s: %s", expr, res.ExceptionDetails)
	}
	if err := json.Unmarshal(res.Result.Value, v); err != nil {
		t.Fatalf("evaluate %s: %v (value %s)", expr, err, res.Result.Value)
	}
}

// screenshot returns a PNG of the top of the page, height pixels tall.
func (b *browser) screenshot(t *testing.T, ctx context.Context, height int) []byte {
	t.Helper()
	var shot struct {
		Data []byte `json:"data"` // base64 in JSON, which encoding/json decodes into bytes
	}
	b.call(t, ctx, b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": 1200, "height": height, "scale": 1}}, &shot)
	return shot.Data
}

// problems returns what the page reported that a clean page does not:
// console messages of level error or warning, uncaught exceptions, log
// entries (CSP violations among them) of level error or warning, and
// requests for anything but the page itself.
func (b *browser) problems(page string) []string {
	var out []string
	for _, e := range b.events {
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string            `json:"type"`
				Args []json.RawMessage `json:"args"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Type == "error" || p.Type == "warning" || p.Type == "assert" {
				out = append(out, fmt.Sprintf("console %s: %s", p.Type, e.Params))
			}
		case "Runtime.exceptionThrown":
			var p struct {
				Details struct {
					Exception struct {
						Description string `json:"description"`
					} `json:"exception"`
				} `json:"exceptionDetails"`
			}
			json.Unmarshal(e.Params, &p)
			out = append(out, "exception: "+p.Details.Exception.Description)
		case "Log.entryAdded":
			var p struct {
				Entry struct {
					Level string `json:"level"`
					Text  string `json:"text"`
				} `json:"entry"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Entry.Level == "error" || p.Entry.Level == "warning" {
				out = append(out, "log "+p.Entry.Level+": "+p.Entry.Text)
			}
		case "Network.requestWillBeSent":
			var p struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Request.URL != page {
				out = append(out, "request: "+p.Request.URL)
			}
		}
	}
	return out
}

// showAll renders every part of the page, as its "Show every record"
// button does.
func (b *browser) showAll(t *testing.T, ctx context.Context) {
	t.Helper()
	var clicked bool
	b.eval(t, ctx, `document.getElementById("all").click(), true`, &clicked)
}

// evalAsync is eval for an expression whose value is a promise: it waits
// for the promise and decodes what it resolves to.
func (b *browser) evalAsync(t *testing.T, ctx context.Context, expr string, v any) {
	t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	b.call(t, ctx, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluate %s: %s", expr, res.ExceptionDetails)
	}
	if err := json.Unmarshal(res.Result.Value, v); err != nil {
		t.Fatalf("evaluate %s: %v (value %s)", expr, err, res.Result.Value)
	}
}

// mainThreadWork opens url in a new tab of its own and returns the time
// the tab's main thread spent on tasks until the page had loaded and
// painted twice, from the browser's performance metrics (TaskDuration).
func (b *browser) mainThreadWork(t *testing.T, ctx context.Context, url string) time.Duration {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call(t, ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	defer b.call(t, ctx, "", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call(t, ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	tab := &browser{cmd: b.cmd, in: b.in, out: b.out, r: b.r, next: b.next, session: attached.SessionID}
	defer func() { b.next = tab.next }()
	for _, domain := range []string{"Page", "Performance", "Runtime"} {
		tab.call(t, ctx, tab.session, domain+".enable", nil, nil)
	}
	tab.viewport(t, ctx, desktopWidth, desktopHeight, false)
	before := tab.taskDuration(t, ctx)
	tab.open(t, ctx, url)
	var painted bool
	tab.evalAsync(t, ctx, `new Promise(function (done) {
  requestAnimationFrame(function () { requestAnimationFrame(function () { done(true); }); });
})`, &painted)
	after := tab.taskDuration(t, ctx)
	if after < before {
		return after // the page is in another process than about:blank was
	}
	return after - before
}

// taskDuration is the time the tab's main thread has spent on tasks.
func (b *browser) taskDuration(t *testing.T, ctx context.Context) time.Duration {
	t.Helper()
	var metrics struct {
		Metrics []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"metrics"`
	}
	b.call(t, ctx, b.session, "Performance.getMetrics", nil, &metrics)
	for _, m := range metrics.Metrics {
		if m.Name == "TaskDuration" {
			return time.Duration(m.Value * float64(time.Second))
		}
	}
	t.Fatal("the browser reported no TaskDuration")
	return 0
}
