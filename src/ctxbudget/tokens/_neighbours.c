/* The neighbour counts of ctxbudget.tokens.neighbours in one pass over the bytes.
 *
 * What each count means is defined by `reference_counts` in neighbours.py (pure
 * Python over big integers) and `NEIGHBOUR_NAMES`, in the same order as `N_*` below;
 * tests/tokens/test_neighbours.py holds this code to that one on arbitrary text. The
 * classes of the bytes are not spelled here: they come in as the three 256-byte
 * tables neighbours.py builds (FLAG_TABLE, MORE_FLAG_TABLE, LEAD_FLAG_TABLE), whose
 * bit layout the defines below name.
 *
 * How it is fast: a `Neighbours` object turns the three tables, once, into two
 * tables of 32-bit masks, one bit per kind of pair ("a space, then a digit"): the
 * roles a byte can play as the first of a pair (`first`) and as the second
 * (`second`). A pair of bytes is then one AND of two lookups, 0 for most pairs of
 * text (two letters); only the rare pairs that match are looked at further, for the
 * counts that also ask whether the two bytes are equal or what came before them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* FLAG_TABLE bits. */
#define F_DIGIT 0x01
#define F_PUNCTUATION 0x02
#define F_SPACE 0x04
#define F_JOINER 0x08
#define F_LOWER 0x10
#define F_UPPER 0x20
#define F_NEWLINE 0x40
#define F_NON_ASCII 0x80
#define F_LETTER (F_LOWER | F_UPPER)

/* MORE_FLAG_TABLE bits. */
#define M_WHITESPACE_ID 0x07
#define M_SHORT_MERGING 0x08
#define M_QUOTE 0x10
#define M_SINGLE_QUOTE 0x20
#define M_TEXT 0x40
#define M_BRACKET 0x80

/* LEAD_FLAG_TABLE bits. */
#define L_TWO_BYTE 0x01
#define L_HAN 0x02
#define L_THREE_BYTE 0x04
#define L_THREE_BYTE_SCRIPT 0x08
#define L_LETTER 0x10

enum {
    N_LOWER_BEFORE_UPPER,
    N_UPPER_PAIRS_BEFORE_LOWER,
    N_PUNCTUATION_PAIRS,
    N_PUNCTUATION_CHANGES,
    N_SHORT_MERGING_TRIPLES,
    N_WORD_JOINERS,
    N_DIGIT_PAIRS,
    N_SPACE_BEFORE_DIGIT,
    N_SPACE_BEFORE_PUNCTUATION,
    N_PUNCTUATION_BEFORE_NEWLINE,
    N_NEWLINE_PAIRS,
    N_SPACE_PAIRS,
    N_SPACE_TRIPLES,
    N_SPACE_BEFORE_NEWLINE,
    N_TEXT_LINE_STARTS,
    N_PUNCTUATION_LINE_STARTS,
    N_WHITESPACE_CHANGES,
    N_BRACKET_PAIRS,
    N_QUOTE_PAIRS,
    N_PUNCTUATION_PAIRS_WITH_QUOTE,
    N_MIXED_QUOTE_PAIRS,
    N_SPACE_BEFORE_NON_ASCII,
    N_LETTER_AFTER_NON_ASCII,
    N_PUNCTUATION_BEFORE_NON_ASCII,
    N_TWO_BYTE_LEAD_PAIRS,
    N_HAN_LEAD_PAIRS,
    N_THREE_BYTE_LEAD_PAIRS,
    N_THREE_BYTE_SCRIPT_LEAD_PAIRS,
    N_WORD_BEFORE_NEWLINE,
    N_QUOTE_ALTERNATIONS,
    N_DIGIT_PAIRS_OPENING_GROUPS,
    N_HYPHEN_JOINERS,
    N_COUNTS
};


/* The kinds of pair, one bit each of the `first` and `second` masks. */
enum {
    P_LOWER_UPPER,
    P_UPPER_LOWER,
    P_PUNCTUATION,
    P_SHORT_MERGING,
    P_JOINER_LETTER,
    P_DIGIT,
    P_SPACE_DIGIT,
    P_SPACE_PUNCTUATION,
    P_PUNCTUATION_NEWLINE,
    P_NEWLINE,
    P_SPACE,
    P_SPACE_NEWLINE,
    P_NEWLINE_TEXT,
    P_NEWLINE_PUNCTUATION,
    P_WHITESPACE,
    P_BRACKET,
    P_QUOTE,
    P_SPACE_NON_ASCII,
    P_NON_ASCII_LETTER,
    P_PUNCTUATION_NON_ASCII,
    P_TWO_BYTE_LEAD,
    P_HAN_LEAD,
    P_THREE_BYTE_LEAD,
    P_THREE_BYTE_SCRIPT_LEAD,
    P_WORD_NEWLINE,
    P_HYPHEN_LOWER,
    P_KINDS
};

/* The count each kind of pair is, where a pair of its kind is all it takes. */
static const int count_of_pair[P_KINDS] = {
    [P_LOWER_UPPER] = N_LOWER_BEFORE_UPPER,
    [P_UPPER_LOWER] = -1,
    [P_PUNCTUATION] = N_PUNCTUATION_PAIRS,
    [P_SHORT_MERGING] = -1,
    [P_JOINER_LETTER] = -1,
    [P_DIGIT] = N_DIGIT_PAIRS,
    [P_SPACE_DIGIT] = N_SPACE_BEFORE_DIGIT,
    [P_SPACE_PUNCTUATION] = N_SPACE_BEFORE_PUNCTUATION,
    [P_PUNCTUATION_NEWLINE] = N_PUNCTUATION_BEFORE_NEWLINE,
    [P_NEWLINE] = N_NEWLINE_PAIRS,
    [P_SPACE] = N_SPACE_PAIRS,
    [P_SPACE_NEWLINE] = N_SPACE_BEFORE_NEWLINE,
    [P_NEWLINE_TEXT] = N_TEXT_LINE_STARTS,
    [P_NEWLINE_PUNCTUATION] = N_PUNCTUATION_LINE_STARTS,
    [P_WHITESPACE] = -1,
    [P_BRACKET] = N_BRACKET_PAIRS,
    [P_QUOTE] = N_QUOTE_PAIRS,
    [P_SPACE_NON_ASCII] = N_SPACE_BEFORE_NON_ASCII,
    [P_NON_ASCII_LETTER] = N_LETTER_AFTER_NON_ASCII,
    [P_PUNCTUATION_NON_ASCII] = N_PUNCTUATION_BEFORE_NON_ASCII,
    [P_TWO_BYTE_LEAD] = N_TWO_BYTE_LEAD_PAIRS,
    [P_HAN_LEAD] = N_HAN_LEAD_PAIRS,
    [P_THREE_BYTE_LEAD] = N_THREE_BYTE_LEAD_PAIRS,
    [P_THREE_BYTE_SCRIPT_LEAD] = N_THREE_BYTE_SCRIPT_LEAD_PAIRS,
    [P_WORD_NEWLINE] = N_WORD_BEFORE_NEWLINE,
    [P_HYPHEN_LOWER] = -1,
};

typedef struct {
    PyObject_HEAD
    unsigned char flags[256], more[256];
    uint32_t first[256], second[256];
} Neighbours;

#define BIT(kind) ((uint32_t)1 << (kind))

/* Which kinds of pair a byte of these flags is the first / the second byte of. */
static void
roles(unsigned f, unsigned m, unsigned l, uint32_t *first, uint32_t *second)
{
    uint32_t a = 0, b = 0;
    if (f & F_LOWER) { a |= BIT(P_LOWER_UPPER); b |= BIT(P_UPPER_LOWER); }
    if (f & F_UPPER) { a |= BIT(P_UPPER_LOWER); b |= BIT(P_LOWER_UPPER); }
    if (f & F_PUNCTUATION) {
        a |= BIT(P_PUNCTUATION) | BIT(P_PUNCTUATION_NEWLINE) | BIT(P_PUNCTUATION_NON_ASCII);
        b |= BIT(P_PUNCTUATION) | BIT(P_SPACE_PUNCTUATION) | BIT(P_NEWLINE_PUNCTUATION);
    }
    if (m & M_SHORT_MERGING) { a |= BIT(P_SHORT_MERGING); b |= BIT(P_SHORT_MERGING); }
    if (f & F_JOINER) { a |= BIT(P_JOINER_LETTER); }
    if (f & F_LETTER) { b |= BIT(P_JOINER_LETTER) | BIT(P_NON_ASCII_LETTER); }
    if (f & F_LOWER) { b |= BIT(P_HYPHEN_LOWER); }
    if (f & F_DIGIT) { a |= BIT(P_DIGIT); b |= BIT(P_DIGIT) | BIT(P_SPACE_DIGIT); }
    if (f & F_SPACE) {
        a |= BIT(P_SPACE_DIGIT) | BIT(P_SPACE_PUNCTUATION) | BIT(P_SPACE) |
             BIT(P_SPACE_NEWLINE) | BIT(P_SPACE_NON_ASCII);
        b |= BIT(P_SPACE);
    }
    if (f & F_NEWLINE) {
        a |= BIT(P_NEWLINE) | BIT(P_NEWLINE_TEXT) | BIT(P_NEWLINE_PUNCTUATION);
        b |= BIT(P_NEWLINE) | BIT(P_PUNCTUATION_NEWLINE) | BIT(P_SPACE_NEWLINE) |
             BIT(P_WORD_NEWLINE);
    }
    if ((f & (F_LETTER | F_DIGIT)) || (l & L_LETTER)) {
        a |= BIT(P_WORD_NEWLINE);
    }
    if (m & M_TEXT) { b |= BIT(P_NEWLINE_TEXT); }
    if (m & M_WHITESPACE_ID) {
        if (!(f & F_NEWLINE)) { a |= BIT(P_WHITESPACE); }
        b |= BIT(P_WHITESPACE);
    }
    if (m & M_BRACKET) { a |= BIT(P_BRACKET); b |= BIT(P_BRACKET); }
    if (m & M_QUOTE) { a |= BIT(P_QUOTE); b |= BIT(P_QUOTE); }
    if (f & F_NON_ASCII) {
        a |= BIT(P_NON_ASCII_LETTER);
        b |= BIT(P_SPACE_NON_ASCII) | BIT(P_PUNCTUATION_NON_ASCII);
    }
    if (l & L_TWO_BYTE) { a |= BIT(P_TWO_BYTE_LEAD); b |= BIT(P_TWO_BYTE_LEAD); }
    if (l & L_HAN) { a |= BIT(P_HAN_LEAD); b |= BIT(P_HAN_LEAD); }
    if (l & L_THREE_BYTE) { a |= BIT(P_THREE_BYTE_LEAD); b |= BIT(P_THREE_BYTE_LEAD); }
    if (l & L_THREE_BYTE_SCRIPT) {
        a |= BIT(P_THREE_BYTE_SCRIPT_LEAD);
        b |= BIT(P_THREE_BYTE_SCRIPT_LEAD);
    }
    *first = a;
    *second = b;
}

static int
table_of(PyObject *object, const char *name, const unsigned char **table)
{
    if (!PyBytes_Check(object) || PyBytes_GET_SIZE(object) != 256) {
        PyErr_Format(PyExc_TypeError, "%s must be a bytes object of 256 bytes", name);
        return -1;
    }
    *table = (const unsigned char *)PyBytes_AS_STRING(object);
    return 0;
}

static PyObject *
neighbours_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *flag_object, *more_object, *lead_object;
    static char *names[] = {"flag_table", "more_flag_table", "lead_flag_table", NULL};
    const unsigned char *flags, *more, *leads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO:Neighbours", names, &flag_object,
                                     &more_object, &lead_object) ||
        table_of(flag_object, "flag_table", &flags) < 0 ||
        table_of(more_object, "more_flag_table", &more) < 0 ||
        table_of(lead_object, "lead_flag_table", &leads) < 0) {
        return NULL;
    }
    Neighbours *self = (Neighbours *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    for (int b = 0; b < 256; b++) {
        self->flags[b] = flags[b];
        self->more[b] = more[b];
        roles(flags[b], more[b], leads[b], &self->first[b], &self->second[b]);
    }
    /* The hyphen has no class of its own among the flags: it is punctuation there. */
    self->first['-'] |= BIT(P_HYPHEN_LOWER);
    return (PyObject *)self;
}

/* What a matching pair of `b` after `pb` adds beyond its kinds' own counts; `ppb` and
 * `pppb` are the two bytes before `pb`, -1 and -2 (no byte's value) where the data
 * starts later. */
static void
look_closer(const Neighbours *self, Py_ssize_t *n, uint32_t kinds, int b, int pb, int ppb,
            int pppb)
{
    unsigned ppf = ppb < 0 ? 0 : self->flags[ppb];
    if (kinds & BIT(P_UPPER_LOWER)) {
        n[N_UPPER_PAIRS_BEFORE_LOWER] += (ppf & F_UPPER) != 0;
    }
    if (kinds & BIT(P_PUNCTUATION)) {
        /* Two punctuation marks alternating, one a quote: "'/'/", the fourth on. */
        n[N_QUOTE_ALTERNATIONS] += b != pb && b == ppb && pb == pppb &&
                                   ((self->more[b] | self->more[pb]) & M_QUOTE);
        n[N_PUNCTUATION_CHANGES] += b != pb;
        n[N_PUNCTUATION_PAIRS_WITH_QUOTE] += ((self->more[b] | self->more[pb]) & M_QUOTE) != 0;
    }
    if (kinds & BIT(P_SHORT_MERGING)) {
        n[N_SHORT_MERGING_TRIPLES] += b == pb && pb == ppb;
    }
    if (kinds & BIT(P_JOINER_LETTER)) {
        n[N_WORD_JOINERS] += (ppf & F_LETTER) != 0;
    }
    if (kinds & BIT(P_HYPHEN_LOWER)) {
        n[N_HYPHEN_JOINERS] += (ppf & F_LETTER) != 0;
    }
    if (kinds & BIT(P_SPACE)) {
        n[N_SPACE_TRIPLES] += (ppf & F_SPACE) != 0;
    }
    if (kinds & BIT(P_WHITESPACE)) {
        n[N_WHITESPACE_CHANGES] += b != pb;
    }
    if (kinds & BIT(P_QUOTE)) {
        n[N_MIXED_QUOTE_PAIRS] += ((self->more[b] ^ self->more[pb]) & M_SINGLE_QUOTE) != 0;
    }
    while (kinds) {
        int count = count_of_pair[__builtin_ctz(kinds)];
        if (count >= 0) {
            n[count]++;
        }
        kinds &= kinds - 1;
    }
}

/* A tuple of `first` (a reference it takes; NULL for none), then `size` items, item k
 * made by `make(values, k)`: the counts and sums every pass returns. */
static PyObject *
tuple_made(PyObject *first, const void *values, Py_ssize_t size,
           PyObject *(*make)(const void *values, Py_ssize_t k))
{
    Py_ssize_t offset = first != NULL;
    PyObject *result = PyTuple_New(offset + size);
    if (result == NULL) {
        Py_XDECREF(first);
        return NULL;
    }
    if (first != NULL) {
        PyTuple_SET_ITEM(result, 0, first);
    }
    for (Py_ssize_t k = 0; k < size; k++) {
        PyObject *value = make(values, k);
        if (value == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, offset + k, value);
    }
    return result;
}

static PyObject *
count_at(const void *counts, Py_ssize_t k)
{
    return PyLong_FromSsize_t(((const Py_ssize_t *)counts)[k]);
}

/* A tuple of the `size` counts of `n`. */
static PyObject *
tuple_of(const Py_ssize_t *n, int size)
{
    return tuple_made(NULL, n, size, count_at);
}

static PyObject *
neighbours_counts(Neighbours *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "counts(data: bytes, line_start: bool)");
        return NULL;
    }
    int line_start = PyObject_IsTrue(args[1]);
    if (line_start < 0) {
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t n[N_COUNTS] = {0};
    if (size > 0 && line_start) {
        /* The first byte after the line feed before the text. */
        unsigned f = self->flags[data[0]], m = self->more[data[0]];
        n[N_TEXT_LINE_STARTS] += (m & M_TEXT) != 0;
        n[N_PUNCTUATION_LINE_STARTS] += (f & F_PUNCTUATION) != 0;
    }
    /* Where the run of digits of the last digit pair started, and that pair's second
     * byte: a digit pair not right after the last one is the start of a run. */
    Py_ssize_t run_start = 0, last_digit_pair = -1;
    for (Py_ssize_t i = 1; i < size; i++) {
        uint32_t kinds = self->first[data[i - 1]] & self->second[data[i]];
        if (kinds) {
            look_closer(self, n, kinds, data[i], data[i - 1], i >= 2 ? data[i - 2] : -1,
                        i >= 3 ? data[i - 3] : -2);
            if (kinds & BIT(P_DIGIT)) {
                if (last_digit_pair != i - 1) {
                    run_start = i - 1;
                }
                last_digit_pair = i;
                n[N_DIGIT_PAIRS_OPENING_GROUPS] += (i - run_start) % 3 == 0;
            }
        }
    }
    return tuple_of(n, N_COUNTS);
}

static PyMethodDef neighbours_methods[] = {
    {"counts", (PyCFunction)(void (*)(void))neighbours_counts, METH_FASTCALL,
     "counts(data, line_start) -> tuple\n\n"
     "The counts of ctxbudget.tokens.neighbours.NEIGHBOUR_NAMES of data."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot neighbours_slots[] = {
    {Py_tp_new, neighbours_new},
    {Py_tp_methods, neighbours_methods},
    {Py_tp_doc, "Neighbours(flag_table, more_flag_table, lead_flag_table)\n\n"
                "The neighbour counts of texts whose bytes have the classes of the tables."},
    {0, NULL},
};

static PyType_Spec neighbours_spec = {
    .name = "ctxbudget.tokens._neighbours.Neighbours",
    .basicsize = sizeof(Neighbours),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = neighbours_slots,
};

/* UnmergedPairs: per vocabulary, the adjacent pairs of bytes its bit marks in a table
 * of one byte per pair (neighbours.unmerged_pair_table), and, where a character of
 * several bytes ends before an ASCII one, its lead byte with that one as well;
 * `reference_unmerged_pairs` in neighbours.py defines the counts. */
typedef struct {
    PyObject_HEAD
    int vocabularies;
    unsigned char table[1 << 16];
} UnmergedPairs;

static PyObject *
unmerged_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Py_buffer table;
    int vocabularies;
    static char *names[] = {"table", "vocabularies", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*i:UnmergedPairs", names, &table,
                                     &vocabularies)) {
        return NULL;
    }
    if (table.len != (1 << 16) || vocabularies < 0 || vocabularies > 8) {
        PyBuffer_Release(&table);
        PyErr_SetString(PyExc_ValueError,
                        "UnmergedPairs takes a table of 65536 bytes and 0 to 8 vocabularies");
        return NULL;
    }
    UnmergedPairs *self = (UnmergedPairs *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->vocabularies = vocabularies;
        memcpy(self->table, table.buf, sizeof self->table);
    }
    PyBuffer_Release(&table);
    return (PyObject *)self;
}

/* The mask of the pair of bytes ending at data[i] (i >= 1) in an UnmergedPairs table,
 * and, where a character of several bytes ends before an ASCII one, that of its lead
 * byte with the ASCII one; *lead: the last byte before data[i] that is no continuation
 * byte (-1: none yet), kept up to date. */
static inline unsigned char
unmerged_mask(const unsigned char *table, const unsigned char *data, Py_ssize_t i, int *lead)
{
    unsigned before = data[i - 1], second = (unsigned)data[i] << 8;
    unsigned char mask = table[before | second];
    if ((before & 0xC0) != 0x80) {
        *lead = (int)before;
    }
    else if (data[i] < 0x80 && *lead >= 0) {
        mask |= table[(unsigned)*lead | second];
    }
    return mask;
}

static PyObject *
unmerged_counts(UnmergedPairs *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "counts(data: bytes)");
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    /* How many pairs had each mask, the bits summed once at the end. Most pairs of text
     * are tokens (mask 0): a branch skips them, where an increment of one counter per
     * pair would wait on the one before. */
    Py_ssize_t masks[256] = {0};
    int lead = -1; /* the last byte that is no continuation byte; -1: none yet */
    for (Py_ssize_t i = 1; i < size; i++) {
        unsigned char mask = unmerged_mask(self->table, data, i, &lead);
        if (mask) {
            masks[mask]++;
        }
    }
    Py_ssize_t totals[8] = {0};
    for (int v = 0; v < self->vocabularies; v++) {
        for (int mask = 1; mask < 256; mask++) {
            if (mask >> v & 1) {
                totals[v] += masks[mask];
            }
        }
    }
    return tuple_of(totals, self->vocabularies);
}

static PyMethodDef unmerged_methods[] = {
    {"counts", (PyCFunction)(void (*)(void))unmerged_counts, METH_FASTCALL,
     "counts(data) -> tuple\n\n"
     "Per vocabulary, the pairs of data its bit of the table marks."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot unmerged_slots[] = {
    {Py_tp_new, unmerged_new},
    {Py_tp_methods, unmerged_methods},
    {Py_tp_doc, "UnmergedPairs(table, vocabularies)\n\n"
                "The pair counts of ctxbudget.tokens.neighbours.reference_unmerged_pairs."},
    {0, NULL},
};

static PyType_Spec unmerged_spec = {
    .name = "ctxbudget.tokens._neighbours.UnmergedPairs",
    .basicsize = sizeof(UnmergedPairs),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = unmerged_slots,
};

/* PairFloors: per vocabulary, the larger of one more than its unmerged pairs (those its
 * bit marks in an UnmergedPairs table) and its forced boundaries: one more than the fewest
 * cuts that meet every pair of bytes and every triple of alphabet characters no token of
 * it holds, and, in a run of alphabet characters where a triple added a cut, what the
 * fewest pieces of the run force beyond those; in one pass.
 * `reference_pair_floors` in boundaries.py defines the counts. */
typedef struct {
    PyObject_HEAD
    int vocabularies;
    int alphabet;              /* the alphabet's size n: places 0..n-1, n outside it */
    /* Per pair of bytes (the first | the second << 8), read at once: */
    struct {
        uint16_t places;        /* its places as a pair of places: a * (n+1) + b */
        unsigned char unmerged; /* its mask in the unmerged table */
        unsigned char unheld;   /* the vocabularies none of whose tokens holds it */
        unsigned char unopened; /* ... begins with it */
        unsigned char digits;   /* 1 for two ASCII digits */
        unsigned char unused;   /* eight bytes an entry: an index is a shift */
    } *by_pair;
    /* The vocabularies whose pre-tokenizer cuts a run of digits after every third. */
    unsigned digit_groups;
    /* One bit per triple of places: set where some vocabulary holds it not (its mask in
     * `triples` is not 0). Few triples of real text are, and the bits fit a cache that
     * the masks do not. */
    uint64_t *unheld_somewhere;
    unsigned char places[256]; /* each byte's place in the alphabet, or n */
    unsigned char *triples;    /* per triple of places ((a * (n+1) + b) * (n+1) + c) */
    unsigned char *whole_pairs;   /* per pair of places (a * (n+1) + b): a token */
    unsigned char *whole_triples; /* per triple of places: a token */
} PairFloors;

/* Copies a table of one byte per pair (dimensions 2) or triple (3) of places of an
 * alphabet of `size` characters into one indexed by places of `size + 1`. */
static unsigned char *
widened(const unsigned char *table, Py_ssize_t size, int dimensions)
{
    Py_ssize_t wide = size + 1, total = dimensions == 2 ? wide * wide : wide * wide * wide;
    unsigned char *out = PyMem_Calloc((size_t)total, 1);
    if (out == NULL) {
        return NULL;
    }
    for (Py_ssize_t a = 0; a < size; a++) {
        for (Py_ssize_t b = 0; b < size; b++) {
            if (dimensions == 2) {
                out[a * wide + b] = table[a * size + b];
                continue;
            }
            for (Py_ssize_t c = 0; c < size; c++) {
                out[(a * wide + b) * wide + c] = table[(a * size + b) * size + c];
            }
        }
    }
    return out;
}

static PyObject *
floors_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Py_buffer unmerged, pairs, triples, whole_pairs, whole_triples, places, unopened;
    int vocabularies, digit_groups;
    static char *names[] = {"unmerged",     "pairs",    "triples",      "whole_pairs",
                            "whole_triples", "places", "vocabularies", "unopened",
                            "digit_groups", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*y*y*y*y*y*iy*i:PairFloors", names,
                                     &unmerged, &pairs, &triples, &whole_pairs, &whole_triples,
                                     &places, &vocabularies, &unopened, &digit_groups)) {
        return NULL;
    }
    PyObject *result = NULL;
    /* The alphabet's size n, from the places: the triples table holds n ** 3 masks. */
    int size = 0;
    if (places.len == 256) {
        for (int b = 0; b < 256; b++) {
            unsigned char place = ((const unsigned char *)places.buf)[b];
            if (place != 0xFF && place >= 0x80) {
                size = -1; /* at most 128 characters: a place is below 0x80 */
                break;
            }
            if (place != 0xFF && place + 1 > size) {
                size = place + 1;
            }
        }
    }
    Py_ssize_t cube = (Py_ssize_t)size * size * size;
    if (unmerged.len != (1 << 16) || pairs.len != (1 << 16) || unopened.len != (1 << 16) ||
        places.len != 256 || size < 0 || triples.len != cube ||
        whole_triples.len != cube || whole_pairs.len != (Py_ssize_t)size * size ||
        vocabularies < 0 || vocabularies > 8 || digit_groups < 0 ||
        digit_groups >= (1 << vocabularies)) {
        PyErr_SetString(PyExc_ValueError,
                        "PairFloors takes three pair tables of 65536 bytes, tables of one byte "
                        "per triple, per pair and per triple of the alphabet, the 256 places "
                        "of the alphabet, 0 to 8 vocabularies and a mask of theirs");
        goto done;
    }
    PairFloors *self = (PairFloors *)type->tp_alloc(type, 0);
    if (self == NULL) {
        goto done;
    }
    /* A place of its own (n) for the bytes outside the alphabet, whose triples are all
     * joined (mask 0): every byte's triple is looked up the same way. */
    self->triples = widened(triples.buf, size, 3);
    self->whole_pairs = widened(whole_pairs.buf, size, 2);
    self->whole_triples = widened(whole_triples.buf, size, 3);
    self->by_pair = PyMem_Malloc((size_t)(1 << 16) * sizeof *self->by_pair);
    Py_ssize_t triples_wide = ((Py_ssize_t)size + 1) * (size + 1) * (size + 1);
    self->unheld_somewhere = PyMem_Calloc((size_t)(triples_wide + 63) / 64, sizeof(uint64_t));
    if (self->triples == NULL || self->whole_pairs == NULL || self->whole_triples == NULL ||
        self->by_pair == NULL || self->unheld_somewhere == NULL) {
        Py_DECREF(self);
        PyErr_NoMemory();
        goto done;
    }
    self->vocabularies = vocabularies;
    self->alphabet = size;
    self->digit_groups = (unsigned)digit_groups;
    for (int b = 0; b < 256; b++) {
        unsigned char place = ((const unsigned char *)places.buf)[b];
        self->places[b] = place == 0xFF ? (unsigned char)size : place;
    }
    Py_ssize_t wide = (Py_ssize_t)size + 1;
    for (Py_ssize_t t = 0; t < wide * wide * wide; t++) {
        if (self->triples[t]) {
            self->unheld_somewhere[t >> 6] |= (uint64_t)1 << (t & 63);
        }
    }
    for (unsigned key = 0; key < (1u << 16); key++) {
        self->by_pair[key].places =
            (uint16_t)(self->places[key & 0xFF] * wide + self->places[key >> 8]);
        self->by_pair[key].digits =
            (unsigned)((key & 0xFF) - '0') < 10u && (unsigned)((key >> 8) - '0') < 10u;
        self->by_pair[key].unmerged = ((const unsigned char *)unmerged.buf)[key];
        self->by_pair[key].unheld = ((const unsigned char *)pairs.buf)[key];
        self->by_pair[key].unopened = ((const unsigned char *)unopened.buf)[key];
    }
    result = (PyObject *)self;
done:
    PyBuffer_Release(&unopened);
    PyBuffer_Release(&unmerged);
    PyBuffer_Release(&pairs);
    PyBuffer_Release(&triples);
    PyBuffer_Release(&whole_pairs);
    PyBuffer_Release(&whole_triples);
    PyBuffer_Release(&places);
    return result;
}

static void
floors_dealloc(PairFloors *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyMem_Free(self->triples);
    PyMem_Free(self->whole_pairs);
    PyMem_Free(self->whole_triples);
    PyMem_Free(self->by_pair);
    PyMem_Free(self->unheld_somewhere);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

/* Per character of a run (at i = 1..length, the character run[i - 1]), the masks the
 * fewest pieces read: of the vocabularies that hold no pair ending there, that hold no
 * triple ending there, whose token is the pair, and whose token is the triple; read
 * once for every vocabulary. */
typedef struct {
    unsigned char unheld_pair, unheld_triple, whole_pair, whole_triple;
    unsigned char exact; /* the gap's exact cuts: `_exact_cuts` in boundaries.py */
} RunMasks;

/* The masks of a run's characters; `exact`: the exact cuts of its gaps, as the pass
 * found them (exact[g] between run[g] and run[g + 1]). */
static void
run_masks(const PairFloors *self, const unsigned char *run, Py_ssize_t length,
          const unsigned char *exact, RunMasks *masks)
{
    Py_ssize_t wide = self->alphabet + 1;
    for (Py_ssize_t i = 1; i <= length; i++) {
        RunMasks m = {0, 0, 0, 0, 0};
        Py_ssize_t c = self->places[run[i - 1]];
        if (i >= 2) {
            Py_ssize_t b = self->places[run[i - 2]];
            m.unheld_pair = self->by_pair[run[i - 2] | (unsigned)run[i - 1] << 8].unheld;
            m.exact = exact[i - 2];
            m.whole_pair = self->whole_pairs[b * wide + c];
            if (i >= 3) {
                Py_ssize_t key = ((Py_ssize_t)self->places[run[i - 3]] * wide + b) * wide + c;
                m.unheld_triple = self->triples[key];
                m.whole_triple = self->whole_triples[key];
            }
        }
        masks[i] = m;
    }
}

/* The fewest pieces a run of alphabet characters is cut into for vocabulary v:
 * `_least_pieces` in boundaries.py. `least` and `window` hold length + 1 entries. */
static Py_ssize_t
least_pieces(const RunMasks *masks, Py_ssize_t length, int v, int closed_start, int closed_end,
             Py_ssize_t *least, Py_ssize_t *window)
{
    Py_ssize_t front = 0, back = 0; /* window[front..back): starts, least increasing */
    Py_ssize_t held = 0; /* the longest held stretch ending at the current character */
    least[0] = 0;
    for (Py_ssize_t i = 1; i <= length; i++) {
        RunMasks m = masks[i];
        if (i == 1 || m.unheld_pair >> v & 1) {
            held = 1;
        }
        else {
            held = held >= 2 && !(m.unheld_triple >> v & 1) ? held + 1 : 2;
        }
        Py_ssize_t best = least[i - 1] + 1;
        if (m.whole_pair >> v & 1 && least[i - 2] + 1 < best) {
            best = least[i - 2] + 1;
        }
        if (m.whole_triple >> v & 1 && least[i - 3] + 1 < best) {
            best = least[i - 3] + 1;
        }
        if (i >= 4) {
            while (back > front && least[window[back - 1]] >= least[i - 4]) {
                back--;
            }
            window[back++] = i - 4;
        }
        while (back > front && window[front] < i - held) {
            front++;
        }
        if (back > front && least[window[front]] + 1 < best) {
            best = least[window[front]] + 1;
        }
        /* The first piece, where it may be part of a token: any held stretch. */
        least[i] = held >= i && !closed_start ? 1 : best;
    }
    if (closed_end) {
        return least[length];
    }
    Py_ssize_t fewest = least[length - held]; /* the last piece: part of a token */
    for (Py_ssize_t j = length - held + 1; j < length; j++) {
        if (least[j] < fewest) {
            fewest = least[j];
        }
    }
    return 1 + fewest;
}

/* Room for the work of close_run on runs of up to `capacity` characters. */
typedef struct {
    Py_ssize_t capacity;
    Py_ssize_t *least, *window;
    RunMasks *masks;
} RunScratch;

/* Adds to `more` what the fewest pieces of the run of alphabet characters ending at
 * data[end - 1] force beyond its cuts, for each vocabulary of `vocabularies` (a mask);
 * 0, or -1 with MemoryError set. Only runs whose triples cut twice come here, so their
 * start and their cuts are found again here rather than kept for every run, but for
 * the exact cuts of the text's gaps (`exact_of_gap[i]`: between data[i - 1] and
 * data[i]), whose chains reach back before the run. */
static int
close_run(const PairFloors *self, const unsigned char *data, Py_ssize_t size, Py_ssize_t end,
          const unsigned char *exact_of_gap, unsigned vocabularies, Py_ssize_t *more,
          RunScratch *scratch)
{
    Py_ssize_t start = end - 1;
    while (start > 0 && self->places[data[start - 1]] != self->alphabet) {
        start--;
    }
    Py_ssize_t length = end - start;
    if (length + 1 > scratch->capacity) {
        Py_ssize_t capacity = 2 * (length + 1);
        Py_ssize_t *least = PyMem_Realloc(scratch->least, 2 * (size_t)capacity * sizeof *least);
        if (least == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        scratch->least = least;
        RunMasks *masks = PyMem_Realloc(scratch->masks, (size_t)capacity * sizeof *masks);
        if (masks == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        scratch->masks = masks;
        scratch->window = least + capacity;
        scratch->capacity = capacity;
    }
    run_masks(self, data + start, length, exact_of_gap + start + 1, scratch->masks);
    /* The vocabularies with a known token boundary before and after the run: the text
     * starts or ends there, or an exact cut. */
    unsigned closed_start = start == 0 ? 0xFFu : exact_of_gap[start];
    unsigned closed_end = end == size ? 0xFFu : exact_of_gap[end];
    /* The run's cuts, as the pass made them: gap g lies between run[g] and run[g + 1]. */
    Py_ssize_t inside[8] = {0};
    unsigned before = 0;
    for (Py_ssize_t g = 0; g + 1 < length; g++) {
        RunMasks m = scratch->masks[g + 2];
        unsigned cut = m.exact | (m.unheld_triple & ~before & ~m.exact);
        for (int v = 0; v < self->vocabularies; v++) {
            inside[v] += cut >> v & 1;
        }
        before = cut;
    }
    for (int v = 0; v < self->vocabularies; v++) {
        if (vocabularies >> v & 1) {
            Py_ssize_t pieces = least_pieces(scratch->masks, length, v, closed_start >> v & 1,
                                             closed_end >> v & 1, scratch->least, scratch->window);
            if (pieces - 1 - inside[v] > 0) {
                more[v] += pieces - 1 - inside[v];
            }
        }
    }
    return 0;
}

static PyObject *
floors_counts(PairFloors *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2 || !PyBytes_Check(args[0]) ||
        (nargs == 2 && !PyLong_Check(args[1]))) {
        PyErr_SetString(PyExc_TypeError, "counts(data: bytes, wanted: int = every vocabulary)");
        return NULL;
    }
    /* The vocabularies whose floors are asked for (bit v: vocabulary v); the others are
     * 0, and their runs' fewest pieces, most of the work past the pass, not looked for. */
    unsigned every = (1u << self->vocabularies) - 1, wanted = every;
    if (nargs == 2) {
        /* A mask as Python writes one: -1 has every bit set. */
        long long asked = PyLong_AsLongLong(args[1]);
        if (asked == -1 && PyErr_Occurred()) {
            return NULL;
        }
        wanted = (unsigned)((unsigned long long)asked & every);
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t totals[8] = {0};
    if (size == 0) {
        return tuple_of(totals, self->vocabularies);
    }
    /* How many gaps had each mask, of unmerged pairs and of cuts, the bits summed once
     * at the end. Every gap is counted, mask 0 too (never read): in ordinary text a
     * token boundary comes every few bytes, too irregularly for a branch that skipped
     * the gaps without one to be foreseen (the dev corpus: 29 -> 23 ms). */
    Py_ssize_t unmerged_masks[256] = {0}, cut_masks[256] = {0};
    Py_ssize_t more[8] = {0}; /* boundaries the runs' fewest pieces force beyond cuts */
    /* The vocabularies a triple cut in the current run, and those it cut twice or more
     * (PIECES_AFTER in boundaries.py: the pieces are looked for after two). */
    unsigned run_triples = 0, run_twice = 0;
    RunScratch scratch = {0, NULL, NULL, NULL};
    Py_ssize_t n = self->alphabet, wide = n + 1;
    unsigned before = 0; /* the cuts of the gap before */
    /* The exact cuts (`_exact_cuts` in boundaries.py): a gap is cut where no token holds
     * its pair, where the gap before was such a cut (`exact_before`; the text's start is
     * a boundary) and no token opens with its pair, and after every third digit of a run
     * of ASCII digits for the vocabularies of `digit_groups`. */
    unsigned exact_before = 0xFFu;
    /* The exact cuts of every gap, for the runs whose pieces are counted: on the stack
     * for a short text. */
    unsigned char exact_on_stack[4096];
    unsigned char *exact_of_gap = exact_on_stack;
    if (size > (Py_ssize_t)sizeof exact_on_stack) {
        exact_of_gap = PyMem_Malloc((size_t)size);
        if (exact_of_gap == NULL) {
            return PyErr_NoMemory();
        }
    }
    /* The places of the two bytes before the current one, as a pair of places: read
     * with the pair before. */
    Py_ssize_t pair_places = n * wide + self->places[data[0]];
    /* The digits of the current run of ASCII digits up to data[i - 1], modulo 3, and
     * whether the run is counted (it follows ASCII or starts the text): kept from one
     * pair of digits to the next, as most text has few. */
    unsigned digits_seen = 0, digits_counted = 1;
    int failed = 0;
    for (Py_ssize_t i = 1; i < size; i++) {
        Py_ssize_t place = self->places[data[i]];
        unsigned key = data[i - 1] | (unsigned)data[i] << 8;
        unsigned paired = self->by_pair[key].unheld | (exact_before & self->by_pair[key].unopened);
        if (self->by_pair[key].digits) {
            if (i >= 2 && (unsigned)(data[i - 2] - '0') < 10u) {
                digits_seen = digits_seen == 2 ? 0 : digits_seen + 1;
            }
            else { /* data[i - 1] starts the run */
                digits_seen = 1;
                digits_counted = i < 2 || data[i - 2] < 0x80;
            }
            if (digits_seen == 0 && digits_counted) {
                paired |= self->digit_groups;
            }
        }
        exact_before = paired;
        exact_of_gap[i] = (unsigned char)paired;
        Py_ssize_t triple = pair_places * wide + place;
        unsigned tripled = 0;
        if (self->unheld_somewhere[triple >> 6] >> (triple & 63) & 1) {
            tripled = self->triples[triple] & ~before & ~paired;
        }
        pair_places = self->by_pair[key].places;
        unsigned cut = paired | tripled;
        unsigned char unmerged = self->by_pair[key].unmerged;
        if (data[i - 1] >= 0x80 && data[i] < 0x80) {
            /* A character of several bytes may end before this ASCII one: the rule of
             * UnmergedPairs reads its lead byte too, the last byte before that is no
             * continuation byte (looked for here, where its loop keeps it a byte). */
            Py_ssize_t j = i - 1;
            while (j > 0 && (data[j] & 0xC0) == 0x80) {
                j--;
            }
            if ((data[j] & 0xC0) != 0x80) {
                unmerged |= self->by_pair[data[j] | (unsigned)data[i] << 8].unmerged;
            }
        }
        unmerged_masks[unmerged]++;
        cut_masks[cut]++;
        run_twice |= tripled & run_triples;
        run_triples |= tripled;
        if (run_triples && place == n) { /* a run its triples cut ended before this byte */
            unsigned closing = run_twice & wanted;
            if (closing &&
                close_run(self, data, size, i, exact_of_gap, closing, more, &scratch) < 0) {
                failed = 1;
                break;
            }
            run_triples = run_twice = 0;
        }
        before = cut;
    }
    if (!failed && (run_twice & wanted) &&
        close_run(self, data, size, size, exact_of_gap, run_twice & wanted, more, &scratch) < 0) {
        failed = 1;
    }
    PyMem_Free(scratch.least);
    PyMem_Free(scratch.masks);
    if (exact_of_gap != exact_on_stack) {
        PyMem_Free(exact_of_gap);
    }
    if (failed) {
        return NULL;
    }
    for (int v = 0; v < self->vocabularies; v++) {
        if (!(wanted >> v & 1)) {
            continue; /* left 0 */
        }
        Py_ssize_t pairs = 0, cuts = more[v];
        for (int mask = 1; mask < 256; mask++) {
            if (mask >> v & 1) {
                pairs += unmerged_masks[mask];
                cuts += cut_masks[mask];
            }
        }
        totals[v] = 1 + (pairs > cuts ? pairs : cuts);
    }
    return tuple_of(totals, self->vocabularies);
}

static PyMethodDef floors_methods[] = {
    {"counts", (PyCFunction)(void (*)(void))floors_counts, METH_FASTCALL,
     "counts(data, wanted=every vocabulary) -> tuple\n\n"
     "Per vocabulary, one more than the larger of its unmerged pairs and forced cuts; "
     "0 for those whose bit of wanted is not set."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot floors_slots[] = {
    {Py_tp_new, floors_new},
    {Py_tp_dealloc, floors_dealloc},
    {Py_tp_methods, floors_methods},
    {Py_tp_doc, "PairFloors(unmerged, pairs, triples, whole_pairs, whole_triples, places, "
                "vocabularies)\n\n"
                "The counts of ctxbudget.tokens.boundaries.reference_pair_floors."},
    {0, NULL},
};

static PyType_Spec floors_spec = {
    .name = "ctxbudget.tokens._neighbours.PairFloors",
    .basicsize = sizeof(PairFloors),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = floors_slots,
};

/* LearnedPairs: per set of two- and three-byte characters (a byte per code point of the Basic
 * Multilingual Plane names its set, 1 to LEARNED_MOST_SETS; 0: none) and per vocabulary, the
 * adjacent pairs of one set's characters that the vocabulary did not learn, and the
 * characters between two such pairs (`reference_unlearned_pairs` in learned_pairs.py
 * defines the counts), looked up in one open-addressing hash table of the learned pairs'
 * keys of every set, in one pass. */
#define LEARNED_MOST_SETS 5

typedef struct {
    PyObject_HEAD
    int vocabularies;
    int sets;
    uint32_t mask_bits; /* the table holds 1 << mask_bits slots */
    uint32_t *keys;     /* key + 1 in each slot; 0: empty */
    unsigned char *masks;
    unsigned char *members; /* 0x10000 bytes: the set of each code point */
} LearnedPairs;

static void
learned_pairs_dealloc(LearnedPairs *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyMem_Free(self->keys);
    PyMem_Free(self->masks);
    PyMem_Free(self->members);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

static inline uint32_t
learned_slot(uint32_t key, uint32_t bits)
{
    return (uint32_t)(key * 2654435761u) >> (32 - bits);
}

static PyObject *
learned_pairs_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Py_buffer keys, masks, members;
    int vocabularies, sets;
    static char *names[] = {"keys", "masks", "vocabularies", "members", "sets", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*y*iy*i:LearnedPairs", names, &keys, &masks,
                                     &vocabularies, &members, &sets)) {
        return NULL;
    }
    LearnedPairs *self = NULL;
    Py_ssize_t n = masks.len;
    int sets_named = 1;
    for (Py_ssize_t c = 0; c < members.len; c++) {
        sets_named &= ((const unsigned char *)members.buf)[c] <= sets;
    }
    if (keys.len != 4 * n || vocabularies < 0 || vocabularies > 8 || n > (1 << 28) ||
        members.len != 0x10000 || sets < 1 || sets > LEARNED_MOST_SETS || !sets_named) {
        PyErr_SetString(PyExc_ValueError,
                        "LearnedPairs takes a key of 4 bytes a mask, 0 to 8 vocabularies, a set "
                        "(0 to sets) for each of 65536 code points and 1 to 5 sets");
        goto done;
    }
    self = (LearnedPairs *)type->tp_alloc(type, 0);
    if (self == NULL) {
        goto done;
    }
    self->vocabularies = vocabularies;
    self->sets = sets;
    uint32_t bits = 4;
    while (((Py_ssize_t)1 << bits) < 2 * n) { /* at most half full */
        bits++;
    }
    self->mask_bits = bits;
    self->keys = PyMem_Calloc((size_t)1 << bits, sizeof(uint32_t));
    self->masks = PyMem_Calloc((size_t)1 << bits, 1);
    self->members = PyMem_Malloc(0x10000);
    if (self->keys == NULL || self->masks == NULL || self->members == NULL) {
        PyErr_NoMemory();
        Py_CLEAR(self);
        goto done;
    }
    memcpy(self->members, members.buf, 0x10000);
    const uint32_t *given = (const uint32_t *)keys.buf;
    const unsigned char *given_masks = (const unsigned char *)masks.buf;
    uint32_t last = ((uint32_t)1 << bits) - 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t key;
        memcpy(&key, given + i, sizeof key); /* the buffer may not be aligned */
        uint32_t j = learned_slot(key, bits);
        while (self->keys[j] != 0 && self->keys[j] != key + 1) {
            j = (j + 1) & last;
        }
        self->keys[j] = key + 1;
        self->masks[j] |= given_masks[i];
    }
done:
    PyBuffer_Release(&keys);
    PyBuffer_Release(&masks);
    PyBuffer_Release(&members);
    return (PyObject *)self;
}

static inline unsigned char
learned_mask(const LearnedPairs *self, uint32_t key)
{
    uint32_t last = ((uint32_t)1 << self->mask_bits) - 1;
    for (uint32_t j = learned_slot(key, self->mask_bits);; j = (j + 1) & last) {
        if (self->keys[j] == key + 1) {
            return self->masks[j];
        }
        if (self->keys[j] == 0) {
            return 0;
        }
    }
}

static PyObject *
learned_pairs_counts(LearnedPairs *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "counts(data: bytes)");
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    /* Per set and mask of the vocabularies that learned a pair, how many pairs; per set
     * and mask of those that learned neither a pair nor the pair before it, how many. */
    Py_ssize_t masks[LEARNED_MOST_SETS][256] = {{0}};
    Py_ssize_t lone[LEARNED_MOST_SETS][256] = {{0}};
    Py_ssize_t previous_end = -1; /* where the paired character before ends; -1: none */
    Py_ssize_t pair_end = -1;     /* where the character that closed the last pair ends */
    unsigned previous_unlearned = 0; /* the vocabularies that did not learn that pair */
    unsigned previous_set = 0;
    uint32_t previous = 0;
    for (Py_ssize_t i = 0; i + 1 < size; i++) {
        unsigned lead = data[i];
        /* Two-byte characters are C2-DF and a continuation byte, three-byte ones E0-EF and
         * two; the features pass valid UTF-8 (surrogates included), so a lead byte starts
         * a whole character. */
        uint32_t code;
        Py_ssize_t width;
        if ((lead & 0xE0u) == 0xC0u && (data[i + 1] & 0xC0) == 0x80) {
            code = (lead & 0x1Fu) << 6 | (data[i + 1] & 0x3Fu);
            width = 2;
        }
        else if ((lead & 0xF0u) == 0xE0u && i + 2 < size && (data[i + 1] & 0xC0) == 0x80 &&
                 (data[i + 2] & 0xC0) == 0x80) {
            code = (lead & 0x0Fu) << 12 | (data[i + 1] & 0x3Fu) << 6 | (data[i + 2] & 0x3Fu);
            width = 3;
        }
        else {
            continue;
        }
        unsigned set = self->members[code];
        if (set == 0) {
            continue;
        }
        if (previous_end == i && set == previous_set) {
            unsigned learned = learned_mask(self, previous << 16 | code);
            unsigned unlearned = ~learned & 0xFFu;
            masks[set - 1][learned]++;
            if (pair_end == i) {
                lone[set - 1][unlearned & previous_unlearned]++;
            }
            previous_unlearned = unlearned;
            pair_end = i + width;
        }
        previous = code;
        previous_set = set;
        previous_end = i + width;
        i += width - 1;
    }
    int n = self->vocabularies;
    Py_ssize_t totals[LEARNED_MOST_SETS * 16] = {0};
    for (int s = 0; s < self->sets; s++) {
        Py_ssize_t pairs = 0;
        for (int mask = 0; mask < 256; mask++) {
            pairs += masks[s][mask];
        }
        Py_ssize_t *out = totals + 2 * n * s;
        for (int v = 0; v < n; v++) {
            out[v] = pairs;
            for (int mask = 1; mask < 256; mask++) {
                if (mask >> v & 1) {
                    out[v] -= masks[s][mask];
                    out[n + v] += lone[s][mask];
                }
            }
        }
    }
    return tuple_of(totals, 2 * n * self->sets);
}

static PyMethodDef learned_pairs_methods[] = {
    {"counts", (PyCFunction)(void (*)(void))learned_pairs_counts, METH_FASTCALL,
     "counts(data) -> tuple\n\n"
     "Per set: per vocabulary, the adjacent pairs of the set's characters it did not "
     "learn; then per vocabulary, the characters between two such pairs."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot learned_pairs_slots[] = {
    {Py_tp_new, learned_pairs_new},
    {Py_tp_dealloc, learned_pairs_dealloc},
    {Py_tp_methods, learned_pairs_methods},
    {Py_tp_doc, "LearnedPairs(keys, masks, vocabularies, members, sets)\n\n"
                "The counts of ctxbudget.tokens.learned_pairs.reference_unlearned_pairs."},
    {0, NULL},
};

static PyType_Spec learned_pairs_spec = {
    .name = "ctxbudget.tokens._neighbours.LearnedPairs",
    .basicsize = sizeof(LearnedPairs),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = learned_pairs_slots,
};

/* Words: the word counts of ctxbudget.tokens.words (`reference_word_counts` there
 * defines them, `WORD_COUNT_NAMES` names them in order). A word is a run of ASCII
 * letters; it is looked up in a hash table of the common words built once, with no
 * object made per word. */

typedef struct {
    uint32_t hash;
    uint32_t length; /* 0: an empty slot (no word is empty) */
    Py_ssize_t offset; /* of the word's bytes in the arena */
} WordSlot;

typedef struct {
    WordSlot *slots;
    size_t mask;
    unsigned char *arena;
} WordTable;

#define WORD_HASH_START 2166136261u /* FNV-1a */

/* The hash of a word with one more byte `b`: callers that read a word's letters one by
 * one hash it as they go. */
static inline uint32_t
word_hash_step(uint32_t hash, unsigned char b)
{
    return (hash ^ b) * 16777619u;
}

static uint32_t
word_hash(const unsigned char *word, Py_ssize_t length)
{
    uint32_t hash = WORD_HASH_START;
    for (Py_ssize_t i = 0; i < length; i++) {
        hash = word_hash_step(hash, word[i]);
    }
    return hash;
}

/* The slot of `word` (whose word_hash is `hash`) in `table`, or -1. */
static Py_ssize_t
word_table_find(const WordTable *table, const unsigned char *word, Py_ssize_t length,
                uint32_t hash)
{
    if (length > (Py_ssize_t)UINT32_MAX) {
        return -1; /* longer than any word the table can hold */
    }
    for (size_t i = hash & table->mask;; i = (i + 1) & table->mask) {
        const WordSlot *slot = &table->slots[i];
        if (slot->length == 0) {
            return -1;
        }
        if (slot->hash == hash && slot->length == (uint32_t)length &&
            memcmp(table->arena + slot->offset, word, (size_t)length) == 0) {
            return (Py_ssize_t)i;
        }
    }
}

static int
word_table_holds(const WordTable *table, const unsigned char *word, Py_ssize_t length)
{
    return word_table_find(table, word, length, word_hash(word, length)) >= 0;
}

static void
word_table_free(WordTable *table)
{
    PyMem_Free(table->slots);
    PyMem_Free(table->arena);
    table->slots = NULL;
    table->arena = NULL;
}

/* Fills `table` with the bytes objects of `words` (any iterable): 0, or -1 with an
 * exception set. */
static int
word_table_fill(WordTable *table, PyObject *words)
{
    PyObject *items = PySequence_Fast(words, "Words takes collections of bytes");
    if (items == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items), total = 0;
    PyObject **item = PySequence_Fast_ITEMS(items);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyBytes_Check(item[i]) || PyBytes_GET_SIZE(item[i]) > UINT32_MAX) {
            PyErr_SetString(PyExc_TypeError, "Words takes collections of bytes");
            Py_DECREF(items);
            return -1;
        }
        total += PyBytes_GET_SIZE(item[i]);
    }
    size_t size = 16;
    while (size < (size_t)n * 2) {
        size <<= 1;
    }
    table->mask = size - 1;
    table->slots = PyMem_Calloc(size, sizeof(WordSlot));
    table->arena = PyMem_Malloc(total > 0 ? (size_t)total : 1);
    if (table->slots == NULL || table->arena == NULL) {
        word_table_free(table);
        Py_DECREF(items);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t offset = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const unsigned char *word = (const unsigned char *)PyBytes_AS_STRING(item[i]);
        Py_ssize_t length = PyBytes_GET_SIZE(item[i]);
        uint32_t hash = word_hash(word, length);
        if (length == 0 || word_table_find(table, word, length, hash) >= 0) {
            continue;
        }
        size_t j = hash & table->mask;
        while (table->slots[j].length != 0) {
            j = (j + 1) & table->mask;
        }
        memcpy(table->arena + offset, word, (size_t)length);
        table->slots[j] = (WordSlot){hash, (uint32_t)length, offset};
        offset += length;
    }
    Py_DECREF(items);
    return 0;
}

#define SNAKE_VOCABULARIES 4

typedef struct {
    PyObject_HEAD
    WordTable words;
    WordTable parts;
    WordTable upper;
    WordTable snake[SNAKE_VOCABULARIES]; /* per vocabulary: the common words it splits
                                          * after an underscore */
    int snakes;                          /* 0, or SNAKE_VOCABULARIES */
    WordTable bare[SNAKE_VOCABULARIES];  /* per vocabulary: the common words it splits
                                          * written bare */
    int bares;                           /* 0, or SNAKE_VOCABULARIES */
    unsigned char rare[256];
    unsigned char consonant[256];
    Py_ssize_t cap, long_word, long_run, cover;
} Words;

static void
words_dealloc(Words *self)
{
    PyTypeObject *type = Py_TYPE(self);
    word_table_free(&self->words);
    word_table_free(&self->parts);
    word_table_free(&self->upper);
    for (int v = 0; v < self->snakes; v++) {
        word_table_free(&self->snake[v]);
    }
    for (int v = 0; v < self->bares; v++) {
        word_table_free(&self->bare[v]);
    }
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

/* How many per-vocabulary tables a split argument gives (a tuple, or NULL for none):
 * none or one per vocabulary, else -1 with the error set. */
static Py_ssize_t
split_tables_given(PyObject *split, const char *keyword)
{
    Py_ssize_t given = split == NULL ? 0 : PyTuple_GET_SIZE(split);
    if (given != 0 && given != SNAKE_VOCABULARIES) {
        PyErr_Format(PyExc_ValueError,
                     "Words takes %s: a tuple of one collection of bytes per vocabulary, "
                     "or none",
                     keyword);
        return -1;
    }
    return given;
}

/* Fills the first given tables from split, keeping in *filled how many are (for
 * dealloc); -1 with the error set where one cannot be read. */
static int
split_tables_fill(WordTable *tables, int *filled, PyObject *split, Py_ssize_t given)
{
    for (Py_ssize_t v = 0; v < given; v++) {
        if (word_table_fill(&tables[v], PyTuple_GET_ITEM(split, v)) < 0) {
            return -1;
        }
        *filled = (int)v + 1;
    }
    return 0;
}

static PyObject *
words_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *words, *parts, *upper, *snake = NULL, *bare = NULL;
    Py_buffer rare, consonant;
    Py_ssize_t cap, long_word, long_run, cover;
    static char *names[] = {"common_words", "common_parts",    "upper_case_tokens",
                            "rare_flags",   "consonant_flags", "cap",
                            "long_word",    "long_run",        "cover",
                            "snake_split",  "bare_split",      NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOy*y*nnnn|O!O!:Words", names, &words,
                                     &parts, &upper, &rare, &consonant, &cap, &long_word,
                                     &long_run, &cover, &PyTuple_Type, &snake, &PyTuple_Type,
                                     &bare)) {
        return NULL;
    }
    Words *self = NULL;
    if (rare.len != 256 || consonant.len != 256 || cap < 0 || long_word < 0 || long_run < 0 ||
        cover < 1) {
        PyErr_SetString(PyExc_ValueError,
                        "Words takes two flag tables of 256 bytes, counts of 0 or more "
                        "and a cover of 1 or more");
        goto done;
    }
    Py_ssize_t snakes = split_tables_given(snake, "snake_split");
    Py_ssize_t bares = split_tables_given(bare, "bare_split");
    if (snakes < 0 || bares < 0) {
        goto done;
    }
    self = (Words *)type->tp_alloc(type, 0);
    if (self == NULL) {
        goto done;
    }
    memcpy(self->rare, rare.buf, 256);
    memcpy(self->consonant, consonant.buf, 256);
    self->cap = cap;
    self->long_word = long_word;
    self->long_run = long_run;
    self->cover = cover;
    if (word_table_fill(&self->words, words) < 0 || word_table_fill(&self->parts, parts) < 0 ||
        word_table_fill(&self->upper, upper) < 0) {
        Py_CLEAR(self);
        goto done;
    }
    if (split_tables_fill(self->snake, &self->snakes, snake, snakes) < 0 ||
        split_tables_fill(self->bare, &self->bares, bare, bares) < 0) {
        Py_CLEAR(self);
        goto done;
    }
done:
    PyBuffer_Release(&rare);
    PyBuffer_Release(&consonant);
    return (PyObject *)self;
}

#define IS_LOWER(b) ((b) >= 'a' && (b) <= 'z')
#define IS_UPPER(b) ((b) >= 'A' && (b) <= 'Z')
#define IS_LETTER(b) (IS_LOWER(b) || IS_UPPER(b))

enum {
    W_WORDS,
    W_OTHER_WORDS,
    W_OTHER_LETTERS,
    W_CAPPED_LETTERS,
    W_LONG_RUN_LETTERS,
    W_RARE_LETTERS,
    W_CONSONANT_TRIPLES,
    W_UPPER_CONSONANT_TRIPLES,
    W_UPPER_CASE_TOKENS,
    W_ONE_LETTER_WORDS,
    W_TITLE_CASE_LETTERS,
    W_SNAKE_SPLIT, /* one per vocabulary: SNAKE_VOCABULARIES counts */
    W_BARE_SPLIT = W_SNAKE_SPLIT + SNAKE_VOCABULARIES, /* SNAKE_VOCABULARIES counts */
    W_UNCOMMON_CAMEL_PARTS = W_BARE_SPLIT + SNAKE_VOCABULARIES,
    W_MIXED_CASE_LONG_WORD_LETTERS,
    W_COMMON_CAMEL_LONG_WORD_LETTERS,
    W_UNCOVERED_LETTERS,
    W_COUNTS
};

/* The parts of a mixed-case word (a capital and the lower-case letters after it, a
 * run of lower-case letters, or a run of capitals not followed by a lower-case letter:
 * the last capital before one starts the next part) not in `parts`. */
static Py_ssize_t
uncommon_parts(const WordTable *parts, const unsigned char *word, Py_ssize_t length)
{
    Py_ssize_t uncommon = 0;
    for (Py_ssize_t p = 0, q; p < length; p = q) {
        q = p + 1;
        if (IS_UPPER(word[p]) && !(q < length && IS_LOWER(word[q]))) {
            while (q < length && IS_UPPER(word[q])) {
                q++;
            }
            q -= q < length; /* a lower-case letter follows: its capital goes with it */
        }
        else {
            while (q < length && IS_LOWER(word[q])) {
                q++;
            }
        }
        uncommon += !word_table_holds(parts, word + p, q - p);
    }
    return uncommon;
}

/* A capital, then only lower-case letters. */
static int
is_title_case(const unsigned char *word, Py_ssize_t length)
{
    if (!IS_UPPER(word[0])) {
        return 0;
    }
    for (Py_ssize_t j = 1; j < length; j++) {
        if (!IS_LOWER(word[j])) {
            return 0;
        }
    }
    return 1;
}

/* Only lower-case letters. */
static int
is_lower_case(const unsigned char *word, Py_ssize_t length)
{
    for (Py_ssize_t j = 0; j < length; j++) {
        if (!IS_LOWER(word[j])) {
            return 0;
        }
    }
    return 1;
}

#define LONGEST_COVERED 64

/* Of a lower-case or title-case word of more than `cap` letters (and at most
 * LONGEST_COVERED): its length less what the longest common word it starts with and the
 * longest common word the rest ends with (each `cover` letters or more, the first shorter
 * than the word; the capital of a title-case word looked up in lower case) cover, or less `cap`
 * where they cover fewer (ctxbudget.tokens.words._uncovered_letters). */
static Py_ssize_t
uncovered_letters(const Words *self, const unsigned char *word, Py_ssize_t length)
{
    unsigned char lowered[LONGEST_COVERED];
    if (length > LONGEST_COVERED || !(IS_LOWER(word[0]) || IS_UPPER(word[0])) ||
        !is_lower_case(word + 1, length - 1)) {
        return 0;
    }
    memcpy(lowered, word, (size_t)length);
    lowered[0] |= 0x20; /* an ASCII capital to its lower case */
    Py_ssize_t start = 0, end = 0;
    for (Py_ssize_t k = length - 1; k >= self->cover; k--) {
        if (word_table_holds(&self->words, lowered, k)) {
            start = k;
            break;
        }
    }
    for (Py_ssize_t k = length - start; k >= self->cover; k--) {
        if (word_table_holds(&self->words, lowered + length - k, k)) {
            end = k;
            break;
        }
    }
    Py_ssize_t covered = start + end > self->cap ? start + end : self->cap;
    return length > covered ? length - covered : 0;
}

/* Adds the counts of one word that is not common. */
static void
count_other_word(const Words *self, const unsigned char *word, Py_ssize_t length, int mixed,
                 Py_ssize_t *n)
{
    n[W_OTHER_WORDS]++;
    n[W_OTHER_LETTERS] += length;
    n[W_CAPPED_LETTERS] += length < self->cap ? length : self->cap;
    if (length > self->long_word) {
        for (Py_ssize_t j = 0, k; j < length; j = k) { /* runs of one case */
            int upper = IS_UPPER(word[j]);
            for (k = j + 1; k < length && IS_UPPER(word[k]) == upper; k++) {
            }
            if (k - j > self->long_run) {
                n[W_LONG_RUN_LETTERS] += k - j - self->long_run;
            }
        }
    }
    else {
        if (length > self->cap && is_title_case(word, length)) {
            n[W_TITLE_CASE_LETTERS] += length - self->cap;
        }
        if (length > self->cap) {
            n[W_UNCOVERED_LETTERS] += uncovered_letters(self, word, length);
        }
        for (Py_ssize_t j = 0; j < length; j++) {
            n[W_RARE_LETTERS] += self->rare[word[j]];
            if (j >= 2) {
                /* consonant_flags: 1 for a lower-case consonant, 2 for a capital one. */
                unsigned char a = self->consonant[word[j - 2]], b = self->consonant[word[j - 1]],
                              c = self->consonant[word[j]];
                if (a && b && c) {
                    n[(a & b & c & 2) ? W_UPPER_CONSONANT_TRIPLES : W_CONSONANT_TRIPLES]++;
                }
            }
        }
    }
    if (!mixed) {
        return;
    }
    Py_ssize_t capitals = 0;
    for (Py_ssize_t j = 0; j < length; j++) {
        capitals += IS_UPPER(word[j]);
    }
    int title = capitals == 1 && IS_UPPER(word[0]);
    if (capitals == 0 || capitals == length || title) {
        return;
    }
    Py_ssize_t uncommon = uncommon_parts(&self->parts, word, length);
    n[W_UNCOMMON_CAMEL_PARTS] += uncommon;
    if (length > self->long_word) {
        n[uncommon ? W_MIXED_CASE_LONG_WORD_LETTERS : W_COMMON_CAMEL_LONG_WORD_LETTERS] +=
            length - self->long_word;
    }
}

/* ASCII punctuation but '_' and '-' (ctxbudget.tokens.words._MARKS). */
static int
is_mark(unsigned char b)
{
    return b >= 0x21 && b <= 0x7E && !IS_LETTER(b) && !(b >= '0' && b <= '9') && b != '_' &&
           b != '-';
}

/* Whether the word at start is written bare (ctxbudget.tokens.words.BARE_BEFORE): the
 * first, or after a line break, a digit, or a mark that follows a mark, '_', '-' or a
 * space. */
static int
written_bare(const unsigned char *data, Py_ssize_t start)
{
    if (start == 0) {
        return 1;
    }
    unsigned char before = data[start - 1];
    if (before == '\n' || before == '\r' || (before >= '0' && before <= '9')) {
        return 1;
    }
    if (!is_mark(before) || start < 2) {
        return 0;
    }
    unsigned char earlier = data[start - 2];
    return is_mark(earlier) || earlier == ' ' || earlier == '_' || earlier == '-';
}

static PyObject *
words_counts(Words *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "counts(spelled: bytes, mixed: bool)");
        return NULL;
    }
    int mixed = PyObject_IsTrue(args[1]);
    if (mixed < 0) {
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t n[W_COUNTS] = {0};
    for (Py_ssize_t i = 0; i < size;) {
        if (!IS_LETTER(data[i])) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        /* Hashed as it is read: every table is looked up with the one hash. */
        uint32_t hash = WORD_HASH_START;
        while (i < size && IS_LETTER(data[i])) {
            hash = word_hash_step(hash, data[i]);
            i++;
        }
        const unsigned char *word = data + start;
        Py_ssize_t length = i - start;
        n[W_WORDS]++;
        if (word_table_find(&self->words, word, length, hash) >= 0) {
            if (start > 0 && data[start - 1] == '_') { /* a part of a snake_case name */
                for (int v = 0; v < self->snakes; v++) {
                    n[W_SNAKE_SPLIT + v] +=
                        word_table_find(&self->snake[v], word, length, hash) >= 0;
                }
            }
            else if (self->bares && written_bare(data, start)) {
                for (int v = 0; v < self->bares; v++) {
                    n[W_BARE_SPLIT + v] +=
                        word_table_find(&self->bare[v], word, length, hash) >= 0;
                }
            }
            continue;
        }
        if (length == 1 && !(start > 0 && data[start - 1] >= 0x80) &&
            !(i < size && data[i] >= 0x80)) {
            n[W_ONE_LETTER_WORDS]++;
        }
        else if (word_table_find(&self->upper, word, length, hash) >= 0) {
            n[W_UPPER_CASE_TOKENS]++;
        }
        else {
            count_other_word(self, data + start, i - start, mixed, n);
        }
    }
    return tuple_of(n, W_COUNTS);
}

static PyMethodDef words_methods[] = {
    {"counts", (PyCFunction)(void (*)(void))words_counts, METH_FASTCALL,
     "counts(spelled, mixed) -> tuple\n\n"
     "The counts of ctxbudget.tokens.words.reference_word_counts."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot words_slots[] = {
    {Py_tp_new, words_new},
    {Py_tp_dealloc, words_dealloc},
    {Py_tp_methods, words_methods},
    {Py_tp_doc, "Words(common_words, common_parts, upper_case_tokens, rare_flags, "
                "consonant_flags, cap, long_word, long_run, snake_split=(), bare_split=())\n\n"
                "The word counts of ctxbudget.tokens.words.reference_word_counts."},
    {0, NULL},
};

static PyType_Spec words_spec = {
    .name = "ctxbudget.tokens._neighbours.Words",
    .basicsize = sizeof(Words),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = words_slots,
};

/* -- held words (ctxbudget.tokens.held_words) ----------------------------------- */

/* HeldWords: the words of ASCII letters after a space that some vocabulary holds whole
 * (ctxbudget.tokens.held_words, `reference_ascii_stand_in` there defines the pass), each
 * written as the stand-in, with what each vocabulary spends on it beyond one token
 * summed per vocabulary, and the most of them word by word. */

#define HELD_VOCABULARIES SNAKE_VOCABULARIES /* the same four, in the same order */

typedef struct {
    PyObject_HEAD
    WordTable words;
    unsigned char *costs; /* HELD_VOCABULARIES per slot of `words` */
    /* One bit per value of a word's hash masked by filter_mask, set for the words held:
     * most words of a text (the common ones) are held by none, and a clear bit says so
     * from a bitmap that stays in the cache (256 KB for the shipped table), where the
     * table's slots (4 MB) miss it: the dev corpus 23 -> 18 ms. */
    uint64_t *filter;
    uint32_t filter_mask;
    Py_ssize_t longest; /* the longest word held: no longer run is looked up */
    PyObject *stand_in; /* bytes */
} HeldWords;

#define HELD_FILTER_BITS_PER_WORD 16

static void
held_words_dealloc(HeldWords *self)
{
    PyTypeObject *type = Py_TYPE(self);
    word_table_free(&self->words);
    PyMem_Free(self->costs);
    PyMem_Free(self->filter);
    Py_XDECREF(self->stand_in);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

static PyObject *
held_words_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *words, *stand_in;
    Py_buffer costs;
    static char *names[] = {"words", "costs", "stand_in", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oy*S:HeldWords", names, &words, &costs,
                                     &stand_in)) {
        return NULL;
    }
    HeldWords *self = NULL;
    PyObject *items = PySequence_Fast(words, "HeldWords takes a sequence of bytes");
    if (items == NULL) {
        goto done;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject **item = PySequence_Fast_ITEMS(items);
    if (costs.len != n * HELD_VOCABULARIES) {
        PyErr_SetString(PyExc_ValueError, "HeldWords takes 4 costs (bytes) per word");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyBytes_Check(item[i]) || PyBytes_GET_SIZE(item[i]) == 0) {
            PyErr_SetString(PyExc_TypeError, "HeldWords takes words as non-empty bytes");
            goto done;
        }
        const unsigned char *word = (const unsigned char *)PyBytes_AS_STRING(item[i]);
        for (Py_ssize_t j = 0; j < PyBytes_GET_SIZE(item[i]); j++) {
            if (!IS_LETTER(word[j])) {
                PyErr_SetString(PyExc_ValueError, "HeldWords takes words of ASCII letters");
                goto done;
            }
        }
    }
    self = (HeldWords *)type->tp_alloc(type, 0);
    if (self == NULL) {
        goto done;
    }
    Py_INCREF(stand_in);
    self->stand_in = stand_in;
    if (word_table_fill(&self->words, items) < 0) {
        Py_CLEAR(self);
        goto done;
    }
    size_t bits = 64;
    while (bits < (size_t)n * HELD_FILTER_BITS_PER_WORD && bits < ((size_t)1 << 31)) {
        bits <<= 1;
    }
    self->filter_mask = (uint32_t)(bits - 1);
    self->filter = PyMem_Calloc(bits / 64, sizeof(uint64_t));
    self->costs = PyMem_Calloc((self->words.mask + 1) * HELD_VOCABULARIES, 1);
    if (self->costs == NULL || self->filter == NULL) {
        PyErr_NoMemory();
        Py_CLEAR(self);
        goto done;
    }
    const unsigned char *given = (const unsigned char *)costs.buf;
    for (Py_ssize_t i = 0; i < n * HELD_VOCABULARIES; i++) {
        if (given[i] == 0) {
            PyErr_SetString(PyExc_ValueError, "HeldWords takes costs of one token or more");
            Py_CLEAR(self);
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const unsigned char *word = (const unsigned char *)PyBytes_AS_STRING(item[i]);
        Py_ssize_t length = PyBytes_GET_SIZE(item[i]);
        uint32_t hash = word_hash(word, length);
        Py_ssize_t slot = word_table_find(&self->words, word, length, hash);
        memcpy(self->costs + slot * HELD_VOCABULARIES, given + i * HELD_VOCABULARIES,
               HELD_VOCABULARIES);
        uint32_t bit = hash & self->filter_mask;
        self->filter[bit >> 6] |= (uint64_t)1 << (bit & 63);
        if (length > self->longest) {
            self->longest = length;
        }
    }
done:
    Py_XDECREF(items);
    PyBuffer_Release(&costs);
    return (PyObject *)self;
}

/* stand_in(data) -> (bytes or None, extra per vocabulary..., most): `data` (UTF-8) with
 * every held word written as the stand-in (None where there is none). A word is a whole
 * run of ASCII letters right after a space: after it, the end or an ASCII byte that is
 * no letter (a byte of a character beyond ASCII may be a letter of the same word). */
static PyObject *
held_words_stand_in(HeldWords *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "stand_in(data: bytes)");
        return NULL;
    }
    PyObject *given = args[0];
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(given);
    Py_ssize_t size = PyBytes_GET_SIZE(given);
    const unsigned char *stand_in = (const unsigned char *)PyBytes_AS_STRING(self->stand_in);
    Py_ssize_t stand_in_size = PyBytes_GET_SIZE(self->stand_in);
    Py_ssize_t n[HELD_VOCABULARIES + 1] = {0};
    unsigned char *out = NULL;
    Py_ssize_t written = 0, copied = 0; /* out's length; data copied up to here */
    Py_ssize_t capacity = 0;            /* out's room, grown as stand-ins lengthen it */
    /* Each word after a space hashed as its letters are read (a loop over the bytes:
     * memchr from space to space was slower, spaces being one byte in five). */
    for (Py_ssize_t i = 1; i < size;) {
        if (data[i - 1] != ' ' || !IS_LETTER(data[i])) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        uint32_t hash = WORD_HASH_START;
        while (i < size && IS_LETTER(data[i])) {
            hash = word_hash_step(hash, data[i]);
            i++;
        }
        Py_ssize_t length = i - start;
        if (length > self->longest || (i < size && data[i] >= 0x80)) {
            continue;
        }
        uint32_t bit = hash & self->filter_mask;
        if (!(self->filter[bit >> 6] & ((uint64_t)1 << (bit & 63)))) {
            continue;
        }
        Py_ssize_t slot = word_table_find(&self->words, data + start, length, hash);
        if (slot < 0) {
            continue;
        }
        const unsigned char *costs = self->costs + slot * HELD_VOCABULARIES;
        int most = 0;
        for (int v = 0; v < HELD_VOCABULARIES; v++) {
            n[v] += costs[v] - 1;
            most = costs[v] > most ? costs[v] : most;
        }
        n[HELD_VOCABULARIES] += most - 1;
        /* What is written so far, this word's stand-in and the rest of the data. */
        Py_ssize_t needed = written + (start - copied) + stand_in_size + (size - i);
        if (needed > capacity) {
            capacity = needed > 2 * capacity ? needed + 64 : 2 * capacity;
            unsigned char *grown = PyMem_Realloc(out, (size_t)capacity);
            if (grown == NULL) {
                PyMem_Free(out);
                return PyErr_NoMemory();
            }
            out = grown;
        }
        memcpy(out + written, data + copied, (size_t)(start - copied));
        written += start - copied;
        memcpy(out + written, stand_in, (size_t)stand_in_size);
        written += stand_in_size;
        copied = i;
    }
    PyObject *result;
    if (out == NULL) {
        result = Py_NewRef(Py_None);
    }
    else {
        memcpy(out + written, data + copied, (size_t)(size - copied));
        written += size - copied;
        result = PyBytes_FromStringAndSize((const char *)out, written);
        PyMem_Free(out);
        if (result == NULL) {
            return NULL;
        }
    }
    return tuple_made(result, n, HELD_VOCABULARIES + 1, count_at);
}

static PyMethodDef held_words_methods[] = {
    {"stand_in", (PyCFunction)(void (*)(void))held_words_stand_in, METH_FASTCALL,
     "stand_in(data) -> tuple\n\n"
     "ctxbudget.tokens.held_words.reference_ascii_stand_in, in one pass."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot held_words_slots[] = {
    {Py_tp_new, held_words_new},
    {Py_tp_dealloc, held_words_dealloc},
    {Py_tp_methods, held_words_methods},
    {Py_tp_doc, "HeldWords(words, costs, stand_in)\n\n"
                "The stand-ins of ctxbudget.tokens.held_words.reference_ascii_stand_in."},
    {0, NULL},
};

static PyType_Spec held_words_spec = {
    .name = "ctxbudget.tokens._neighbours.HeldWords",
    .basicsize = sizeof(HeldWords),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = held_words_slots,
};

/* -- periodic runs (ctxbudget.tokens.repeats) ------------------------------------ */

#define LONGEST_PERIOD 64

/* Whether `unit` (of `period` bytes) repeats no shorter unit: a run of "abab" is one of
 * "ab", which its own lag reports. */
static int
is_minimal_unit(const unsigned char *unit, Py_ssize_t period)
{
    for (Py_ssize_t shorter = 1; shorter < period; shorter++) {
        if (period % shorter == 0 && memcmp(unit, unit + shorter, period - shorter) == 0) {
            return 0;
        }
    }
    return 1;
}

/* Whether the `gram` (2 or 4) bytes at `a` and `b` are the same: loads of a fixed
 * size, which the compiler turns into one comparison. */
static inline int
same_gram(const unsigned char *a, const unsigned char *b, Py_ssize_t gram)
{
    if (gram == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y;
    }
    uint16_t x, y;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    return x == y;
}

static int
same_bytes(const unsigned char *bytes, Py_ssize_t size)
{
    for (Py_ssize_t i = 1; i < size; i++) {
        if (bytes[i] != bytes[0]) {
            return 0;
        }
    }
    return 1;
}

static int
append_run(PyObject *runs, Py_ssize_t start, Py_ssize_t period, Py_ssize_t length)
{
    PyObject *run = Py_BuildValue("(nnn)", start, period, length);
    if (run == NULL) {
        return -1;
    }
    int failed = PyList_Append(runs, run);
    Py_DECREF(run);
    return failed;
}

/* The run at lag `p` through position `hit`, where `gram` bytes equal those `p` before:
 * appended to `runs` (start, p, length) if it has `matched` such bytes or more and a
 * minimal unit. Returns where to look on (past the run's end), or -1 on error. */
static Py_ssize_t
take_run(PyObject *runs, const unsigned char *data, Py_ssize_t size, Py_ssize_t p,
         Py_ssize_t matched, Py_ssize_t hit, Py_ssize_t gram)
{
    Py_ssize_t first = hit, end = hit + gram;
    if (same_bytes(data + hit - p, p + gram)) {
        /* A run of one byte (indentation, a rule), `p + gram` long here: the whole run
         * at this lag is that byte, whose unit is not minimal. It ends where the byte
         * does. */
        while (end < size && data[end] == data[hit]) {
            end++;
        }
        return end + 1;
    }
    while (first > p && data[first - 1] == data[first - 1 - p]) {
        first--;
    }
    while (end < size && data[end] == data[end - p]) {
        end++;
    }
    if (end - first >= matched && is_minimal_unit(data + first - p, p) &&
        append_run(runs, first - p, p, end - first + p) < 0) {
        return -1;
    }
    return end + 1;
}

/* Appends to `runs` every maximal run of bytes that each equal the byte `p` before them,
 * `matched` bytes or more (`p` at least), whose unit is minimal. Such a run holds
 * `matched - gram + 1` positions at which `gram` bytes in a row do, so testing every
 * `matched - gram + 1`th position finds every run; `gram` bytes that equal those `p`
 * before are rare in text (a byte alone is not: a space, an "e"), and a hit is grown
 * both ways to its whole run. Where SSE2 is at hand (every x86-64) and the stride is
 * short, 16 positions are compared at once, in windows that overlap by `gram - 1` so
 * that no `gram` in a row straddles two. Inlined with a constant `gram`, so that a test
 * is one comparison. */
static inline int
scan_lag(PyObject *runs, const unsigned char *data, Py_ssize_t size, Py_ssize_t p,
         Py_ssize_t matched, Py_ssize_t gram)
{
    Py_ssize_t stride = matched - gram + 1;
    Py_ssize_t i = p;
#ifdef __SSE2__
    /* 16 at once pays where the stride is short; past that, a test every `stride`. */
    while (stride < 4 && i + 16 <= size) {
        __m128i now = _mm_loadu_si128((const __m128i *)(data + i));
        __m128i before = _mm_loadu_si128((const __m128i *)(data + i - p));
        unsigned equal = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(now, before));
        unsigned starts = equal; /* positions that start `gram` equal bytes in a row */
        for (Py_ssize_t k = 1; k < gram; k++) {
            starts &= equal >> k;
        }
        starts &= (1u << (17 - gram)) - 1;
        if (!starts) {
            i += 17 - gram;
            continue;
        }
        i = take_run(runs, data, size, p, matched, i + __builtin_ctz(starts), gram);
        if (i < 0) {
            return -1;
        }
    }
#endif
    while (i + gram <= size) {
        if (!same_gram(data + i, data + i - p, gram)) {
            i += stride;
            continue;
        }
        i = take_run(runs, data, size, p, matched, i, gram);
        if (i < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *
periodic_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t shortest, longest, units;
    if (nargs != 4 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError,
                        "periodic_runs(data: bytes, shortest: int, longest: int, units: int)");
        return NULL;
    }
    shortest = PyLong_AsSsize_t(args[1]);
    longest = PyLong_AsSsize_t(args[2]);
    units = PyLong_AsSsize_t(args[3]);
    if ((shortest == -1 || longest == -1 || units == -1) && PyErr_Occurred()) {
        return NULL;
    }
    if (units < 2 || units > 64) {
        PyErr_SetString(PyExc_ValueError, "units must satisfy 2 <= units <= 64");
        return NULL;
    }
    if (shortest < 2 || longest < shortest || longest > LONGEST_PERIOD) {
        PyErr_Format(PyExc_ValueError, "periods must satisfy 2 <= shortest <= longest <= %d",
                     LONGEST_PERIOD);
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    PyObject *runs = PyList_New(0);
    if (runs == NULL) {
        return NULL;
    }
    for (Py_ssize_t p = shortest; p <= longest; p++) {
        /* Bytes that equal the one `p` before: a run of `units` units has the unit's
         * bytes fewer. */
        Py_ssize_t matched = (units - 1) * p;
        int failed = matched >= 4 ? scan_lag(runs, data, size, p, matched, 4)
                                  : scan_lag(runs, data, size, p, matched, 2);
        if (failed < 0) {
            Py_DECREF(runs);
            return NULL;
        }
    }
    if (PyList_Sort(runs) < 0) {
        Py_DECREF(runs);
        return NULL;
    }
    return runs;
}

/* unicode_space_changes(data): over UTF-8 `data`, the pairs of adjacent white-space
 * characters that differ, one of them a space beyond ASCII
 * (ctxbudget.tokens.neighbours.reference_unicode_space_changes). Returns the code point
 * of the white-space character that starts at `data[i]` and its length in `*length`, or
 * -1 for any other character or byte (a continuation byte is never taken for the start
 * of one: the lead bytes looked for are no continuation bytes). */
static long
white_space_at(const unsigned char *data, Py_ssize_t size, Py_ssize_t i, Py_ssize_t *length)
{
    unsigned char b = data[i];
    *length = 1;
    if (b == ' ' || (b >= '\t' && b <= '\r')) {
        return b;
    }
    if (b == 0xC2 && i + 1 < size && (data[i + 1] == 0x85 || data[i + 1] == 0xA0)) {
        *length = 2;
        return data[i + 1];
    }
    if (b < 0xE1 || b > 0xEF || i + 2 >= size) {
        return -1;
    }
    if ((data[i + 1] & 0xC0) != 0x80 || (data[i + 2] & 0xC0) != 0x80) {
        return -1;
    }
    long code = ((long)(b & 0x0F) << 12) | ((long)(data[i + 1] & 0x3F) << 6) |
                (data[i + 2] & 0x3F);
    int space = code == 0x1680 || (code >= 0x2000 && code <= 0x200A) || code == 0x2028 ||
                code == 0x2029 || code == 0x202F || code == 0x205F || code == 0x3000 ||
                code == 0xFEFF;
    if (!space) {
        return -1;
    }
    *length = 3;
    return code;
}

static PyObject *
unicode_space_changes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "unicode_space_changes(data: bytes)");
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t changes = 0, length;
    long before = -1;
    for (Py_ssize_t i = 0; i < size; i += length) {
        long code = white_space_at(data, size, i, &length);
        if (code >= 0 && before >= 0 && code != before && (code >= 0x80 || before >= 0x80)) {
            changes++;
        }
        before = code;
    }
    return PyLong_FromSsize_t(changes);
}

/* range_class_counts(data, first, table, bits): over the characters of U+0800-U+FFFF in
 * data (UTF-8) from code point `first` on, one 16-bit little-endian mask each in
 * `table`, how many have each of the low `bits` bits set
 * (`reference_range_class_counts` in neighbours.py). */
static PyObject *
range_class_counts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyLong_Check(args[1]) ||
        !PyBytes_Check(args[2]) || !PyLong_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "range_class_counts(data: bytes, first: int, table: bytes, bits: int)");
        return NULL;
    }
    Py_ssize_t first = PyLong_AsSsize_t(args[1]);
    Py_ssize_t bits = PyLong_AsSsize_t(args[3]);
    if ((first == -1 || bits == -1) && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t entries = PyBytes_GET_SIZE(args[2]) / 2;
    if (PyBytes_GET_SIZE(args[2]) % 2 || first < 0x800 || first + entries > 0x10000 || bits < 0 ||
        bits > 12) {
        PyErr_SetString(PyExc_ValueError,
                        "range_class_counts takes a table of 16-bit masks of code points of "
                        "U+0800-U+FFFF and 0-12 bits");
        return NULL;
    }
    const unsigned char *table = (const unsigned char *)PyBytes_AS_STRING(args[2]);
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    /* How many characters had each mask, the bits summed once at the end: only the
     * 2 ** bits masks kept are cleared (32 KB for all 12 would be cleared every call). */
    Py_ssize_t masks[1 << 12];
    unsigned keep = (1u << bits) - 1;
    memset(masks, 0, ((size_t)keep + 1) * sizeof masks[0]);
    for (Py_ssize_t i = 0; i + 2 < size; i++) {
        if ((data[i] & 0xF0) != 0xE0 || (data[i + 1] & 0xC0) != 0x80 ||
            (data[i + 2] & 0xC0) != 0x80) {
            continue;
        }
        Py_ssize_t code = (Py_ssize_t)(data[i] & 0x0F) << 12 | (data[i + 1] & 0x3F) << 6 |
                          (data[i + 2] & 0x3F);
        i += 2;
        if (code >= first && code < first + entries) {
            unsigned mask =
                (table[2 * (code - first)] | (unsigned)table[2 * (code - first) + 1] << 8) & keep;
            masks[mask]++;
        }
    }
    PyObject *result = PyTuple_New(bits);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t b = 0; b < bits; b++) {
        Py_ssize_t total = 0;
        for (unsigned mask = 1; mask <= keep; mask++) {
            if (mask >> b & 1) {
                total += masks[mask];
            }
        }
        PyObject *count = PyLong_FromSsize_t(total);
        if (count == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, b, count);
    }
    return result;
}

/* class_counts(data, table, classes): how many bytes of data the table puts in each
 * class 1..classes (`reference_class_counts` in neighbours.py). Four sets of counters,
 * a byte each in turn, so that a run of one class does not wait on its own count. */
static PyObject *
class_counts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1]) ||
        !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "class_counts(data: bytes, table: bytes, classes: int)");
        return NULL;
    }
    Py_ssize_t classes = PyLong_AsSsize_t(args[2]);
    if (classes == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (PyBytes_GET_SIZE(args[1]) != 256 || classes < 0 || classes > 255) {
        PyErr_SetString(PyExc_ValueError, "class_counts takes a table of 256 classes and 0-255");
        return NULL;
    }
    const unsigned char *table = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t counts[4][256] = {{0}};
    Py_ssize_t i = 0;
    for (; i + 4 <= size; i += 4) {
        counts[0][table[data[i]]]++;
        counts[1][table[data[i + 1]]]++;
        counts[2][table[data[i + 2]]]++;
        counts[3][table[data[i + 3]]]++;
    }
    for (; i < size; i++) {
        counts[0][table[data[i]]]++;
    }
    PyObject *result = PyTuple_New(classes);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t k = 1; k <= classes; k++) {
        PyObject *count =
            PyLong_FromSsize_t(counts[0][k] + counts[1][k] + counts[2][k] + counts[3][k]);
        if (count == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, k - 1, count);
    }
    return result;
}

/* Every maximal run of one byte at least as long as `shortest[byte]` (a table of 256
 * lengths, 0 for a byte whose runs are not looked for), as (start, 1, length). Such a
 * run holds, at the least, `least - 1` positions in a row whose byte equals the one
 * before, `least` the table's smallest length, so testing every `least - 1`th position
 * finds each; a hit is grown both ways to its whole run. */
static PyObject *
byte_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "byte_runs(data: bytes, shortest: bytes)");
        return NULL;
    }
    if (PyBytes_GET_SIZE(args[1]) != 256) {
        PyErr_SetString(PyExc_ValueError, "shortest must hold 256 lengths, one a byte value");
        return NULL;
    }
    const unsigned char *shortest = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    Py_ssize_t least = 256;
    for (int k = 0; k < 256; k++) {
        if (shortest[k] == 1) {
            PyErr_SetString(PyExc_ValueError, "shortest lengths must be 0 or at least 2");
            return NULL;
        }
        if (shortest[k] && shortest[k] < least) {
            least = shortest[k];
        }
    }
    PyObject *runs = PyList_New(0);
    if (runs == NULL || least == 256) {
        return runs;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t stride = least - 1;
    Py_ssize_t i = 1;
    while (i < size) {
        unsigned char byte = data[i];
        if (byte != data[i - 1] || !shortest[byte]) {
            i += stride;
            continue;
        }
        Py_ssize_t first = i - 1, end = i + 1;
        while (first > 0 && data[first - 1] == byte) {
            first--;
        }
        while (end < size && data[end] == byte) {
            end++;
        }
        if (end - first >= shortest[byte] && append_run(runs, first, 1, end - first) < 0) {
            Py_DECREF(runs);
            return NULL;
        }
        i = end + 1;
    }
    return runs;
}

/* -- weighted sums (ctxbudget.tokens.calibrated) --------------------------------- */

static PyObject *
double_at(const void *doubles, Py_ssize_t k)
{
    return PyFloat_FromDouble(((const double *)doubles)[k]);
}

/* weighted_sums(weights, features): per row of `weights` (doubles in machine order, one
 * row of len(features) per set of weights), the sum of weight * feature, left to right
 * as Python's sum(map(operator.mul, row, features)) adds them. A feature of 0 adds
 * +0.0 there (the weights are not negative), which changes no sum, so it is skipped. */
static PyObject *
weighted_sums(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "weighted_sums(weights: bytes, features: tuple)");
        return NULL;
    }
    Py_ssize_t width = PyTuple_GET_SIZE(args[1]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    if (width == 0 || size % (Py_ssize_t)sizeof(double) != 0 ||
        (size / (Py_ssize_t)sizeof(double)) % width != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "weighted_sums takes rows of one double per feature, and features");
        return NULL;
    }
    Py_ssize_t rows = size / (Py_ssize_t)sizeof(double) / width;
    if (rows > 16) {
        PyErr_SetString(PyExc_ValueError, "weighted_sums takes 16 rows at most");
        return NULL;
    }
    const char *weights = PyBytes_AS_STRING(args[0]);
    double sums[16] = {0};
    for (Py_ssize_t i = 0; i < width; i++) {
        PyObject *item = PyTuple_GET_ITEM(args[1], i);
        long long value = PyLong_AsLongLong(item);
        if (value == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (value == 0) {
            continue;
        }
        double feature = (double)value;
        for (Py_ssize_t r = 0; r < rows; r++) {
            double weight;
            memcpy(&weight, weights + (size_t)(r * width + i) * sizeof(double),
                   sizeof weight);
            /* Rounded as a product of its own before the sum, as Python's two steps are:
             * a fused multiply-add would round once, and differ in the last bit. */
            volatile double product = weight * feature;
            sums[r] += product;
        }
    }
    return tuple_made(NULL, sums, rows, double_at);
}

static PyMethodDef module_methods[] = {
    {"weighted_sums", (PyCFunction)(void (*)(void))weighted_sums, METH_FASTCALL,
     "weighted_sums(weights, features) -> tuple\n\n"
     "Per row of weights, sum(map(operator.mul, row, features)), in one pass."},
    {"unicode_space_changes", (PyCFunction)(void (*)(void))unicode_space_changes, METH_FASTCALL,
     "unicode_space_changes(data) -> int\n\n"
     "ctxbudget.tokens.neighbours.reference_unicode_space_changes, in one pass."},
    {"periodic_runs", (PyCFunction)(void (*)(void))periodic_runs, METH_FASTCALL,
     "periodic_runs(data, shortest, longest, units) -> list\n\n"
     "ctxbudget.tokens.repeats.reference_periodic_runs, in one pass."},
    {"range_class_counts", (PyCFunction)(void (*)(void))range_class_counts, METH_FASTCALL,
     "range_class_counts(data, first, table, bits) -> tuple\n\n"
     "ctxbudget.tokens.neighbours.reference_range_class_counts, in one pass."},
    {"class_counts", (PyCFunction)(void (*)(void))class_counts, METH_FASTCALL,
     "class_counts(data, table, classes) -> tuple\n\n"
     "ctxbudget.tokens.neighbours.reference_class_counts, in one pass."},
    {"byte_runs", (PyCFunction)(void (*)(void))byte_runs, METH_FASTCALL,
     "byte_runs(data, shortest) -> list\n\n"
     "ctxbudget.tokens.repeats.reference_byte_runs, in one pass."},
    {NULL, NULL, 0, NULL},
};

static int
add_type(PyObject *module, PyType_Spec *spec, const char *name)
{
    PyObject *type = PyType_FromModuleAndSpec(module, spec, NULL);
    if (type == NULL) {
        return -1;
    }
    int failed = PyModule_AddObjectRef(module, name, type);
    Py_DECREF(type);
    return failed;
}

static int
module_exec(PyObject *module)
{
    if (add_type(module, &neighbours_spec, "Neighbours") < 0) {
        return -1;
    }
    if (add_type(module, &unmerged_spec, "UnmergedPairs") < 0) {
        return -1;
    }
    if (add_type(module, &floors_spec, "PairFloors") < 0) {
        return -1;
    }
    if (add_type(module, &learned_pairs_spec, "LearnedPairs") < 0) {
        return -1;
    }
    if (add_type(module, &words_spec, "Words") < 0) {
        return -1;
    }
    return add_type(module, &held_words_spec, "HeldWords");
}
static struct PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctxbudget.tokens._neighbours",
    .m_doc = "The neighbour counts, pair floors, unlearned ideograph pairs, words, held "
             "words and periodic runs of ctxbudget.tokens, each in one pass, and the "
             "weighted sums of the calibrated counts.",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__neighbours(void)
{
    return PyModuleDef_Init(&module_definition);
}
