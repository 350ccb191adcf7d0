(function () {
  "use strict";
  // Open the tool call or extension that holds the record named in the
  // address, so #seq-N shows it.
  function reveal() {
    var id = location.hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch (e) {
      // Not percent-encoded after all: look the id up as it is.
    }
    var el = id && document.getElementById(id);
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
    document.querySelectorAll("details.tool").forEach(function (d) {
      d.open = open;
    });
  }
  window.addEventListener("hashchange", reveal);
  document.getElementById("expand").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { setAll(false); });
  reveal();
})();
