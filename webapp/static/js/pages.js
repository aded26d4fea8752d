/* Arbitre — small page behaviours: the visitor's local time (Intl), deadline countdowns and
 * the move-by-move replay of a verification report. Every page works without JavaScript;
 * this only adds the local time, the ticking countdown and the stepper. */
(function () {
  "use strict";

  // the page's language (webapp.i18n sets <html lang>): French, the default, or Romanian
  var RO = (document.documentElement.getAttribute("lang") || "fr").slice(0, 2) === "ro";
  var T = RO ? {
    home: "La dumneavoastră: ", over: "Termen expirat", left: "Mai sunt ", day: " z ",
    move: "Mutarea ", missing: function (k) { return " (grila mutării " + k + " indisponibilă)"; },
    locale: "ro-RO"
  } : {
    home: "Chez vous : ", over: "Délai écoulé", left: "Il reste ", day: " j ",
    move: "Coup ", missing: function (k) { return " (grille du coup " + k + " indisponible)"; },
    locale: "fr-FR"
  };

  function localTimes() {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(T.locale, {
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
      el.textContent = T.home + fmt.format(d) + (zone ? " (" + zone + ")" : "");
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
          el.textContent = T.over;
          el.classList.add("over");
          // a live window (Anticipation move, Duplicate round): the next one is on the
          // server's page (data-reload: the wait in ms, 1500 when empty)
          if (el.hasAttribute("data-reload") && !el.getAttribute("data-reloading")) {
            el.setAttribute("data-reloading", "1");
            var wait = parseInt(el.getAttribute("data-reload"), 10) || 1500;
            setTimeout(function () { window.location.reload(); }, wait);
          }
          return;
        }
        var d = Math.floor(left / 86400);
        var h = Math.floor((left % 86400) / 3600);
        var m = Math.floor((left % 3600) / 60);
        var s = left % 60;
        el.textContent = T.left + (d ? d + T.day : "") + pad(h) + " h " + pad(m) + " min " + pad(s) + " s";
      });
    }
    tick();
    setInterval(tick, 1000);
  }

  // « Une minute ! » (RULES §6.1): shown during the last minute of a live window
  function lastMinute() {
    var els = document.querySelectorAll("[data-one-minute]");
    if (!els.length) return;
    function tick() {
      els.forEach(function (el) {
        var left = Date.parse(el.getAttribute("data-one-minute")) - Date.now();
        el.hidden = !(left > 0 && left <= 60000);
      });
    }
    tick();
    setInterval(tick, 1000);
  }

  // The report's stepper: one grid on the page; the others are fetched one at a time
  // (/rapports/<id>/coups/<k>), with the links and the slider working without JavaScript.
  function replays() {
    document.querySelectorAll(".replay[data-step-url]").forEach(function (box) {
      var base = box.getAttribute("data-step-url");
      var count = parseInt(box.getAttribute("data-count"), 10) || 0;
      var holder = box.querySelector(".replay-current");
      var label = box.querySelector(".replay-pos");
      var prev = box.querySelector(".replay-prev");
      var next = box.querySelector(".replay-next");
      var slider = box.querySelector(".replay-slider");
      var current = holder.querySelector(".replay-step");
      var i = current ? parseInt(current.getAttribute("data-index"), 10) : 1;
      var wanted = i;
      function links() {
        if (prev) {
          prev.href = "?coup=" + Math.max(i - 1, 1) + "#rejouer";
          prev.setAttribute("aria-disabled", i <= 1 ? "true" : "false");
        }
        if (next) {
          next.href = "?coup=" + Math.min(i + 1, count) + "#rejouer";
          next.setAttribute("aria-disabled", i >= count ? "true" : "false");
        }
      }
      function go(k) {
        if (k < 1 || k > count || k === wanted) return;
        wanted = k;
        if (slider) slider.value = String(k);
        fetch(base + k, { credentials: "same-origin" }).then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.text();
        }).then(function (htmlText) {
          if (k !== wanted) return; // a later request won
          holder.innerHTML = htmlText;
          i = k;
          if (label) label.textContent = T.move + i + " / " + count;
          links();
        }).catch(function () {
          wanted = i;
          if (label) label.textContent = T.move + i + " / " + count + T.missing(k);
        });
      }
      box.classList.add("js");
      if (prev) prev.addEventListener("click", function (ev) { ev.preventDefault(); go(wanted - 1); });
      if (next) next.addEventListener("click", function (ev) { ev.preventDefault(); go(wanted + 1); });
      if (slider) slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
      box.addEventListener("keydown", function (ev) {
        if (ev.target === slider) return;
        if (ev.key === "ArrowLeft") go(wanted - 1);
        if (ev.key === "ArrowRight") go(wanted + 1);
      });
      links();
    });
  }

  // A board too wide for a phone (squares kept big enough to tap) scrolls inside its own box,
  // centred on the star; its « Voir toute la grille » button fits it to the screen and back.
  function zoomableBoards() {
    Array.prototype.forEach.call(document.querySelectorAll(".zoom-toggle"), function (btn) {
      var box = document.getElementById(btn.getAttribute("aria-controls"));
      if (!box) return;
      function centre() { box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2; }
      btn.hidden = false;
      centre();
      btn.addEventListener("click", function () {
        var fit = !box.classList.contains("fit");
        box.classList.toggle("fit", fit);
        btn.setAttribute("aria-pressed", fit ? "true" : "false");
        btn.textContent = btn.getAttribute(fit ? "data-zoom" : "data-fit");
        centre();
      });
    });
  }

  // A form marked data-send-once is sent once: a double click on « Envoyer » (or a second
  // Enter) while the first post is on its way does nothing, and its buttons are disabled
  // (the server also takes the same bulletin re-posted within seconds as one). A submit
  // another script refused (preventDefault: the bulletin's letters checked) leaves the form
  // as it was; coming back to the page (the browser's back-forward cache) enables it again.
  function sendOnce() {
    document.addEventListener("submit", function (ev) {
      var form = ev.target;
      if (!form || !form.hasAttribute || !form.hasAttribute("data-send-once")) return;
      if (ev.defaultPrevented) return;
      if (form.getAttribute("data-sending") === "1") { ev.preventDefault(); return; }
      form.setAttribute("data-sending", "1");
      // disabled after the form's data is taken, so a named button still counts
      setTimeout(function () {
        Array.prototype.forEach.call(form.querySelectorAll("button[type=submit], button:not([type])"),
          function (b) { b.disabled = true; b.setAttribute("aria-busy", "true"); });
      }, 0);
    });
    window.addEventListener("pageshow", function () {
      Array.prototype.forEach.call(document.querySelectorAll("form[data-send-once]"), function (f) {
        f.removeAttribute("data-sending");
        Array.prototype.forEach.call(f.querySelectorAll("button[aria-busy]"), function (b) {
          b.disabled = false; b.removeAttribute("aria-busy");
        });
      });
    });
  }

  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }
  sendOnce();
  ready(function () { localTimes(); countdowns(); lastMinute(); replays(); zoomableBoards(); });
})();
