# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The Unigram trainer's two corpus-wide loops, compiled: core/unigram.py's _e_blocks (with
_word_expectations, forward-backward over each word's lattice) and _viterbi_blocks (with
_word_viterbi), step for step: the same floating-point operations in the same order (C's exp and
log are the libm Python's math.exp and math.log call; built with -ffp-contract=off so no multiply
and add is fused), so the traces are equal bit for bit. The Python functions are the readable
version; tests/core/test_unigram_fast.py holds the two equal. Built by core/fast/build.py
(`make fast`); optional.

What is compiled: every word's matches against the seed pieces (the trainer's `rows`, which never
change: pieces are only dropped) are copied once into flat C arrays (`Lattices`); each step reads
the scores into a C array and walks the lattices there.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.math cimport exp, log, INFINITY


cdef void* _grown(void* p, size_t size) except NULL:
    cdef void* q = realloc(p, size if size else 1)
    if q == NULL:
        raise MemoryError()
    return q


cdef class Lattices:
    """Each word's matches: word w's positions are pos_at[w] .. pos_at[w + 1] - 1; position p's
    matches (length, sid; shorter first, as _matches gives them) are node_at[p] .. node_at[p + 1] - 1.
    counts[w] is the word's count as a float (as Python turns the int into one)."""
    cdef Py_ssize_t n_words, n_sids, longest
    cdef Py_ssize_t* pos_at
    cdef Py_ssize_t* node_at
    cdef int* node_len
    cdef int* node_sid
    cdef double* counts

    def __cinit__(self, list rows, list counts, Py_ssize_t n_sids):
        cdef Py_ssize_t n_pos = 0, n_nodes = 0, w, p, k, n
        cdef list word_rows
        cdef tuple row
        self.pos_at = self.node_at = NULL
        self.node_len = self.node_sid = NULL
        self.counts = NULL
        self.n_words = len(rows)
        self.n_sids = n_sids
        self.longest = 0
        for word_rows in rows:
            n_pos += len(word_rows)
            if len(word_rows) > self.longest:
                self.longest = len(word_rows)
            for row in word_rows:
                n_nodes += len(row)
        self.pos_at = <Py_ssize_t*>_grown(NULL, (self.n_words + 1) * sizeof(Py_ssize_t))
        self.node_at = <Py_ssize_t*>_grown(NULL, (n_pos + 1) * sizeof(Py_ssize_t))
        self.node_len = <int*>_grown(NULL, n_nodes * sizeof(int))
        self.node_sid = <int*>_grown(NULL, n_nodes * sizeof(int))
        self.counts = <double*>_grown(NULL, self.n_words * sizeof(double))
        p = 0
        k = 0
        for w in range(self.n_words):
            self.pos_at[w] = p
            self.counts[w] = float(counts[w])
            for row in rows[w]:
                self.node_at[p] = k
                for length, sid in row:
                    if not 0 < sid < n_sids:
                        raise ValueError(f"sid {sid} outside 1..{n_sids - 1}")
                    self.node_len[k] = length
                    self.node_sid[k] = sid
                    k += 1
                p += 1
        self.pos_at[self.n_words] = p
        self.node_at[p] = k

    @property
    def n_nodes(self):
        """How many matches all the words have (what one E step walks)."""
        return self.node_at[self.pos_at[self.n_words]] - self.node_at[self.pos_at[0]] if self.n_words else 0

    def rows(self):
        """The matches back as core/unigram.py's _matches gives them: per word, per start, a
        tuple of (length, sid) (for tests)."""
        cdef Py_ssize_t w, p, k
        return [[tuple((self.node_len[k], self.node_sid[k]) for k in range(self.node_at[p], self.node_at[p + 1]))
                 for p in range(self.pos_at[w], self.pos_at[w + 1])] for w in range(self.n_words)]

    def __dealloc__(self):
        free(self.pos_at)
        free(self.node_at)
        free(self.node_len)
        free(self.node_sid)
        free(self.counts)


cdef class _Scores:
    """The score list (a float per sid, None when the piece is gone) as C arrays."""
    cdef double* score
    cdef char* alive
    cdef Py_ssize_t n

    def __cinit__(self, list score, Py_ssize_t n_sids):
        cdef Py_ssize_t i
        cdef object s
        if len(score) != n_sids:
            raise ValueError("the score list does not match the lattices")
        self.n = n_sids
        self.score = <double*>_grown(NULL, n_sids * sizeof(double))
        self.alive = <char*>_grown(NULL, n_sids * sizeof(char))
        for i in range(n_sids):
            s = score[i]
            if s is None:
                self.alive[i] = 0
                self.score[i] = 0.0
            else:
                self.alive[i] = 1
                self.score[i] = s
        self.alive[0] = 0        # sid 0 (the training <UNK>) only ever enters as the unknown node

    def __dealloc__(self):
        free(self.score)
        free(self.alive)


cdef class _Scratch:
    """Per-word buffers: values per position and the word's live nodes (begin order, shorter
    first, the unknown character last), each with its end, sid and score."""
    cdef double* a          # alpha, or best
    cdef double* b          # beta
    cdef char* has
    cdef Py_ssize_t* live_at    # position -> first live node
    cdef Py_ssize_t* head       # Viterbi: end -> first node ending there (-1 none)
    cdef Py_ssize_t* tail
    cdef Py_ssize_t pos_cap
    cdef int* n_end
    cdef int* n_sid
    cdef int* n_begin
    cdef double* n_score
    cdef double* n_v
    cdef Py_ssize_t* n_next
    cdef Py_ssize_t node_cap
    cdef int* path              # Viterbi: the best path's sids, right to left

    def __cinit__(self):
        self.a = self.b = NULL
        self.has = NULL
        self.live_at = self.head = self.tail = NULL
        self.n_end = self.n_sid = self.n_begin = NULL
        self.n_score = self.n_v = NULL
        self.n_next = NULL
        self.path = NULL
        self.pos_cap = self.node_cap = 0

    cdef int positions(self, Py_ssize_t n) except -1:
        if n + 1 <= self.pos_cap:
            return 0
        cdef Py_ssize_t cap = max(n + 1, 2 * self.pos_cap, 64)
        self.a = <double*>_grown(self.a, cap * sizeof(double))
        self.b = <double*>_grown(self.b, cap * sizeof(double))
        self.has = <char*>_grown(self.has, cap * sizeof(char))
        self.live_at = <Py_ssize_t*>_grown(self.live_at, cap * sizeof(Py_ssize_t))
        self.head = <Py_ssize_t*>_grown(self.head, cap * sizeof(Py_ssize_t))
        self.tail = <Py_ssize_t*>_grown(self.tail, cap * sizeof(Py_ssize_t))
        self.path = <int*>_grown(self.path, cap * sizeof(int))
        self.pos_cap = cap
        return 0

    cdef int nodes(self, Py_ssize_t n) except -1:
        if n <= self.node_cap:
            return 0
        cdef Py_ssize_t cap = max(n, 2 * self.node_cap, 256)
        self.n_end = <int*>_grown(self.n_end, cap * sizeof(int))
        self.n_sid = <int*>_grown(self.n_sid, cap * sizeof(int))
        self.n_begin = <int*>_grown(self.n_begin, cap * sizeof(int))
        self.n_score = <double*>_grown(self.n_score, cap * sizeof(double))
        self.n_v = <double*>_grown(self.n_v, cap * sizeof(double))
        self.n_next = <Py_ssize_t*>_grown(self.n_next, cap * sizeof(Py_ssize_t))
        self.node_cap = cap
        return 0

    def __dealloc__(self):
        free(self.a)
        free(self.b)
        free(self.has)
        free(self.live_at)
        free(self.head)
        free(self.tail)
        free(self.n_end)
        free(self.n_sid)
        free(self.n_begin)
        free(self.n_score)
        free(self.n_v)
        free(self.n_next)
        free(self.path)


cdef inline double _lse(double cur, double v) nogil:
    """core/unigram.py's inline log_sum_exp of an accumulated value and a new term, as written
    there (`cur` first)."""
    if cur > v:
        return cur if cur > v + 50.0 else cur + log(exp(v - cur) + 1.0)
    return v if v > cur + 50.0 else v + log(exp(cur - v) + 1.0)


cdef class _Sums:
    """A float per sid, 0.0 at first, and the sids touched since the last reset, in order."""
    cdef double* value
    cdef char* touched
    cdef int* order
    cdef Py_ssize_t n, n_touched

    def __cinit__(self, Py_ssize_t n):
        cdef Py_ssize_t i
        self.value = <double*>_grown(NULL, n * sizeof(double))
        self.touched = <char*>_grown(NULL, n * sizeof(char))
        self.order = <int*>_grown(NULL, n * sizeof(int))
        self.n = n
        self.n_touched = 0
        for i in range(n):
            self.value[i] = 0.0
            self.touched[i] = 0

    cdef inline void add(self, int sid, double x) nogil:
        if not self.touched[sid]:
            self.touched[sid] = 1
            self.order[self.n_touched] = sid
            self.n_touched += 1
        self.value[sid] += x

    cdef dict pop(self):
        """{sid: value} of the touched sids, and back to 0.0."""
        cdef dict d = {}
        cdef Py_ssize_t j
        cdef int sid
        for j in range(self.n_touched):
            sid = self.order[j]
            d[sid] = self.value[sid]
            self.value[sid] = 0.0
            self.touched[sid] = 0
        self.n_touched = 0
        return d

    cdef void pop_into(self, double* total) nogil:
        """total[sid] += value for each touched sid (in any order: one addition per sid), and back
        to 0.0: as em_step adds a block's dict into its list."""
        cdef Py_ssize_t j
        cdef int sid
        for j in range(self.n_touched):
            sid = self.order[j]
            total[sid] += self.value[sid]
            self.value[sid] = 0.0
            self.touched[sid] = 0
        self.n_touched = 0

    def __dealloc__(self):
        free(self.value)
        free(self.touched)
        free(self.order)


cdef double _word_expectations(Lattices lat, Py_ssize_t w, _Scores sc, double unk_score,
                               _Scratch t, _Sums expected) except? -1.0:
    """See core/unigram.py, _word_expectations: returns count × log Z and adds the word's expected
    counts into `expected`."""
    cdef Py_ssize_t p0 = lat.pos_at[w], n = lat.pos_at[w + 1] - p0
    cdef Py_ssize_t b, k, k_end, e, m = 0, j
    cdef int sid, length
    cdef bint single
    cdef double ab, s, v, cur, acc, z, count = lat.counts[w]
    cdef double* alpha
    cdef double* beta
    t.positions(n)
    t.nodes(lat.node_at[p0 + n] - lat.node_at[p0] + n)
    alpha, beta = t.a, t.b
    alpha[0] = 0.0
    for b in range(1, n + 1):
        alpha[b] = -INFINITY
    for b in range(n):
        ab = alpha[b]
        single = False
        t.live_at[b] = m
        k_end = lat.node_at[p0 + b + 1]
        for k in range(lat.node_at[p0 + b], k_end):
            sid = lat.node_sid[k]
            if not sc.alive[sid]:
                continue
            length = lat.node_len[k]
            s = sc.score[sid]
            e = b + length
            t.n_end[m] = <int>e
            t.n_sid[m] = sid
            t.n_score[m] = s
            m += 1
            if length == 1:
                single = True
            v = s + ab
            alpha[e] = _lse(alpha[e], v)
        if not single:
            t.n_end[m] = <int>(b + 1)
            t.n_sid[m] = 0
            t.n_score[m] = unk_score
            m += 1
            v = unk_score + ab
            alpha[b + 1] = _lse(alpha[b + 1], v)
    t.live_at[n] = m
    beta[n] = 0.0
    for b in range(n - 1, -1, -1):
        acc = -INFINITY
        for j in range(t.live_at[b], t.live_at[b + 1]):
            v = t.n_score[j] + beta[t.n_end[j]]
            acc = _lse(acc, v)
        beta[b] = acc
    z = alpha[n]
    for b in range(n):
        ab = alpha[b]
        for j in range(t.live_at[b], t.live_at[b + 1]):
            expected.add(t.n_sid[j], count * exp(ab + t.n_score[j] + beta[t.n_end[j]] - z))
    return count * z


def e_blocks(Lattices lat, blocks, list score, double unk_score, double total):
    """See core/unigram.py, _e_blocks: for each (start, end) block of words, ({sid: expected
    count summed over its words in order}, Σ −count·log Z / total over them in order)."""
    cdef _Scores sc = _Scores(score, lat.n_sids)
    cdef _Scratch t = _Scratch()
    cdef _Sums expected = _Sums(lat.n_sids)
    cdef list out = []
    cdef double loss
    cdef Py_ssize_t start, end
    for start, end in blocks:
        loss = _e_block(lat, start, end, sc, unk_score, total, t, expected)
        out.append((expected.pop(), loss))
    return out


def e_step(Lattices lat, blocks, list score, double unk_score, double total):
    """em_step's E step in this process: (the expected count of every sid, the loss), the same
    floats as em_step's sum of e_blocks's blocks (each sid's and the loss's block sums added to
    0.0 in the blocks' order), without a dict per block."""
    cdef _Scores sc = _Scores(score, lat.n_sids)
    cdef _Scratch t = _Scratch()
    cdef _Sums expected = _Sums(lat.n_sids)
    cdef double* acc = <double*>_grown(NULL, lat.n_sids * sizeof(double))
    cdef double loss = 0.0
    cdef Py_ssize_t i, start, end
    try:
        for i in range(lat.n_sids):
            acc[i] = 0.0
        for start, end in blocks:
            loss += _e_block(lat, start, end, sc, unk_score, total, t, expected)
            expected.pop_into(acc)
        return [acc[i] for i in range(lat.n_sids)], loss
    finally:
        free(acc)


cdef double _e_block(Lattices lat, Py_ssize_t start, Py_ssize_t end, _Scores sc, double unk_score, double total,
                     _Scratch t, _Sums expected) except? -1.0:
    """One block: its words' expected counts into `expected`; returns Σ −count·log Z / total."""
    cdef double loss = 0.0, z
    cdef Py_ssize_t w
    if not 0 <= start <= end <= lat.n_words:
        raise ValueError(f"block {start}..{end} outside the {lat.n_words} words")
    for w in range(start, end):
        z = _word_expectations(lat, w, sc, unk_score, t, expected)
        loss -= z / total
    return loss


cdef Py_ssize_t _word_viterbi(Lattices lat, Py_ssize_t w, _Scores sc, double unk_score, _Scratch t,
                              int drop_sid) except -2:
    """See core/unigram.py, _word_viterbi and _best_path (with their tie rule: going back from each
    position, the first node ending there, in the order they were put in, whose best score plus
    the score to its right equals the best). Leaves the best path's nodes in t.path, right to
    left, and returns how many. drop_sid > 0: without the node of that sid from 0 to the end
    (the pruning's second-best segmentation); returns -1 when no node is left at 0 then."""
    cdef Py_ssize_t p0 = lat.pos_at[w], n = lat.pos_at[w + 1] - p0
    cdef Py_ssize_t b, k, k_end, e, m = 0, j, pos, last, n_path = 0
    cdef int sid, length
    cdef bint single, any_at_0 = False
    cdef double pb, s, v, s_right, target
    cdef double* best
    t.positions(n)
    t.nodes(lat.node_at[p0 + n] - lat.node_at[p0] + n)
    best = t.a
    for b in range(n + 1):
        best[b] = 0.0
        t.has[b] = 0
        t.head[b] = -1
    for b in range(n):
        pb = best[b]
        single = False
        k_end = lat.node_at[p0 + b + 1]
        for k in range(lat.node_at[p0 + b], k_end + 1):
            if k < k_end:
                sid = lat.node_sid[k]
                if not sc.alive[sid]:
                    continue
                length = lat.node_len[k]
                s = sc.score[sid]
                if length == 1:
                    single = True
            elif not single:
                sid = 0
                length = 1
                s = unk_score
            else:
                break
            e = b + length
            if b == 0 and drop_sid > 0 and e == n and sid == drop_sid:
                continue
            if b == 0:
                any_at_0 = True
            v = pb + s
            if not t.has[e] or v > best[e]:
                best[e] = v
                t.has[e] = 1
            t.n_v[m] = v
            t.n_begin[m] = <int>b
            t.n_sid[m] = sid
            t.n_score[m] = s
            t.n_next[m] = -1
            if t.head[e] < 0:
                t.head[e] = m
            else:
                t.n_next[t.tail[e]] = m
            t.tail[e] = m
            m += 1
    if drop_sid > 0 and not any_at_0:
        return -1
    pos = n
    s_right = 0.0
    while pos > 0:
        target = best[pos] + s_right
        j = t.head[pos]
        last = j
        while j >= 0:
            last = j
            if t.n_v[j] + s_right == target:
                break
            j = t.n_next[j]
        j = last
        t.path[n_path] = t.n_sid[j]
        n_path += 1
        pos = t.n_begin[j]
        s_right = t.n_score[j]
    return n_path


def viterbi_blocks(Lattices lat, blocks, list score, double unk_score):
    """See core/unigram.py, _viterbi_blocks: for each block, {sid: Σ count over its words'
    best paths} (whole numbers: exact in any order)."""
    cdef _Scores sc = _Scores(score, lat.n_sids)
    cdef _Scratch t = _Scratch()
    cdef _Sums freq = _Sums(lat.n_sids)
    cdef list out = []
    cdef Py_ssize_t start, end
    for start, end in blocks:
        _viterbi_block(lat, start, end, sc, unk_score, t, freq)
        out.append(freq.pop())
    return out


def viterbi_freq(Lattices lat, blocks, list score, double unk_score):
    """prune's Viterbi counts in this process: Σ count per sid over every word's best path, as
    prune sums viterbi_blocks's blocks."""
    cdef _Scores sc = _Scores(score, lat.n_sids)
    cdef _Scratch t = _Scratch()
    cdef _Sums freq = _Sums(lat.n_sids)
    cdef double* acc = <double*>_grown(NULL, lat.n_sids * sizeof(double))
    cdef Py_ssize_t i, start, end
    try:
        for i in range(lat.n_sids):
            acc[i] = 0.0
        for start, end in blocks:
            _viterbi_block(lat, start, end, sc, unk_score, t, freq)
            freq.pop_into(acc)
        return [acc[i] for i in range(lat.n_sids)]
    finally:
        free(acc)


cdef int _viterbi_block(Lattices lat, Py_ssize_t start, Py_ssize_t end, _Scores sc, double unk_score,
                        _Scratch t, _Sums freq) except -1:
    cdef Py_ssize_t w, j, n_path
    cdef double count
    if not 0 <= start <= end <= lat.n_words:
        raise ValueError(f"block {start}..{end} outside the {lat.n_words} words")
    for w in range(start, end):
        count = lat.counts[w]
        n_path = _word_viterbi(lat, w, sc, unk_score, t, 0)
        for j in range(n_path):
            freq.add(t.path[j], count)
    return 0


# ---------------------------------------------------------------- seeds and lattices

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

from libc.string cimport memcmp


cdef inline unsigned long long _step(unsigned long long h, Py_UCS4 c) nogil:
    return (h ^ <unsigned long long>c) * 0x100000001B3ULL


cdef class Substrings:
    """core/unigram.py's _seed_pieces counting and _matches, on code points in C: every substring of
    2 to max_len characters of every word (none containing "\\0"), how many times it occurs
    (each word of the list once, however often it is counted) and whether one character always
    follows it ("\\0" at the end of a word); then, given the seed pieces, each word's matches
    against them as a Lattices."""
    cdef Py_UCS4* text          # the words one after the other
    cdef Py_ssize_t* word_at    # word w is text[word_at[w] : word_at[w + 1]]
    cdef Py_ssize_t n_words, max_len, n_sids
    cdef dict chars             # one-character piece -> sid (set_pieces)
    # entries: a substring's first place in text, its length, occurrences, follower (-1: several), sid
    cdef Py_ssize_t* e_off
    cdef int* e_len
    cdef long long* e_count
    cdef long long* e_follow
    cdef int* e_sid
    cdef Py_ssize_t n_entries, cap
    cdef Py_ssize_t* slots      # entry index + 1, 0: empty
    cdef Py_ssize_t mask
    cdef unsigned long long* e_hash

    def __cinit__(self, list words, Py_ssize_t max_len):
        cdef Py_ssize_t total = 0, w, i, n, b, e, top, off, slot
        cdef str word
        cdef Py_UCS4 c
        cdef unsigned long long h
        cdef long long nxt
        cdef Py_UCS4* t
        self.text = NULL
        self.word_at = NULL
        self.e_off = NULL
        self.e_len = NULL
        self.e_count = NULL
        self.e_follow = NULL
        self.e_sid = NULL
        self.e_hash = NULL
        self.slots = NULL
        self.n_words = len(words)
        self.max_len = max_len
        self.n_sids = 0
        self.chars = None
        for word in words:
            total += len(word)
        self.text = <Py_UCS4*>_grown(NULL, (total + 1) * sizeof(Py_UCS4))
        self.word_at = <Py_ssize_t*>_grown(NULL, (self.n_words + 1) * sizeof(Py_ssize_t))
        i = 0
        for w in range(self.n_words):
            self.word_at[w] = i
            for c in <str>words[w]:
                self.text[i] = c
                i += 1
        self.word_at[self.n_words] = i
        self.cap = 0
        self.n_entries = 0
        self._grow_entries(max(1024, total))
        self._rehash(4096)
        t = self.text
        for w in range(self.n_words):
            off = self.word_at[w]
            n = self.word_at[w + 1] - off
            for b in range(n - 1):
                if t[off + b] == 0:
                    continue            # every substring from here contains "\0"
                h = _step(0xCBF29CE484222325ULL, t[off + b])
                top = min(n, b + max_len)
                for e in range(b + 2, top + 1):
                    c = t[off + e - 1]
                    if c == 0:
                        break
                    h = _step(h, c)
                    nxt = t[off + e] if e < n else 0
                    slot = self._find(h, off + b, e - b)
                    i = self.slots[slot] - 1
                    if i < 0:
                        i = self._add(slot, h, off + b, e - b)
                        self.e_count[i] = 1
                        self.e_follow[i] = nxt
                    else:
                        self.e_count[i] += 1
                        if self.e_follow[i] != nxt:
                            self.e_follow[i] = -1

    def __dealloc__(self):
        free(self.text)
        free(self.word_at)
        free(self.e_off)
        free(self.e_len)
        free(self.e_count)
        free(self.e_follow)
        free(self.e_sid)
        free(self.e_hash)
        free(self.slots)

    cdef int _grow_entries(self, Py_ssize_t cap) except -1:
        self.e_off = <Py_ssize_t*>_grown(self.e_off, cap * sizeof(Py_ssize_t))
        self.e_len = <int*>_grown(self.e_len, cap * sizeof(int))
        self.e_count = <long long*>_grown(self.e_count, cap * sizeof(long long))
        self.e_follow = <long long*>_grown(self.e_follow, cap * sizeof(long long))
        self.e_sid = <int*>_grown(self.e_sid, cap * sizeof(int))
        self.e_hash = <unsigned long long*>_grown(self.e_hash, cap * sizeof(unsigned long long))
        self.cap = cap
        return 0

    cdef int _rehash(self, Py_ssize_t size) except -1:
        cdef Py_ssize_t i, s
        free(self.slots)
        self.slots = NULL
        self.slots = <Py_ssize_t*>_grown(NULL, size * sizeof(Py_ssize_t))
        for i in range(size):
            self.slots[i] = 0
        self.mask = size - 1
        for i in range(self.n_entries):
            s = <Py_ssize_t>(self.e_hash[i] & <unsigned long long>self.mask)
            while self.slots[s]:
                s = (s + 1) & self.mask
            self.slots[s] = i + 1
        return 0

    cdef inline Py_ssize_t _find(self, unsigned long long h, Py_ssize_t off, Py_ssize_t length) nogil:
        """The slot of the entry spelled text[off : off + length], or the empty slot it would take."""
        cdef Py_ssize_t s = <Py_ssize_t>(h & <unsigned long long>self.mask), i
        while True:
            i = self.slots[s]
            if i == 0:
                return s
            i -= 1
            if self.e_hash[i] == h and self.e_len[i] == length and \
                    memcmp(self.text + self.e_off[i], self.text + off, length * sizeof(Py_UCS4)) == 0:
                return s
            s = (s + 1) & self.mask

    cdef Py_ssize_t _add(self, Py_ssize_t slot, unsigned long long h, Py_ssize_t off, Py_ssize_t length) except -1:
        cdef Py_ssize_t i = self.n_entries
        if i == self.cap:
            self._grow_entries(2 * self.cap)
        self.e_off[i] = off
        self.e_len[i] = <int>length
        self.e_hash[i] = h
        self.e_sid[i] = 0
        self.slots[slot] = i + 1
        self.n_entries += 1
        if 2 * self.n_entries > self.mask:
            self._rehash(2 * (self.mask + 1))
        return i

    def maximal(self):
        """[(occurrences × length, substring)] for each substring that occurs at least twice and
        is not always followed by the same character (_seed_pieces's `subs`, in no order)."""
        cdef list out = []
        cdef Py_ssize_t i
        for i in range(self.n_entries):
            if self.e_count[i] >= 2 and self.e_follow[i] < 0:
                out.append((self.e_count[i] * self.e_len[i],
                            PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self.text + self.e_off[i], self.e_len[i])))
        return out

    cdef inline Py_ssize_t _entry(self, unsigned long long h, const Py_UCS4* sub, Py_ssize_t length) nogil:
        """The entry spelled sub[:length] (any buffer), or -1."""
        cdef Py_ssize_t s = <Py_ssize_t>(h & <unsigned long long>self.mask), i
        while True:
            i = self.slots[s]
            if i == 0:
                return -1
            i -= 1
            if self.e_hash[i] == h and self.e_len[i] == length and \
                    memcmp(self.text + self.e_off[i], sub, length * sizeof(Py_UCS4)) == 0:
                return i
            s = (s + 1) & self.mask

    def set_pieces(self, list texts):
        """Name the pieces texts[1:] by their sid (the index): the character ones in a dict, the
        longer ones on their entries (each must be a substring counted here)."""
        cdef Py_ssize_t sid, i, k
        cdef str piece
        cdef Py_UCS4 c
        cdef unsigned long long h
        cdef Py_UCS4* buf = <Py_UCS4*>_grown(NULL, (self.max_len + 1) * sizeof(Py_UCS4))
        self.chars = {}
        self.n_sids = len(texts)
        try:
            for sid in range(1, self.n_sids):
                piece = texts[sid]
                if len(piece) == 1:
                    self.chars[piece] = sid
                    continue
                if not 2 <= len(piece) <= self.max_len:
                    raise ValueError(f"piece {piece!r} is not a counted substring")
                h = 0xCBF29CE484222325ULL
                i = 0
                for c in piece:
                    h = _step(h, c)
                    buf[i] = c
                    i += 1
                k = self._entry(h, buf, i)
                if k < 0:
                    raise ValueError(f"piece {piece!r} is not a counted substring")
                self.e_sid[k] = <int>sid
        finally:
            free(buf)

    def lattices(self, list counts, list strings=None):
        """Each word's matches (or each of `strings`': the pieces themselves, for the pruning's
        second-best segmentations) against the pieces set_pieces named, as core/unigram.py's
        _matches gives them (per start, shorter first), as a Lattices; counts: the words'
        (None: 1 each)."""
        cdef Py_ssize_t n_str = self.n_words if strings is None else len(strings)
        cdef Py_ssize_t w, n, b, e, top, i, k = 0, n_pos = 0, node_cap, off = 0
        cdef Py_UCS4 c
        cdef unsigned long long h
        cdef Lattices lat = Lattices.__new__(Lattices, [], [], self.n_sids)
        cdef Py_UCS4* t
        cdef Py_UCS4* buf = NULL
        cdef Py_ssize_t buf_cap = 0
        cdef str text
        cdef object char_sid
        cdef dict chars = self.chars
        if chars is None:
            raise ValueError("set_pieces first")
        if strings is None:
            n_pos = self.word_at[self.n_words]
        else:
            for text in strings:
                n_pos += len(text)
        lat.n_words = n_str
        lat.pos_at = <Py_ssize_t*>_grown(lat.pos_at, (n_str + 1) * sizeof(Py_ssize_t))
        lat.node_at = <Py_ssize_t*>_grown(lat.node_at, (n_pos + 1) * sizeof(Py_ssize_t))
        lat.counts = <double*>_grown(lat.counts, (n_str + 1) * sizeof(double))
        node_cap = max(2 * n_pos, 1024)
        lat.node_len = <int*>_grown(lat.node_len, node_cap * sizeof(int))
        lat.node_sid = <int*>_grown(lat.node_sid, node_cap * sizeof(int))
        try:
            for w in range(n_str):
                if strings is None:
                    t = self.text + self.word_at[w]
                    n = self.word_at[w + 1] - self.word_at[w]
                else:
                    text = strings[w]
                    n = len(text)
                    if n > buf_cap:
                        buf_cap = max(n, 2 * buf_cap, 64)
                        buf = <Py_UCS4*>_grown(buf, buf_cap * sizeof(Py_UCS4))
                    i = 0
                    for c in text:
                        buf[i] = c
                        i += 1
                    t = buf
                lat.pos_at[w] = off
                lat.counts[w] = 1.0 if counts is None else float(counts[w])
                if n > lat.longest:
                    lat.longest = n
                for b in range(n):
                    lat.node_at[off + b] = k
                    if k + self.max_len + 1 > node_cap:
                        node_cap = 2 * node_cap + self.max_len + 1
                        lat.node_len = <int*>_grown(lat.node_len, node_cap * sizeof(int))
                        lat.node_sid = <int*>_grown(lat.node_sid, node_cap * sizeof(int))
                    char_sid = chars.get(chr(t[b]))
                    if char_sid is not None:
                        lat.node_len[k] = 1
                        lat.node_sid[k] = char_sid
                        k += 1
                    if t[b] == 0:
                        continue            # no piece has "\0"
                    h = _step(0xCBF29CE484222325ULL, t[b])
                    top = min(n, b + self.max_len)
                    for e in range(b + 2, top + 1):
                        c = t[e - 1]
                        if c == 0:
                            break
                        h = _step(h, c)
                        i = self._entry(h, t + b, e - b)
                        if i >= 0 and self.e_sid[i]:
                            lat.node_len[k] = <int>(e - b)
                            lat.node_sid[k] = self.e_sid[i]
                            k += 1
                off += n
            lat.pos_at[n_str] = off
            lat.node_at[off] = k
        finally:
            free(buf)
        return lat


def second_best_parts(Lattices pieces, parts, list score, double unk_score):
    """See core/unigram.py, _second_best_part: `pieces` holds each piece's own lattice (piece sid
    at index sid - 1, Substrings.lattices(None, texts[1:])); for each part (a list of sids),
    ({sid: whether the piece is kept whatever happens}, {sid: the sids of its second-best
    segmentation, left to right} for those that are their own best one)."""
    cdef _Scores sc = _Scores(score, pieces.n_sids)
    cdef _Scratch t = _Scratch()
    cdef list out = [], part, alt
    cdef dict keep, alts
    cdef Py_ssize_t n_path, j
    cdef int sid
    if pieces.n_words != pieces.n_sids - 1:
        raise ValueError("the lattices are not the pieces'")
    for part in parts:
        keep = {}
        alts = {}
        for sid in part:
            if not 0 < sid < pieces.n_sids:
                raise ValueError(f"sid {sid} outside the pieces")
            n_path = _word_viterbi(pieces, sid - 1, sc, unk_score, t, 0)
            if n_path >= 2:
                keep[sid] = False
                continue
            keep[sid] = True
            n_path = _word_viterbi(pieces, sid - 1, sc, unk_score, t, sid)
            if n_path >= 0:
                alt = []
                for j in range(n_path - 1, -1, -1):
                    alt.append(t.path[j])
                alts[sid] = alt
        out.append((keep, alts))
    return out
