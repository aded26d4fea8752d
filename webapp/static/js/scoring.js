/* Arbitre — the scoring rule in the browser (a port of scoring/score.py, scoring/notation.py
 * and Placement.from_notation in scoring/move.py).
 *
 * It computes the points of a placement from the premium layout and the tile values only.
 * It has no word list and never says whether a word is admitted: that is the arbitre's job
 * after the deadline. Browser tests compare it with the Python engine on the same moves.
 */
(function (global) {
  "use strict";

  var SIZE = 15;
  var ROWS = "ABCDEFGHIJKLMNO";

  // The placement errors, French by default; a page in another language gives its own
  // texts (below), or a script calls setMessages({key: text}).
  var MESSAGES = {
    ref_unreadable: "Référence illisible : « %(ref)s » (attendu par exemple H4 ou 4H).",
    no_column: "Référence « %(ref)s » : la colonne %(col)s n'existe pas (1 à 15).",
    joker_parens: "Mot « %(word)s » : un joker s'écrit entre parenthèses, par exemple RESTAI(T).",
    bad_char: "Mot « %(word)s » : caractère inattendu « %(char)s ».",
    empty_word: "Mot vide.",
    unknown_letter: "La lettre « %(letter)s » n'existe pas dans ce jeu de lettres.",
    off_board: "Un mot de %(n)s lettres en %(ref)s sort de la grille.",
    occupied: "%(word)s en %(ref)s : la case %(square)s porte déjà %(there)s, pas %(letter)s.",
    bad_cgp: "Grille CGP illisible."
  };

  function setMessages(texts) {
    Object.keys(texts || {}).forEach(function (k) {
      if (MESSAGES.hasOwnProperty(k) && texts[k]) MESSAGES[k] = texts[k];
    });
  }

  // a page gives the texts in its language: <script type="application/json"
  // id="scoring-messages"> (templates/_macros.html, scoring_messages)
  if (typeof document !== "undefined") {
    var own = document.getElementById("scoring-messages");
    if (own) {
      try { setMessages(JSON.parse(own.textContent)); } catch (e) { /* French, then */ }
    }
  }

  function msg(key, params) {
    var text = MESSAGES[key];
    Object.keys(params || {}).forEach(function (k) {
      text = text.split("%(" + k + ")s").join(String(params[k]));
    });
    return text;
  }

  function NotationError(message) {
    this.name = "NotationError";
    this.message = message;
  }
  NotationError.prototype = Object.create(Error.prototype);

  function squareName(sq) {
    return ROWS[Math.floor(sq / SIZE)] + String((sq % SIZE) + 1);
  }

  function formatRef(ref) {
    var row = ROWS[ref.row];
    var col = String(ref.col + 1);
    return ref.horizontal ? row + col : col + row;
  }

  /* Same spellings as scoring.notation.parse_ref: H4, h4, H 4, H-4, 4H, 15f, H7: */
  function parseRef(text) {
    var s = String(text).trim();
    var m = /^([A-Oa-o])\s*[-.]?\s*(\d{1,2})\s*:?$/.exec(s);
    var row, col, horizontal;
    if (m) {
      row = ROWS.indexOf(m[1].toUpperCase());
      col = parseInt(m[2], 10);
      horizontal = true;
    } else {
      m = /^(\d{1,2})\s*[-.]?\s*([A-Oa-o])\s*:?$/.exec(s);
      if (!m) {
        throw new NotationError(msg("ref_unreadable", { ref: text }));
      }
      row = ROWS.indexOf(m[2].toUpperCase());
      col = parseInt(m[1], 10);
      horizontal = false;
    }
    if (col < 1 || col > SIZE) {
      throw new NotationError(msg("no_column", { ref: text, col: col }));
    }
    return { row: row, col: col - 1, horizontal: horizontal };
  }

  function foldLetter(ch) {
    var special = { "Œ": "OE", "œ": "oe", "Æ": "AE", "æ": "ae", "ß": "ss" };
    if (special[ch]) return special[ch];
    return ch.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  }

  function isAsciiLetter(ch) {
    return /^[A-Za-z]$/.test(ch);
  }

  /* Canonical word, as scoring.notation.parse_word: uppercase letters, jokers lowercase.
   * RESTAIt, RESTAI(T), RESTAI(t) and RESTAIT0 all give RESTAIt. */
  function parseWord(text) {
    var src = Array.from(String(text).trim()).map(foldLetter).join("");
    var out = [];
    var i = 0;
    while (i < src.length) {
      var ch = src[i];
      if (ch === "(") {
        var close = src.indexOf(")", i);
        var inner = close > 0 ? src.slice(i + 1, close) : "";
        if (close < 0 || !/^[A-Za-z]+$/.test(inner)) {
          throw new NotationError(msg("joker_parens", { word: text }));
        }
        out.push(inner.toLowerCase());
        i = close + 1;
        continue;
      }
      if (isAsciiLetter(ch)) {
        if (src[i + 1] === "0") {
          out.push(ch.toLowerCase());
          i += 2;
          continue;
        }
        out.push(ch);
        i += 1;
        continue;
      }
      throw new NotationError(msg("bad_char", { word: text, char: ch }));
    }
    if (!out.length) throw new NotationError(msg("empty_word"));
    return out.join("");
  }

  function isJokerCell(cell) {
    return cell !== "" && cell === cell.toLowerCase();
  }

  function tileValue(values, cell) {
    if (cell === "?" || isJokerCell(cell)) return 0;
    var v = values[cell];
    if (v === undefined) {
      throw new NotationError(msg("unknown_letter", { letter: cell }));
    }
    return v;
  }

  /* New tiles of `word` written at `ref` on `cells` (225 strings): squares already holding
   * the same letter are kept; a different letter or running off the grid throws. */
  function placementFromNotation(cells, ref, word) {
    var r = typeof ref === "string" ? parseRef(ref) : ref;
    var w = parseWord(word);
    var start = r.row * SIZE + r.col;
    var step = r.horizontal ? 1 : SIZE;
    var end = (r.horizontal ? r.col : r.row) + w.length - 1;
    if (end >= SIZE) {
      throw new NotationError(msg("off_board", { n: w.length, ref: formatRef(r) }));
    }
    var tiles = [];
    for (var i = 0; i < w.length; i++) {
      var sq = start + i * step;
      var ch = w[i];
      var cur = cells[sq];
      if (cur) {
        if (cur.toUpperCase() !== ch.toUpperCase()) {
          throw new NotationError(msg("occupied", { word: w.toUpperCase(), ref: formatRef(r),
            square: squareName(sq), there: cur.toUpperCase(), letter: ch.toUpperCase() }));
        }
        continue;
      }
      tiles.push({ square: sq, letter: ch.toUpperCase(), joker: ch !== ch.toUpperCase() });
    }
    tiles.sort(function (a, b) { return a.square - b.square; });
    return { ref: r, word: w, tiles: tiles };
  }

  function cellOf(tile) {
    return tile.joker ? tile.letter.toLowerCase() : tile.letter;
  }

  /* Direction of a one-tile move, as Placement.direction: horizontal if it touches a
   * horizontal neighbour, else vertical. */
  function direction(cells, tiles) {
    if (tiles.length > 1) {
      return Math.floor(tiles[0].square / SIZE) === Math.floor(tiles[tiles.length - 1].square / SIZE);
    }
    var sq = tiles[0].square;
    var c = sq % SIZE;
    return (c > 0 && !!cells[sq - 1]) || (c < SIZE - 1 && !!cells[sq + 1]);
  }

  function wordThrough(cells, fresh, square, horizontal, layout, values) {
    var step = horizontal ? 1 : SIZE;
    var row = Math.floor(square / SIZE);
    var col = square % SIZE;
    var pos = horizontal ? col : row;
    var filled = function (sq) { return !!cells[sq] || fresh.hasOwnProperty(sq); };
    var start = pos;
    while (start > 0 && filled(square + (start - 1 - pos) * step)) start -= 1;
    var end = pos;
    while (end < SIZE - 1 && filled(square + (end + 1 - pos) * step)) end += 1;
    if (end === start) return null;
    var total = 0;
    var mult = 1;
    var letters = "";
    var first = square + (start - pos) * step;
    for (var i = 0; i <= end - start; i++) {
      var sq = first + i * step;
      if (fresh.hasOwnProperty(sq)) {
        letters += fresh[sq];
        total += tileValue(values, fresh[sq]) * layout.letter_mult[sq];
        mult *= layout.word_mult[sq];
      } else {
        letters += cells[sq];
        total += tileValue(values, cells[sq]);
      }
    }
    var ref = { row: Math.floor(first / SIZE), col: first % SIZE, horizontal: horizontal };
    return { ref: formatRef(ref), text: letters, points: total * mult };
  }

  /* Port of scoring.score.formed_words: main word first, then each cross-word, then the
   * bonus for a move placing `config.bingo_tiles` tiles. */
  function formedWords(cells, tiles, config, horizontal) {
    var fresh = {};
    tiles.forEach(function (t) { fresh[t.square] = cellOf(t); });
    if (!tiles.length) return { words: [], bonus: 0, total: 0 };
    var h = tiles.length > 1 ? direction(cells, tiles) : (horizontal === undefined || horizontal === null ? direction(cells, tiles) : horizontal);
    var words = [];
    var main = wordThrough(cells, fresh, tiles[0].square, h, config.layout, config.values);
    if (main) { main.main = true; words.push(main); }
    tiles.forEach(function (t) {
      var cross = wordThrough(cells, fresh, t.square, !h, config.layout, config.values);
      if (cross) { cross.main = !main && !words.length; words.push(cross); }
    });
    var bonus = tiles.length === config.bingo_tiles ? config.bingo_bonus : 0;
    var total = bonus;
    words.forEach(function (w) { total += w.points; });
    return { words: words, bonus: bonus, total: total };
  }

  /* Score of `word` at `ref` on `cells`: {placement, words, bonus, total}. Throws a
   * NotationError for a move that cannot be put on the grid at all. */
  function scoreMove(cells, ref, word, config) {
    var p = placementFromNotation(cells, ref, word);
    var b = formedWords(cells, p.tiles, config, p.ref.horizontal);
    return { placement: p, words: b.words, bonus: b.bonus, total: b.total };
  }

  /* Letters taken from the stock, written as the feuille de route does: uppercase, sorted,
   * jokers as `?` at the end. */
  function lettersUsed(tiles) {
    var plain = [];
    var jokers = "";
    tiles.forEach(function (t) { if (t.joker) jokers += "?"; else plain.push(t.letter); });
    plain.sort();
    return plain.join("") + jokers;
  }

  function applyTiles(cells, tiles) {
    tiles.forEach(function (t) { cells[t.square] = cellOf(t); });
  }

  /* Cells from a CGP board string (first field only), like Board.from_cgp. */
  function cellsFromCgp(text) {
    var field = String(text || "").trim().split(/\s+/)[0] || "";
    var cells = [];
    if (!field) {
      for (var k = 0; k < SIZE * SIZE; k++) cells.push("");
      return cells;
    }
    field.split("/").forEach(function (row) {
      var tokens = row.match(/\d+|[A-Za-z]/g) || [];
      tokens.forEach(function (tok) {
        if (/^\d+$/.test(tok)) {
          for (var n = 0; n < parseInt(tok, 10); n++) cells.push("");
        } else {
          cells.push(tok);
        }
      });
    });
    if (cells.length !== SIZE * SIZE) throw new NotationError(msg("bad_cgp"));
    return cells;
  }

  var api = {
    SIZE: SIZE,
    ROWS: ROWS,
    NotationError: NotationError,
    squareName: squareName,
    formatRef: formatRef,
    parseRef: parseRef,
    parseWord: parseWord,
    placementFromNotation: placementFromNotation,
    formedWords: formedWords,
    scoreMove: scoreMove,
    lettersUsed: lettersUsed,
    applyTiles: applyTiles,
    cellsFromCgp: cellsFromCgp,
    tileValue: tileValue,
    setMessages: setMessages
  };
  global.ArbitreScoring = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
