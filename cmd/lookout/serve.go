package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
	"github.com/lookout-go/lookout/report"
)

var serveCmd = &command{
	name:    "serve",
	args:    "DIR",
	summary: "serve a live view of the runs of every trajectory under DIR",
	details: `Serve lists the runs of every *.jsonl and *.jsonl.gz file under DIR on a
local web page, updated every second as agents append to the files: a new
run appears and grows while it runs. The list can be searched and filtered
by agent and outcome, and each run opens as the page lookout report writes,
with the runs it started.

The server binds to the loopback address, 127.0.0.1:8080 unless -addr says
otherwise, and prints its address. It only reads: it serves the list, the
runs' pages and nothing else, refuses any path outside DIR (a symbolic link
out of it too), and its pages fetch nothing from elsewhere. It stops on an
interrupt. When a team outgrows one machine, the OTLP export is the path to
a shared tracing backend.`,
	examples: `  # the runs under runs/, at http://127.0.0.1:8080/
  lookout serve runs/

  # on another port
  lookout serve -addr 127.0.0.1:9000 runs/`,
	minArgs: 1,
	maxArgs: 1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		addr := fs.String("addr", "127.0.0.1:8080", "listen on `ADDR`, host:port; the loopback address unless told otherwise")
		return func(ctx context.Context, e *env, args []string) int {
			if err := serveDir(ctx, e, args[0], *addr); err != nil {
				return e.failErr(err)
			}
			return exitOK
		}
	},
}

// serveDir serves the viewer of the trajectories under dir on addr until ctx
// ends.
func serveDir(ctx context.Context, e *env, dir, addr string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return &unreadableError{err}
	}
	defer root.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newViewer(root), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stdout, "serving the runs under %s at http://%s/\n", dir, ln.Addr())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		srv.Close()
	}()
	err = srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-stopped
		return nil
	}
	return err
}

// viewer serves the list of runs, as a page and as JSON, and each run's
// report, from the files under one directory.
type viewer struct {
	root *os.Root
	mu   sync.Mutex
	seen map[string]*listed // by path under the root
}

// listed is a file's runs, as of its size and time.
type listed struct {
	size int64
	mod  time.Time
	runs []listedRun
}

// listedRun is one run in the list.
type listedRun struct {
	File       string    `json:"file"`
	RunID      string    `json:"run_id"`
	Parent     string    `json:"parent_run_id,omitempty"`
	Depth      int       `json:"depth"`
	Agent      string    `json:"agent"`
	Outcome    string    `json:"outcome"`
	StopReason string    `json:"stop_reason,omitempty"`
	Started    time.Time `json:"started,omitzero"`
	Records    int       `json:"records"`
	ToolCalls  int       `json:"tool_calls"`
	Failed     int       `json:"failed"`
}

func newViewer(root *os.Root) http.Handler {
	v := &viewer{root: root, seen: map[string]*listed{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", v.index)
	mux.HandleFunc("GET /runs.json", v.runs)
	mux.HandleFunc("GET /run", v.run)
	return mux
}

// index serves the page that lists the runs.
func (v *viewer) index(w http.ResponseWriter, _ *http.Request) {
	header(w, "text/html; charset=utf-8", indexCSP)
	indexPage.Execute(w, nil)
}

// runs serves the runs of every trajectory under the root, as JSON.
func (v *viewer) runs(w http.ResponseWriter, _ *http.Request) {
	var all []listedRun
	files, err := v.files()
	if err != nil {
		http.Error(w, "cannot list the directory", http.StatusInternalServerError)
		return
	}
	for _, f := range files {
		all = append(all, v.list(f)...)
	}
	header(w, "application/json", "default-src 'none'")
	json.NewEncoder(w).Encode(all)
}

// files lists the trajectories under the root, sorted.
func (v *viewer) files() ([]string, error) {
	var out []string
	err := fs.WalkDir(v.root.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder that cannot be read is left out
		}
		if d.Type().IsRegular() && hasSuffix(path, trajectorySuffixes) {
			out = append(out, path)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// list returns the runs of the file at path, read again when it changed.
func (v *viewer) list(path string) []listedRun {
	info, err := v.root.Stat(path)
	if err != nil {
		return nil
	}
	v.mu.Lock()
	l := v.seen[path]
	v.mu.Unlock()
	if l != nil && l.size == info.Size() && l.mod.Equal(info.ModTime()) {
		return l.runs
	}
	records, err := v.read(path)
	if err != nil {
		return nil
	}
	l = &listed{size: info.Size(), mod: info.ModTime()}
	for _, r := range summary.Analyze(records).Runs {
		l.runs = append(l.runs, listedRun{File: path, RunID: r.RunID, Parent: r.ParentRunID, Depth: r.Depth, Agent: r.AgentName,
			Outcome: r.Outcome, StopReason: r.StopReason, Started: r.Started, Records: r.Records, ToolCalls: r.ToolCalls, Failed: r.ToolErrors})
	}
	v.mu.Lock()
	v.seen[path] = l
	v.mu.Unlock()
	return l.runs
}

// read reads the records of the file at path under the root, the
// complete lines of a file being written included.
func (v *viewer) read(path string) ([]recorder.Record, error) {
	f, err := v.root.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		r = z
	}
	records, _, err := recorder.ReadAll(r)
	return records, err
}

// run serves the report of one run and the runs it started: ?file=PATH,
// a path under the root, and &run=ID.
func (v *viewer) run(w http.ResponseWriter, req *http.Request) {
	path, id := req.URL.Query().Get("file"), req.URL.Query().Get("run")
	if !fs.ValidPath(path) || !hasSuffix(path, trajectorySuffixes) {
		http.Error(w, "not a trajectory under the served directory", http.StatusForbidden)
		return
	}
	records, err := v.read(path)
	if err != nil {
		http.Error(w, "cannot read "+path, http.StatusNotFound)
		return
	}
	if id != "" {
		records = runTree(records, id)
	}
	var page bytes.Buffer
	if err := report.Write(&page, records, &report.Options{Title: "Lookout: " + path}); err != nil {
		http.Error(w, "no records", http.StatusNotFound)
		return
	}
	header(w, "text/html; charset=utf-8", "")
	w.Write(page.Bytes())
}

// header sets the response's content type, and a Content-Security-Policy
// unless csp is empty (a report carries its own).
func header(w http.ResponseWriter, contentType, csp string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if csp != "" {
		w.Header().Set("Content-Security-Policy", csp)
	}
}

// indexCSP allows the list's own style and script, by hash, and requests
// to the server alone.
var indexCSP = "default-src 'none'; style-src '" + cspHash(indexStyle) + "'; script-src '" + cspHash(indexScript) +
	"'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'"

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lookout: runs</title><link rel="icon" href="data:,"><style>` + indexStyle + `</style></head>
<body><h1>Runs</h1>
<form id="filters"><label>Search <input name="q" type="search"></label>
<label>Agent <select name="agent"><option value="">all</option></select></label>
<label>Outcome <select name="outcome"><option value="">all</option></select></label></form>
<p id="count"></p>
<table><thead><tr><th>Run</th><th>Agent</th><th>Outcome</th><th>Records</th><th>Tool calls</th><th>Failed</th><th>Started</th><th>File</th></tr></thead>
<tbody id="runs"></tbody></table>
<script>` + indexScript + `</script></body></html>`))

const indexStyle = `body { font: 14px/1.45 system-ui, sans-serif; margin: 16px; color: #1d2126; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #d5dae0; }
td.bad { color: #c62828; font-weight: 600; } form { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 8px 0; }
tr.child td:first-child { padding-left: 24px; } code { font-size: 12px; }`

// indexScript fetches the list every second and shows the runs that match
// the filters; nothing it shows is read as markup.
const indexScript = `(function () {
  "use strict";
  var form = document.getElementById("filters"), body = document.getElementById("runs"), runs = [];
  function cell(tr, text, cls) {
    var td = tr.insertCell();
    td.textContent = text;
    if (cls) { td.className = cls; }
    return td;
  }
  function options(name, values) {
    var sel = form.elements[name], have = Array.from(sel.options, function (o) { return o.value; });
    values.forEach(function (v) {
      if (have.indexOf(v) < 0) { sel.add(new Option(v, v)); }
    });
  }
  function show() {
    var q = form.elements.q.value.toLowerCase(), agent = form.elements.agent.value, outcome = form.elements.outcome.value;
    var shown = runs.filter(function (r) {
      return (!agent || r.agent === agent) && (!outcome || r.outcome === outcome) &&
        (!q || [r.run_id, r.agent, r.outcome, r.file, r.stop_reason || ""].join(" ").toLowerCase().indexOf(q) >= 0);
    });
    body.textContent = "";
    shown.forEach(function (r) {
      var tr = body.insertRow();
      tr.id = "run-" + r.run_id;
      if (r.depth > 0) { tr.className = "child"; }
      var a = document.createElement("a");
      a.href = "run?file=" + encodeURIComponent(r.file) + "&run=" + encodeURIComponent(r.run_id);
      a.textContent = r.run_id;
      cell(tr, "").appendChild(a);
      cell(tr, r.agent);
      cell(tr, r.outcome, r.outcome === "completed" ? "" : "bad");
      cell(tr, String(r.records));
      cell(tr, String(r.tool_calls));
      cell(tr, String(r.failed), r.failed ? "bad" : "");
      cell(tr, r.started || "");
      cell(tr, r.file);
    });
    document.getElementById("count").textContent = shown.length + " of " + runs.length + " runs";
  }
  function poll() {
    fetch("runs.json").then(function (res) { return res.json(); }).then(function (list) {
      runs = list || [];
      options("agent", Array.from(new Set(runs.map(function (r) { return r.agent; }))).sort());
      options("outcome", Array.from(new Set(runs.map(function (r) { return r.outcome; }))).sort());
      show();
    }).catch(function () {}).then(function () { setTimeout(poll, 1000); });
  }
  form.addEventListener("input", show);
  poll();
})();`
