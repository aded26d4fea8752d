/* scoring._movegen: the compiled move generator.
 *
 * Same inputs and same outputs as scoring.movegen.py_generate (read that module's docstring
 * first): the same anchors (each placement found once, from the leftmost anchor it covers),
 * a horizontal pass on the grid and a vertical pass on its transpose, the cross-sets read
 * from the flat DAWG of scoring.dawg. Where the reference builds each left part on the DAWG
 * before it knows whether the anchor square can take a tile, the core grows every placement
 * from its anchor outwards over a GADDAG built from the same words (see "the GADDAG" below),
 * with the score summed on the way. On top of it, MODE_TOP visits anchors in decreasing
 * order of an upper bound ("shadow" score) and stops as soon as no remaining anchor can
 * reach the n-th best score found; MODE_ANALYSE counts everything and keeps the moves
 * reaching the n-th best score (the CLI's one search); with MOVE_OBJECTS the moves are made
 * as scoring.movegen.GeneratedMove objects directly.
 *
 * followups() is the two-move sequence search (the Duplicate Tactique top): for each first
 * move of a list, the best score of a second rack on the grid it leaves, by branch and
 * bound (see its comment for the proof that the cuts are exact).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
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
#define MODE_ANALYSE 3 /* MODE_COUNT's counts and MODE_TOP's moves, in one pass */
#define MODE_BEST 4 /* followups(): the best score only, no move objects */
#define MAXTOPS 32

/* ---- the move objects ---------------------------------------------------------------------
 * MoveBase: the fields of scoring.movegen.GeneratedMove (score, horizontal, start, word,
 * new_mask, and the cache of its placement), which subclasses it with the behaviour. With
 * MOVE_OBJECTS in the mode, generate() makes instances of the class given to
 * set_move_class() directly: no tuple, no Python __init__ per move, and (no reference
 * cycle possible: a word and a placement) not tracked by the garbage collector. */
#define MOVE_OBJECTS 16

typedef struct {
    PyObject_HEAD
    int score;
    PyObject *score_obj; /* the same as an int object: a slot Python reads fast */
    char horizontal;
    int start;
    PyObject *word; /* NULL until first read: made from text */
    long new_mask;
    PyObject *placement;
    uint8_t len;
    char text[SIZE];
} MoveObject;

static PyTypeObject *move_class; /* the subclass to create, or NULL: tuples */

/* Freed instances of move_class kept for the next moves (a list of thousands of moves is
 * made and dropped at once): no allocator call for most moves. */
#define FREE_MOVES 4096
static MoveObject *free_moves[FREE_MOVES];
static int nfree_moves;

/* (a subclass's instance: subtype_dealloc drops the reference to the heap type) */
static void move_dealloc(MoveObject *self) {
    Py_XDECREF(self->score_obj);
    Py_XDECREF(self->word);
    Py_XDECREF(self->placement);
    if (Py_TYPE(self) == move_class && nfree_moves < FREE_MOVES) {
        free_moves[nfree_moves++] = self;
        return;
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int move_init(MoveObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"score", "horizontal", "start", "word", "new_mask", NULL};
    int score, horizontal, start;
    PyObject *word;
    long mask;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ipiUl", names, &score, &horizontal, &start,
                                     &word, &mask))
        return -1;
    PyObject *so = PyLong_FromLong(score);
    if (so == NULL) return -1;
    self->score = score;
    Py_XSETREF(self->score_obj, so);
    self->horizontal = (char)(horizontal != 0);
    self->start = start;
    Py_INCREF(word);
    Py_XSETREF(self->word, word);
    self->new_mask = mask;
    Py_CLEAR(self->placement);
    return 0;
}

static PyMemberDef move_members[] = {
    {"score", T_OBJECT_EX, offsetof(MoveObject, score_obj), READONLY, NULL},
    {"horizontal", T_BOOL, offsetof(MoveObject, horizontal), READONLY, NULL},
    {"start", T_INT, offsetof(MoveObject, start), READONLY, NULL},
    {"new_mask", T_LONG, offsetof(MoveObject, new_mask), READONLY, NULL},
    {"_placement", T_OBJECT, offsetof(MoveObject, placement), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* The word is made on first read: listing thousands of moves should not pay for strings
 * nobody looks at. */
static PyObject *move_word(MoveObject *self, void *closure) {
    (void)closure;
    if (self->word == NULL) {
        self->word = PyUnicode_New(self->len, 127);
        if (self->word == NULL) return NULL;
        memcpy(PyUnicode_DATA(self->word), self->text, self->len);
    }
    Py_INCREF(self->word);
    return self->word;
}

static PyGetSetDef move_getset[] = {
    {"word", (getter)move_word, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject MoveType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scoring._movegen.MoveBase",
    .tp_basicsize = sizeof(MoveObject),
    .tp_dealloc = (destructor)move_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The fields of a generated move (see scoring.movegen.GeneratedMove).",
    .tp_members = move_members,
    .tp_getset = move_getset,
    .tp_init = (initproc)move_init,
    .tp_new = PyType_GenericNew,
};

/* set_move_class(cls): the MoveBase subclass generate() makes with MOVE_OBJECTS. */
static PyObject *set_move_class(PyObject *self, PyObject *cls) {
    (void)self;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &MoveType)) {
        PyErr_SetString(PyExc_TypeError, "a subclass of MoveBase expected");
        return NULL;
    }
    PyTypeObject *t = (PyTypeObject *)cls;
    if (t == move_class) Py_RETURN_NONE;
    /* A subclass adding nothing but behaviour (__slots__ = (): no __dict__, no weak
     * references, no field, no finaliser) holds no reference cycle, yet the class statement
     * makes it a garbage-collected type: every move then pays for the collector's header,
     * its bookkeeping and the collections its allocations trigger. Such a class is made an
     * ordinary type here, before any of its instances exists (set_move_class() is called
     * once, just after the class statement). */
    if (t->tp_base == &MoveType && t->tp_basicsize == MoveType.tp_basicsize &&
        t->tp_itemsize == 0 && t->tp_dictoffset == 0 && t->tp_weaklistoffset == 0 &&
        t->tp_finalize == NULL && t->tp_del == NULL && (t->tp_flags & Py_TPFLAGS_HEAPTYPE) &&
        (t->tp_flags & Py_TPFLAGS_HAVE_GC) && t->tp_free == PyObject_GC_Del) {
        t->tp_flags &= ~Py_TPFLAGS_HAVE_GC;
        t->tp_free = PyObject_Free;
        PyType_Modified(t);
    }
    /* the kept instances are of the previous class */
    while (nfree_moves > 0) {
        MoveObject *m = free_moves[--nfree_moves];
        Py_TYPE(m)->tp_free(m);
    }
    Py_INCREF(cls);
    Py_XSETREF(move_class, t);
    Py_RETURN_NONE;
}

static PyObject *new_move(PyTypeObject *cls, int score, int horizontal, int start,
                          const char *text, int len, long mask) {
    MoveObject *m;
    if (cls == move_class && nfree_moves > 0) {
        m = free_moves[--nfree_moves];
        PyObject_Init((PyObject *)m, cls); /* a new reference to it and to its class */
        m->word = NULL;
        m->placement = NULL;
    } else {
        m = (MoveObject *)cls->tp_alloc(cls, 0);
        if (m == NULL) return NULL;
        if (PyType_IS_GC(cls)) PyObject_GC_UnTrack(m); /* it can hold no cycle */
    }
    m->len = (uint8_t)len;
    memcpy(m->text, text, (size_t)len);
    m->score = score;
    m->score_obj = PyLong_FromLong(score);
    if (m->score_obj == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    m->horizontal = (char)horizontal;
    m->start = start;
    m->new_mask = mask;
    return (PyObject *)m;
}

/* ---- the compact list of moves (MODE_ALL with MOVE_LIST) ----------------------------------
 * MoveList: every placement of a generate() call as packed records (40 bytes each, written
 * by record() as it finds them), a read-only sequence whose items are made on access as
 * instances of the move class (len(), indexing, slices — a list —, iteration; equal to
 * another MoveList holding the same records, or a list of equal moves, in the same order).
 * Listing thousands of moves then costs one record each, not one object: the objects are
 * made only for the moves a caller reads. */
#define MOVE_LIST 32

typedef struct {
    int32_t score;
    uint8_t start, horizontal, lo, len;
    uint8_t lt[SIZE], nw[SIZE]; /* the whole line's g->lt and g->nw: the word is lo.. */
} Packed;

typedef struct {
    PyObject_HEAD
    Py_ssize_t n, cap;
    Packed *recs;
    PyTypeObject *cls; /* the class of the items */
} MoveListObject;

static PyTypeObject MoveListType;
static PyTypeObject MoveIterType;

static MoveListObject *movelist_new(PyTypeObject *cls) {
    MoveListObject *l = PyObject_New(MoveListObject, &MoveListType);
    if (l == NULL) return NULL;
    l->n = l->cap = 0;
    l->recs = NULL;
    Py_INCREF(cls);
    l->cls = cls;
    return l;
}

static void movelist_dealloc(MoveListObject *l) {
    PyMem_Free(l->recs);
    Py_DECREF(l->cls);
    PyObject_Free(l);
}

/* A new record at the end (NULL: no memory, the exception set). */
static Packed *movelist_push(MoveListObject *l) {
    if (l->n == l->cap) {
        Py_ssize_t cap = l->cap ? 2 * l->cap : 1024;
        Packed *r = PyMem_Realloc(l->recs, (size_t)cap * sizeof(Packed));
        if (r == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        l->recs = r;
        l->cap = cap;
    }
    return &l->recs[l->n++];
}

static PyObject *movelist_make(MoveListObject *l, Py_ssize_t i) {
    const Packed *r = &l->recs[i];
    char text[SIZE];
    long mask = 0;
    for (int k = 0; k < r->len; k++) {
        const int t = r->lt[r->lo + k];
        text[k] = (t & JOKER_FLAG) ? (char)(96 + (t & LETTER_MASK)) : (char)(64 + t);
        if (r->nw[r->lo + k]) mask |= 1L << k;
    }
    return new_move(l->cls, r->score, r->horizontal, r->start, text, r->len, mask);
}

static Py_ssize_t movelist_len(MoveListObject *l) { return l->n; }

static PyObject *movelist_item(MoveListObject *l, Py_ssize_t i) {
    if (i < 0 || i >= l->n) {
        PyErr_SetString(PyExc_IndexError, "move index out of range");
        return NULL;
    }
    return movelist_make(l, i);
}

static PyObject *movelist_subscript(MoveListObject *l, PyObject *key) {
    if (PyIndex_Check(key)) {
        Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred()) return NULL;
        if (i < 0) i += l->n;
        return movelist_item(l, i);
    }
    if (!PySlice_Check(key)) {
        PyErr_Format(PyExc_TypeError, "move indices must be integers or slices, not %.200s",
                     Py_TYPE(key)->tp_name);
        return NULL;
    }
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(key, &start, &stop, &step) < 0) return NULL;
    Py_ssize_t len = PySlice_AdjustIndices(l->n, &start, &stop, step);
    PyObject *out = PyList_New(len);
    if (out == NULL) return NULL;
    for (Py_ssize_t k = 0, i = start; k < len; k++, i += step) {
        PyObject *m = movelist_make(l, i);
        if (m == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, m);
    }
    return out;
}

/* Equal to a MoveList of the same records in the same order, or (as the list generate()
 * answered before, and the reference's answer) to a list of equal moves in that order. */
static PyObject *movelist_richcompare(PyObject *a, PyObject *b, int op) {
    if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
    MoveListObject *x = (MoveListObject *)a;
    if (PyList_Check(b)) {
        int eq = PyList_GET_SIZE(b) == x->n;
        for (Py_ssize_t i = 0; eq == 1 && i < x->n; i++) {
            PyObject *m = movelist_make(x, i);
            if (m == NULL) return NULL;
            PyObject *other = PyList_GET_ITEM(b, i);
            Py_INCREF(other);
            eq = PyObject_RichCompareBool(m, other, Py_EQ);
            Py_DECREF(other);
            Py_DECREF(m);
        }
        if (eq < 0) return NULL;
        return PyBool_FromLong(op == Py_EQ ? eq : !eq);
    }
    if (!PyObject_TypeCheck(b, &MoveListType)) Py_RETURN_NOTIMPLEMENTED;
    const MoveListObject *y = (const MoveListObject *)b;
    int eq = x->n == y->n && x->cls == y->cls;
    for (Py_ssize_t i = 0; eq && i < x->n; i++) {
        const Packed *p = &x->recs[i], *q = &y->recs[i];
        eq = p->score == q->score && p->start == q->start && p->horizontal == q->horizontal &&
             p->len == q->len && memcmp(p->lt + p->lo, q->lt + q->lo, p->len) == 0 &&
             memcmp(p->nw + p->lo, q->nw + q->lo, p->len) == 0;
    }
    if (op == Py_NE) eq = !eq;
    return PyBool_FromLong(eq);
}

typedef struct {
    PyObject_HEAD
    MoveListObject *list;
    Py_ssize_t i;
} MoveIterObject;

static PyObject *movelist_iter(MoveListObject *l) {
    MoveIterObject *it = PyObject_New(MoveIterObject, &MoveIterType);
    if (it == NULL) return NULL;
    Py_INCREF(l);
    it->list = l;
    it->i = 0;
    return (PyObject *)it;
}

static void moveiter_dealloc(MoveIterObject *it) {
    Py_DECREF(it->list);
    PyObject_Free(it);
}

static PyObject *moveiter_next(MoveIterObject *it) {
    if (it->i >= it->list->n) return NULL; /* StopIteration, no exception object */
    return movelist_make(it->list, it->i++);
}

static PySequenceMethods movelist_as_sequence = {
    .sq_length = (lenfunc)movelist_len,
    .sq_item = (ssizeargfunc)movelist_item,
};

static PyMappingMethods movelist_as_mapping = {
    .mp_length = (lenfunc)movelist_len,
    .mp_subscript = (binaryfunc)movelist_subscript,
};

static PyTypeObject MoveListType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scoring._movegen.MoveList",
    .tp_doc = "Every move of a generate() call, packed; the items are made on access.",
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_SEQUENCE,
    .tp_basicsize = sizeof(MoveListObject),
    .tp_dealloc = (destructor)movelist_dealloc,
    .tp_as_sequence = &movelist_as_sequence,
    .tp_as_mapping = &movelist_as_mapping,
    .tp_richcompare = movelist_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_iter = (getiterfunc)movelist_iter,
};

static PyTypeObject MoveIterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scoring._movegen.MoveListIterator",
    .tp_basicsize = sizeof(MoveIterObject),
    .tp_dealloc = (destructor)moveiter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)moveiter_next,
};

#define SUB_TILES 8
#define SPAN_MEMO 256

/* The rack's subsets for span_values() (on the caller's stack: nothing to clear but the
 * memo's flags): hashed, their jokers, their values in decreasing order, the subsets of
 * each size (4 tiles or more), and the memo. */
struct Spans {
    uint64_t hash[1 << SUB_TILES];
    uint8_t jokers[1 << SUB_TILES];
    int8_t values[1 << SUB_TILES][SUB_TILES];
    uint8_t by_size[SUB_TILES + 1][70]; /* C(8, 4) = 70 */
    int nsize[SUB_TILES + 1];
    struct {
        uint64_t key;
        int valid, feasible;
        int values[SUB_TILES];
    } memo[SPAN_MEMO];
};

typedef struct {
    int pass; /* 0 horizontal, 1 vertical */
    int row;
    int col;
    int bound;
    int limit; /* its left_limit() */
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
    PyTypeObject *objects; /* the move class to make, or NULL: tuples */
    MoveListObject *packed; /* MODE_ALL with MOVE_LIST: the records, else NULL */
    int center[2];
    /* the GADDAG the placements are grown on */
    const uint32_t *gedges;
    Py_ssize_t ngedges;
    uint32_t groot;
    /* current anchor: its line's letters (lt) and which are new (nw), by column; tiles
     * put, how many have a cross word, how many lie on a square flagged in req; the rack's
     * letters still held (bit c-1: letter c) */
    int pass, row, anchor, limit, tiles, rend;
    uint32_t rack_mask, allow; /* allow: rack_mask, or every letter while a joker is held */
    uint8_t lt[SIZE], nw[SIZE];
    /* the current line of the current pass, copied: tiles, cross-sets and points,
     * premiums, flags of g->req (rline: which line they hold, -1 none) */
    int rline;
    uint8_t rc[SIZE + 1], rlm[SIZE], rwm[SIZE], rreq[SIZE];
    uint32_t rmask[SIZE];
    int rcs[SIZE];
    /* results */
    PyObject *list;
    long placements, scrabbles;
    int top;
    int *best; /* the n best scores so far, decreasing */
    int nbest;
    int failed;
    /* MODE_BEST (followups): moves scoring < threshold are ignored; with req_on only the
     * moves putting a tile on a square flagged in req count; collect keeps the squares of up
     * to MAXTOPS moves of the best score */
    int threshold, found, req_on, collect, ntops;
    long anchors_run;
    /* the bingo filter of the word list (NULL: none), the rack's letters hashed (see
     * bingo_maybe()) */
    const uint8_t *bingo_bits;
    uint64_t rack_hash;
    /* with the filter, for racks of at most SUB_TILES tiles (else nsub = 0): every subset of
     * the rack's tiles (bit i: tile i) hashed, its jokers, its size and its values in
     * decreasing order; and the memo of span_values() */
    int nsub;
    struct Spans *spans;
    /* From here on, every field is written before it is read (generate() clears only the
     * fields above): per pass (index 0 horizontal, 1 vertical = transposed) the grid and its
     * premiums (load_position()), the cross-sets (cross_sets()), the flags of MODE_BEST's
     * req (followups() only) and its collected tops. */
    uint8_t cells[2][NSQ], lm[2][NSQ], wm[2][NSQ];
    uint32_t cross_mask[2][NSQ];
    int cross_score[2][NSQ];
    uint8_t req[2][NSQ];
    uint64_t tops[MAXTOPS][4];
} Gen;
#define GEN_CLEARED offsetof(Gen, cells)

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

/* ---- the GADDAG ------------------------------------------------------------------------
 *
 * Generation grows each placement from its anchor outwards (Gordon's GADDAG): for a word
 * w of n letters and every split 1 <= i <= n, the graph spells rev(w[:i]) SEP w[i:] (SEP
 * omitted when i == n). Walking it from an anchor first puts the anchor's letter, then
 * the letters before it right to left, then (after SEP) the letters after it, so a left
 * part that cannot reach a word through the anchor square is never built.
 *
 * Layout (one uint32 array): word 0 is the root node's index. A node is a header word, its
 * letter set (bit c-1: letter c = 1..26, bit 26: SEP), followed by one edge word per letter
 * in increasing order: the letter in bits 0-4 (SEP = 27), ACCEPTS (bit 6: the path ending
 * with this edge spells a whole string) and the child node's index in bits 8-31 (0: none).
 * The edge of letter c is found without a search: node + 1 + popcount(set below c); the
 * letters a node, a square's cross-set and the rack allow are one AND.
 *
 * Built from the DAWG's words: every string packed in a 128-bit key (5 bits a symbol,
 * first symbol highest), radix-sorted, then minimised on the fly (Daciuk's incremental
 * algorithm on sorted input: a finished node is replaced by an equal one seen before, so
 * the graph is minimal). */
#define SEP 27u
#define SEP_BIT (1u << 26)
#define SET_MASK ((1u << 27) - 1u)

typedef unsigned __int128 Key;

typedef struct {
    Key *keys;
    size_t n, cap;
} KeyList;

static int key_push(KeyList *kl, Key k) {
    if (kl->n == kl->cap) {
        size_t cap = kl->cap ? kl->cap * 2 : 1 << 20;
        Key *nk = PyMem_Realloc(kl->keys, cap * sizeof(Key));
        if (nk == NULL) return 0;
        kl->keys = nk;
        kl->cap = cap;
    }
    kl->keys[kl->n++] = k;
    return 1;
}

static Key pack(const uint8_t *s, int len) {
    Key k = 0;
    for (int i = 0; i < len; i++) k |= (Key)s[i] << (123 - 5 * i);
    return k;
}

/* Every GADDAG string of every word of the DAWG below `node`, `w` holding `len` letters. */
static int gaddag_strings(const uint32_t *edges, Py_ssize_t nedges, uint32_t node, uint8_t *w,
                          int len, KeyList *kl) {
    if (node == 0 || len >= SIZE) return 1;
    for (Py_ssize_t i = node; i < nedges; i++) {
        uint32_t e = edges[i];
        w[len] = (uint8_t)(e & LETTER_MASK);
        if (e & ACCEPTS) {
            int n = len + 1;
            uint8_t s[SIZE + 1];
            for (int split = 1; split <= n; split++) {
                int k = 0;
                for (int j = split - 1; j >= 0; j--) s[k++] = w[j];
                if (split < n) {
                    s[k++] = (uint8_t)SEP;
                    for (int j = split; j < n; j++) s[k++] = w[j];
                }
                if (!key_push(kl, pack(s, k))) return 0;
            }
        }
        if ((e >> CHILD_SHIFT) && !gaddag_strings(edges, nedges, e >> CHILD_SHIFT, w, len + 1, kl))
            return 0;
        if (e & LAST) break;
    }
    return 1;
}

/* LSD radix sort of the keys on their 80 significant bits (16 symbols of 5 bits), 8 bits
 * a pass: much faster than qsort on millions of keys. */
static int sort_keys(KeyList *kl) {
    Key *tmp = PyMem_Malloc(kl->n * sizeof(Key) + 1);
    if (tmp == NULL) return 0;
    Key *src = kl->keys, *dst = tmp;
    for (int pass = 0; pass < 10; pass++) {
        int shift = 48 + 8 * pass;
        size_t count[257];
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < kl->n; i++) count[((src[i] >> shift) & 0xFF) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (size_t i = 0; i < kl->n; i++) dst[count[(src[i] >> shift) & 0xFF]++] = src[i];
        Key *t = src;
        src = dst;
        dst = t;
    }
    /* 10 passes: the sorted keys are back in kl->keys */
    PyMem_Free(tmp);
    return 1;
}

typedef struct {
    uint32_t *out; /* the edges emitted so far */
    size_t nout, capout;
    uint32_t *table; /* register: first-edge index of each distinct node, 0 = free */
    uint8_t *tlen;
    size_t tsize, tused;
} Builder;

static uint64_t hash_edges(const uint32_t *e, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) h = (h ^ e[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static int table_grow(Builder *b);

/* The index of the node with these edges (n of them, behind their header in e[0]),
 * emitted if new; 0 for a node without edges. */
static uint32_t intern(Builder *b, uint32_t *e, int n) {
    if (n == 0) return 0;
    e[0] = 0;
    for (int i = 1; i <= n; i++) e[0] |= 1u << ((e[i] & LETTER_MASK) - 1);
    n++;
    if (b->tused * 2 >= b->tsize && !table_grow(b)) return UINT32_MAX;
    size_t mask = b->tsize - 1, slot = hash_edges(e, n) & mask;
    while (b->table[slot]) {
        uint32_t id = b->table[slot];
        if (b->tlen[slot] == n && memcmp(b->out + id, e, (size_t)n * 4) == 0) return id;
        slot = (slot + 1) & mask;
    }
    if (b->nout + (size_t)n > b->capout) {
        size_t cap = b->capout * 2;
        uint32_t *no = PyMem_Realloc(b->out, cap * 4);
        if (no == NULL) return UINT32_MAX;
        b->out = no;
        b->capout = cap;
    }
    uint32_t id = (uint32_t)b->nout;
    memcpy(b->out + id, e, (size_t)n * 4);
    b->nout += (size_t)n;
    b->table[slot] = id;
    b->tlen[slot] = (uint8_t)n;
    b->tused++;
    return id;
}

static int table_grow(Builder *b) {
    size_t size = b->tsize ? b->tsize * 2 : 1 << 16;
    uint32_t *t = PyMem_Calloc(size, 4);
    uint8_t *l = PyMem_Calloc(size, 1);
    if (t == NULL || l == NULL) {
        PyMem_Free(t);
        PyMem_Free(l);
        return 0;
    }
    for (size_t i = 0; i < b->tsize; i++) {
        if (!b->table[i]) continue;
        uint32_t id = b->table[i];
        size_t slot = hash_edges(b->out + id, b->tlen[i]) & (size - 1);
        while (t[slot]) slot = (slot + 1) & (size - 1);
        t[slot] = id;
        l[slot] = b->tlen[i];
    }
    PyMem_Free(b->table);
    PyMem_Free(b->tlen);
    b->table = t;
    b->tlen = l;
    b->tsize = size;
    return 1;
}

#define GMAXD (SIZE + 2)

/* The GADDAG of the DAWG `edges` as a new bytes object (NULL with an exception set). */
static PyObject *build_gaddag(const uint32_t *edges, Py_ssize_t nedges) {
    KeyList kl = {NULL, 0, 0};
    Builder b = {NULL, 0, 0, NULL, NULL, 0, 0};
    PyObject *result = NULL;
    uint8_t w[SIZE + 1];
    uint32_t root = nedges > 0 ? edges[0] >> CHILD_SHIFT : 0;
    if (root >= (uint32_t)nedges) root = 0;
    if (!gaddag_strings(edges, nedges, root, w, 0, &kl) || !sort_keys(&kl)) goto nomem;
    b.capout = 1 << 16;
    b.out = PyMem_Malloc(b.capout * 4);
    if (b.out == NULL || !table_grow(&b)) goto nomem;
    b.nout = 1; /* word 0: the root's index */
    /* pending nodes: pend[d] holds (from index 1) the edges of the node reached by d
     * symbols of the current string; the child of its last edge is pend[d + 1], not yet
     * interned */
    uint32_t pend[GMAXD][32];
    int npend[GMAXD];
    memset(npend, 0, sizeof npend);
    uint8_t prev[GMAXD], cur[GMAXD];
    int plen = 0;
    for (size_t i = 0; i < kl.n; i++) {
        Key k = kl.keys[i];
        int len = 0;
        while (len < 16 && ((k >> (123 - 5 * len)) & 31)) {
            cur[len] = (uint8_t)((k >> (123 - 5 * len)) & 31);
            len++;
        }
        int common = 0;
        while (common < len && common < plen && cur[common] == prev[common]) common++;
        /* finish the nodes below the common prefix, deepest first */
        for (int d = plen; d > common; d--) {
            uint32_t id = intern(&b, pend[d], npend[d]);
            if (id == UINT32_MAX) goto nomem;
            npend[d] = 0;
            pend[d - 1][npend[d - 1]] |= id << CHILD_SHIFT;
        }
        for (int d = common; d < len; d++) {
            pend[d][++npend[d]] = cur[d];
            npend[d + 1] = 0;
        }
        pend[len - 1][npend[len - 1]] |= ACCEPTS;
        memcpy(prev, cur, (size_t)len);
        plen = len;
    }
    for (int d = plen; d > 0; d--) {
        uint32_t id = intern(&b, pend[d], npend[d]);
        if (id == UINT32_MAX) goto nomem;
        pend[d - 1][npend[d - 1]] |= id << CHILD_SHIFT;
    }
    {
        uint32_t id = intern(&b, pend[0], npend[0]);
        if (id == UINT32_MAX) goto nomem;
        b.out[0] = id;
    }
    if (b.nout >= (1u << 24)) {
        PyErr_SetString(PyExc_ValueError, "word list too large for a 24-bit GADDAG");
        goto done;
    }
    result = PyBytes_FromStringAndSize((const char *)b.out, (Py_ssize_t)b.nout * 4);
    goto done;
nomem:
    PyErr_NoMemory();
done:
    PyMem_Free(kl.keys);
    PyMem_Free(b.out);
    PyMem_Free(b.table);
    PyMem_Free(b.tlen);
    return result;
}

/* Keep the placement from lo to hi of `score` as the mode asks (MODE_COUNT: counted by
 * found(), not called). */
static void record(Gen *g, int lo, int hi, int score) {
    const int p = g->pass;
    if (g->mode == MODE_ANALYSE) {
        g->placements++;
        if (g->tiles == g->bingo_tiles) g->scrabbles++;
        if (score > g->top) g->top = score;
    }
    if (g->failed) return; /* out of memory: the walk ends with nothing more kept */
    const int base = g->row * SIZE;
    if (g->mode == MODE_BEST) {
        if (score < g->threshold) return;
        if (g->req_on) { /* a new tile on a flagged square */
            int hit = 0;
            for (int c = lo; c <= hi; c++) hit |= g->nw[c] & g->rreq[c];
            if (!hit) return;
        }
        if (score > g->found) {
            g->found = score;
            g->ntops = 0;
        }
        if (g->collect && score == g->found && g->ntops < MAXTOPS) {
            uint64_t *bits = g->tops[g->ntops++];
            bits[0] = bits[1] = bits[2] = bits[3] = 0;
            for (int c = lo; c <= hi; c++) {
                if (!g->nw[c]) continue;
                int sq = p == 0 ? base + c : c * SIZE + g->row;
                bits[sq >> 6] |= 1ULL << (sq & 63);
            }
        }
        return;
    }
    if (g->mode == MODE_TOP || g->mode == MODE_ANALYSE) {
        if (score < cutoff(g)) return;
        note_best(g, score);
    }
    int start_sq = p == 0 ? base + lo : lo * SIZE + g->row;
    if (g->packed != NULL) { /* the line copied whole (fixed size), the word read later */
        Packed *r = movelist_push(g->packed);
        if (r == NULL) {
            g->failed = 1;
            return;
        }
        r->score = score;
        r->start = (uint8_t)start_sq;
        r->horizontal = (uint8_t)(p == 0);
        r->lo = (uint8_t)lo;
        r->len = (uint8_t)(hi - lo + 1);
        memcpy(r->lt, g->lt, SIZE);
        memcpy(r->nw, g->nw, SIZE);
        return;
    }
    char text[SIZE + 1];
    long mask = 0;
    for (int c = lo; c <= hi; c++) {
        int t = g->lt[c];
        text[c - lo] = (t & JOKER_FLAG) ? (char)(96 + (t & LETTER_MASK)) : (char)(64 + t);
        if (g->nw[c]) mask |= 1L << (c - lo);
    }
    if (g->objects != NULL) {
        PyObject *m = new_move(g->objects, score, p == 0, start_sq, text, hi - lo + 1, mask);
        if (m == NULL || PyList_Append(g->list, m) < 0) g->failed = 1;
        Py_XDECREF(m);
        return;
    }
    PyObject *tup = PyTuple_New(5);
    if (tup == NULL) {
        g->failed = 1;
        return;
    }
    PyObject *a = PyLong_FromLong(score);
    PyObject *b = PyBool_FromLong(p == 0);
    PyObject *c = PyLong_FromLong(start_sq);
    PyObject *d = PyUnicode_FromStringAndSize(text, hi - lo + 1);
    PyObject *e = PyLong_FromLong(mask);
    PyTuple_SET_ITEM(tup, 0, a);
    PyTuple_SET_ITEM(tup, 1, b);
    PyTuple_SET_ITEM(tup, 2, c);
    PyTuple_SET_ITEM(tup, 3, d);
    PyTuple_SET_ITEM(tup, 4, e);
    if (!a || !c || !d || !e || PyList_Append(g->list, tup) < 0) g->failed = 1;
    Py_DECREF(tup);
}

/* Generation from the anchor outwards over the GADDAG. A placement found from anchor a puts
 * a tile on a, and every tile it puts before a lies on the `limit` free squares before a
 * that are not anchors themselves: so each placement is found once, from the leftmost
 * anchor it covers (the rule of the DAWG generator it replaces, same placements). When
 * grid tiles come just before the anchor, the walk starts with them (from a - 1 back to
 * the first) and SEP, then puts the anchor's tile and goes right: the word's GADDAG string
 * split before the anchor. Else, when grid tiles follow it, the walk starts with them (from
 * the last back to a + 1) and puts the anchor's tile next: the string split after those
 * tiles. Either way they are read once per anchor (see run_anchor()). The
 * running sums are the main word's letter points (`main_sum`, premiums of the new tiles
 * applied), the product of the new tiles' word premiums (`mult`) and the cross words'
 * points (`cross`). */
/* Bits set in x: one POPCNT instruction when built with -mpopcnt (setup.py), else no
 * libgcc call. */
static inline uint32_t pop32(uint32_t x) {
#ifdef __POPCNT__
    return (uint32_t)__builtin_popcount(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
#endif
}

/* The edge of letter `code` (1..27) of GADDAG node `node`, or 0 (no such edge). */
static inline uint32_t gedge(const Gen *g, uint32_t node, uint32_t code) {
    if (node == 0) return 0;
    const uint32_t set = g->gedges[node], bit = 1u << (code - 1);
    if (!(set & bit)) return 0;
    return g->gedges[node + 1 + pop32(set & (bit - 1))];
}

static void place_left(Gen *g, uint32_t node, uint32_t cand, int col, int main_sum, int mult,
                       int cross);
static void place_right(Gen *g, uint32_t node, uint32_t cand, int col, int lo, int main_sum,
                        int mult, int cross);

#define HOT static inline __attribute__((always_inline))

/* The letters a rack tile can be put on `col` with after `node` (0: none): tested before
 * the call, as most calls would find no candidate (three in four on the conformance
 * positions), and handed to it. g->allow: the rack's letters, every letter with a joker. */
HOT uint32_t candidates(const Gen *g, uint32_t node, int col) {
    return node != 0 ? g->gedges[node] & g->rmask[col] & g->allow : 0;
}

/* A placement from lo to hi: the checks every mode makes and its score here, inlined in
 * the walk; then MODE_COUNT's counting here too (no call), the other modes' in record(). */
HOT void found(Gen *g, int lo, int hi, int main_sum, int mult, int cross) {
    if (hi == lo) return; /* a word has two letters or more */
    if (g->empty_board && g->tiles < g->first_min_tiles) return;
    /* a single tile (on the anchor) forming a cross word: the horizontal pass has it */
    if (g->pass == 1 && g->tiles == 1 && g->rcs[g->anchor] >= 0) return;
    const int bingo = g->tiles == g->bingo_tiles;
    const int score = main_sum * mult + cross + (bingo ? g->bingo_bonus : 0);
    if (g->mode != MODE_COUNT) {
        record(g, lo, hi, score);
        return;
    }
    g->placements++;
    g->scrabbles += bingo;
    if (score > g->top) g->top = score;
}

/* `col`: the leftmost square filled so far (the anchor's or one before it). The tiles
 * just before it are taken on (the word runs on through them); then the word may start
 * there: it ends on g->rend (the anchor, or the last of the grid's tiles just after it,
 * walked first: see run_anchor()), or goes on after it (SEP), or takes one more tile
 * before. */
HOT void go_left(Gen *g, uint32_t node, int col, int acc, int main_sum, int mult, int cross) {
    const int a = g->anchor, r = g->rend;
    while (col > 0 && g->rc[col - 1]) {
        const int t = g->rc[col - 1];
        const uint32_t e = gedge(g, node, (uint32_t)t & LETTER_MASK);
        if (e == 0) return;
        col--; /* lt[col], nw[col]: set with the line (run_anchor) */
        node = e >> CHILD_SHIFT;
        acc = (e & ACCEPTS) != 0;
        main_sum += (t & JOKER_FLAG) ? 0 : g->values[t];
    }
    if (acc) found(g, col, r, main_sum, mult, cross); /* rc[r + 1] is free */
    if (node == 0) return;
    const uint32_t set = g->gedges[node];
    if ((set & SEP_BIT) && r + 1 < SIZE) {
        const uint32_t after = g->gedges[node + pop32(set)] >> CHILD_SHIFT;
        const uint32_t cand = candidates(g, after, r + 1);
        if (cand) place_right(g, after, cand, r + 1, col, main_sum, mult, cross);
    }
    if (col - 1 >= a - g->limit && g->tiles < g->max_tiles) {
        const uint32_t cand = g->gedges[node] & g->rmask[col - 1] & g->allow;
        if (cand) place_left(g, node, cand, col - 1, main_sum, mult, cross);
    }
}

/* `col`: the next square after the word's letters so far, which start on `lo`; the tiles
 * from there on are taken on, then the word may end, or take one more tile. */
HOT void go_right(Gen *g, uint32_t node, int col, int acc, int lo, int main_sum, int mult,
                  int cross) {
    while (g->rc[col]) { /* rc[SIZE] is 0: the edge of the grid */
        const int t = g->rc[col];
        const uint32_t e = gedge(g, node, (uint32_t)t & LETTER_MASK);
        if (e == 0) return;
        node = e >> CHILD_SHIFT;
        acc = (e & ACCEPTS) != 0;
        main_sum += (t & JOKER_FLAG) ? 0 : g->values[t];
        col++;
    }
    if (acc) found(g, lo, col - 1, main_sum, mult, cross);
    if (col >= SIZE || g->tiles >= g->max_tiles) return;
    const uint32_t cand = candidates(g, node, col);
    if (cand) place_right(g, node, cand, col, lo, main_sum, mult, cross);
}

/* The cross words' points once a tile of `points` (its premium applied) is put on a square
 * whose column word has cs fixed points (-1: no column word) and word premium wm. */
HOT int with_cross(int cross, int cs, int points, int wm) {
    return cs >= 0 ? cross + (cs + points) * wm : cross;
}

/* Every rack tile of `cand` (the letters the edges of `node`, the cross-set of column `col`
 * and the rack allow, not empty) put on `col`, then on to the left (`leftward`) or to the
 * right. */
HOT void place_at(Gen *g, uint32_t node, uint32_t cand, int col, const int leftward, int lo,
                  int main_sum, int mult, int cross) {
    const uint32_t set = g->gedges[node];
    const int lm = g->rlm[col], wm = g->rwm[col], cs = g->rcs[col];
    g->nw[col] = 1;
    g->tiles++;
    /* no tile can follow this one: only a string ending here (or, to the left, the way
     * to the letters after the anchor) is worth going on with */
    const int last =
        leftward ? (col == 0 || !g->rc[col - 1]) &&
                       (g->tiles >= g->max_tiles || col <= g->anchor - g->limit)
                 : col + 1 >= SIZE || (g->tiles >= g->max_tiles && !g->rc[col + 1]);
    const int mu2 = mult * wm;
    while (cand) {
        const uint32_t bit = cand & -cand;
        cand ^= bit;
        const uint32_t code = (uint32_t)__builtin_ctz(bit) + 1;
        const uint32_t e = g->gedges[node + 1 + pop32(set & (bit - 1))];
        const uint32_t child = e >> CHILD_SHIFT;
        const int acc = (e & ACCEPTS) != 0;
        if (last && !acc && (!leftward || !child || !(g->gedges[child] & SEP_BIT))) continue;
        if (!leftward && !g->rc[col + 1] &&
            !(col + 1 < SIZE && g->tiles < g->max_tiles && child != 0 &&
              (g->gedges[child] & g->rmask[col + 1] & g->allow))) {
            /* the word ends on col (the next square is free and no tile can go there, even
             * before this one leaves the rack): what go_right() would do, without the
             * rack's bookkeeping */
            if (!acc) continue;
            if (g->rack[code]) {
                const int v = g->values[code];
                g->lt[col] = (uint8_t)code;
                found(g, lo, col, main_sum + v * lm, mu2, with_cross(cross, cs, v * lm, wm));
            }
            if (g->rack[0]) {
                g->lt[col] = (uint8_t)(code | JOKER_FLAG);
                found(g, lo, col, main_sum, mu2, with_cross(cross, cs, 0, wm));
            }
            continue;
        }
        if (g->rack[code]) { /* the tile */
            const int v = g->values[code];
            if (--g->rack[code] == 0) {
                g->rack_mask &= ~bit;
                if (!g->rack[0]) g->allow = g->rack_mask;
            }
            g->lt[col] = (uint8_t)code;
            const int m2 = main_sum + v * lm;
            const int c2 = with_cross(cross, cs, v * lm, wm);
            if (leftward)
                go_left(g, child, col, acc, m2, mu2, c2);
            else
                go_right(g, child, col + 1, acc, lo, m2, mu2, c2);
            if (g->rack[code]++ == 0) {
                g->rack_mask |= bit;
                if (!g->rack[0]) g->allow = g->rack_mask;
            }
        }
        if (g->rack[0]) { /* a joker for it */
            if (--g->rack[0] == 0) g->allow = g->rack_mask;
            g->lt[col] = (uint8_t)(code | JOKER_FLAG);
            const int c2 = with_cross(cross, cs, 0, wm);
            if (leftward)
                go_left(g, child, col, acc, main_sum, mu2, c2);
            else
                go_right(g, child, col + 1, acc, lo, main_sum, mu2, c2);
            g->rack[0]++;
            g->allow = ALL_LETTERS;
        }
    }
    g->tiles--;
    g->nw[col] = 0;
}

static void place_left(Gen *g, uint32_t node, uint32_t cand, int col, int main_sum, int mult,
                       int cross) {
    place_at(g, node, cand, col, 1, 0, main_sum, mult, cross);
}

static void place_right(Gen *g, uint32_t node, uint32_t cand, int col, int lo, int main_sum,
                        int mult, int cross) {
    place_at(g, node, cand, col, 0, lo, main_sum, mult, cross);
}

/* Cross-set of one empty square of pass p: the letters its column word allows, and that
 * word's fixed points (-1: no column word). Read on the GADDAG in one walk: with P the
 * tiles above the square and S those below, the string of the word P x S split after P is
 * rev(P) SEP x S (P empty: rev(x S) = rev(S) x, no SEP), so the letters x are the edges
 * of one node, each followed by S up to an accepting edge. */
static void cross_square(Gen *g, int p, int sq) {
    const uint8_t *cl = g->cells[p];
    g->cross_mask[p][sq] = ALL_LETTERS;
    g->cross_score[p][sq] = -1;
    if (cl[sq]) return;
    int top = sq, bottom = sq;
    while (top >= SIZE && cl[top - SIZE]) top -= SIZE;
    while (bottom + SIZE < NSQ && cl[bottom + SIZE]) bottom += SIZE;
    if (top == sq && bottom == sq) return;
    int fixed = 0;
    for (int s = top; s <= bottom; s += SIZE)
        if (!(cl[s] & JOKER_FLAG)) fixed += g->values[cl[s]];
    g->cross_score[p][sq] = fixed;
    uint32_t mask = 0, node = g->groot;
    if (top == sq) {
        /* no tile above: rev(S), then the letters x accepting after it */
        for (int s = bottom; s > sq && node; s -= SIZE)
            node = gedge(g, node, cl[s] & LETTER_MASK) >> CHILD_SHIFT;
        if (node) {
            const uint32_t set = g->gedges[node] & ALL_LETTERS;
            int i = 0;
            for (uint32_t m = set; m; m &= m - 1, i++)
                if (g->gedges[node + 1 + i] & ACCEPTS) mask |= m & -m;
        }
        g->cross_mask[p][sq] = mask;
        return;
    }
    for (int s = sq - SIZE; s >= top && node; s -= SIZE)
        node = gedge(g, node, cl[s] & LETTER_MASK) >> CHILD_SHIFT;
    if (node) node = gedge(g, node, SEP) >> CHILD_SHIFT;
    if (node) {
        const uint32_t set = g->gedges[node] & ALL_LETTERS;
        int i = 0;
        for (uint32_t m = set; m; m &= m - 1, i++) {
            uint32_t e = g->gedges[node + 1 + i];
            for (int s = sq + SIZE; s <= bottom && e; s += SIZE)
                e = gedge(g, e >> CHILD_SHIFT, cl[s] & LETTER_MASK);
            if (e & ACCEPTS) mask |= m & -m;
        }
    }
    g->cross_mask[p][sq] = mask;
}

/* The points of the column word of an empty square of pass p (-1: none), mask untouched. */
static void cross_square_score(Gen *g, int p, int sq) {
    const uint8_t *cl = g->cells[p];
    int top = sq, bottom = sq;
    while (top >= SIZE && cl[top - SIZE]) top -= SIZE;
    while (bottom + SIZE < NSQ && cl[bottom + SIZE]) bottom += SIZE;
    int fixed = -1;
    if (top != sq || bottom != sq) {
        fixed = 0;
        for (int s = top; s <= bottom; s += SIZE)
            if (cl[s] && !(cl[s] & JOKER_FLAG)) fixed += g->values[cl[s]];
    }
    g->cross_score[p][sq] = fixed;
}

static uint32_t row_bits(const Gen *g, int p, int row);

/* Every square's cross-set and cross points for pass p; only a free square with a tile above
 * or below it has a column word to read. */
static void cross_sets(Gen *g, int p) {
    uint32_t above = 0, here = row_bits(g, p, 0);
    for (int row = 0; row < SIZE; row++) {
        const uint32_t below = row + 1 < SIZE ? row_bits(g, p, row + 1) : 0;
        const uint32_t word = (above | below) & ~here;
        for (int c = 0; c < SIZE; c++) {
            const int sq = row * SIZE + c;
            if ((word >> c) & 1) {
                cross_square(g, p, sq);
            } else {
                g->cross_mask[p][sq] = ALL_LETTERS;
                g->cross_score[p][sq] = -1;
            }
        }
        above = here;
        here = below;
    }
}

/* The squares of row `row` of pass p holding a tile (bit c: column c). */
static uint32_t row_bits(const Gen *g, int p, int row) {
    const uint8_t *line = g->cells[p] + row * SIZE;
    uint32_t bits = 0;
    for (int c = 0; c < SIZE; c++) bits |= (uint32_t)(line[c] != 0) << c;
    return bits;
}

/* Free squares before the anchor available to a left part (0 when a tile is just before). */
static int left_limit(const Gen *g, int p, int row, int a, const uint8_t *anchors) {
    const uint8_t *cl = g->cells[p];
    int limit = 0;
    for (int c = a - 1; c >= 0 && !cl[row * SIZE + c] && !anchors[c]; c--) limit++;
    return limit;
}

/* The GADDAG node reached from the root by the grid's tiles just after the anchor a of
 * `line` (a line of the grid), from the last of them (*r; a when none) back to a + 1, and
 * their points (*fixed): the letters the anchor can take are that node's (0: none). */
HOT uint32_t after_anchor(const Gen *g, const uint8_t *line, int a, int *r, int *fixed) {
    int end = a, sum = 0;
    while (end + 1 < SIZE && line[end + 1]) end++;
    uint32_t node = g->groot;
    for (int c = end; c > a && node != 0; c--) {
        const int t = line[c];
        node = gedge(g, node, (uint32_t)t & LETTER_MASK) >> CHILD_SHIFT;
        sum += (t & JOKER_FLAG) ? 0 : g->values[t];
    }
    *r = end;
    *fixed = sum;
    return node;
}

/* The GADDAG node reached from the root by the grid's tiles just before the anchor a of
 * `line`, from a - 1 back to the first of them (*l), then SEP, and their points (*fixed):
 * the letters the anchor can take when the word starts on *l (0: none). */
HOT uint32_t before_anchor(const Gen *g, const uint8_t *line, int a, int *l, int *fixed) {
    uint32_t node = g->groot;
    int c = a - 1, sum = 0;
    for (; c >= 0 && line[c] && node != 0; c--) {
        const int t = line[c];
        node = gedge(g, node, (uint32_t)t & LETTER_MASK) >> CHILD_SHIFT;
        sum += (t & JOKER_FLAG) ? 0 : g->values[t];
    }
    *l = c + 1;
    *fixed = sum;
    return node != 0 ? gedge(g, node, SEP) >> CHILD_SHIFT : 0;
}

/* Can a rack tile go on anchor a of row `row` (pass p) at all, as the word through it takes
 * on the grid's tiles just after it and just before it: an anchor that cannot is not worth
 * a shadow bound (nor a walk). */
static int anchor_open(const Gen *g, int p, int row, int a, uint32_t rack_letters) {
    int r, fixed;
    const uint8_t *line = g->cells[p] + row * SIZE;
    const uint32_t node = after_anchor(g, line, a, &r, &fixed);
    if (node == 0) return 0;
    uint32_t letters = g->gedges[node] & g->cross_mask[p][row * SIZE + a] & rack_letters;
    if (letters && a > 0 && line[a - 1]) {
        int l;
        const uint32_t left = before_anchor(g, line, a, &l, &fixed);
        letters = left != 0 ? letters & g->gedges[left] : 0;
    }
    return letters != 0;
}

static void run_anchor(Gen *g, int p, int row, int a, int limit) {
    if (g->rline != p * SIZE + row + 1) {
        g->rline = p * SIZE + row + 1;
        const int base = row * SIZE;
        for (int c = 0; c < SIZE; c++) {
            g->rc[c] = g->cells[p][base + c];
            g->rlm[c] = g->lm[p][base + c];
            g->rwm[c] = g->wm[p][base + c];
            g->rreq[c] = g->req_on ? g->req[p][base + c] : 0;
            g->rmask[c] = g->cross_mask[p][base + c];
            g->rcs[c] = g->cross_score[p][base + c];
            /* the grid's tiles in the word being built, once for the line (the walk only
             * writes the squares it fills) */
            g->lt[c] = g->rc[c];
            g->nw[c] = 0;
        }
        g->rc[SIZE] = 0;
    }
    g->pass = p;
    g->row = row;
    g->anchor = a;
    g->limit = limit;
    g->tiles = 0;
    g->allow = g->rack[0] ? ALL_LETTERS : g->rack_mask;
    if (a > 0 && g->rc[a - 1]) {
        /* Grid tiles just before the anchor (then limit is 0: the word starts on the first
         * of them, l, as the free square before l is an anchor itself): the walk takes them
         * first, from a - 1 back to l, then SEP, and the anchor's tile and the rest go
         * rightwards (the word's string split before the anchor), so they are followed once
         * per anchor, not once per letter put on it. With tiles after the anchor too, these
         * are then followed once per letter on it (callgrind: a little fewer instructions
         * than the other way round, or than the longer run first). */
        int l, main_sum;
        const uint32_t node = before_anchor(g, g->rc, a, &l, &main_sum);
        const uint32_t cand = candidates(g, node, a);
        if (cand) place_right(g, node, cand, a, l, main_sum, 1, 0);
        return;
    }
    /* Else the grid's tiles just after the anchor (up to r, the last of them) are in every
     * word through it: the walk takes them first, from r back to a + 1 (the GADDAG's string
     * of the word split after r), so they are followed once per anchor, not once per left
     * part, and they narrow the letters the anchor can take. Then the anchor's tile, the
     * left part, and after SEP the squares from r + 1. */
    int r, main_sum;
    const uint32_t node = after_anchor(g, g->rc, a, &r, &main_sum);
    g->rend = r;
    const uint32_t cand = candidates(g, node, a);
    if (cand) place_left(g, node, cand, a, main_sum, 1, 0);
}

/* occ[row]: row_bits() of every row of pass p. */
static void grid_bits(const Gen *g, int p, uint32_t *occ) {
    for (int row = 0; row < SIZE; row++) occ[row] = row_bits(g, p, row);
}

/* is_a[c]: is square c of row `row` (pass p, its rows' tiles in occ) an anchor. */
static void row_anchors(const Gen *g, int p, int row, const uint32_t *occ, uint8_t *is_a) {
    uint32_t anchors;
    if (g->empty_board) {
        const int centre = g->center[p];
        anchors = centre / SIZE == row ? 1u << (centre % SIZE) : 0;
    } else {
        /* a free square next to a tile, in its row or in the rows above and below */
        const uint32_t here = occ[row];
        uint32_t near = (here << 1) | (here >> 1);
        if (row > 0) near |= occ[row - 1];
        if (row < SIZE - 1) near |= occ[row + 1];
        anchors = near & ~here & ((1u << SIZE) - 1);
    }
    for (int c = 0; c < SIZE; c++) is_a[c] = (uint8_t)((anchors >> c) & 1);
}

/* Does row `row` of pass p hold a square flagged in g->req. */
static int row_flagged(const Gen *g, int p, int row) {
    int any = 0;
    for (int c = 0; c < SIZE; c++) any |= g->req[p][row * SIZE + c];
    return any;
}

/* Expand an anchor taken from the queue sorted by bound (its row's anchors give the left
 * limit). */
static void run_queued(Gen *g, const Anchor *an) {
    run_anchor(g, an->pass, an->row, an->col, an->limit);
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

/* ---- the bingo filter ---------------------------------------------------------------------
 * A placement of bingo_tiles tiles spells a word whose letters are exactly the whole rack
 * plus the grid's letters on its line, all known to shadow_bound() for each span. The filter
 * holds one bit per word of the list, at a hash of its letters as a multiset (the sum of one
 * 64-bit constant per letter: adding the grid's letters to the rack's is one addition); a
 * clear bit proves that no word has these letters, so the span's bound needs no bingo
 * bonus. A set bit may be another multiset's (a collision): the bound then keeps the bonus,
 * as before — the filter only ever lowers a bound that no placement can reach. */
#define BINGO_BITS 24
#define BINGO_TEST(bits, h) (((bits)[(h) >> (67 - BINGO_BITS)] >> (((h) >> (64 - BINGO_BITS)) & 7)) & 1)

static uint64_t letter_hash[27];

static void init_letter_hash(void) {
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 27; i++) { /* splitmix64 */
        x += 0x9E3779B97F4A7C15ULL;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        letter_hash[i] = z ^ (z >> 31);
    }
}

/* Every word of the DAWG below `node` (`len` letters before it, hashed in h) into `bits`. */
static void bingo_words(const uint32_t *edges, Py_ssize_t nedges, uint32_t node, int len,
                        uint64_t h, uint8_t *bits) {
    if (node == 0 || len >= SIZE) return;
    for (Py_ssize_t i = node; i < nedges; i++) {
        const uint32_t e = edges[i];
        const uint64_t h2 = h + letter_hash[e & LETTER_MASK];
        if (e & ACCEPTS) bits[h2 >> (67 - BINGO_BITS)] |= (uint8_t)(1u << ((h2 >> (64 - BINGO_BITS)) & 7));
        if (e >> CHILD_SHIFT) bingo_words(edges, nedges, e >> CHILD_SHIFT, len + 1, h2, bits);
        if (e & LAST) break;
    }
}

/* The filter of a DAWG as a new bytes object (NULL with an exception set). */
static PyObject *build_bingo(const uint32_t *edges, Py_ssize_t nedges) {
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)1 << (BINGO_BITS - 3));
    if (b == NULL) return NULL;
    uint8_t *bits = (uint8_t *)PyBytes_AS_STRING(b);
    memset(bits, 0, (size_t)1 << (BINGO_BITS - 3));
    uint32_t root = nedges > 0 ? edges[0] >> CHILD_SHIFT : 0;
    if (root < (uint32_t)nedges) bingo_words(edges, nedges, root, 0, 0, bits);
    return b;
}

/* Can a word have the letters hashed in h plus `jokers` letters more: 0 proves not (with more
 * than two jokers, no proof is tried). */
static int word_maybe(const uint8_t *bits, uint64_t h, int jokers) {
    switch (jokers) {
    case 0:
        return (int)BINGO_TEST(bits, h);
    case 1:
        for (int x = 1; x < 27; x++)
            if (BINGO_TEST(bits, h + letter_hash[x])) return 1;
        return 0;
    case 2:
        for (int x = 1; x < 27; x++)
            for (int y = x; y < 27; y++)
                if (BINGO_TEST(bits, h + letter_hash[x] + letter_hash[y])) return 1;
        return 0;
    default:
        return 1;
    }
}

/* Can a word hold the whole rack plus the grid's letters hashed in hb: 0 proves not (the
 * jokers stand for any letter). */
static int bingo_maybe(const Gen *g, uint64_t hb) {
    if (g->bingo_bits == NULL || g->rack_len != g->bingo_tiles) return 1;
    return word_maybe(g->bingo_bits, g->rack_hash + hb, g->rack[0]);
}

/* A span of nt free squares whose word also holds the grid's letters hashed in hb takes nt
 * of the rack's tiles, and some word must have exactly those letters plus the grid's: over
 * the subsets of nt tiles the filter does not rule out, the highest i-th value for each i
 * (values[i]: the pairing of these with the squares' multipliers bounds that of every such
 * subset). NULL when the filter rules them all out: no placement fills that span. */
static const int *span_values(Gen *g, uint64_t hb, int nt) {
    struct Spans *sp = g->spans;
    const uint64_t key = hb ^ ((uint64_t)nt * 0x9E3779B97F4A7C15ULL);
    const int slot = (int)(key >> 56) & (SPAN_MEMO - 1);
    if (!sp->memo[slot].valid || sp->memo[slot].key != key) {
        int *v = sp->memo[slot].values;
        int feasible = 0;
        for (int i = 0; i < SUB_TILES; i++) v[i] = 0;
        for (int k = 0; k < sp->nsize[nt]; k++) {
            const int m = sp->by_size[nt][k];
            if (!word_maybe(g->bingo_bits, sp->hash[m] + hb, sp->jokers[m])) continue;
            feasible = 1;
            for (int i = 0; i < nt; i++)
                if (sp->values[m][i] > v[i]) v[i] = sp->values[m][i];
        }
        sp->memo[slot].key = key;
        sp->memo[slot].valid = 1;
        sp->memo[slot].feasible = feasible;
    }
    return sp->memo[slot].feasible ? sp->memo[slot].values : NULL;
}

/* Upper bound of any placement generated from this anchor: for every span of squares it
 * could cover (left part over `limit` free squares, then right through the grid), the rack's
 * highest values on the squares' highest effective multipliers, plus everything fixed. Cross
 * checks are only used to stop at squares no rack tile can fill. */
static int shadow_bound(Gen *g, int p, int row, int a, int limit, const int *rack_values,
                        uint32_t rack_letters, const uint8_t *req) {
    const uint8_t *cl = g->cells[p];
    const uint8_t *lm = g->lm[p];
    const uint8_t *wm = g->wm[p];
    const int base = row * SIZE;
    int maxt = g->rack_len < g->max_tiles ? g->rack_len : g->max_tiles;
    int fixed_left = 0;
    uint64_t hash_left = 0; /* the grid's letters of the word, for bingo_maybe() */
    if (a > 0 && cl[base + a - 1]) {
        for (int c = a - 1; c >= 0 && cl[base + c]; c--) {
            if (!(cl[base + c] & JOKER_FLAG)) fixed_left += g->values[cl[base + c]];
            hash_left += letter_hash[cl[base + c] & LETTER_MASK];
        }
        limit = 0;
    }
    if (limit > maxt - 1) limit = maxt - 1;
    if (req) {
        /* a span holds at most maxt free squares, limit of them before the anchor: is a
         * flagged square within reach at all? */
        int reach = 0, free_seen = 0;
        for (int c = a - limit; c < SIZE && !reach; c++) {
            if (c >= a && !cl[base + c] && ++free_seen > maxt) break;
            if (req[base + c]) reach = 1;
        }
        if (!reach) return INT32_MIN;
    }
    /* the squares' effective multipliers are kept sorted as the span grows: a square with
     * no word premium is inserted, one with a word premium (every multiplier changes)
     * makes them all again */
    int best = INT32_MIN;
    for (int L = 0; L <= limit; L++) {
        int lms[SIZE], cxs[SIZE], eff[SIZE];
        int nt = 0, wmul = 1, main_fixed = fixed_left, cross_fixed = 0;
        uint64_t hash = hash_left;
        int covers = 0; /* with req: a span must put a tile on a flagged square */
        for (int c = a - L; c < a; c++) {
            if (req && req[base + c]) covers = 1;
            lms[nt] = lm[base + c];
            cxs[nt] = 0;
            wmul *= wm[base + c];
            nt++;
        }
        for (int i = 0; i < nt; i++) eff[i] = lms[i] * wmul;
        sort_desc(eff, nt);
        for (int c = a; c < SIZE; c++) {
            int sq = base + c;
            if (cl[sq]) {
                if (!(cl[sq] & JOKER_FLAG)) main_fixed += g->values[cl[sq]];
                hash += letter_hash[cl[sq] & LETTER_MASK];
            } else {
                if (nt >= maxt || !(g->cross_mask[p][sq] & rack_letters)) break;
                if (req && req[sq]) covers = 1;
                const int crossed = g->cross_score[p][sq] >= 0;
                lms[nt] = lm[sq];
                cxs[nt] = crossed ? lm[sq] * wm[sq] : 0;
                if (crossed) cross_fixed += g->cross_score[p][sq] * wm[sq];
                if (wm[sq] != 1) {
                    wmul *= wm[sq];
                    nt++;
                    for (int i = 0; i < nt; i++) eff[i] = lms[i] * wmul + cxs[i];
                    sort_desc(eff, nt);
                } else {
                    const int x = lms[nt] * wmul + cxs[nt];
                    int i = nt++;
                    while (i > 0 && eff[i - 1] < x) {
                        eff[i] = eff[i - 1];
                        i--;
                    }
                    eff[i] = x;
                }
            }
            if (c + 1 < SIZE && cl[sq + 1]) continue; /* the word runs on */
            if (req && !covers) continue;
            const int *vals = rack_values;
            int bingo = nt == g->bingo_tiles;
            if (nt >= 4 && g->nsub) {
                /* only the rack's subsets some word may spell with the grid's letters */
                vals = span_values(g, hash, nt);
                if (vals == NULL) continue; /* no word: no placement on this span */
            } else if (bingo) {
                bingo = bingo_maybe(g, hash);
            }
            int total = main_fixed * wmul + cross_fixed;
            for (int i = 0; i < nt; i++) total += vals[i] * eff[i];
            if (bingo) total += g->bingo_bonus;
            if (total > best) best = total;
        }
    }
    return best;
}

/* A binary max-heap of anchor keys (see generate()): sorting every anchor costs more than
 * taking the few that are expanded. */
static void sift_down(int64_t *h, int n, int i) {
    const int64_t x = h[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && h[c + 1] > h[c]) c++;
        if (h[c] <= x) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static void heapify(int64_t *h, int n) {
    for (int i = n / 2 - 1; i >= 0; i--) sift_down(h, n, i);
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

static void rack_summary(const Gen *g, int *rack_values, uint32_t *rack_letters) {
    int nv = 0;
    *rack_letters = g->rack[0] ? ALL_LETTERS : 0;
    for (int i = 0; i < 27; i++)
        for (int k = 0; k < g->rack[i] && nv < SIZE; k++) rack_values[nv++] = g->values[i];
    for (int i = 1; i < 27; i++)
        if (g->rack[i]) *rack_letters |= 1u << (i - 1);
    sort_desc(rack_values, nv);
    for (int i = nv; i < SIZE + 12; i++) rack_values[i] = 0;
}

#define TSQ(sq) (((sq) % SIZE) * SIZE + (sq) / SIZE)

/* The buffers generate() and followups() share: 1 when the DAWG, the grid, the rack, the
 * letter values and the multipliers have their sizes, else 0 with a ValueError set. */
static int read_buffers(Py_buffer *edges, Py_buffer *cells, Py_buffer *rack, Py_buffer *values,
                        Py_buffer *lm, Py_buffer *wm) {
    if (edges->len < 4 || edges->len % 4 || !read_bytes(cells, NSQ, "cells") ||
        !read_bytes(rack, 27, "rack") || !read_bytes(values, 27, "values") ||
        !read_bytes(lm, NSQ, "letter_mult") || !read_bytes(wm, NSQ, "word_mult")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "edges: bad DAWG buffer");
        return 0;
    }
    return 1;
}

/* Fill g from the buffers read by read_buffers() and the rules: the DAWG, the rack and
 * letter values, the grid and its multipliers in both orientations (pass 1 transposed),
 * empty_board. 0 with a ValueError set on a bad DAWG root or tile code. */
static int load_position(Gen *g, const Py_buffer *edges, const uint8_t *cells,
                         const uint8_t *rack, const uint8_t *values, const uint8_t *lm,
                         const uint8_t *wm, int first_min, int max_tiles, int bingo_tiles,
                         int bingo_bonus) {
    g->edges = (const uint32_t *)edges->buf;
    g->nedges = edges->len / 4;
    g->root = g->edges[0] >> CHILD_SHIFT;
    if (g->root >= (uint32_t)g->nedges) {
        PyErr_SetString(PyExc_ValueError, "edges: bad DAWG root");
        return 0;
    }
    for (int i = 0; i < 27; i++) {
        g->rack[i] = rack[i];
        g->values[i] = values[i];
        g->rack_len += rack[i];
    }
    g->values[0] = 0;
    g->rack_mask = 0;
    for (int i = 1; i < 27; i++)
        if (g->rack[i]) g->rack_mask |= 1u << (i - 1);
    g->first_min_tiles = first_min;
    g->max_tiles = max_tiles;
    g->bingo_tiles = bingo_tiles;
    g->bingo_bonus = bingo_bonus;
    g->empty_board = 1;
    for (int sq = 0; sq < NSQ; sq++) {
        int t = cells[sq];
        int code = t & ~JOKER_FLAG;
        if (t && (code < 1 || code > 26)) {
            PyErr_SetString(PyExc_ValueError, "cells: bad tile code");
            return 0;
        }
        if (t) g->empty_board = 0;
        int tsq = TSQ(sq);
        g->cells[0][sq] = (uint8_t)t;
        g->lm[0][sq] = lm[sq];
        g->wm[0][sq] = wm[sq];
        g->cells[1][tsq] = (uint8_t)t;
        g->lm[1][tsq] = lm[sq];
        g->wm[1][tsq] = wm[sq];
    }
    return 1;
}

/* ---- GADDAGs of the DAWGs seen ------------------------------------------------------------
 * The raw engine takes the DAWG (the interface shared with the pure-Python reference); its
 * GADDAG is looked up here by the DAWG object, which the registry keeps alive (so its
 * address is never reused): attached by scoring.lexicon from its compiled cache, else built
 * on first use. A few entries, the oldest dropped first. */
#define NREG 8
static struct {
    PyObject *dawg, *gaddag; /* strong references; gaddag is a bytes object */
    PyObject *bingo; /* the DAWG's bingo filter (bytes), made on first need, or NULL */
    Py_ssize_t ndawg;
} registry[NREG];
static int reg_next;

static int valid_graph(const uint32_t *e, Py_ssize_t n) {
    if (n < 1 || (e[0] >> CHILD_SHIFT) >= (uint32_t)n) return 0;
    if (n > 1 && !(e[n - 1] & LAST)) return 0;
    for (Py_ssize_t i = 1; i < n; i++)
        if ((e[i] >> CHILD_SHIFT) >= (uint32_t)n || (e[i] & LETTER_MASK) == 0) return 0;
    return 1;
}

/* Is `e` (n words) a well-formed GADDAG: nodes laid one after the other from word 1, each
 * edge's letter the next of its header's set, every child 0 or the index of a node. */
static int valid_gaddag(const uint32_t *e, Py_ssize_t n) {
    if (n < 1) return 0;
    uint8_t *is_node = PyMem_Calloc((size_t)n, 1);
    if (is_node == NULL) return 0;
    int ok = 1;
    Py_ssize_t i = 1;
    while (ok && i < n) {
        uint32_t set = e[i];
        is_node[i] = 1;
        Py_ssize_t k = __builtin_popcount(set);
        if (set == 0 || (set & ~SET_MASK) || i + k >= n) ok = 0;
        for (uint32_t s = set; ok && s; s &= s - 1) {
            i++;
            if ((e[i] & LETTER_MASK) != (uint32_t)__builtin_ctz(s) + 1) ok = 0;
        }
        i++;
    }
    if (ok && i != n) ok = 0;
    for (i = 1; ok && i < n;) {
        Py_ssize_t k = __builtin_popcount(e[i]);
        for (Py_ssize_t j = i + 1; j <= i + k; j++) {
            uint32_t c = e[j] >> CHILD_SHIFT;
            if (c != 0 && (c >= (uint32_t)n || !is_node[c])) ok = 0;
        }
        i += k + 1;
    }
    if (ok && (e[0] >= (uint32_t)n || (e[0] != 0 && !is_node[e[0]]) || (n > 1 && e[0] == 0)))
        ok = 0;
    PyMem_Free(is_node);
    return ok;
}

static void reg_put(PyObject *dawg, Py_ssize_t ndawg, PyObject *gaddag) {
    for (int k = 0; k < NREG; k++) {
        if (registry[k].dawg == dawg) {
            Py_INCREF(gaddag);
            Py_SETREF(registry[k].gaddag, gaddag);
            Py_CLEAR(registry[k].bingo);
            registry[k].ndawg = ndawg;
            return;
        }
    }
    int k = reg_next;
    reg_next = (reg_next + 1) % NREG;
    Py_XDECREF(registry[k].dawg);
    Py_XDECREF(registry[k].gaddag);
    Py_CLEAR(registry[k].bingo);
    Py_INCREF(dawg);
    Py_INCREF(gaddag);
    registry[k].dawg = dawg;
    registry[k].gaddag = gaddag;
    registry[k].ndawg = ndawg;
}

/* Point g at the GADDAG of the DAWG in `edges` (built now if none is known): 0 with an
 * exception set on failure. */
static int load_gaddag(Gen *g, const Py_buffer *edges) {
    PyObject *gb = NULL;
    for (int k = 0; k < NREG; k++)
        if (registry[k].dawg == edges->obj && registry[k].ndawg == edges->len / 4)
            gb = registry[k].gaddag;
    if (gb == NULL) {
        gb = build_gaddag((const uint32_t *)edges->buf, edges->len / 4);
        if (gb == NULL) return 0;
        if (edges->obj != NULL) reg_put(edges->obj, edges->len / 4, gb);
        Py_DECREF(gb); /* the registry holds it (or, with no object, g uses it now) */
        if (edges->obj == NULL) {
            PyErr_SetString(PyExc_ValueError, "edges: a DAWG object expected");
            return 0;
        }
    }
    g->gedges = (const uint32_t *)PyBytes_AS_STRING(gb);
    g->ngedges = PyBytes_GET_SIZE(gb) / 4;
    g->groot = g->gedges[0];
    return 1;
}

/* Point g at the bingo filter of the DAWG in `edges`, made now if none is known (after
 * load_gaddag(), which registers the DAWG): 0 with an exception set on failure. */
static int load_bingo(Gen *g, const Py_buffer *edges) {
    for (int k = 0; k < NREG; k++) {
        if (registry[k].dawg != edges->obj || registry[k].ndawg != edges->len / 4) continue;
        if (registry[k].bingo == NULL) {
            registry[k].bingo = build_bingo((const uint32_t *)edges->buf, edges->len / 4);
            if (registry[k].bingo == NULL) return 0;
        }
        g->bingo_bits = (const uint8_t *)PyBytes_AS_STRING(registry[k].bingo);
        break;
    }
    g->rack_hash = 0;
    for (int i = 1; i < 27; i++) g->rack_hash += (uint64_t)g->rack[i] * letter_hash[i];
    g->nsub = 0;
    struct Spans *sp = g->spans;
    if (g->bingo_bits == NULL || sp == NULL || g->rack_len > SUB_TILES) return 1;
    /* the tiles by decreasing value: a subset's values in decreasing order are then its
     * tiles' in bit order */
    int tiles[SUB_TILES], n = 0;
    for (int i = 0; i < 27; i++) {
        for (int k = 0; k < g->rack[i]; k++) {
            int j = n++;
            while (j > 0 && g->values[tiles[j - 1]] < g->values[i]) {
                tiles[j] = tiles[j - 1];
                j--;
            }
            tiles[j] = i;
        }
    }
    g->nsub = n;
    for (int i = 0; i <= SUB_TILES; i++) sp->nsize[i] = 0;
    for (int i = 0; i < SPAN_MEMO; i++) sp->memo[i].valid = 0;
    sp->hash[0] = 0;
    sp->jokers[0] = 0;
    for (int m = 1; m < (1 << n); m++) {
        const int low = __builtin_ctz((unsigned)m), prev = m & (m - 1), t = tiles[low];
        sp->hash[m] = sp->hash[prev] + (t ? letter_hash[t] : 0);
        sp->jokers[m] = (uint8_t)(sp->jokers[prev] + (t == 0));
        const int size = __builtin_popcount((unsigned)m);
        if (size < 4) continue; /* span_values() looks at 4 tiles or more */
        sp->by_size[size][sp->nsize[size]++] = (uint8_t)m;
        int k = 0;
        for (int i = 0; i < n; i++)
            if (m >> i & 1) sp->values[m][k++] = (int8_t)g->values[tiles[i]];
    }
    return 1;
}

/* gaddag(edges): the GADDAG of a DAWG (bytes, the same edge layout), remembered for it. */
static PyObject *gaddag(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer buf;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *out = NULL;
    if (buf.len < 4 || buf.len % 4 || !valid_graph(buf.buf, buf.len / 4)) {
        PyErr_SetString(PyExc_ValueError, "edges: bad DAWG buffer");
    } else {
        out = build_gaddag(buf.buf, buf.len / 4);
        if (out != NULL) reg_put(arg, buf.len / 4, out);
    }
    PyBuffer_Release(&buf);
    return out;
}

/* attach(edges, gaddag): use this GADDAG (a buffer made by gaddag()) for that DAWG. */
static PyObject *attach(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "attach(edges, gaddag) takes 2 arguments");
        return NULL;
    }
    Py_buffer d;
    if (PyObject_GetBuffer(args[0], &d, PyBUF_SIMPLE) < 0) return NULL;
    Py_ssize_t nd = d.len / 4;
    int bad = d.len < 4 || d.len % 4;
    PyBuffer_Release(&d);
    PyObject *gb = bad ? NULL : PyBytes_FromObject(args[1]);
    if (gb == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "edges: bad DAWG buffer");
        return NULL;
    }
    if (PyBytes_GET_SIZE(gb) < 4 || PyBytes_GET_SIZE(gb) % 4 ||
        !valid_gaddag((const uint32_t *)PyBytes_AS_STRING(gb), PyBytes_GET_SIZE(gb) / 4)) {
        Py_DECREF(gb);
        PyErr_SetString(PyExc_ValueError, "gaddag: bad GADDAG buffer");
        return NULL;
    }
    reg_put(args[0], nd, gb);
    Py_DECREF(gb);
    Py_RETURN_NONE;
}

static int cell_at(PyObject *cells, int sq);

/* The grid as the 225 tile codes: `cells` itself (a buffer), or Board.cells (a list of 225
 * str, "" or one letter A-Z, lowercase for a joker) converted here, which spares the caller
 * a Python loop. NULL with a ValueError on anything else. */
static PyObject *cell_codes(PyObject *cells) {
    if (!PyList_Check(cells)) {
        Py_INCREF(cells);
        return cells;
    }
    if (PyList_GET_SIZE(cells) != NSQ) {
        PyErr_SetString(PyExc_ValueError, "cells: a list of 225 squares");
        return NULL;
    }
    char codes[NSQ];
    for (int sq = 0; sq < NSQ; sq++) {
        int ch = cell_at(cells, sq);
        if (ch < 0) {
            PyErr_SetString(PyExc_ValueError, "cells: a square that is not a letter A-Z");
            return NULL;
        }
        codes[sq] = (char)(ch == 0 ? 0 : ch >= 'a' ? (ch - 96) | JOKER_FLAG : ch - 64);
    }
    return PyBytes_FromStringAndSize(codes, NSQ);
}

static PyObject *generate(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer edges_buf, cells_buf, rack_buf, values_buf, lm_buf, wm_buf;
    int center, first_min, first_h, max_tiles, bingo_tiles, bingo_bonus, mode, n;
    PyObject *cells_obj;
    if (!PyArg_ParseTuple(args, "y*Oy*y*y*y*iipiiiii", &edges_buf, &cells_obj, &rack_buf,
                          &values_buf, &lm_buf, &wm_buf, &center, &first_min, &first_h,
                          &max_tiles, &bingo_tiles, &bingo_bonus, &mode, &n))
        return NULL;
    PyObject *cells_bytes = cell_codes(cells_obj);
    if (cells_bytes == NULL || PyObject_GetBuffer(cells_bytes, &cells_buf, PyBUF_SIMPLE) < 0) {
        Py_XDECREF(cells_bytes);
        PyBuffer_Release(&edges_buf);
        PyBuffer_Release(&rack_buf);
        PyBuffer_Release(&values_buf);
        PyBuffer_Release(&lm_buf);
        PyBuffer_Release(&wm_buf);
        return NULL;
    }
    PyObject *result = NULL;
    Gen *g = PyMem_Malloc(sizeof(Gen));
    Anchor *anchors = NULL;
    struct Spans spans;
    if (g == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(g, 0, GEN_CLEARED); /* the grids and cross-sets after it: written before read */
    g->spans = &spans;
    if (!read_buffers(&edges_buf, &cells_buf, &rack_buf, &values_buf, &lm_buf, &wm_buf))
        goto done;
    PyTypeObject *objects = (mode & MOVE_OBJECTS) ? move_class : NULL;
    int packed = (mode & MOVE_LIST) != 0;
    mode &= ~(MOVE_OBJECTS | MOVE_LIST);
    if (mode < MODE_ALL || mode > MODE_ANALYSE || (mode >= MODE_TOP && n < 1) || center < 0 ||
        center >= NSQ) {
        PyErr_SetString(PyExc_ValueError, "bad mode, n or centre");
        goto done;
    }
    if (!load_position(g, &edges_buf, cells_buf.buf, rack_buf.buf, values_buf.buf, lm_buf.buf,
                       wm_buf.buf, first_min, max_tiles, bingo_tiles, bingo_bonus) ||
        !load_gaddag(g, &edges_buf) || (mode == MODE_TOP && !load_bingo(g, &edges_buf)))
        goto done;
    g->mode = mode;
    g->n = n;
    g->objects = objects;
    g->top = INT32_MIN;
    g->center[0] = center;
    g->center[1] = (center % SIZE) * SIZE + center / SIZE;
    if (packed && mode == MODE_ALL) {
        if (objects == NULL) {
            PyErr_SetString(PyExc_ValueError, "MOVE_LIST needs MOVE_OBJECTS and a move class");
            goto done;
        }
        g->packed = movelist_new(objects);
        if (g->packed == NULL) goto done;
    } else if (mode != MODE_COUNT) {
        g->list = PyList_New(0);
        if (g->list == NULL) goto done;
    }
    if (mode >= MODE_TOP) {
        g->best = PyMem_Calloc((size_t)n, sizeof(int));
        if (g->best == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    int npasses = (g->empty_board && first_h) ? 1 : 2;
    anchors = PyMem_Malloc(2 * NSQ * sizeof(Anchor)); /* written before read */
    if (anchors == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int nanchors = 0;
    int rack_values[SIZE + 12];
    uint32_t rack_letters;
    rack_summary(g, rack_values, &rack_letters);

    for (int p = 0; p < npasses; p++) {
        cross_sets(g, p);
        uint32_t occ[SIZE];
        grid_bits(g, p, occ);
        for (int row = 0; row < SIZE; row++) {
            uint8_t is_a[SIZE];
            row_anchors(g, p, row, occ, is_a);
            for (int c = 0; c < SIZE; c++) {
                if (!is_a[c]) continue;
                int limit = left_limit(g, p, row, c, is_a);
                if (mode == MODE_TOP) {
                    if (!anchor_open(g, p, row, c, rack_letters)) continue;
                    Anchor *an = &anchors[nanchors++];
                    an->pass = p;
                    an->row = row;
                    an->col = c;
                    an->limit = limit;
                    an->bound = shadow_bound(g, p, row, c, limit, rack_values, rack_letters, NULL);
                } else {
                    run_anchor(g, p, row, c, limit);
                    if (g->failed) goto done;
                }
            }
        }
    }
    if (mode == MODE_TOP) {
        /* best bound first (the first in pass, row, column order among equals), picked
         * one at a time: most anchors are never expanded, so sorting them all costs more */
        int64_t *heap = PyMem_Malloc((size_t)(nanchors + 1) * sizeof(int64_t));
        if (heap == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        /* key: the bound, then the earlier anchor first (the order of cmp_anchor) */
        for (int k = 0; k < nanchors; k++) heap[k] = (int64_t)anchors[k].bound * (1 << 20) - k;
        heapify(heap, nanchors);
        for (int left = nanchors; left > 0;) {
            const Anchor *an = &anchors[(-heap[0]) & 0xFFFFF];
            if (an->bound < cutoff(g)) break;
            heap[0] = heap[--left];
            sift_down(heap, left, 0);
            run_queued(g, an);
            if (g->failed) {
                PyMem_Free(heap);
                goto done;
            }
        }
        PyMem_Free(heap);
    }
    if (mode == MODE_TOP || mode == MODE_ANALYSE) {
        /* the moves recorded while the cut-off was lower are dropped */
        int cut = cutoff(g);
        if (g->nbest < g->n && g->nbest > 0) cut = g->best[g->nbest - 1];
        PyObject *kept = PyList_New(0);
        if (kept == NULL) goto done;
        Py_ssize_t len = PyList_GET_SIZE(g->list);
        for (Py_ssize_t i = 0; i < len; i++) {
            PyObject *tup = PyList_GET_ITEM(g->list, i);
            long score = g->objects != NULL ? ((MoveObject *)tup)->score
                                            : PyLong_AsLong(PyTuple_GET_ITEM(tup, 0));
            if (score >= cut && PyList_Append(kept, tup) < 0) {
                Py_DECREF(kept);
                goto done;
            }
        }
        if (mode == MODE_TOP) {
            result = kept;
        } else {
            result = Py_BuildValue("(lliN)", g->placements, g->scrabbles,
                                   g->placements ? g->top : -1, kept);
        }
    } else if (mode == MODE_COUNT) {
        result = Py_BuildValue("(lli)", g->placements, g->scrabbles, g->placements ? g->top : -1);
    } else if (g->packed != NULL) {
        result = (PyObject *)g->packed;
        g->packed = NULL;
    } else {
        result = g->list;
        g->list = NULL;
    }
done:
    if (g != NULL) {
        if (g->failed && !PyErr_Occurred()) PyErr_NoMemory();
        if (g->failed) Py_CLEAR(result);
        Py_XDECREF(g->list);
        Py_XDECREF(g->packed);
        PyMem_Free(g->best);
        PyMem_Free(g);
    }
    PyMem_Free(anchors);
    PyBuffer_Release(&edges_buf);
    PyBuffer_Release(&cells_buf);
    Py_DECREF(cells_bytes);
    PyBuffer_Release(&rack_buf);
    PyBuffer_Release(&values_buf);
    PyBuffer_Release(&lm_buf);
    PyBuffer_Release(&wm_buf);
    return result;
}

/* The best score >= g->threshold of the rack on the current cells (both passes; INT32_MIN
 * when none), the cross-sets being up to date. With g->req_on only the moves putting a tile
 * on a square flagged in g->req count, and only the lines holding such a square are looked
 * at: a horizontal move covering a square lies in its row, a vertical one in its column.
 * Anchors are visited best shadow bound first (with req_on the bound only counts spans
 * covering a flagged square) and the search stops when no bound reaches the threshold or the
 * best found. */
static int search_best(Gen *g, Anchor *anchors, const int *rack_values, uint32_t rack_letters) {
    g->mode = MODE_BEST;
    g->rline = 0; /* the grid, its cross-sets or the flags may have changed */
    g->found = INT32_MIN;
    g->ntops = 0;
    int nanchors = 0;
    for (int p = 0; p < 2; p++) {
        uint32_t occ[SIZE];
        grid_bits(g, p, occ);
        for (int row = 0; row < SIZE; row++) {
            if (g->req_on && !row_flagged(g, p, row)) continue;
            uint8_t is_a[SIZE];
            row_anchors(g, p, row, occ, is_a);
            for (int c = 0; c < SIZE; c++) {
                if (!is_a[c]) continue;
                if (!anchor_open(g, p, row, c, rack_letters)) continue;
                int limit = left_limit(g, p, row, c, is_a);
                int bound = shadow_bound(g, p, row, c, limit, rack_values, rack_letters,
                                         g->req_on ? g->req[p] : NULL);
                if (bound < g->threshold) continue;
                Anchor *an = &anchors[nanchors++];
                an->pass = p;
                an->row = row;
                an->col = c;
                an->limit = limit;
                an->bound = bound;
            }
        }
    }
    qsort(anchors, (size_t)nanchors, sizeof(Anchor), cmp_anchor);
    for (int k = 0; k < nanchors; k++) {
        Anchor *an = &anchors[k];
        int cut = g->threshold;
        if (g->found != INT32_MIN) {
            int f = g->collect ? g->found : g->found + 1;
            if (f > cut) cut = f;
        }
        if (an->bound < cut) break;
        run_queued(g, an);
        g->anchors_run++;
    }
    return g->found;
}


/* Cross-sets of B + one new tile: the square q (pass p) at the end of a perpendicular run
 * that holds a single tile of the first move, on `side` (0: before q, 1: after), coded
 * `code`. The run is B's tiles plus that one tile, so the result depends on (p, q, side,
 * code) only: computed once per followups() call. */
typedef struct {
    uint32_t mask;
    int score;
    int valid;
} CrossMemo;

static void cross_memo(Gen *g, CrossMemo *memo, int p, int q, int side, int code) {
    CrossMemo *m = &memo[((p * NSQ + q) * 2 + side) * 64 + code];
    if (!m->valid) {
        cross_square(g, p, q);
        m->mask = g->cross_mask[p][q];
        m->score = g->cross_score[p][q];
        m->valid = 1;
    }
    g->cross_mask[p][q] = m->mask;
    g->cross_score[p][q] = m->score;
}


typedef struct {
    int s, h, nt, group, dominated;
    uint8_t sqs[SIZE], codes[SIZE];
} First;

typedef struct {
    uint32_t key;
    int maxval[SIZE]; /* highest value of the k-th tile among the group's moves */
    int bound, xstar, done;
} Group;

/* Cross data of a Q square for the group bound: open to every letter, the cross word's
 * points at the stand-in values. */
static void cross_open(Gen *g, int p, int sq) {
    cross_square_score(g, p, sq);
    g->cross_mask[p][sq] = ALL_LETTERS;
}

/* Puts first move f on the grid (both passes), lists Q (qs, nq), marks S ∪ Q in blk, flags
 * Q in g->req and updates the cross-sets Q changes: exactly (memo: see cross_memo) or, memo
 * NULL, open (cross_open). */
static void place_first(Gen *g, const First *f, int *qs, int *nq, uint64_t *blk,
                        CrossMemo *memo) {
    for (int k = 0; k < f->nt; k++) {
        g->cells[0][f->sqs[k]] = f->codes[k];
        g->cells[1][TSQ(f->sqs[k])] = f->codes[k];
    }
    const uint8_t *c0 = g->cells[0];
    const int h = f->h, nt = f->nt;
    *nq = 0;
    /* Q: the ends of the runs through M's tiles. The end of a horizontal run has a new
     * vertical-pass cross-set (pass 1: its perpendicular word is that run), the end of a
     * vertical run a new horizontal-pass one; no other cross-set changes. A run through one
     * tile of M only (M's perpendicular runs, or both runs of a one-tile M) goes through the
     * memo. */
    for (int k = 0; k < nt; k++) {
        int sq = f->sqs[k], r = sq / SIZE, c = sq % SIZE;
        blk[sq >> 6] |= 1ULL << (sq & 63);
        int l = c, rr = c, u = r, d = r;
        while (l > 0 && c0[r * SIZE + l - 1]) l--;
        while (rr < SIZE - 1 && c0[r * SIZE + rr + 1]) rr++;
        while (u > 0 && c0[(u - 1) * SIZE + c]) u--;
        while (d < SIZE - 1 && c0[(d + 1) * SIZE + c]) d++;
        int h_single = !h || nt == 1, v_single = h || nt == 1;
        int ends[4] = {l > 0 ? r * SIZE + l - 1 : -1, rr < SIZE - 1 ? r * SIZE + rr + 1 : -1,
                       u > 0 ? (u - 1) * SIZE + c : -1, d < SIZE - 1 ? (d + 1) * SIZE + c : -1};
        for (int e = 0; e < 4; e++) {
            int q = ends[e];
            int horiz = e < 2, single = horiz ? h_single : v_single;
            if (q < 0 || (!single && k > 0)) continue; /* M's own run: once */
            qs[(*nq)++] = q;
            int p = horiz ? 1 : 0, pq = horiz ? TSQ(q) : q;
            if (memo == NULL)
                cross_open(g, p, pq);
            else if (single)
                cross_memo(g, memo, p, pq, (e & 1) ? 0 : 1, f->codes[k]);
            else
                cross_square(g, p, pq);
        }
    }
    for (int k = 0; k < *nq; k++) {
        blk[qs[k] >> 6] |= 1ULL << (qs[k] & 63);
        g->req[0][qs[k]] = 1;
        g->req[1][TSQ(qs[k])] = 1;
    }
}

static void unplace_first(Gen *g, const First *f, const int *qs, int nq,
                          uint32_t (*base_mask)[NSQ], int (*base_score)[NSQ]) {
    for (int k = 0; k < f->nt; k++) {
        g->cells[0][f->sqs[k]] = 0;
        g->cells[1][TSQ(f->sqs[k])] = 0;
    }
    for (int k = 0; k < nq; k++) {
        int q = qs[k], tq = TSQ(q);
        g->req[0][q] = 0;
        g->req[1][tq] = 0;
        g->cross_mask[0][q] = base_mask[0][q];
        g->cross_score[0][q] = base_score[0][q];
        g->cross_mask[1][tq] = base_mask[1][tq];
        g->cross_score[1][tq] = base_score[1][tq];
    }
}

/* The highest restricted shadow bound over the anchors of the lines holding a flagged square
 * (INT32_MIN: no move can put a tile on one). */
static int max_bound(Gen *g, const int *rack_values, uint32_t rack_letters) {
    int best = INT32_MIN;
    for (int p = 0; p < 2; p++) {
        uint32_t occ[SIZE];
        grid_bits(g, p, occ);
        for (int row = 0; row < SIZE; row++) {
            if (!row_flagged(g, p, row)) continue;
            uint8_t is_a[SIZE];
            row_anchors(g, p, row, occ, is_a);
            for (int c = 0; c < SIZE; c++) {
                if (!is_a[c]) continue;
                int bound = shadow_bound(g, p, row, c, left_limit(g, p, row, c, is_a),
                                         rack_values, rack_letters, g->req[p]);
                if (bound > best) best = bound;
            }
        }
    }
    return best;
}

/* followups(edges, cells, rack, values, letter_mult, word_mult, center, first_min_tiles,
 * first_horizontal, max_tiles, bingo_tiles, bingo_bonus, firsts, first_rack, floor)
 *
 * `firsts`: raw moves (score, horizontal, start, word, new_mask) playable on `cells`, best
 * first. For each, in order, the best score of `rack` on the grid it leaves (0 when nothing
 * can be played) is found exactly whenever first + second >= the best sum found so far
 * (starting at `floor`); the others are cut. Returns ([(index, second)], (dominated, bounded,
 * searched, full, anchors)): every move whose sum reached the running best, with its exact
 * second score (the caller keeps those equal to the final best), and counters: first moves
 * skipped as dominated, second-move searches ended by bounds alone, searches that expanded
 * an anchor, of which over the whole grid, anchors expanded.
 *
 * Dominance (first_rack: the first rack's counts): a first move putting a joker down as a
 * letter the rack still holds as an unused tile is skipped — the same move with the tile
 * scores strictly more, and every second move after it at least as much (same letters).
 *
 * Why the cuts are exact. B is the grid, M a first move, B' = B + M, S = M's squares, Q the
 * empty squares of B' just beyond each end of the runs (in both directions) through M's
 * tiles. (1) A move X on B' whose main or cross words hold a tile of M puts a tile on Q: such
 * a word is a run of B' + X holding the B'-run R through that tile and one of X's tiles
 * (outside R, R being maximal), so it holds a square just beyond an end of R, empty in B'
 * — a tile of X on Q. (2) A move X on B' putting no tile on Q therefore forms the same words
 * on B (its runs hold no tile of M, and are bounded by squares empty in B' hence in B), is
 * connected to a tile of B (it touches no tile of M: a touching tile would be in one of its
 * words) and so is a legal move on B with the same score: at most T2, the best score of the
 * rack on B (when B is empty there is no such move). (3) Conversely a move X of B putting no
 * tile on S or Q is, by (1) applied to B' + X, a legal move on B' with the same score. So,
 * with C the best score on B' among moves putting a tile on Q, best2(M) = max(A, C) where
 * A <= T2, and A = T2 when a top move of B avoids S and Q. need = best - score(M):
 *   - a top move of B avoids S and Q: best2 = C when C > T2, else T2; C is searched with
 *     threshold max(need, T2 + 1), T2 taken when nothing reaches it;
 *   - else when need > T2: only C can reach need: searched with threshold need;
 *   - else the whole grid is searched with threshold need.
 * A search that finds nothing >= its threshold proves best2 < need (or, need <= 0, that no
 * move exists: second = 0), so the pair cannot reach the best sum: cut. */
static PyObject *followups(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer edges_buf, cells_buf, rack_buf, values_buf, lm_buf, wm_buf, first_buf;
    int center, first_min, first_h, max_tiles, bingo_tiles, bingo_bonus, floor_;
    PyObject *firsts;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*iipiiiOy*i", &edges_buf, &cells_buf, &rack_buf,
                          &values_buf, &lm_buf, &wm_buf, &center, &first_min, &first_h,
                          &max_tiles, &bingo_tiles, &bingo_bonus, &firsts, &first_buf, &floor_))
        return NULL;
    PyObject *result = NULL, *out = NULL;
    Gen *g = PyMem_Calloc(1, sizeof(Gen));
    Anchor *anchors = NULL;
    struct Spans spans;
    uint32_t(*base_mask)[NSQ] = NULL;
    int(*base_score)[NSQ] = NULL;
    CrossMemo *memo = NULL;
    First *fm = NULL;
    Group *groups = NULL;
    int *table = NULL;
    if (g == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    g->spans = &spans; /* the second rack's subsets: the same for every first move */
    if (!read_buffers(&edges_buf, &cells_buf, &rack_buf, &values_buf, &lm_buf, &wm_buf) ||
        !read_bytes(&first_buf, 27, "first_rack"))
        goto done;
    if (!PyList_Check(firsts)) {
        PyErr_SetString(PyExc_TypeError, "firsts: a list of raw moves expected");
        goto done;
    }
    (void)center;
    (void)first_h;
    if (!load_position(g, &edges_buf, cells_buf.buf, rack_buf.buf, values_buf.buf, lm_buf.buf,
                       wm_buf.buf, first_min, max_tiles, bingo_tiles, bingo_bonus) ||
        !load_gaddag(g, &edges_buf) || !load_bingo(g, &edges_buf))
        goto done;
    const uint8_t *first_rack = first_buf.buf;
    g->mode = MODE_BEST;
    g->n = 1;
    const int board_empty = g->empty_board;
    /* The cross-sets of B, kept: a first move M only changes those of the empty squares
     * whose perpendicular run reaches one of its tiles — the squares of Q below, recomputed
     * for each M and restored after. (The squares M fills are never read while filled.) */
    cross_sets(g, 0);
    cross_sets(g, 1);
    base_mask = PyMem_Malloc(sizeof(g->cross_mask));
    base_score = PyMem_Malloc(sizeof(g->cross_score));
    memo = PyMem_Calloc((size_t)2 * NSQ * 2 * 64, sizeof(CrossMemo));
    if (base_mask == NULL || base_score == NULL || memo == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(base_mask, g->cross_mask, sizeof(g->cross_mask));
    memcpy(base_score, g->cross_score, sizeof(g->cross_score));
    anchors = PyMem_Calloc(2 * NSQ, sizeof(Anchor));
    out = PyList_New(0);
    if (anchors == NULL || out == NULL) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int rack_values[SIZE + 12];
    uint32_t rack_letters;
    rack_summary(g, rack_values, &rack_letters);
    long dominated = 0, bounded = 0, searched = 0, full = 0;
    /* T2 and the squares of (up to MAXTOPS of) the top moves on B */
    int t2 = -1, nx = 0;
    if (!board_empty) {
        g->req_on = 0;
        g->threshold = INT32_MIN;
        g->collect = 1;
        int f = search_best(g, anchors, rack_values, rack_letters);
        t2 = f == INT32_MIN ? -1 : f;
        nx = t2 >= 0 ? g->ntops : 0;
        g->collect = 0;
    }
    g->empty_board = 0; /* B' always holds the first move */
    /* The first moves, parsed once; each belongs to a group of moves putting tiles on the
     * same squares (same Q, same lines, same anchors). */
    Py_ssize_t nf = PyList_GET_SIZE(firsts);
    size_t tsize = 64;
    while (tsize < (size_t)nf * 2 + 2) tsize <<= 1;
    fm = PyMem_Calloc((size_t)nf + 1, sizeof(First));
    groups = PyMem_Calloc((size_t)nf + 1, sizeof(Group));
    table = PyMem_Calloc(tsize, sizeof(int));
    if (fm == NULL || groups == NULL || table == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int ngroups = 0;
    for (Py_ssize_t i = 0; i < nf; i++) {
        PyObject *t = PyList_GET_ITEM(firsts, i);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 5 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(t, 3)) ||
            !PyUnicode_IS_ASCII(PyTuple_GET_ITEM(t, 3))) {
            PyErr_SetString(PyExc_ValueError, "firsts: (score, horizontal, start, word, mask)");
            goto done;
        }
        long s = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
        int h = PyObject_IsTrue(PyTuple_GET_ITEM(t, 1));
        long start = PyLong_AsLong(PyTuple_GET_ITEM(t, 2));
        long mask = PyLong_AsLong(PyTuple_GET_ITEM(t, 4));
        if (PyErr_Occurred() || h < 0) goto done;
        PyObject *word = PyTuple_GET_ITEM(t, 3);
        Py_ssize_t len = PyUnicode_GET_LENGTH(word);
        const Py_UCS1 *w = PyUnicode_1BYTE_DATA(word);
        First *f = &fm[i];
        int used[27] = {0}, bad = len > SIZE || len < 1 || s < 0 || s > 100000 || start < 0 ||
                                  mask < 0 || mask >= (1L << SIZE);
        const long step = h ? 1 : SIZE;
        f->s = (int)s;
        f->h = h;
        for (Py_ssize_t k = 0; k < len && !bad; k++) {
            long sq = start + k * step;
            if (sq < 0 || sq >= NSQ || (h && sq / SIZE != start / SIZE)) {
                bad = 1;
                break;
            }
            if (!(mask >> k & 1)) continue;
            int ch = w[k], lower = ch >= 'a' && ch <= 'z', upper = ch >= 'A' && ch <= 'Z';
            if ((!lower && !upper) || g->cells[0][sq]) {
                bad = 1;
                break;
            }
            int code = lower ? ch - 96 : ch - 64;
            f->sqs[f->nt] = (uint8_t)sq;
            f->codes[f->nt++] = (uint8_t)(code | (lower ? JOKER_FLAG : 0));
            if (upper) used[code]++;
        }
        if (bad || f->nt == 0) {
            PyErr_SetString(PyExc_ValueError, "firsts: a move that does not fit the grid");
            goto done;
        }
        for (int k = 0; k < f->nt && !f->dominated; k++)
            if ((f->codes[k] & JOKER_FLAG) &&
                first_rack[f->codes[k] & LETTER_MASK] > used[f->codes[k] & LETTER_MASK])
                f->dominated = 1;
        if (f->dominated) continue;
        uint32_t key = (uint32_t)start | (uint32_t)h << 8 | (uint32_t)mask << 9;
        size_t slot = (key * 2654435761u) & (tsize - 1);
        while (table[slot] && groups[table[slot] - 1].key != key) slot = (slot + 1) & (tsize - 1);
        if (!table[slot]) {
            table[slot] = ++ngroups;
            groups[ngroups - 1].key = key;
        }
        f->group = table[slot] - 1;
        Group *gr = &groups[f->group];
        for (int k = 0; k < f->nt; k++) {
            int v = (f->codes[k] & JOKER_FLAG) ? 0 : g->values[f->codes[k]];
            if (v > gr->maxval[k]) gr->maxval[k] = v;
        }
    }
    /* a letter of each value (the group bound's stand-ins; 0: a joker) */
    int of_value[256];
    for (int v = 0; v < 256; v++) of_value[v] = JOKER_FLAG | 5;
    for (int c = 26; c >= 1; c--)
        if (g->values[c] > 0) of_value[g->values[c]] = c;

    long best = floor_;
    for (Py_ssize_t i = 0; i < nf; i++) {
        First *f = &fm[i];
        if (f->dominated) {
            dominated++;
            continue;
        }
        long need = best - f->s, thr, fallback = 0;
        int qs[4 * SIZE], nq = 0;
        uint64_t blk[4] = {0, 0, 0, 0};
        Group *gr = &groups[f->group];
        if (!gr->done) {
            /* the group's bound: the restricted shadow bound with each tile at the highest
             * value it has in the group, and every Q square open to all letters with its
             * cross word at those values — at least every member's own bound (the bound
             * only grows with the fixed values, the cross points and the open squares) */
            First st = *f;
            for (int k = 0; k < st.nt; k++) st.codes[k] = (uint8_t)of_value[gr->maxval[k]];
            place_first(g, &st, qs, &nq, blk, NULL);
            gr->bound = max_bound(g, rack_values, rack_letters);
            unplace_first(g, &st, qs, nq, base_mask, base_score);
            gr->xstar = 0;
            for (int j = 0; j < nx && !gr->xstar; j++)
                if (!(g->tops[j][0] & blk[0]) && !(g->tops[j][1] & blk[1]) &&
                    !(g->tops[j][2] & blk[2]) && !(g->tops[j][3] & blk[3]))
                    gr->xstar = 1;
            gr->done = 1;
        }
        if (gr->xstar) {
            g->req_on = 1;
            thr = need > t2 + 1 ? need : t2 + 1;
            fallback = t2;
        } else if (need > t2) {
            g->req_on = 1;
            thr = need;
        } else {
            g->req_on = 0;
            thr = need;
        }
        if (thr < INT32_MIN + 1) thr = INT32_MIN + 1;
        if (thr > INT32_MAX) thr = INT32_MAX;
        int found = INT32_MIN;
        if (g->req_on && gr->bound < thr) {
            bounded++;
        } else {
            if (!g->req_on) full++;
            place_first(g, f, qs, &nq, blk, memo);
            g->threshold = (int)thr;
            long before = g->anchors_run;
            found = search_best(g, anchors, rack_values, rack_letters);
            if (g->anchors_run == before)
                bounded++;
            else
                searched++;
            unplace_first(g, f, qs, nq, base_mask, base_score);
            if (g->failed) goto done;
        }
        long eff = found != INT32_MIN ? found : fallback;
        if (f->s + eff >= best) {
            PyObject *pair = Py_BuildValue("(nl)", i, eff);
            if (pair == NULL || PyList_Append(out, pair) < 0) {
                Py_XDECREF(pair);
                goto done;
            }
            Py_DECREF(pair);
            if (f->s + eff > best) best = f->s + eff;
        }
    }
    result = Py_BuildValue("(O(lllll))", out, dominated, bounded, searched, full, g->anchors_run);
done:
    Py_XDECREF(out);
    if (g != NULL) {
        if (g->failed && !PyErr_Occurred()) PyErr_NoMemory();
        if (g->failed) Py_CLEAR(result);
        Py_XDECREF(g->list);
        PyMem_Free(g);
    }
    PyMem_Free(anchors);
    PyMem_Free(base_mask);
    PyMem_Free(base_score);
    PyMem_Free(memo);
    PyMem_Free(fm);
    PyMem_Free(groups);
    PyMem_Free(table);
    PyBuffer_Release(&edges_buf);
    PyBuffer_Release(&cells_buf);
    PyBuffer_Release(&rack_buf);
    PyBuffer_Release(&values_buf);
    PyBuffer_Release(&lm_buf);
    PyBuffer_Release(&wm_buf);
    PyBuffer_Release(&first_buf);
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

/* check(cells, square, horizontal, word, empty, tables, center, first_min_tiles,
 * first_horizontal, bingo_tiles, bingo_bonus, edges, detail): the verifier's fast path of
 * scoring.validate.check_move for a move that is entirely legal.
 *
 * `cells` is Board.cells (a list of 225 str: "" or one letter, lowercase for a joker);
 * `tables` is 128 letter values by ASCII code (255: not a letter of the set) then the 225
 * letter and the 225 word multipliers; `edges` the DAWG (or None: the words are not looked
 * up). Returns None unless check_move would find the move legal with no reason at all
 * (whatever is unusual, an error included, is left to the pure-Python reference, which
 * gives the French reasons); otherwise (score, bonus, squares, cells, letters, words,
 * old, labels, rack): `squares` (bytes) and `cells` (str) the tiles put down in square
 * order, `letters` the same with a joker as '?', `words` a tuple of (start square,
 * horizontal, text, points, main) in check_move's order (main word first, then the
 * cross-words in tile order), `old` (bytes) the squares of those words already on the
 * grid, `labels` the words as a report writes them ("TEXT points"), `rack` the letters
 * sorted, jokers last. Without `detail`, `words` is None (the verifier needs the labels
 * only). */
static int cell_at(PyObject *cells, int sq) {
    PyObject *c = PyList_GET_ITEM(cells, sq);
    if (!PyUnicode_Check(c)) return -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(c);
    if (n == 0) return 0;
    if (n != 1 || !PyUnicode_IS_ASCII(c)) return -1;
    int ch = PyUnicode_1BYTE_DATA(c)[0];
    if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'))) return -1;
    return ch;
}

static int dawg_has(const uint32_t *edges, Py_ssize_t nedges, const uint8_t *w, int n) {
    uint32_t node = edges[0] >> CHILD_SHIFT, last = 0;
    for (int k = 0; k < n; k++) {
        Py_ssize_t i = find_edge(edges, nedges, node, (uint32_t)(w[k] - 64));
        if (i < 0) return 0;
        last = edges[i];
        node = last >> CHILD_SHIFT;
    }
    return (last & ACCEPTS) != 0;
}

typedef struct {
    int start, horizontal, len, points, main;
    uint8_t text[SIZE];
} CheckWord;

/* The cell at `s` (0 empty, the letter, -1 anything else), read from the list once. */
static inline int lazy_cell(PyObject *cells, int8_t *board, int s) {
    if (board[s] == -2) board[s] = cell_at(cells, s);
    return board[s];
}

/* The maximal word through `sq` along `h` on board + new tiles (len < 2: no word);
 * -1 when a cell is unusual or a letter has no value. */
static int check_word_through(PyObject *cells, int8_t *board, const uint8_t *isnew,
                              const uint8_t *tables, int sq, int h, CheckWord *w, uint8_t *old,
                              int *nold) {
    const uint8_t *values = tables, *lm = tables + 128, *wm = tables + 128 + NSQ;
    int step = h ? 1 : SIZE;
    int lo = h ? sq - sq % SIZE : sq % SIZE;
    int hi = h ? lo + SIZE - 1 : lo + SIZE * (SIZE - 1);
    int first = sq, last = sq, c;
    while (first - step >= lo && (c = lazy_cell(cells, board, first - step)) != 0) {
        if (c < 0) return -1;
        first -= step;
    }
    while (last + step <= hi && (c = lazy_cell(cells, board, last + step)) != 0) {
        if (c < 0) return -1;
        last += step;
    }
    w->len = 0;
    if (first == last) return 0;
    int total = 0, mult = 1, n = 0;
    for (int s = first; s <= last; s += step) {
        int ch = board[s];
        int v = values[ch & 0x7f];
        if (v == 255) return -1;
        w->text[n++] = (uint8_t)ch;
        if (isnew[s]) {
            total += v * lm[s];
            mult *= wm[s];
        } else {
            total += v;
            old[(*nold)++] = (uint8_t)s;
        }
    }
    w->start = first;
    w->horizontal = h;
    w->len = n;
    w->points = total * mult;
    return 0;
}

/* `v` written in decimal at `out` (as "%d"); the number of characters. */
static int format_points(char *out, int v) {
    char digits[12];
    int n = 0, m = 0;
    unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) out[m++] = '-';
    while (n) out[m++] = digits[--n];
    return m;
}

/* The body of check() on C values (see there): a new reference to the answer, to
 * None (the pure-Python reference judges), or NULL with an exception. */
static PyObject *check_one(PyObject *cells, long square, int horizontal, PyObject *word,
                           int empty, const uint8_t *tables, long center, long first_min,
                           int first_h, long bingo_tiles, long bingo_bonus,
                           const uint32_t *edges, Py_ssize_t nedges, int detail) {
    int have_edges = edges != NULL;
    PyObject *result = NULL;
    /* -- the written word: ASCII letters only, on the grid ---------------------------- */
    if (!PyUnicode_Check(word) || !PyUnicode_IS_ASCII(word)) goto fallback;
    Py_ssize_t n = PyUnicode_GET_LENGTH(word);
    const Py_UCS1 *w = PyUnicode_1BYTE_DATA(word);
    int row = (int)square / SIZE, col = (int)square % SIZE;
    int pos = horizontal ? col : row, step = horizontal ? 1 : SIZE;
    if (n < 1 || pos + n > SIZE) goto fallback;
    int8_t board[NSQ]; /* -2 not read yet, -1 unusual, 0 empty, else the letter */
    uint8_t isnew[NSQ];
    memset(isnew, 0, sizeof isnew);
    /* only the squares of the word, its ends and the neighbours of its tiles are read */
    memset(board, -2, sizeof board);
#define CELL(s) lazy_cell(cells, board, s)
    uint8_t tsq[SIZE], tch[SIZE];
    int nt = 0;
    for (int i = 0; i < n; i++) {
        int ch = w[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'))) goto fallback;
        int sq = (int)square + i * step;
        int cur = CELL(sq);
        if (cur < 0) goto fallback;
        if (cur) {
            if ((cur & ~0x20) != (ch & ~0x20)) goto fallback; /* overlap: a reason */
            continue;
        }
        tsq[nt] = (uint8_t)sq;
        tch[nt++] = (uint8_t)ch;
    }
    if (nt == 0) goto fallback;
    /* -- geometry (the tiles are on one line, without a hole, on empty squares) ------- */
    if (empty) {
        int covers = 0;
        for (int i = 0; i < nt; i++) covers |= tsq[i] == center;
        if (!covers || nt < first_min) goto fallback;
        if (first_h && nt > 1 && !horizontal) goto fallback;
    } else {
        int touches = 0;
        for (int i = 0; i < nt && !touches; i++) {
            int sq = tsq[i], r = sq / SIZE, c = sq % SIZE, v;
            if (c > 0 && ((v = CELL(sq - 1)) != 0)) touches = 1;
            else if (c < SIZE - 1 && ((v = CELL(sq + 1)) != 0)) touches = 1;
            else if (r > 0 && ((v = CELL(sq - SIZE)) != 0)) touches = 1;
            else if (r < SIZE - 1 && ((v = CELL(sq + SIZE)) != 0)) touches = 1;
        }
        if (!touches) goto fallback;
    }
    /* the written word is the whole word: nothing just before or after it */
    if (pos > 0 && CELL((int)square - step) != 0) goto fallback;
    if (pos + n < SIZE && CELL((int)square + (int)n * step) != 0) goto fallback;
    /* -- the words formed (the grid read where they run) -------------------------------- */
    for (int i = 0; i < nt; i++) {
        board[tsq[i]] = tch[i];
        isnew[tsq[i]] = 1;
    }
    CheckWord words[SIZE + 1];
    int nw = 0, has_main = 0;
    uint8_t old[(SIZE + 1) * SIZE];
    int nold = 0;
    if (check_word_through(cells, board, isnew, tables, tsq[0], horizontal, &words[nw], old,
                           &nold) < 0)
        goto fallback;
    if (words[nw].len) {
        words[nw++].main = 1;
        has_main = 1;
    }
    for (int i = 0; i < nt; i++) {
        if (check_word_through(cells, board, isnew, tables, tsq[i], !horizontal, &words[nw],
                               old, &nold) < 0)
            goto fallback;
        if (words[nw].len) {
            words[nw].main = !has_main && nw == 0;
            nw++;
        }
    }
    /* no word, or a one-tile move whose word is not in the written direction: reasons */
    if (nw == 0 || !has_main) goto fallback;
    int total = 0;
    for (int k = 0; k < nw; k++) {
        total += words[k].points;
        if (have_edges) {
            uint8_t up[SIZE];
            for (int i = 0; i < words[k].len; i++) up[i] = words[k].text[i] & ~0x20;
            if (!dawg_has(edges, nedges, up, words[k].len))
                goto fallback;
        }
    }
    int bonus = nt == bingo_tiles ? (int)bingo_bonus : 0;
    char letters[SIZE];
    for (int i = 0; i < nt; i++) letters[i] = (tch[i] >= 'a') ? '?' : (char)tch[i];
    char rack[SIZE];
    int nr = 0;
    for (int c = 'A'; c <= 'Z'; c++)
        for (int i = 0; i < nt; i++)
            if (letters[i] == c) rack[nr++] = (char)c;
    while (nr < nt) rack[nr++] = '?';
    PyObject *labels = PyTuple_New(nw);
    if (labels == NULL) goto done;
    for (int k = 0; k < nw; k++) {
        char buf[SIZE + 16];
        memcpy(buf, words[k].text, (size_t)words[k].len);
        int m = words[k].len;
        buf[m++] = ' ';
        m += format_points(buf + m, words[k].points);
        PyObject *label = PyUnicode_FromStringAndSize(buf, m);
        if (label == NULL) {
            Py_DECREF(labels);
            goto done;
        }
        PyTuple_SET_ITEM(labels, k, label);
    }
    PyObject *wt = Py_None;
    Py_INCREF(wt);
    if (detail) {
        Py_DECREF(wt);
        wt = PyTuple_New(nw);
        if (wt == NULL) {
            Py_DECREF(labels);
            goto done;
        }
        for (int k = 0; k < nw; k++) {
            PyObject *item = Py_BuildValue(
                "(iOs#iO)", words[k].start, words[k].horizontal ? Py_True : Py_False,
                (const char *)words[k].text, (Py_ssize_t)words[k].len, words[k].points,
                words[k].main ? Py_True : Py_False);
            if (item == NULL) {
                Py_DECREF(wt);
                Py_DECREF(labels);
                goto done;
            }
            PyTuple_SET_ITEM(wt, k, item);
        }
    }
    PyObject *items[9] = {
        PyLong_FromLong(total + bonus),
        PyLong_FromLong(bonus),
        PyBytes_FromStringAndSize((const char *)tsq, nt),
        PyUnicode_FromStringAndSize((const char *)tch, nt),
        PyUnicode_FromStringAndSize(letters, nt),
        wt,
        PyBytes_FromStringAndSize((const char *)old, nold),
        labels,
        PyUnicode_FromStringAndSize(rack, nt),
    };
    result = PyTuple_New(9);
    for (int k = 0; k < 9; k++) {
        if (items[k] == NULL || result == NULL) {
            for (int j = 0; j < 9; j++) Py_XDECREF(items[j]);
            Py_XDECREF(result);
            result = NULL;
            goto done;
        }
    }
    for (int k = 0; k < 9; k++) PyTuple_SET_ITEM(result, k, items[k]);
    goto done;
#undef CELL
fallback:
    result = Py_None;
    Py_INCREF(result);
done:
    return result;
}

static PyObject *check(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "check() takes 13 arguments");
        return NULL;
    }
    PyObject *cells = args[0], *word = args[3];
    if (!PyList_Check(cells) || PyList_GET_SIZE(cells) != NSQ) {
        PyErr_SetString(PyExc_ValueError, "cells: a list of 225 squares");
        return NULL;
    }
    long square = PyLong_AsLong(args[1]);
    int horizontal = PyObject_IsTrue(args[2]);
    int empty = PyObject_IsTrue(args[4]);
    long center = PyLong_AsLong(args[6]), first_min = PyLong_AsLong(args[7]);
    int first_h = PyObject_IsTrue(args[8]);
    int detail = PyObject_IsTrue(args[12]);
    long bingo_tiles = PyLong_AsLong(args[9]), bingo_bonus = PyLong_AsLong(args[10]);
    if (PyErr_Occurred()) return NULL;
    if (square < 0 || square >= NSQ) {
        PyErr_SetString(PyExc_ValueError, "square out of the grid");
        return NULL;
    }
    Py_buffer tb;
    if (PyObject_GetBuffer(args[5], &tb, PyBUF_SIMPLE) < 0) return NULL;
    if (tb.len != 128 + 2 * NSQ) {
        PyBuffer_Release(&tb);
        PyErr_SetString(PyExc_ValueError, "tables: 128 values and 2 x 225 multipliers");
        return NULL;
    }
    const uint8_t *tables = (const uint8_t *)tb.buf;
    Py_buffer eb;
    int have_edges = args[11] != Py_None;
    if (have_edges) {
        if (PyObject_GetBuffer(args[11], &eb, PyBUF_SIMPLE) < 0) {
            PyBuffer_Release(&tb);
            return NULL;
        }
        if (eb.len < 4 || eb.len % 4) {
            PyBuffer_Release(&eb);
            PyBuffer_Release(&tb);
            PyErr_SetString(PyExc_ValueError, "edges: bad DAWG buffer");
            return NULL;
        }
    }
    PyObject *result = check_one(cells, square, horizontal, word, empty, tables, center,
                                 first_min, first_h, bingo_tiles, bingo_bonus,
                                 have_edges ? (const uint32_t *)eb.buf : NULL,
                                 have_edges ? eb.len / 4 : 0, detail);
    if (have_edges) PyBuffer_Release(&eb);
    PyBuffer_Release(&tb);
    return result;
}

/* sheet(cells, moves, start, tiles, refs, stock, owner, done, tables, center,
 * first_min_tiles, first_horizontal, bingo_tiles, bingo_bonus, edges): the verifier's sheet
 * loop (puzzles.verify.replay.Verifier._replay_fast), in C: from the line `start` of
 * `moves` (FeuilleMove objects), each line that is entirely legal is judged as check()
 * judges it (without detail) on `cells` (Board.cells, with `tiles` tiles on it), its letters
 * taken from `stock` (letter -> count, positive counts only, as
 * LetterSupply._take_from_stock), its tiles written into `cells` and, unless it is None,
 * `owner` (square -> line index), and (reference as written back, answer) appended to
 * `done`. `refs` is the
 * verifier's cache of references (text -> (Ref, text written back, square, horizontal)).
 * Stops before the first line that asks for anything else, leaving nothing of it done: an
 * annulment, a pass, no word or reference, a reference not in `refs`, a move check()
 * declines, more than 7 tiles, letters written otherwise than put down, letters the stock
 * lacks. Returns (index of that line or len(moves), tiles now on the grid). */
static PyObject *sheet(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 15) {
        PyErr_SetString(PyExc_TypeError, "sheet() takes 15 arguments");
        return NULL;
    }
    PyObject *cells = args[0], *moves = args[1], *refs = args[4], *stock = args[5];
    PyObject *owner = args[6], *done = args[7];
    if (!PyList_Check(cells) || PyList_GET_SIZE(cells) != NSQ || !PyList_Check(moves) ||
        !PyDict_Check(refs) || !PyDict_Check(stock) || (owner != Py_None && !PyDict_Check(owner)) ||
        !PyList_Check(done)) {
        PyErr_SetString(PyExc_TypeError, "sheet(): a list of 225 cells, a list of moves, "
                        "dicts and a list");
        return NULL;
    }
    static PyObject *names[5]; /* FeuilleMove's attributes, interned once */
    static const char *const spelled[5] = {"word", "ref", "annul", "passed", "letters"};
    for (int k = 0; k < 5; k++)
        if (names[k] == NULL && (names[k] = PyUnicode_InternFromString(spelled[k])) == NULL)
            return NULL;
    Py_ssize_t i = PyLong_AsSsize_t(args[2]);
    long tiles = PyLong_AsLong(args[3]);
    long center = PyLong_AsLong(args[9]), first_min = PyLong_AsLong(args[10]);
    int first_h = PyObject_IsTrue(args[11]);
    long bingo_tiles = PyLong_AsLong(args[12]), bingo_bonus = PyLong_AsLong(args[13]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer tb, eb;
    if (PyObject_GetBuffer(args[8], &tb, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[14], &eb, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&tb);
        return NULL;
    }
    int failed = 0;
    if (tb.len != 128 + 2 * NSQ || eb.len < 4 || eb.len % 4) {
        PyErr_SetString(PyExc_ValueError, "sheet(): bad tables or DAWG buffer");
        failed = 1;
    }
    const uint8_t *tables = (const uint8_t *)tb.buf;
    Py_ssize_t n_moves = PyList_GET_SIZE(moves);
    for (; !failed && i < n_moves; i++) {
        PyObject *mv = PyList_GET_ITEM(moves, i);
        PyObject *word = NULL, *ref = NULL, *annul = NULL, *passed = NULL, *declared = NULL;
        PyObject *res = NULL;
        int stop = 1;
        word = PyObject_GetAttr(mv, names[0]);
        if (word == NULL) goto line_error;
        ref = PyObject_GetAttr(mv, names[1]);
        if (ref == NULL) goto line_error;
        annul = PyObject_GetAttr(mv, names[2]);
        if (annul == NULL) goto line_error;
        passed = PyObject_GetAttr(mv, names[3]);
        if (passed == NULL) goto line_error;
        declared = PyObject_GetAttr(mv, names[4]);
        if (declared == NULL) goto line_error;
        int t1 = PyObject_IsTrue(annul), t2 = PyObject_IsTrue(passed);
        if (t1 < 0 || t2 < 0) goto line_error;
        if (word == Py_None || ref == Py_None || t1 || t2 || !PyUnicode_Check(ref)) goto line_end;
        PyObject *hit = PyDict_GetItemWithError(refs, ref); /* borrowed */
        if (hit == NULL) {
            if (PyErr_Occurred()) goto line_error;
            goto line_end;
        }
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 4) goto line_end;
        long square = PyLong_AsLong(PyTuple_GET_ITEM(hit, 2));
        int horizontal = PyObject_IsTrue(PyTuple_GET_ITEM(hit, 3));
        if (PyErr_Occurred() || horizontal < 0) goto line_error;
        if (square < 0 || square >= NSQ) goto line_end;
        res = check_one(cells, square, horizontal, word, tiles == 0, tables, center, first_min,
                        first_h, bingo_tiles, bingo_bonus, (const uint32_t *)eb.buf,
                        eb.len / 4, 0);
        if (res == NULL) goto line_error;
        if (res == Py_None) goto line_end;
        PyObject *letters = PyTuple_GET_ITEM(res, 4), *tsq = PyTuple_GET_ITEM(res, 2);
        PyObject *tch = PyTuple_GET_ITEM(res, 3);
        Py_ssize_t nt = PyUnicode_GET_LENGTH(letters);
        if (nt > 7) goto line_end;
        int same = PyObject_RichCompareBool(declared, letters, Py_EQ);
        if (same < 0) goto line_error;
        if (!same) goto line_end;
        const Py_UCS1 *ls = PyUnicode_1BYTE_DATA(letters);
        const Py_UCS1 *cs = PyUnicode_1BYTE_DATA(tch);
        const uint8_t *sq = (const uint8_t *)PyBytes_AS_STRING(tsq);
        /* the stock has every letter (nothing taken otherwise) */
        PyObject *keys[7];
        long have[7];
        for (Py_ssize_t k = 0; k < nt; k++) keys[k] = NULL;
        int enough = 1;
        for (Py_ssize_t k = 0; k < nt && enough; k++) {
            keys[k] = PyUnicode_FromStringAndSize((const char *)&ls[k], 1);
            if (keys[k] == NULL) goto stock_error;
            PyObject *v = PyDict_GetItemWithError(stock, keys[k]);
            if (v == NULL && PyErr_Occurred()) goto stock_error;
            have[k] = v == NULL ? 0 : PyLong_AsLong(v);
            if (have[k] == -1 && PyErr_Occurred()) goto stock_error;
            long need = 0;
            for (Py_ssize_t j = 0; j < nt; j++) need += ls[j] == ls[k];
            if (have[k] < need) enough = 0;
        }
        if (!enough) {
            for (Py_ssize_t k = 0; k < nt; k++) Py_XDECREF(keys[k]);
            goto line_end;
        }
        for (Py_ssize_t k = 0; k < nt; k++) {
            long left = have[k];
            for (Py_ssize_t j = 0; j < k; j++) left -= ls[j] == ls[k];
            int rc;
            if (left > 1) {
                PyObject *v = PyLong_FromLong(left - 1);
                if (v == NULL) goto stock_error;
                rc = PyDict_SetItem(stock, keys[k], v);
                Py_DECREF(v);
            } else {
                rc = PyDict_DelItem(stock, keys[k]);
            }
            if (rc < 0) goto stock_error;
        }
        for (Py_ssize_t k = 0; k < nt; k++) Py_CLEAR(keys[k]);
        /* the tiles on the grid and their owner */
        PyObject *idx = PyLong_FromSsize_t(i);
        if (idx == NULL) goto line_error;
        for (Py_ssize_t k = 0; k < nt; k++) {
            PyObject *cell = PyUnicode_FromStringAndSize((const char *)&cs[k], 1);
            PyObject *key = PyLong_FromLong(sq[k]);
            if (cell == NULL || key == NULL ||
                (owner != Py_None && PyDict_SetItem(owner, key, idx) < 0)) {
                Py_XDECREF(cell);
                Py_XDECREF(key);
                Py_DECREF(idx);
                goto line_error;
            }
            Py_DECREF(key);
            PyObject *old = PyList_GET_ITEM(cells, sq[k]);
            PyList_SET_ITEM(cells, sq[k], cell);
            Py_DECREF(old);
        }
        Py_DECREF(idx);
        tiles += (long)nt;
        PyObject *pair = PyTuple_Pack(2, PyTuple_GET_ITEM(hit, 1), res);
        if (pair == NULL || PyList_Append(done, pair) < 0) {
            Py_XDECREF(pair);
            goto line_error;
        }
        Py_DECREF(pair);
        stop = 0;
        goto line_end;
    stock_error:
        for (Py_ssize_t k = 0; k < nt; k++) Py_XDECREF(keys[k]);
    line_error:
        failed = 1;
    line_end:
        Py_XDECREF(word);
        Py_XDECREF(ref);
        Py_XDECREF(annul);
        Py_XDECREF(passed);
        Py_XDECREF(declared);
        Py_XDECREF(res);
        if (stop) break;
    }
    PyBuffer_Release(&eb);
    PyBuffer_Release(&tb);
    if (failed) return NULL;
    return Py_BuildValue("(nl)", i, tiles);
}

static PyMethodDef methods[] = {
    {"check", (PyCFunction)(void (*)(void))check, METH_FASTCALL,
     "check(cells, square, horizontal, word, empty, tables, center, first_min_tiles, "
     "first_horizontal, bingo_tiles, bingo_bonus, edges, detail): a legal move's tiles, words "
     "and score, or None (see scoring.validate.quick_check)."},
    {"sheet", (PyCFunction)(void (*)(void))sheet, METH_FASTCALL,
     "sheet(cells, moves, start, tiles, refs, stock, owner, done, tables, center, "
     "first_min_tiles, first_horizontal, bingo_tiles, bingo_bonus, edges): the verifier's "
     "sheet loop (see puzzles.verify.replay.Verifier._replay_fast)."},
    {"followups", followups, METH_VARARGS,
     "followups(edges, cells, rack, values, letter_mult, word_mult, center, first_min_tiles, "
     "first_horizontal, max_tiles, bingo_tiles, bingo_bonus, firsts, first_rack, floor): the "
     "two-move sequence search, see scoring.movegen.sequences."},
    {"set_move_class", set_move_class, METH_O,
     "set_move_class(cls): the MoveBase subclass generate() makes when the mode has "
     "MOVE_OBJECTS (16)."},
    {"gaddag", gaddag, METH_O,
     "gaddag(edges): the GADDAG of a DAWG (bytes, same edge layout), used for it from now on."},
    {"attach", (PyCFunction)(void (*)(void))attach, METH_FASTCALL,
     "attach(edges, gaddag): use a GADDAG made by gaddag() for that DAWG."},
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

PyMODINIT_FUNC PyInit__movegen(void) {
#ifdef __POPCNT__
    /* built with -mpopcnt (setup.py, on a processor that has it): refused elsewhere, so
     * scoring.movegen falls back to the pure-Python engine instead of crashing */
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("popcnt")) {
        PyErr_SetString(PyExc_ImportError, "scoring._movegen built with POPCNT, absent here");
        return NULL;
    }
#endif
    init_letter_hash();
    if (PyType_Ready(&MoveType) < 0 || PyType_Ready(&MoveListType) < 0 ||
        PyType_Ready(&MoveIterType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&MoveType);
    if (PyModule_AddObject(m, "MoveBase", (PyObject *)&MoveType) < 0) {
        Py_DECREF(&MoveType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&MoveListType);
    if (PyModule_AddObject(m, "MoveList", (PyObject *)&MoveListType) < 0) {
        Py_DECREF(&MoveListType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
