(function () {
  "use strict";
  // Each run's parts are rendered when they come near the screen: see
  // parts.go. A part is a placeholder followed by its markup.
  var parts = Array.prototype.slice.call(document.querySelectorAll("div.part"));
  var opened = null; // what "Expand all" or "Collapse all" last set
  var watch = null;
  function render(p) {
    if (p.classList.contains("done")) {
      return;
    }
    var data = p.nextElementSibling;
    p.innerHTML = data.textContent;
    data.remove();
    p.classList.add("done");
    p.style.height = "";
    if (watch) {
      watch.unobserve(p);
    }
    if (opened !== null) {
      p.querySelectorAll("details.tool").forEach(function (d) { d.open = opened; });
    }
    showTool(p);
  }
  // showTool hides the tool calls under el of tools other than the
  // one the filter names: a call's summary starts with its tool's name.
  var tool = "";
  function showTool(el) {
    el.querySelectorAll("details.tool").forEach(function (d) {
      d.hidden = tool !== "" && d.firstChild.firstChild.nodeValue !== tool;
    });
  }
  // A part is as high as the page expects it to be (data-h), and a
  // timeline part holds entries.
  parts.forEach(function (p) {
    p.style.height = p.getAttribute("data-h") + "px";
    if (p.hasAttribute("data-from")) {
      p.classList.add("timeline");
    }
    if (p.hasAttribute("data-rows")) {
      p.style.height = (+p.getAttribute("data-rows") * 20) + "px";
    }
  });
  if (window.IntersectionObserver) {
    watch = new IntersectionObserver(function (seen) {
      seen.forEach(function (e) {
        if (e.isIntersecting) {
          render(e.target);
        }
      });
    }, {rootMargin: "300px 0px"});
    parts.forEach(function (p) { watch.observe(p); });
  } else {
    parts.forEach(render);
  }
  // Parts that hold whole sections list their anchors.
  var holder = {};
  parts.forEach(function (p) {
    (p.getAttribute("data-runs") || "").split(" ").forEach(function (a) {
      if (a) {
        holder[a] = p;
      }
    });
  });
  // find returns the element with id, rendering the part that holds it:
  // a section's anchor is "run-RUN" or "conversation-ID"; a record's is
  // "seq-N", or "RUN-seq-N" on a page of several runs, and the messages
  // Lookout added to a call's input add "-in-K".
  function find(id) {
    var el = document.getElementById(id);
    if (el) {
      return el;
    }
    var at = id.lastIndexOf("seq-");
    var section = at > 0 ? "run-" + id.slice(0, at - 1) : id;
    if (holder[section]) {
      render(holder[section]);
    }
    var sec = at > 0 ? document.getElementById(section) : document.querySelector("section.run");
    var seq = parseInt(id.slice(at + 4), 10);
    if (sec && at >= 0 && !isNaN(seq)) {
      var ps = sec.querySelectorAll(":scope > div.part"), pick = ps[0];
      for (var i = 1; i < ps.length; i++) {
        if (+ps[i].getAttribute("data-from") <= seq) {
          pick = ps[i];
        }
      }
      if (pick) {
        render(pick);
      }
    }
    el = document.getElementById(id);
    if (!el) {
      parts.forEach(render);
      el = document.getElementById(id);
    }
    return el;
  }
  // Open the tool call or extension that holds the record named in the
  // address, so #seq-N shows it.
  function reveal() {
    var id = location.hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch (e) {
      // Not percent-encoded after all: look the id up as it is.
    }
    var el = id && find(id);
    if (!el) {
      return;
    }
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") {
        p.open = true;
      }
    }
    el.scrollIntoView();
  }
  function setAll(open) {
    opened = open;
    document.querySelectorAll("details.tool").forEach(function (d) {
      d.open = open;
    });
  }
  // The filters hide, by rules added to the page's style sheet, what
  // does not match: runs (their sections, their rows in the tree and in
  // the list of problems) and problems of other tools; tool calls of
  // other tools are hidden as they are rendered. The kind is a class on
  // the body, which the style sheet reads.
  var sheet = document.styleSheets[0], added = 0;
  function filter() {
    var form = document.getElementById("filters");
    for (; added > 0; added--) {
      sheet.deleteRule(sheet.cssRules.length - 1);
    }
    tool = form.elements.tools.value;
    showTool(document);
    ["agent", "outcome", "tools"].forEach(function (name) {
      var v = form.elements[name].value, op = name === "tools" ? "~=" : "=";
      if (v) {
        sheet.insertRule("[data-" + name + "]:not([data-" + name + op + JSON.stringify(v) + "]) { display: none; }", sheet.cssRules.length);
        added++;
      }
    });
    document.body.className = form.elements.kind.value ? "k-" + form.elements.kind.value : "";
  }
  window.addEventListener("hashchange", reveal);
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href^='#']");
    if (a && a.getAttribute("href") === location.hash) {
      reveal(); // the same address again: no hashchange comes
    }
  });
  document.getElementById("filters").addEventListener("change", filter);
  document.getElementById("expand").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { setAll(false); });
  document.getElementById("all").addEventListener("click", function () { parts.forEach(render); });
  filter();
  reveal();
})();
