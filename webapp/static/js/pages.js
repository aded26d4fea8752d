/* Arbitre — small page behaviours: the visitor's local time (Intl), deadline countdowns and
 * the move-by-move replay of a verification report. Every page works without JavaScript;
 * this only adds the local time, the ticking countdown and the stepper. */
(function () {
  "use strict";

  function localTimes() {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat("fr-FR", {
        weekday: "long", day: "numeric", month: "long", year: "numeric",
        hour: "2-digit", minute: "2-digit", timeZoneName: "short"
      });
    } catch (e) {
      return;
    }
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
    document.querySelectorAll("[data-local-time]").forEach(function (el) {
      var d = new Date(el.getAttribute("data-local-time"));
      if (isNaN(d.getTime())) return;
      el.textContent = "Chez vous : " + fmt.format(d) + (zone ? " (" + zone + ")" : "");
      el.hidden = false;
    });
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function countdowns() {
    var els = document.querySelectorAll("[data-countdown]");
    if (!els.length) return;
    function tick() {
      var now = Date.now();
      els.forEach(function (el) {
        var end = Date.parse(el.getAttribute("data-countdown"));
        if (isNaN(end)) return;
        var left = Math.floor((end - now) / 1000);
        if (left <= 0) {
          el.textContent = "Délai écoulé";
          el.classList.add("over");
          return;
        }
        var d = Math.floor(left / 86400);
        var h = Math.floor((left % 86400) / 3600);
        var m = Math.floor((left % 3600) / 60);
        var s = left % 60;
        el.textContent = "Il reste " + (d ? d + " j " : "") + pad(h) + " h " + pad(m) + " min " + pad(s) + " s";
      });
    }
    tick();
    setInterval(tick, 1000);
  }

  function replays() {
    document.querySelectorAll(".replay").forEach(function (box) {
      var steps = box.querySelectorAll(".replay-step");
      if (!steps.length) return;
      var label = box.querySelector(".replay-pos");
      var prev = box.querySelector(".replay-prev");
      var next = box.querySelector(".replay-next");
      var i = steps.length - 1;
      function show() {
        steps.forEach(function (s, k) { s.classList.toggle("current", k === i); });
        if (label) label.textContent = "Coup " + (i + 1) + " / " + steps.length;
        if (prev) prev.disabled = i === 0;
        if (next) next.disabled = i === steps.length - 1;
      }
      box.classList.add("js");
      if (prev) prev.addEventListener("click", function () { if (i > 0) { i--; show(); } });
      if (next) next.addEventListener("click", function () { if (i < steps.length - 1) { i++; show(); } });
      box.addEventListener("keydown", function (ev) {
        if (ev.key === "ArrowLeft" && i > 0) { i--; show(); }
        if (ev.key === "ArrowRight" && i < steps.length - 1) { i++; show(); }
      });
      i = 0;
      show();
    });
  }

  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }
  ready(function () { localTimes(); countdowns(); replays(); });
})();
