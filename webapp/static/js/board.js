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
 *    stock: {letter: count} | null, accumulate: bool, header: [lines]}
 */
(function () {
  "use strict";
  var S = window.ArbitreScoring;
  var root = document.getElementById("interactive-board");
  var dataEl = document.getElementById("board-data");
  if (!root || !dataEl || !S) return;
  var data = JSON.parse(dataEl.textContent);
  var config = {
    layout: data.layout,
    values: data.values,
    bingo_tiles: data.bingo_tiles,
    bingo_bonus: data.bingo_bonus
  };
  var initial = S.cellsFromCgp(data.cgp);
  var accumulate = data.accumulate !== false;
  var moves = []; // {ref, word, tiles, total, letters}
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
  var stockOut = document.getElementById("ib-stock");
  var textarea = document.getElementById(root.getAttribute("data-target") || "feuille-text");

  var PREMIUM = { "1,3": ["mt", "MT"], "1,2": ["md", "MD"], "3,1": ["lt", "LT"], "2,1": ["ld", "LD"] };

  function currentCells() {
    var cells = initial.slice();
    if (accumulate) moves.forEach(function (m) { S.applyTiles(cells, m.tiles); });
    return cells;
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
        return { error: "Ce mot est déjà entièrement sur la grille : posez au moins une lettre." };
      }
      return res;
    } catch (e) {
      if (e instanceof S.NotationError) return { error: e.message };
      throw e;
    }
  }

  function render(p) {
    var cells = currentCells();
    var fresh = {};
    if (p && !p.error) p.placement.tiles.forEach(function (t) { fresh[t.square] = t; });
    var lastMove = moves.length ? moves[moves.length - 1] : null;
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
      preview.textContent = "Cliquez sur la case de la première lettre.";
    } else if (!p) {
      preview.textContent = "Tapez le mot (joker en minuscule ou entre parenthèses : RESTAI(T)).";
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
        li.textContent = "Prime de " + p.placement.tiles.length + " lettres : " + p.bonus;
        ul.appendChild(li);
      }
      preview.appendChild(ul);
      var tot = document.createElement("p");
      tot.className = "ib-total";
      tot.textContent = "Ce coup : " + p.total + " points — lettres " + S.lettersUsed(p.placement.tiles);
      preview.appendChild(tot);
    }
    renderStock();
  }

  function cumulAt(i) {
    var c = 0;
    for (var k = 0; k <= i; k++) c += moves[k].total;
    return c;
  }

  function feuilleLines() {
    var lines = (data.header || []).slice();
    moves.forEach(function (m, i) {
      var fields = [i + 1];
      if (m.group) fields.push("G" + m.group);
      lines.push(fields.concat([m.letters, S.formatRef(m.ref), m.word, m.total, cumulAt(i)]).join(" "));
    });
    return lines;
  }

  function renderMoves(writeText) {
    movesBody.innerHTML = "";
    moves.forEach(function (m, i) {
      var tr = document.createElement("tr");
      var cells = [i + 1];
      if (hasGroups) cells.push(m.group ? "G" + m.group : "");
      cells = cells.concat([m.letters, S.formatRef(m.ref), m.word, m.total, cumulAt(i)]);
      cells.forEach(function (v, k) {
        var td = document.createElement("td");
        td.textContent = String(v);
        if (k >= cells.length - 2) td.className = "num";
        tr.appendChild(td);
      });
      movesBody.appendChild(tr);
    });
    undoBtn.disabled = !moves.length;
    // The board owns the text area only once it has been used: a pasted feuille stays.
    if (textarea && writeText) textarea.value = feuilleLines().join("\n") + "\n";
  }

  function renderStock() {
    if (!stockOut || !data.stock) return;
    var left = {};
    Object.keys(data.stock).forEach(function (k) { left[k] = data.stock[k]; });
    var p = pending();
    var used = moves.map(function (m) { return m.letters; });
    if (p && !p.error) used.push(S.lettersUsed(p.placement.tiles));
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

  function add() {
    var p = pending();
    if (!p || p.error) return;
    moves.push({
      ref: p.placement.ref,
      word: p.placement.word,
      tiles: p.placement.tiles,
      total: p.total,
      letters: S.lettersUsed(p.placement.tiles),
      group: groupSelect && groupSelect.value ? parseInt(groupSelect.value, 10) : null
    });
    wordInput.value = "";
    selected = null;
    renderMoves(true);
    update();
  }

  function undo() {
    moves.pop();
    renderMoves(true);
    update();
  }

  if (groupSelect) {
    (data.groups || []).forEach(function (letters, i) {
      var o = document.createElement("option");
      o.value = String(i + 1);
      o.textContent = (i + 1) + " : " + letters;
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
  wordInput.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { ev.preventDefault(); add(); }
  });
  addBtn.addEventListener("click", add);
  undoBtn.addEventListener("click", undo);
  root.hidden = false;
  renderMoves(false);
  update();
  // Exposed for the browser tests, which compare these scores with the Python engine.
  window.ArbitreBoard = { moves: moves, feuilleLines: feuilleLines };
})();
