/* scoring._movegen: the compiled move generator.
 *
 * Same algorithm, same inputs and same outputs as scoring.movegen.py_generate (read that
 * module's docstring first): Appel-Jacobson anchors over the flat DAWG of scoring.dawg, a
 * horizontal pass on the grid and a vertical pass on its transpose. On top of it, MODE_TOP
 * visits anchors in decreasing order of an upper bound ("shadow" score) and stops as soon as
 * no remaining anchor can reach the n-th best score found.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define SIZE 15
#define NSQ (SIZE * SIZE)
#define LETTER_MASK 0x1Fu
#define LAST 0x20u
#define ACCEPTS 0x40u
#define CHILD_SHIFT 8
#define JOKER_FLAG 32
#define ALL_LETTERS ((1u << 26) - 1u)
#define MODE_ALL 0
#define MODE_COUNT 1
#define MODE_TOP 2

typedef struct {
    int pass; /* 0 horizontal, 1 vertical */
    int row;
    int col;
    int bound;
} Anchor;

typedef struct {
    const uint32_t *edges;
    Py_ssize_t nedges;
    uint32_t root;
    int values[27];
    int rack[27];
    int rack_len;
    int first_min_tiles, max_tiles, bingo_tiles, bingo_bonus;
    int empty_board;
    int mode, n;
    /* per pass (index 0 horizontal, 1 vertical = transposed) */
    uint8_t cells[2][NSQ], lm[2][NSQ], wm[2][NSQ];
    uint32_t cross_mask[2][NSQ];
    int cross_score[2][NSQ];
    int center[2];
    /* current anchor */
    int pass, row, anchor, tiles, wlen;
    uint8_t word[SIZE + 1];
    uint8_t isnew[SIZE + 1];
    /* results */
    PyObject *list;
    long placements, scrabbles;
    int top;
    int *best; /* the n best scores so far, decreasing */
    int nbest;
    int failed;
} Gen;

/* Index of the edge of `node` carrying `code`, or -1. */
static Py_ssize_t find_edge(const uint32_t *edges, Py_ssize_t nedges, uint32_t node,
                            uint32_t code) {
    if (node == 0) return -1;
    for (Py_ssize_t i = node; i < nedges; i++) {
        uint32_t e = edges[i];
        uint32_t c = e & LETTER_MASK;
        if (c == code) return i;
        if (c > code || (e & LAST)) return -1;
    }
    return -1;
}

static Py_ssize_t child_edge(const Gen *g, uint32_t node, uint32_t code) {
    return find_edge(g->edges, g->nedges, node, code);
}

static int cutoff(const Gen *g) { return g->nbest >= g->n ? g->best[g->n - 1] : INT32_MIN; }

static void note_best(Gen *g, int score) {
    /* keep the n highest scores (with repeats: n placements) */
    if (g->nbest >= g->n && score <= g->best[g->n - 1]) return;
    int i = g->nbest < g->n ? g->nbest++ : g->n - 1;
    while (i > 0 && g->best[i - 1] < score) {
        g->best[i] = g->best[i - 1];
        i--;
    }
    g->best[i] = score;
}

static void record(Gen *g, int start, int end) {
    if (end - start < 2) return;
    if (g->empty_board && g->tiles < g->first_min_tiles) return;
    const int p = g->pass;
    const int base = g->row * SIZE;
    int main_sum = 0, mult = 1, cross = 0, crosses = 0;
    long mask = 0;
    for (int i = 0; i < g->wlen; i++) {
        int t = g->word[i];
        int v = (t & JOKER_FLAG) ? 0 : g->values[t];
        if (g->isnew[i]) {
            int sq = base + start + i;
            mask |= 1L << i;
            main_sum += v * g->lm[p][sq];
            mult *= g->wm[p][sq];
            if (g->cross_score[p][sq] >= 0) {
                crosses = 1;
                cross += (g->cross_score[p][sq] + v * g->lm[p][sq]) * g->wm[p][sq];
            }
        } else {
            main_sum += v;
        }
    }
    if (p == 1 && g->tiles == 1 && crosses) return; /* the horizontal pass has it */
    int score = main_sum * mult + cross + (g->tiles == g->bingo_tiles ? g->bingo_bonus : 0);
    if (g->mode == MODE_COUNT) {
        g->placements++;
        if (g->tiles == g->bingo_tiles) g->scrabbles++;
        if (score > g->top) g->top = score;
        return;
    }
    if (g->mode == MODE_TOP) {
        if (score < cutoff(g)) return;
        note_best(g, score);
    }
    char text[SIZE + 1];
    for (int i = 0; i < g->wlen; i++) {
        int t = g->word[i];
        text[i] = (t & JOKER_FLAG) ? (char)(96 + (t & LETTER_MASK)) : (char)(64 + t);
    }
    int start_sq = p == 0 ? base + start : start * SIZE + g->row;
    PyObject *tup = PyTuple_New(5);
    if (tup == NULL) {
        g->failed = 1;
        return;
    }
    PyObject *a = PyLong_FromLong(score);
    PyObject *b = PyBool_FromLong(p == 0);
    PyObject *c = PyLong_FromLong(start_sq);
    PyObject *d = PyUnicode_FromStringAndSize(text, g->wlen);
    PyObject *e = PyLong_FromLong(mask);
    PyTuple_SET_ITEM(tup, 0, a);
    PyTuple_SET_ITEM(tup, 1, b);
    PyTuple_SET_ITEM(tup, 2, c);
    PyTuple_SET_ITEM(tup, 3, d);
    PyTuple_SET_ITEM(tup, 4, e);
    if (!a || !c || !d || !e || PyList_Append(g->list, tup) < 0) g->failed = 1;
    Py_DECREF(tup);
}

static void extend(Gen *g, uint32_t node, int col, int accepted, int start) {
    if (g->failed) return;
    if (col >= SIZE) {
        if (accepted && col > g->anchor) record(g, start, col);
        return;
    }
    const int p = g->pass;
    const int sq = g->row * SIZE + col;
    const int t = g->cells[p][sq];
    if (t) {
        Py_ssize_t i = child_edge(g, node, (uint32_t)t & LETTER_MASK);
        if (i >= 0) {
            uint32_t e = g->edges[i];
            g->word[g->wlen] = (uint8_t)t;
            g->isnew[g->wlen++] = 0;
            extend(g, e >> CHILD_SHIFT, col + 1, (e & ACCEPTS) != 0, start);
            g->wlen--;
        }
        return;
    }
    if (accepted && col > g->anchor) record(g, start, col);
    if (g->tiles >= g->max_tiles || node == 0) return;
    const uint32_t allowed = g->cross_mask[p][sq];
    for (Py_ssize_t i = node; i < g->nedges; i++) {
        uint32_t e = g->edges[i];
        uint32_t code = e & LETTER_MASK;
        if ((allowed >> (code - 1)) & 1u) {
            for (int joker = 0; joker < 2; joker++) {
                int slot = joker ? 0 : (int)code;
                if (!g->rack[slot]) continue;
                g->rack[slot]--;
                g->tiles++;
                g->word[g->wlen] = (uint8_t)(joker ? (code | JOKER_FLAG) : code);
                g->isnew[g->wlen++] = 1;
                extend(g, e >> CHILD_SHIFT, col + 1, (e & ACCEPTS) != 0, start);
                g->wlen--;
                g->tiles--;
                g->rack[slot]++;
            }
        }
        if (e & LAST) break;
    }
}

static void left(Gen *g, uint32_t node, int limit) {
    extend(g, node, g->anchor, 0, g->anchor - g->wlen);
    if (limit == 0 || g->tiles >= g->max_tiles || node == 0 || g->failed) return;
    for (Py_ssize_t i = node; i < g->nedges; i++) {
        uint32_t e = g->edges[i];
        uint32_t code = e & LETTER_MASK;
        for (int joker = 0; joker < 2; joker++) {
            int slot = joker ? 0 : (int)code;
            if (!g->rack[slot]) continue;
            g->rack[slot]--;
            g->tiles++;
            g->word[g->wlen] = (uint8_t)(joker ? (code | JOKER_FLAG) : code);
            g->isnew[g->wlen++] = 1;
            left(g, e >> CHILD_SHIFT, limit - 1);
            g->wlen--;
            g->tiles--;
            g->rack[slot]++;
        }
        if (e & LAST) break;
    }
}

static void cross_sets(Gen *g, int p) {
    const uint8_t *cl = g->cells[p];
    for (int sq = 0; sq < NSQ; sq++) {
        g->cross_mask[p][sq] = ALL_LETTERS;
        g->cross_score[p][sq] = -1;
        if (cl[sq]) continue;
        int top = sq, bottom = sq;
        while (top >= SIZE && cl[top - SIZE]) top -= SIZE;
        while (bottom + SIZE < NSQ && cl[bottom + SIZE]) bottom += SIZE;
        if (top == sq && bottom == sq) continue;
        int fixed = 0;
        for (int s = top; s <= bottom; s += SIZE)
            if (cl[s] && !(cl[s] & JOKER_FLAG)) fixed += g->values[cl[s]];
        g->cross_score[p][sq] = fixed;
        uint32_t mask = 0;
        uint32_t node = g->root;
        int ok = 1;
        for (int s = top; s < sq; s += SIZE) {
            Py_ssize_t i = child_edge(g, node, cl[s] & LETTER_MASK);
            if (i < 0) {
                ok = 0;
                break;
            }
            node = g->edges[i] >> CHILD_SHIFT;
        }
        if (ok && node) {
            for (Py_ssize_t i = node; i < g->nedges; i++) {
                uint32_t e = g->edges[i];
                uint32_t last_edge = e;
                uint32_t sub = e >> CHILD_SHIFT;
                for (int s = sq + SIZE; s <= bottom; s += SIZE) {
                    Py_ssize_t j = child_edge(g, sub, cl[s] & LETTER_MASK);
                    if (j < 0) {
                        last_edge = 0;
                        break;
                    }
                    last_edge = g->edges[j];
                    sub = last_edge >> CHILD_SHIFT;
                }
                if (last_edge & ACCEPTS) mask |= 1u << ((e & LETTER_MASK) - 1);
                if (e & LAST) break;
            }
        }
        g->cross_mask[p][sq] = mask;
    }
}

static int is_anchor(const Gen *g, int p, int sq) {
    const uint8_t *cl = g->cells[p];
    if (cl[sq]) return 0;
    if (g->empty_board) return sq == g->center[p];
    int r = sq / SIZE, c = sq % SIZE;
    return (c > 0 && cl[sq - 1]) || (c < SIZE - 1 && cl[sq + 1]) || (r > 0 && cl[sq - SIZE]) ||
           (r < SIZE - 1 && cl[sq + SIZE]);
}

/* Free squares before the anchor available to a left part (0 when a tile is just before). */
static int left_limit(const Gen *g, int p, int row, int a, const uint8_t *anchors) {
    const uint8_t *cl = g->cells[p];
    int limit = 0;
    for (int c = a - 1; c >= 0 && !cl[row * SIZE + c] && !anchors[c]; c--) limit++;
    return limit;
}

static void run_anchor(Gen *g, int p, int row, int a, int limit) {
    const uint8_t *cl = g->cells[p];
    const int base = row * SIZE;
    g->pass = p;
    g->row = row;
    g->anchor = a;
    g->tiles = 0;
    g->wlen = 0;
    if (a > 0 && cl[base + a - 1]) {
        int s = a - 1;
        while (s > 0 && cl[base + s - 1]) s--;
        uint32_t node = g->root;
        for (int c = s; c < a; c++) {
            Py_ssize_t i = child_edge(g, node, cl[base + c] & LETTER_MASK);
            if (i < 0) return;
            g->word[g->wlen] = cl[base + c];
            g->isnew[g->wlen++] = 0;
            node = g->edges[i] >> CHILD_SHIFT;
        }
        extend(g, node, a, 0, s);
    } else {
        left(g, g->root, limit);
    }
}

static void sort_desc(int *v, int n) {
    for (int i = 1; i < n; i++) {
        int x = v[i], j = i;
        while (j > 0 && v[j - 1] < x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Upper bound of any placement generated from this anchor: for every span of squares it
 * could cover (left part over `limit` free squares, then right through the grid), the rack's
 * highest values on the squares' highest effective multipliers, plus everything fixed. Cross
 * checks are only used to stop at squares no rack tile can fill. */
static int shadow_bound(const Gen *g, int p, int row, int a, int limit, const int *rack_values,
                        uint32_t rack_letters) {
    const uint8_t *cl = g->cells[p];
    const uint8_t *lm = g->lm[p];
    const uint8_t *wm = g->wm[p];
    const int base = row * SIZE;
    int maxt = g->rack_len < g->max_tiles ? g->rack_len : g->max_tiles;
    int fixed_left = 0;
    if (a > 0 && cl[base + a - 1]) {
        for (int c = a - 1; c >= 0 && cl[base + c]; c--)
            if (!(cl[base + c] & JOKER_FLAG)) fixed_left += g->values[cl[base + c]];
        limit = 0;
    }
    if (limit > maxt - 1) limit = maxt - 1;
    int best = INT32_MIN;
    for (int L = 0; L <= limit; L++) {
        int lms[SIZE], wms[SIZE], crossw[SIZE];
        int nt = 0, wmul = 1, main_fixed = fixed_left, cross_fixed = 0;
        for (int c = a - L; c < a; c++) {
            lms[nt] = lm[base + c];
            wms[nt] = wm[base + c];
            crossw[nt] = 0;
            wmul *= wm[base + c];
            nt++;
        }
        for (int c = a; c < SIZE; c++) {
            int sq = base + c;
            if (cl[sq]) {
                if (!(cl[sq] & JOKER_FLAG)) main_fixed += g->values[cl[sq]];
            } else {
                if (nt >= maxt || !(g->cross_mask[p][sq] & rack_letters)) break;
                lms[nt] = lm[sq];
                wms[nt] = wm[sq];
                crossw[nt] = g->cross_score[p][sq] >= 0;
                if (crossw[nt]) cross_fixed += g->cross_score[p][sq] * wm[sq];
                wmul *= wm[sq];
                nt++;
            }
            if (c + 1 < SIZE && cl[sq + 1]) continue; /* the word runs on */
            int eff[SIZE];
            for (int i = 0; i < nt; i++) eff[i] = lms[i] * wmul + (crossw[i] ? lms[i] * wms[i] : 0);
            sort_desc(eff, nt);
            int total = main_fixed * wmul + cross_fixed;
            for (int i = 0; i < nt; i++) total += rack_values[i] * eff[i];
            if (nt == g->bingo_tiles) total += g->bingo_bonus;
            if (total > best) best = total;
        }
    }
    return best;
}

static int cmp_anchor(const void *x, const void *y) {
    const Anchor *a = x, *b = y;
    if (a->bound != b->bound) return a->bound > b->bound ? -1 : 1;
    if (a->pass != b->pass) return a->pass - b->pass;
    if (a->row != b->row) return a->row - b->row;
    return a->col - b->col;
}

static int read_bytes(Py_buffer *buf, Py_ssize_t need, const char *what) {
    if (buf->len != need) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes expected, got %zd", what, need, buf->len);
        return 0;
    }
    return 1;
}

static PyObject *generate(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer edges_buf, cells_buf, rack_buf, values_buf, lm_buf, wm_buf;
    int center, first_min, first_h, max_tiles, bingo_tiles, bingo_bonus, mode, n;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*iipiiiii", &edges_buf, &cells_buf, &rack_buf,
                          &values_buf, &lm_buf, &wm_buf, &center, &first_min, &first_h,
                          &max_tiles, &bingo_tiles, &bingo_bonus, &mode, &n))
        return NULL;
    PyObject *result = NULL;
    Gen *g = PyMem_Calloc(1, sizeof(Gen));
    Anchor *anchors = NULL;
    if (g == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (edges_buf.len < 4 || edges_buf.len % 4 || !read_bytes(&cells_buf, NSQ, "cells") ||
        !read_bytes(&rack_buf, 27, "rack") || !read_bytes(&values_buf, 27, "values") ||
        !read_bytes(&lm_buf, NSQ, "letter_mult") || !read_bytes(&wm_buf, NSQ, "word_mult")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "edges: bad DAWG buffer");
        goto done;
    }
    if (mode < MODE_ALL || mode > MODE_TOP || (mode == MODE_TOP && n < 1) || center < 0 ||
        center >= NSQ) {
        PyErr_SetString(PyExc_ValueError, "bad mode, n or centre");
        goto done;
    }
    g->edges = (const uint32_t *)edges_buf.buf;
    g->nedges = edges_buf.len / 4;
    g->root = g->edges[0] >> CHILD_SHIFT;
    if (g->root >= (uint32_t)g->nedges) {
        PyErr_SetString(PyExc_ValueError, "edges: bad DAWG root");
        goto done;
    }
    const uint8_t *cells = cells_buf.buf, *lm = lm_buf.buf, *wm = wm_buf.buf;
    const uint8_t *rack = rack_buf.buf, *values = values_buf.buf;
    for (int i = 0; i < 27; i++) {
        g->rack[i] = rack[i];
        g->values[i] = values[i];
        g->rack_len += rack[i];
    }
    g->values[0] = 0;
    g->first_min_tiles = first_min;
    g->max_tiles = max_tiles;
    g->bingo_tiles = bingo_tiles;
    g->bingo_bonus = bingo_bonus;
    g->mode = mode;
    g->n = n;
    g->top = INT32_MIN;
    g->empty_board = 1;
    for (int sq = 0; sq < NSQ; sq++) {
        int t = cells[sq];
        int code = t & ~JOKER_FLAG;
        if (t && (code < 1 || code > 26)) {
            PyErr_SetString(PyExc_ValueError, "cells: bad tile code");
            goto done;
        }
        if (t) g->empty_board = 0;
        int r = sq / SIZE, c = sq % SIZE, tsq = c * SIZE + r;
        g->cells[0][sq] = (uint8_t)t;
        g->lm[0][sq] = lm[sq];
        g->wm[0][sq] = wm[sq];
        g->cells[1][tsq] = (uint8_t)t;
        g->lm[1][tsq] = lm[sq];
        g->wm[1][tsq] = wm[sq];
    }
    g->center[0] = center;
    g->center[1] = (center % SIZE) * SIZE + center / SIZE;
    if (mode != MODE_COUNT) {
        g->list = PyList_New(0);
        if (g->list == NULL) goto done;
    }
    if (mode == MODE_TOP) {
        g->best = PyMem_Calloc((size_t)n, sizeof(int));
        if (g->best == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    int npasses = (g->empty_board && first_h) ? 1 : 2;
    anchors = PyMem_Calloc(2 * NSQ, sizeof(Anchor));
    if (anchors == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int nanchors = 0;
    int rack_values[SIZE + 12];
    int nv = 0;
    uint32_t rack_letters = g->rack[0] ? ALL_LETTERS : 0;
    for (int i = 0; i < 27; i++)
        for (int k = 0; k < g->rack[i] && nv < SIZE; k++) rack_values[nv++] = g->values[i];
    for (int i = 1; i < 27; i++)
        if (g->rack[i]) rack_letters |= 1u << (i - 1);
    sort_desc(rack_values, nv);
    for (int i = nv; i < SIZE + 12; i++) rack_values[i] = 0;

    for (int p = 0; p < npasses; p++) {
        cross_sets(g, p);
        for (int row = 0; row < SIZE; row++) {
            uint8_t is_a[SIZE];
            for (int c = 0; c < SIZE; c++) is_a[c] = (uint8_t)is_anchor(g, p, row * SIZE + c);
            for (int c = 0; c < SIZE; c++) {
                if (!is_a[c]) continue;
                int limit = left_limit(g, p, row, c, is_a);
                if (mode == MODE_TOP) {
                    Anchor *an = &anchors[nanchors++];
                    an->pass = p;
                    an->row = row;
                    an->col = c;
                    an->bound = shadow_bound(g, p, row, c, limit, rack_values, rack_letters);
                } else {
                    run_anchor(g, p, row, c, limit);
                    if (g->failed) goto done;
                }
            }
        }
    }
    if (mode == MODE_TOP) {
        qsort(anchors, (size_t)nanchors, sizeof(Anchor), cmp_anchor);
        for (int k = 0; k < nanchors; k++) {
            Anchor *an = &anchors[k];
            if (an->bound < cutoff(g)) break;
            uint8_t is_a[SIZE];
            for (int c = 0; c < SIZE; c++)
                is_a[c] = (uint8_t)is_anchor(g, an->pass, an->row * SIZE + c);
            run_anchor(g, an->pass, an->row, an->col, left_limit(g, an->pass, an->row, an->col, is_a));
            if (g->failed) goto done;
        }
        int cut = cutoff(g);
        if (g->nbest < g->n && g->nbest > 0) cut = g->best[g->nbest - 1];
        PyObject *kept = PyList_New(0);
        if (kept == NULL) goto done;
        Py_ssize_t len = PyList_GET_SIZE(g->list);
        for (Py_ssize_t i = 0; i < len; i++) {
            PyObject *tup = PyList_GET_ITEM(g->list, i);
            long score = PyLong_AsLong(PyTuple_GET_ITEM(tup, 0));
            if (score >= cut && PyList_Append(kept, tup) < 0) {
                Py_DECREF(kept);
                goto done;
            }
        }
        result = kept;
    } else if (mode == MODE_COUNT) {
        result = Py_BuildValue("(lli)", g->placements, g->scrabbles, g->placements ? g->top : -1);
    } else {
        result = g->list;
        g->list = NULL;
    }
done:
    if (g != NULL) {
        if (g->failed && !PyErr_Occurred()) PyErr_NoMemory();
        if (g->failed) Py_CLEAR(result);
        Py_XDECREF(g->list);
        PyMem_Free(g->best);
        PyMem_Free(g);
    }
    PyMem_Free(anchors);
    PyBuffer_Release(&edges_buf);
    PyBuffer_Release(&cells_buf);
    PyBuffer_Release(&rack_buf);
    PyBuffer_Release(&values_buf);
    PyBuffer_Release(&lm_buf);
    PyBuffer_Release(&wm_buf);
    return result;
}

/* contains(edges, word): is `word` (uppercase A-Z) a word of the DAWG? */
static PyObject *contains(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "contains(edges, word) takes 2 arguments");
        return NULL;
    }
    PyObject *word = args[1];
    if (!PyUnicode_Check(word) || !PyUnicode_IS_ASCII(word)) Py_RETURN_FALSE;
    Py_ssize_t len = PyUnicode_GET_LENGTH(word);
    if (len == 0) Py_RETURN_FALSE;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(word);
    Py_buffer buf;
    if (PyObject_GetBuffer(args[0], &buf, PyBUF_SIMPLE) < 0) return NULL;
    if (buf.len < 4 || buf.len % 4) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "edges: bad DAWG buffer");
        return NULL;
    }
    const uint32_t *edges = (const uint32_t *)buf.buf;
    const Py_ssize_t nedges = buf.len / 4;
    uint32_t node = edges[0] >> CHILD_SHIFT;
    uint32_t last = 0;
    for (Py_ssize_t k = 0; k < len; k++) {
        if (s[k] < 'A' || s[k] > 'Z') {
            last = 0;
            break;
        }
        Py_ssize_t i = find_edge(edges, nedges, node, (uint32_t)(s[k] - 64));
        if (i < 0) {
            last = 0;
            break;
        }
        last = edges[i];
        node = last >> CHILD_SHIFT;
    }
    PyBuffer_Release(&buf);
    return PyBool_FromLong((last & ACCEPTS) != 0);
}

static PyMethodDef methods[] = {
    {"contains", (PyCFunction)(void (*)(void))contains, METH_FASTCALL,
     "contains(edges, word): membership of an uppercase word in the DAWG."},
    {"generate", generate, METH_VARARGS,
     "generate(edges, cells, rack, values, letter_mult, word_mult, center, first_min_tiles, "
     "first_horizontal, max_tiles, bingo_tiles, bingo_bonus, mode, n): see "
     "scoring.movegen.py_generate."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "scoring._movegen", "Compiled move generator (see scoring.movegen).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__movegen(void) { return PyModule_Create(&module); }
