// The approver page's only script (no framework; served at /ui/live.js).
// Every 5 seconds it asks /ui/pending which requests are PENDING; when that
// set changes, it reloads the list, unless the person is typing a reason:
// then it says so in a live region with a link to show them.
(function () {
  "use strict";
  var shown = document.body.getAttribute("data-pending") || "";
  var self = document.body.getAttribute("data-self") || "/";
  var live = document.getElementById("live");
  function typing() {
    var a = document.activeElement;
    if (a && (a.tagName === "TEXTAREA" || a.tagName === "INPUT" || a.tagName === "SELECT")) return true;
    var ts = document.querySelectorAll("textarea");
    for (var i = 0; i < ts.length; i++) if (ts[i].value.trim() !== "") return true;
    return false;
  }
  function check() {
    fetch("/ui/pending", { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (j) {
        if (!j) return;
        var now = j.ids.join(",");
        if (now === shown) return;
        if (!typing()) { window.location.replace(self); return; }
        live.hidden = false;
        live.textContent = "";
        var a = document.createElement("a");
        a.href = self;
        a.textContent = "Pending requests changed (" + j.ids.length + " pending now): show them";
        live.appendChild(a);
      })
      .catch(function () {});
  }
  setInterval(check, 5000);
})();
