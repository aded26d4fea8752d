/* Arbitre — the interactive board of the submission page.
 *
 * The player clicks a square, chooses a direction and types a word; the board shows the
 * tiles, the points (scoring.js: premium layout and tile values of the problem's language)
 * and writes the feuille de route lines `n LETTRES REF MOT SCORE CUMUL` into the form's
 * text area. Nothing here checks a word against a list: whether a word is admitted is
 * decided by the arbitre's verification, never by the page.
 *
 * Data comes from <script type="application/json" id="board-data">:
 *   {cgp, layout: {letter_mult, word_mult, center}, values, bingo_tiles, bingo_bonus,
 *    stock: {letter: count} | null, accumulate: bool, header: [lines], groups: [letters],
 *    first_move_two_words: bool, pass_allowed: bool, answers: bool,
 *    row: the rangée's row ("" otherwise), pool: the consonant variants' completion letters,
 *    rack: the Superscrabble's 7 letters ("" otherwise),
 *    moves: [{number, group, ref, word, passed, annul, score, answer}]}
 *
 * The messages come from <script type="application/json" id="board-messages"> (the page's
 * language: French or Romanian), with the French ones below as the fallback.
 *
 * Letters: a move may only take letters the game gives it — the stock still left (Intégral
 * family), the group played (groups games; with the consonant variants, its consonants and
 * the pool), the next letters of the row in order (rangée, RULES §7.3: a move of k letters
 * takes exactly the next k), the rack (Superscrabble answers). Another word is refused
 * here with the reason; whether the word is admitted is still the arbitre's to decide.
 *
 * ``answers`` (Superscrabble incomplet): once the player ticks « Poser les scrabbles », each
 * word is an answer put alone on the grid he built; the first one writes the ``Scrabbles:``
 * line, and answers are numbered from 1.
 *
 * ``moves`` are the moves of the sheet in the text area when the page was drawn (the
 * version that counts), read by the server's parser: the board starts from them. A new move
 * is appended to the text area as one line; the text the player wrote stays as it is.
 *
 * Anticipation (RULES §6.1): at move 1 the player may play two words, group 1 first, then
 * the drawn 7-letter group. A first word played with group 1 is numbered 1 and so is the
 * word after it (two lines with number 1, as the verifier reads them).
 */
(function () {
  "use strict";
  var S = window.ArbitreScoring;
  var root = document.getElementById("interactive-board");
  var dataEl = document.getElementById("board-data");
  if (!root || !dataEl || !S) return;
  var data = JSON.parse(dataEl.textContent);
  var messagesEl = document.getElementById("board-messages");
  var M = {};
  try { M = messagesEl ? JSON.parse(messagesEl.textContent) : {}; } catch (e) { M = {}; }
  // a message in the page's language: the catalogue's, else the French fallback
  function t(key, fallback, params) {
    var text = M[key] || fallback;
    Object.keys(params || {}).forEach(function (k) {
      text = text.split("%(" + k + ")s").join(String(params[k]));
    });
    return text;
  }
  var config = {
    layout: data.layout,
    values: data.values,
    bingo_tiles: data.bingo_tiles,
    bingo_bonus: data.bingo_bonus
  };
  var initial = S.cellsFromCgp(data.cgp);
  var accumulate = data.accumulate !== false;
  var moves = []; // {number, group, ref, word, tiles, total, letters, passed, annul, line}
  var selected = null; // square index
  var horizontal = true;

  var grid = root.querySelector(".ib-grid");
  var wordInput = document.getElementById("ib-word");
  var refOut = document.getElementById("ib-ref");
  var preview = document.getElementById("ib-preview");
  var addBtn = document.getElementById("ib-add");
  var undoBtn = document.getElementById("ib-undo");
  var dirInputs = root.querySelectorAll("input[name=ib-dir]");
  var groupSelect = document.getElementById("ib-group");
  var hasGroups = !!(data.groups && data.groups.length);
  var movesBody = document.getElementById("ib-moves");
  var passBtn = document.getElementById("ib-pass");
  var nextOut = document.getElementById("ib-next");
  var noteOut = document.getElementById("ib-note");
  var answersBox = document.getElementById("ib-answers");
  var reloadBtn = document.getElementById("ib-reload");
  var stockOut = document.getElementById("ib-stock");
  var rowNext = document.getElementById("ib-row-next");
  var rowRest = document.getElementById("ib-row-rest");
  var textarea = document.getElementById(root.getAttribute("data-target") || "feuille-text");

  // the premium squares: css class, short label, spoken name (aria-label) — French by
  // default, the page's language from board-messages
  var PREMIUM = {
    "1,3": ["mt", t("mt", "MT"), t("mt_name", "mot compte triple")],
    "1,2": ["md", t("md", "MD"), t("md_name", "mot compte double")],
    "3,1": ["lt", t("lt", "LT"), t("lt_name", "lettre compte triple")],
    "2,1": ["ld", t("ld", "LD"), t("ld_name", "lettre compte double")]
  };

  function annulledNumbers() {
    var out = {};
    moves.forEach(function (m) { (m.annul || []).forEach(function (n) { out[n] = true; }); });
    return out;
  }

  function currentCells() {
    var cells = initial.slice();
    if (!accumulate) return cells;
    var gone = annulledNumbers();
    moves.forEach(function (m) { if (!m.answer && !gone[m.number]) S.applyTiles(cells, m.tiles); });
    return cells;
  }

  function answering() { return !!(answersBox && answersBox.checked); }

  // The number of the next move: one more than the last, except the second word of an
  // Anticipation's move 1 (the first word was played with group 1).
  function nextNumber() {
    if (answering()) return moves.filter(function (m) { return m.answer; }).length + 1;
    var built = moves.filter(function (m) { return !m.answer; });
    if (!built.length) return 1;
    var last = built[built.length - 1];
    if (data.first_move_two_words && last.number === 1 && last.group === 1 && !last.passed &&
        moves.filter(function (m) { return m.number === 1; }).length === 1) return 1;
    return last.number + 1;
  }

  function buildGrid() {
    grid.innerHTML = "";
    var corner = document.createElement("span");
    corner.className = "ib-label";
    grid.appendChild(corner);
    for (var c = 0; c < S.SIZE; c++) {
      var lab = document.createElement("span");
      lab.className = "ib-label";
      lab.textContent = String(c + 1);
      grid.appendChild(lab);
    }
    for (var r = 0; r < S.SIZE; r++) {
      var rl = document.createElement("span");
      rl.className = "ib-label";
      rl.textContent = S.ROWS[r];
      grid.appendChild(rl);
      for (c = 0; c < S.SIZE; c++) {
        var sq = r * S.SIZE + c;
        var b = document.createElement("button");
        b.type = "button";
        b.className = "ib-sq";
        b.setAttribute("data-sq", String(sq));
        var p = PREMIUM[data.layout.letter_mult[sq] + "," + data.layout.word_mult[sq]];
        if (p) b.classList.add(p[0]);
        if (sq === data.layout.center) b.classList.add("center");
        b.addEventListener("click", onSquare);
        grid.appendChild(b);
      }
    }
  }

  function onSquare(ev) {
    var sq = parseInt(ev.currentTarget.getAttribute("data-sq"), 10);
    if (selected === sq) {
      // A second click on the same square turns the word round, as on paper.
      setDirection(!horizontal);
    } else {
      selected = sq;
    }
    update();
    wordInput.focus();
  }

  function setDirection(h) {
    horizontal = h;
    dirInputs.forEach(function (i) { i.checked = (i.value === "h") === h; });
  }

  function currentRef() {
    if (selected === null) return null;
    return { row: Math.floor(selected / S.SIZE), col: selected % S.SIZE, horizontal: horizontal };
  }

  function pending() {
    var ref = currentRef();
    var word = wordInput.value.trim();
    if (!ref || !word) return null;
    try {
      var res = S.scoreMove(currentCells(), ref, word, config);
      if (!res.placement.tiles.length) {
        return { error: t("already", "Ce mot est déjà entièrement sur la grille : posez au moins une lettre.") };
      }
      var refused = lettersRefused(S.lettersUsed(res.placement.tiles));
      if (refused) return { error: refused };
      return res;
    } catch (e) {
      if (e instanceof S.NotationError) return { error: e.message };
      throw e;
    }
  }

  function counts(text) {
    var out = {};
    text.split("").forEach(function (ch) { out[ch] = (out[ch] || 0) + 1; });
    return out;
  }

  // the letters of ``letters`` that ``available`` (a string or a {letter: count}) lacks
  function lacking(letters, available) {
    var left = typeof available === "string" ? counts(available) : available;
    left = Object.assign({}, left);
    var out = "";
    letters.split("").forEach(function (ch) {
      if ((left[ch] || 0) > 0) left[ch] -= 1; else out += ch;
    });
    return out;
  }

  function sorted(text) { return text.split("").sort().join(""); }

  // how far into the row the moves already on the board have gone (each takes its letters)
  function rowPosition() {
    var pos = 0;
    moves.forEach(function (m) { if (!m.answer && !m.passed) pos += m.letters.length; });
    return pos;
  }

  // null when the letters of a move are ones the game gives it, else why not
  function lettersRefused(letters) {
    if (answering() || (data.rack && !accumulate)) {
      var notRack = lacking(letters, data.rack || "");
      return notRack ? t("not_in_rack", "Lettres absentes du tirage : %(letters)s.",
                         { letters: notRack }) : null;
    }
    if (data.row) {
      var pos = rowPosition();
      var expected = data.row.substr(pos, letters.length);
      if (sorted(expected) === sorted(letters)) return null;
      return t("row_order", "À la rangée, un coup prend les lettres suivantes dans l'ordre, sans en sauter : avec %(n)s lettre(s), %(expected)s — pas %(letters)s.",
               { n: letters.length, expected: expected || "—", letters: letters });
    }
    if (hasGroups) {
      if (!data.groups.join("")) return null;  // each player's own groups (aveugle)
      var g = chosenGroup();
      var pool = data.pool || "";
      if (g) {
        var notGroup = lacking(letters, (data.groups[g - 1] || "") + pool);
        return notGroup ? t("not_in_group", "Lettres absentes du groupe %(group)s : %(letters)s.",
                            { group: g, letters: notGroup }) : null;
      }
      var notGroups = lacking(letters, data.groups.join("") + pool);
      return notGroups ? t("not_in_groups", "Lettres absentes des groupes : %(letters)s.",
                           { letters: notGroups }) : null;
    }
    if (data.stock) {
      var notStock = lacking(letters, stockLeft());
      return notStock ? t("not_in_stock", "Lettres absentes des lettres restantes : %(letters)s.",
                          { letters: notStock }) : null;
    }
    return null;
  }

  // the stock less the letters of the construction moves already on the board
  function stockLeft() {
    var left = {};
    Object.keys(data.stock).forEach(function (k) { left[k] = data.stock[k]; });
    moves.filter(function (m) { return !m.answer; }).forEach(function (m) {
      m.letters.split("").forEach(function (ch) { left[ch] = (left[ch] || 0) - 1; });
    });
    return left;
  }

  // Intégral sur rangée: the next letters of the row (7 at most; those the typed word
  // takes are marked), then how many are left after them
  function renderRow(p) {
    if (!rowNext || !data.row) return;
    var pos = rowPosition();
    var next = data.row.substr(pos, 7);
    var taken = p && !p.error ? S.lettersUsed(p.placement.tiles).length : 0;
    rowNext.innerHTML = "";
    next.split("").forEach(function (ch, i) {
      var span = document.createElement("span");
      span.className = "stock-letter" + (i < taken ? " taken" : "");
      span.textContent = ch;
      rowNext.appendChild(span);
    });
    if (!next) rowNext.textContent = t("row_done", "rangée épuisée");
    var rest = Math.max(0, data.row.length - pos - next.length);
    if (rowRest) {
      rowRest.textContent = t("row_rest", "puis encore %(n)s lettre(s)", { n: rest });
    }
  }

  function render(p) {
    var cells = currentCells();
    var fresh = {};
    if (p && !p.error) p.placement.tiles.forEach(function (t) { fresh[t.square] = t; });
    var lastMove = moves.length ? moves[moves.length - 1] : null;
    if (lastMove && lastMove.answer) lastMove = null;
    var last = {};
    if (lastMove && accumulate) lastMove.tiles.forEach(function (t) { last[t.square] = true; });
    grid.querySelectorAll(".ib-sq").forEach(function (b) {
      var sq = parseInt(b.getAttribute("data-sq"), 10);
      var cell = cells[sq];
      var t = fresh[sq];
      b.classList.toggle("tile", !!cell);
      b.classList.toggle("pending", !!t);
      b.classList.toggle("joker", (!!cell && cell !== cell.toUpperCase()) || (!!t && t.joker));
      b.classList.toggle("last", !!last[sq]);
      b.classList.toggle("selected", sq === selected);
      var letter = cell ? cell.toUpperCase() : t ? t.letter : "";
      var label = S.squareName(sq);
      if (letter) {
        b.textContent = letter;
        label += " : " + letter;
      } else {
        var pr = PREMIUM[data.layout.letter_mult[sq] + "," + data.layout.word_mult[sq]];
        b.textContent = sq === data.layout.center ? "★" : pr ? pr[1] : "";
        if (pr) label += ", " + pr[2];
      }
      b.setAttribute("aria-label", label);
      b.setAttribute("aria-pressed", sq === selected ? "true" : "false");
    });
  }

  function update() {
    var ref = currentRef();
    refOut.textContent = ref ? S.formatRef(ref) : "—";
    var p = pending();
    render(p);
    preview.innerHTML = "";
    addBtn.disabled = !p || !!p.error;
    if (!ref) {
      preview.textContent = t("click", "Cliquez sur la case de la première lettre.");
    } else if (!p) {
      preview.textContent = t("type", "Tapez le mot (joker en minuscule ou entre parenthèses : RESTAI(T)).");
    } else if (p.error) {
      var err = document.createElement("p");
      err.className = "ib-error";
      err.textContent = p.error;
      preview.appendChild(err);
    } else {
      var ul = document.createElement("ul");
      p.words.forEach(function (w) {
        var li = document.createElement("li");
        li.textContent = w.ref + " " + w.text + " : " + w.points;
        ul.appendChild(li);
      });
      if (p.bonus) {
        var li = document.createElement("li");
        li.textContent = t("bonus", "Prime de %(n)s lettres : %(points)s",
                           { n: p.placement.tiles.length, points: p.bonus });
        ul.appendChild(li);
      }
      preview.appendChild(ul);
      var tot = document.createElement("p");
      tot.className = "ib-total";
      tot.textContent = t("this_move", "Ce coup : %(points)s points — lettres %(letters)s",
                          { points: p.total, letters: S.lettersUsed(p.placement.tiles) });
      preview.appendChild(tot);
    }
    renderStock();
    renderRow(p);
  }

  function cumulAt(i) {
    var gone = annulledNumbers();
    var c = 0;
    for (var k = 0; k <= i; k++) if (!gone[moves[k].number] || k === i) c += moves[k].total;
    return c;
  }

  function moveLine(m, i) {
    // "2 I G8 NI" would be read with the reference "2 I" (RULES §1.2 allows "8 H" with a
    // space): after a bare number, one letter takes a dot ("2. I G8 NI 3 7").
    var lone = !m.group && !m.passed && m.letters.length === 1;
    var fields = [lone ? m.number + "." : m.number];
    if (m.group) fields.push("G" + m.group);
    if (m.passed) return fields.concat(["Passe"]).join(" ");
    if (m.answer) return fields.concat([m.letters, S.formatRef(m.ref), m.word, m.total]).join(" ");
    return fields.concat([m.letters, S.formatRef(m.ref), m.word, m.total, cumulAt(i)]).join(" ");
  }

  // The whole sheet as the board would write it (the header, then one line a move).
  function feuilleLines() {
    var lines = (data.header || []).slice();
    moves.forEach(function (m, i) { lines.push(moveLine(m, i)); });
    return lines;
  }

  function renderMoves() {
    movesBody.innerHTML = "";
    moves.forEach(function (m, i) {
      var tr = document.createElement("tr");
      var cells = [m.answer ? "S" + m.number : m.number];
      if (hasGroups) cells.push(m.group ? "G" + m.group : "");
      if (m.passed) cells = cells.concat(["", "", "Passe", 0, cumulAt(i)]);
      else cells = cells.concat([m.letters, m.ref ? S.formatRef(m.ref) : m.refText || "", m.word,
                                 m.total, cumulAt(i)]);
      cells.forEach(function (v, k) {
        var td = document.createElement("td");
        td.textContent = String(v);
        if (k >= cells.length - 2) td.className = "num";
        tr.appendChild(td);
      });
      if (m.broken) {
        tr.className = "ib-broken";
        tr.title = m.broken;
      }
      movesBody.appendChild(tr);
    });
    undoBtn.disabled = !moves.length;
    var number = nextNumber();
    if (nextOut) {
      nextOut.textContent = number === 1 && moves.length
        ? t("second_word", "1 (second mot du coup 1, avec le groupe tiré)") : String(number);
    }
  }

  // Appends one line to the text area; the text already there (a pasted or earlier sheet,
  // header lines, comments) is kept as it is. An empty text area gets the header first.
  function appendLine(line) {
    if (!textarea) return;
    var text = textarea.value;
    if (!text.trim()) text = (data.header || []).map(function (h) { return h + "\n"; }).join("");
    else if (text.charAt(text.length - 1) !== "\n") text += "\n";
    textarea.value = text + line + "\n";
  }

  // Removes the line the board wrote for a move (the last such line in the text area).
  function removeLine(line) {
    if (!textarea) return true;
    var lines = textarea.value.split("\n");
    for (var k = lines.length - 1; k >= 0; k--) {
      if (lines[k].trim() === line) {
        lines.splice(k, 1);
        textarea.value = lines.join("\n");
        return true;
      }
    }
    return false;
  }

  function renderStock() {
    if (!stockOut || !data.stock) return;
    var left = {};
    Object.keys(data.stock).forEach(function (k) { left[k] = data.stock[k]; });
    var p = pending();
    // the construction's letters only: answers are made with the rack
    var used = moves.filter(function (m) { return !m.answer; }).map(function (m) { return m.letters; });
    if (p && !p.error && !answering()) used.push(S.lettersUsed(p.placement.tiles));
    used.join("").split("").forEach(function (ch) { left[ch] = (left[ch] || 0) - 1; });
    stockOut.innerHTML = "";
    Object.keys(left).sort(function (a, b) {
      if (a === "?") return 1;
      if (b === "?") return -1;
      return a < b ? -1 : a > b ? 1 : 0;
    }).forEach(function (k) {
      var span = document.createElement("span");
      span.className = "stock-letter" + (left[k] <= 0 ? " none" : "");
      span.textContent = k + (left[k] !== 1 ? "×" + left[k] : "");
      stockOut.appendChild(span);
    });
  }

  function chosenGroup() {
    return groupSelect && groupSelect.value ? parseInt(groupSelect.value, 10) : null;
  }

  function push(m) {
    if (m.answer && !moves.some(function (x) { return x.answer; }) &&
        !(textarea && /^\s*scrabbles\s*:/im.test(textarea.value))) {
      appendLine("Scrabbles:");
    }
    moves.push(m);
    m.line = moveLine(m, moves.length - 1);
    appendLine(m.line);
    if (noteOut) noteOut.textContent = "";
    wordInput.value = "";
    selected = null;
    renderMoves();
    update();
  }

  function add() {
    var p = pending();
    if (!p || p.error) return;
    push({
      number: nextNumber(),
      ref: p.placement.ref,
      word: p.placement.word,
      tiles: p.placement.tiles,
      total: p.total,
      letters: S.lettersUsed(p.placement.tiles),
      group: chosenGroup(),
      passed: false,
      annul: [],
      answer: answering()
    });
  }

  function pass() {
    push({ number: nextNumber(), group: chosenGroup(), ref: null, word: null, tiles: [],
           total: 0, letters: "", passed: true, annul: [] });
  }

  function undo() {
    var m = moves.pop();
    if (!m) return;
    if (!removeLine(m.line) && noteOut) {
      noteOut.textContent = t("line_missing", "La ligne du coup %(n)s n'a pas été retrouvée telle quelle dans la feuille ci-dessous : retirez-la à la main.",
                              { n: m.number });
    }
    renderMoves();
    update();
  }

  // The moves of the sheet shown when the page was drawn, put back on the grid in order.
  function load(list) {
    (list || []).forEach(function (lm) {
      var m = { number: lm.number, group: lm.group || null, ref: null, word: lm.word,
                tiles: [], total: 0, letters: "", passed: !!lm.passed, annul: lm.annul || [],
                answer: !!lm.answer };
      if (!m.passed) {
        try {
          var res = S.scoreMove(currentCells(), lm.ref, lm.word, config);
          m.ref = res.placement.ref;
          m.word = res.placement.word;
          m.tiles = res.placement.tiles;
          m.total = res.total;
          m.letters = S.lettersUsed(res.placement.tiles);
        } catch (e) {
          if (!(e instanceof S.NotationError)) throw e;
          m.broken = t("cannot_place", "Ce coup ne peut pas être posé sur la grille : %(error)s",
                       { error: e.message });
          m.total = lm.score || 0;
          m.refText = lm.ref;
        }
      }
      m.line = null;
      moves.push(m);
    });
  }

  if (groupSelect) {
    (data.groups || []).forEach(function (letters, i) {
      var o = document.createElement("option");
      o.value = String(i + 1);
      o.textContent = letters ? (i + 1) + " : " + letters : String(i + 1);
      groupSelect.appendChild(o);
    });
  }
  buildGrid();
  // Arrow keys move between squares, so the grid is usable without a mouse.
  grid.addEventListener("keydown", function (ev) {
    var target = ev.target;
    if (!target.classList || !target.classList.contains("ib-sq")) return;
    var sq = parseInt(target.getAttribute("data-sq"), 10);
    var r = Math.floor(sq / S.SIZE);
    var c = sq % S.SIZE;
    if (ev.key === "ArrowLeft") c = Math.max(0, c - 1);
    else if (ev.key === "ArrowRight") c = Math.min(S.SIZE - 1, c + 1);
    else if (ev.key === "ArrowUp") r = Math.max(0, r - 1);
    else if (ev.key === "ArrowDown") r = Math.min(S.SIZE - 1, r + 1);
    else return;
    ev.preventDefault();
    var next = grid.querySelector('.ib-sq[data-sq="' + (r * S.SIZE + c) + '"]');
    if (next) next.focus();
  });
  dirInputs.forEach(function (i) {
    i.addEventListener("change", function () { horizontal = i.value === "h" ? i.checked : !i.checked; update(); });
  });
  wordInput.addEventListener("input", update);
  if (groupSelect) groupSelect.addEventListener("change", update);
  wordInput.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { ev.preventDefault(); add(); }
  });
  addBtn.addEventListener("click", add);
  undoBtn.addEventListener("click", undo);
  if (passBtn) passBtn.addEventListener("click", pass);
  load(data.moves);
  // The text edited by hand: the grid no longer follows it until « Relire la feuille »,
  // which asks the server's parser for its moves (nothing is stored).
  if (textarea) {
    textarea.addEventListener("input", function () {
      if (noteOut) {
        noteOut.textContent = t("edited", "La feuille a été modifiée à la main : « Relire la feuille » remet ses coups sur la grille.");
      }
    });
  }
  if (reloadBtn && textarea) {
    reloadBtn.addEventListener("click", function () {
      var form = textarea.form;
      var body = new FormData();
      body.append("feuille", textarea.value);
      var token = form && form.querySelector("input[name=csrf_token]");
      if (token) body.append("csrf_token", token.value);
      fetch(reloadBtn.getAttribute("data-url"), { method: "POST", body: body, credentials: "same-origin" })
        .then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.json();
        }).then(function (json) {
          moves.length = 0;
          load(json.moves);
          if (answersBox) answersBox.checked = moves.some(function (m) { return m.answer; });
          selected = null;
          if (noteOut) noteOut.textContent = t("reread", "Grille relue : %(n)s coup(s).", { n: moves.length });
          renderMoves();
          update();
        }).catch(function () {
          if (noteOut) noteOut.textContent = t("reread_failed", "La feuille n'a pas pu être relue ; réessayez.");
        });
    });
  }
  if (answersBox) {
    answersBox.checked = moves.some(function (m) { return m.answer; });
    answersBox.addEventListener("change", function () { selected = null; renderMoves(); update(); });
  }
  root.hidden = false;
  renderMoves();
  update();
  // Exposed for the browser tests, which compare these scores with the Python engine.
  window.ArbitreBoard = { moves: moves, feuilleLines: feuilleLines };
})();
