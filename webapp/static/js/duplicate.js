/* Arbitre — the bulletin form of a Duplicate round (/duplicate/<code>).
 *
 * A click on a square of the master grid writes its reference at the start of the bulletin
 * (horizontal first, a second click on the same square makes it vertical); while the player
 * types, the points of the word at that reference are computed on the master grid
 * (scoring.js: the premium layout and the tile values of the game) and shown with the
 * letters it takes from the draw. Nothing here checks the word against a list: the
 * correction after the deadline decides. A bulletin whose word takes letters the draw does
 * not give (the letters already on the grid it crosses are not taken; a joker of the draw
 * may stand for one missing letter, as the correction credits an unmarked joker; « +T »
 * adds a chosen letter, « -N » gives one back) is not sent: the refusal says which letters
 * (#bulletin-refused). Only a help — the server's correction stays the judge.
 *
 * A raccord shorter than the correction allows is warned about under the preview
 * (.raccord-warning): one letter makes the bulletin unreadable, whatever the round
 * (puzzles.duplicate.parse_bulletin); two letters cost a warning when the raccord is what
 * locates the word, from the second round, unless the game's first word had two letters
 * (raccord_min 2: puzzles.duplicate.raccord_minimum, the correction's own rule, S1 5.2).
 *
 * Data: <script type="application/json" id="duplicate-data">
 *   {cgp, rack, layout: {letter_mult, word_mult, center}, values, bingo_tiles, bingo_bonus,
 *    raccord_min (3, 2, or null on the first round's empty grid)}
 * Messages in the page's language: <script type="application/json" id="duplicate-messages">
 * (the French below is the fallback).
 */
(function () {
  "use strict";
  var S = window.ArbitreScoring;
  var dataEl = document.getElementById("duplicate-data");
  var input = document.getElementById("bulletin");
  var preview = document.getElementById("bulletin-preview");
  var grid = document.getElementById("grille-maitre");
  if (!S || !dataEl || !input || !preview || !grid) return;
  var data = JSON.parse(dataEl.textContent);
  var messagesEl = document.getElementById("duplicate-messages");
  var M = {};
  try { M = messagesEl ? JSON.parse(messagesEl.textContent) : {}; } catch (e) { M = {}; }
  function t(key, fallback, params) {
    var text = M[key] || fallback;
    Object.keys(params || {}).forEach(function (k) {
      text = text.split("%(" + k + ")s").join(String(params[k]));
    });
    return text;
  }
  var config = { layout: data.layout, values: data.values, bingo_tiles: data.bingo_tiles,
                 bingo_bonus: data.bingo_bonus };
  var cells = S.cellsFromCgp(data.cgp);
  var last = { sq: -1, horizontal: true };

  function isRef(token) {
    if (!/\d/.test(token) || !/[A-Za-z]/.test(token)) return false;
    try { S.parseRef(token); return true; } catch (e) { return false; }
  }

  // A bulletin: reference, raccord and word, score; the variants add « +T » (letters chosen
  // from the stock), « -N » (the Métagramme's letter given back), and the Tactique's second
  // word after « + » (only the first word is previewed). Raccord letters at their places
  // (« O@+1,+1 », puzzles.duplicate.parse_bulletin) and the mark « (vertical) » / « ↓ » are
  // kept as written (marks) and are no word; the server reads them.
  function split(text) {
    var first = text.split(/\s[+=]\s/)[0];
    var rest = text.slice(first.length);
    // the spaces a mail puts in « R @ 1 , 0 » closed up, as the server does
    first = first.replace(/\s*@\s*([+-]?\d{1,2})\s*[,;]\s*(?=[+-]?\d)/g, "@$1,");
    var tokens = first.trim().split(/\s+/).filter(Boolean);
    var out = { ref: null, words: [], score: null, chosen: "", swapped: "", extra: [],
                marks: [], rest: rest };
    tokens.forEach(function (t) {
      if (t.indexOf("@") >= 0 || /^(\(vertical\)|↓)$/i.test(t)) out.marks.push(t);
      else if (/^\d+$/.test(t)) out.score = t;
      else if (/^[+-][A-Za-z?]+$/.test(t)) {
        if (t.charAt(0) === "+") out.chosen += t.slice(1).toUpperCase();
        else out.swapped += t.slice(1).toUpperCase();
        out.extra.push(t);
      } else if (out.ref === null && isRef(t)) out.ref = t;
      else out.words.push(t);
    });
    return out;
  }

  // the letters the move may take: the draw, less the letter given back, plus those chosen;
  // a chosen letter the word marks as a joker may be one (RULES §9.3, E12, under the
  // Romanian rule: the server says). missing.jokersLeft: the draw's jokers the word did not
  // use (each may stand for a letter written without its joker mark)
  function missingFromRack(letters, chosen, swapped) {
    var left = data.rack.split("");
    (swapped || "").split("").forEach(function (ch) {
      var i = left.indexOf(ch);
      if (i >= 0) left.splice(i, 1);
    });
    var picked = (chosen || "").split("").filter(Boolean);
    var missing = [];
    letters.split("").forEach(function (ch) {  // plain letters first, the jokers ("?") last
      var i = left.indexOf(ch);
      if (i >= 0) { left.splice(i, 1); return; }
      var j = picked.indexOf(ch);
      if (j >= 0) { picked.splice(j, 1); return; }
      if (ch === "?" && picked.length) { picked.pop(); return; }
      missing.push(ch);
    });
    missing.jokersLeft = left.filter(function (ch) { return ch === "?"; }).length;
    return missing;
  }

  // The letters a bulletin lacks beyond what the draw's spare jokers cover, with the move
  // (null when the bulletin cannot be placed here: no reference, off the grid… — the server
  // says what it makes of it)
  function lacking(text) {
    var b = split(text);
    if (!b.ref || !b.words.length) return null;
    var word = b.words[b.words.length - 1];
    try {
      var r = S.scoreMove(cells, b.ref, word, config);
      var missing = missingFromRack(S.lettersUsed(r.placement.tiles), b.chosen, b.swapped);
      if (missing.length <= missing.jokersLeft) return null;
      return { word: word, ref: S.formatRef(r.placement.ref), missing: missing };
    } catch (e) {
      return null;
    }
  }

  // Raccord letters at their places without a reference (« Z@0,0 A@+1,0 ZAS 12 »): the one
  // placement of the word that has each letter on the grid at its offset from the word's
  // first square, in the word, touching it or touching another of them (S1 4.3.1, as
  // puzzles.duplicate.placed_raccord_fits) whose letters the draw gives; null when none or
  // several (the server decides)
  function locate(b, word) {
    var marks = b.marks;
    var placed = [];
    marks.forEach(function (m) {
      var g = /^([A-Za-z])@([+-]?\d{1,2}),([+-]?\d{1,2})$/.exec(m);
      if (g) placed.push({ letter: g[1].toUpperCase(), dx: parseInt(g[2], 10),
                           dy: parseInt(g[3], 10) });
    });
    if (placed.length < 2) return null;
    var n = S.SIZE;
    var len;
    try { len = S.parseWord(word).length; } catch (e) { return null; }
    function near(a, b) {
      return Math.abs(a % n - b % n) + Math.abs(Math.floor(a / n) - Math.floor(b / n)) === 1;
    }
    var found = [];
    for (var sq = 0; sq < n * n; sq++) {
      [true, false].forEach(function (horizontal) {
        var r0 = Math.floor(sq / n), c0 = sq % n, step = horizontal ? 1 : n;
        if ((horizontal ? c0 : r0) + len > n) return;
        var squares = [];
        for (var i = 0; i < placed.length; i++) {
          var r = r0 + placed[i].dy, c = c0 + placed[i].dx;
          if (r < 0 || r >= n || c < 0 || c >= n) return;
          var cell = cells[r * n + c];
          if (!cell || cell.toUpperCase() !== placed[i].letter) return;
          squares.push(r * n + c);
        }
        var inWord = [];
        for (var k = 0; k < len; k++) inWord.push(sq + k * step);
        var before = horizontal ? (c0 > 0 ? sq - 1 : -1) : (r0 > 0 ? sq - n : -1);
        var last = sq + (len - 1) * step;
        var after = horizontal ? (c0 + len < n ? last + 1 : -1) : (r0 + len < n ? last + n : -1);
        if ((before >= 0 && cells[before]) || (after >= 0 && cells[after])) return;
        var reached = squares.filter(function (q) {
          return inWord.some(function (w) { return w === q || near(w, q); });
        });
        var grown = true;
        while (grown) {
          grown = false;
          squares.forEach(function (q) {
            if (reached.indexOf(q) < 0 && reached.some(function (x) { return near(x, q); })) {
              reached.push(q);
              grown = true;
            }
          });
        }
        if (reached.length !== squares.length) return;
        var ref = S.formatRef({ row: r0, col: c0, horizontal: horizontal });
        try {
          var r2 = S.scoreMove(cells, ref, word, config);
          var missing = missingFromRack(S.lettersUsed(r2.placement.tiles), b.chosen, b.swapped);
          if (r2.placement.tiles.length && missing.length <= missing.jokersLeft) found.push(ref);
        } catch (e) { /* the word does not lie there */ }
      });
    }
    return found.length === 1 ? found[0] : null;
  }

  // The raccord of each solution (« / ») and each Tactique word (« + ») as the server reads
  // it: the first of two words (a straight run), or the letters at their places; null when
  // every one is long enough
  function raccordWarning(text) {
    var sols = [];
    text.split(/\s[+=]\s/).forEach(function (part) { sols = sols.concat(part.split("/")); });
    for (var i = 0; i < sols.length; i++) {
      var b = split(sols[i]);
      var placed = b.marks.filter(function (m) { return m.indexOf("@") >= 0; });
      var run = b.words.length === 2 ? b.words[0] : null;
      if (run !== null && placed.length) continue;  // written both ways: the server says so
      var shown, count;
      if (run !== null) {
        shown = run.toUpperCase();
        try { count = S.parseWord(run).length; } catch (e) { count = run.length; }
      } else if (placed.length) {
        shown = placed.join(" ");
        count = placed.length;
      } else continue;
      if (count < 2) {
        return t("raccord_one",
          "Raccord « %(raccord)s » d'une seule lettre : trois lettres de raccord au minimum, ce bulletin serait illisible.",
          { raccord: shown });
      }
      if (count === 2 && data.raccord_min === 3) {
        return t("raccord_two",
          "Raccord « %(raccord)s » de deux lettres au lieu de trois : un avertissement s'il situe le mot (sans référence juste).",
          { raccord: shown });
      }
    }
    return null;
  }

  function show() {
    render();
    var warning = raccordWarning(input.value);
    if (warning) {
      var el = document.createElement("strong");
      el.className = "raccord-warning";
      el.textContent = warning;
      preview.appendChild(document.createTextNode(" "));
      preview.appendChild(el);
    }
  }

  function render() {
    var b = split(input.value);
    preview.textContent = "";
    if (!b.ref && b.words.length) b.ref = locate(b, b.words[b.words.length - 1]);
    if (!b.ref || !b.words.length) {
      preview.textContent = t("click", "Cliquez sur la case de la première lettre, puis tapez le mot.");
      return;
    }
    var word = b.words[b.words.length - 1];
    try {
      var r = S.scoreMove(cells, b.ref, word, config);
      var used = S.lettersUsed(r.placement.tiles);
      var missing = missingFromRack(used, b.chosen, b.swapped);
      var text = t("points", "%(word)s en %(ref)s : %(points)s points",
                   { word: word, ref: S.formatRef(r.placement.ref), points: r.total });
      if (missing.length) {
        text += " — " + t("missing", "lettres absentes du tirage : %(letters)s",
                          { letters: missing.join(" ") });
      }
      if (b.score !== null && String(r.total) !== b.score) {
        text += " (" + t("claimed", "vous annoncez %(score)s", { score: b.score }) + ")";
      }
      preview.textContent = text + ".";
    } catch (e) {
      preview.textContent = e && e.message ? e.message : String(e);
    }
  }

  grid.addEventListener("click", function (ev) {
    var el = ev.target.closest ? ev.target.closest("[data-sq]") : null;
    if (!el) return;
    var sq = parseInt(el.getAttribute("data-sq"), 10);
    last = { sq: sq, horizontal: sq === last.sq ? !last.horizontal : true };
    var ref = S.formatRef({ row: Math.floor(sq / S.SIZE), col: sq % S.SIZE,
                            horizontal: last.horizontal });
    var b = split(input.value);
    input.value = [ref].concat(b.marks, b.words, b.score !== null ? [b.score] : [],
                               b.extra).join(" ") +
      (b.words.length ? "" : " ") + b.rest;
    input.focus();
    show();
  });
  var refused = document.getElementById("bulletin-refused");
  var form = input.form;
  if (form && refused) {
    form.addEventListener("submit", function (ev) {
      var l = lacking(input.value);
      if (!l) { refused.hidden = true; return; }
      ev.preventDefault();
      refused.textContent = t("refused",
        "Bulletin non envoyé : %(word)s en %(ref)s prend des lettres que le tirage %(rack)s ne donne pas : %(letters)s.",
        { word: l.word, ref: l.ref, rack: data.rack, letters: l.missing.join(" ") });
      refused.hidden = false;
      input.focus();
    });
    input.addEventListener("input", function () { refused.hidden = true; });
  }
  input.addEventListener("input", show);
  show();
})();
