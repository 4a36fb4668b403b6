# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The trainer's two corpus-wide loops, compiled: core/trainer.py's _Trainer._merge_words and
_Trainer._count_pairs, step for step (same arguments, same results, same updates in place).
The Python methods are the reference; tests/core/test_fast_path.py checks that both give the
same trace for every model and tie rule. Built by core/fast/build.py (`make fast`); optional.

What is compiled: each word is read once into a C array of symbol ids, scanned for the pair in
C, and rebuilt from the old list's own int objects. Pair counts, word lists and the trace stay
the Python dicts and lists the rest of the trainer reads.
"""
from cpython.list cimport PyList_New, PyList_SET_ITEM, PyList_GET_ITEM, PyList_GET_SIZE
from cpython.ref cimport Py_INCREF, PyObject
from cpython.long cimport PyLong_AsLong
from libc.stdlib cimport malloc, realloc, free
from bisect import bisect_left


cdef class _Buffers:
    """Scratch arrays for one word: its symbol ids, and the rebuilt word as positions in the old
    one (-1: the merged token)."""
    cdef long* syms
    cdef Py_ssize_t* src
    cdef Py_ssize_t cap

    def __cinit__(self):
        self.cap = 0
        self.syms = NULL
        self.src = NULL

    cdef int grow(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t cap = max(n, 2 * self.cap, 64)
        cdef long* s = <long*>realloc(self.syms, cap * sizeof(long))
        if s == NULL:
            raise MemoryError()
        self.syms = s
        cdef Py_ssize_t* r = <Py_ssize_t*>realloc(self.src, cap * sizeof(Py_ssize_t))
        if r == NULL:
            raise MemoryError()
        self.src = r
        self.cap = cap
        return 0

    def __dealloc__(self):
        free(self.syms)
        free(self.src)


cdef inline object _at(list old, Py_ssize_t k, object ab):
    return <object>PyList_GET_ITEM(old, k) if k >= 0 else ab


def merge_words(list word_list, list words, list counts, object a_obj, object b_obj, object ab_obj,
                dict pair_words, dict first_key, list units, bint track_first, Py_ssize_t max_changed,
                changed_word):
    """See core/trainer.py, _Trainer._merge_words."""
    cdef long a = a_obj, b = b_obj
    cdef dict changes = {}
    cdef set recompute = set()
    cdef set earlier = set()
    cdef list changed = []
    cdef Py_ssize_t changed_total = 0
    merged_tokens = 0
    cdef _Buffers buf = _Buffers()
    cdef Py_ssize_t n, i, j, k, nn, occ, merged_until, wi, t
    cdef bint has_a
    cdef long* syms
    cdef Py_ssize_t* src
    cdef list old, new, created, created_at, lost, lst
    cdef object c, q, prev, nxt, cur, cand, o
    for wi_obj in word_list:
        wi = wi_obj
        old = <list>words[wi]
        n = PyList_GET_SIZE(old)
        if n > buf.cap:
            buf.grow(n)
        syms, src = buf.syms, buf.src
        has_a = False
        for k in range(n):
            syms[k] = PyLong_AsLong(<object>PyList_GET_ITEM(old, k))
            if syms[k] == a:
                has_a = True
        if not has_a:
            continue  # stale index entry
        c = counts[wi]
        created = []
        created_at = []
        lost = []   # used by rule first only, as created_at
        nn = 0
        i = 0
        occ = 0
        merged_until = -1
        while True:
            j = i
            while j < n and syms[j] != a:
                j += 1
            if j >= n:
                break
            if j + 1 >= n or syms[j + 1] != b:
                for k in range(i, j + 1):
                    src[nn] = k
                    nn += 1
                i = j + 1
                continue
            if j > i:
                for k in range(i, j):
                    src[nn] = k
                    nn += 1
            elif j == merged_until and j + 1 < n:
                created.pop()  # `a b a b`: the (ab, a) the last merge made is merged away
                if track_first:
                    created_at.pop()
            if nn:
                prev = _at(old, src[nn - 1], ab_obj)
                q = (prev, a_obj)
                changes[q] = changes.get(q, 0) - c
                if track_first:
                    lost.append(q)
                q = (prev, ab_obj)
                changes[q] = changes.get(q, 0) + c
                created.append(q)
                if track_first:
                    created_at.append(nn - 1)
            if j + 2 < n:
                nxt = <object>PyList_GET_ITEM(old, j + 2)
                q = (b_obj, nxt)
                changes[q] = changes.get(q, 0) - c
                if track_first:
                    lost.append(q)
                q = (ab_obj, nxt)
                changes[q] = changes.get(q, 0) + c
                created.append(q)
                if track_first:
                    created_at.append(nn)
            src[nn] = -1
            nn += 1
            i = merged_until = j + 2
            occ += 1
        if not occ:
            continue  # stale index entry
        for k in range(i, n):
            src[nn] = k
            nn += 1
        new = PyList_New(nn)
        for k in range(nn):
            o = _at(old, src[k], ab_obj)
            Py_INCREF(o)
            PyList_SET_ITEM(new, k, o)
        words[wi] = new
        changed_total += 1
        merged_tokens += occ * c
        if len(changed) < max_changed:
            changed.append(changed_word(tuple(old), tuple(new), c))
        for q in created:
            o = pair_words.get(q)
            if o is None:
                pair_words[q] = [wi_obj]
                continue
            lst = <list>o
            t = lst[PyList_GET_SIZE(lst) - 1]
            if t < wi:
                lst.append(wi_obj)
            elif t != wi:  # a reused token id: keep the list sorted
                k = bisect_left(lst, wi_obj)
                if k == len(lst) or lst[k] != wi_obj:
                    lst.insert(k, wi_obj)
        if track_first:
            for t in range(len(created)):
                q = created[t]
                cur = first_key.get(q)
                if cur is None or wi <= cur[0]:
                    k = created_at[t]
                    o = 0
                    for j in range(k):
                        o += units[<object>PyList_GET_ITEM(new, j)]
                    cand = (wi_obj, o)
                    if cur is None or cand < cur:
                        first_key[q] = cand
                        earlier.add(q)
            for q in lost:
                cur = first_key.get(q)
                if cur is not None and cur[0] == wi_obj:
                    recompute.add(q)
    return changes, recompute, earlier, changed, changed_total, merged_tokens


def count_initial_pairs(list words, list counts, list freq, dict pair_count, dict pair_words, dict first_key,
                        bint track_first):
    """See core/trainer.py, _Trainer._count_pairs."""
    cdef Py_ssize_t wi, off, n
    cdef list syms, lst
    cdef object c, p, m, s, x, y
    for wi in range(len(words)):
        syms = <list>words[wi]
        c = counts[wi]
        n = PyList_GET_SIZE(syms)
        for off in range(n):
            s = <object>PyList_GET_ITEM(syms, off)
            freq[s] += c
        for off in range(n - 1):
            p = (<object>PyList_GET_ITEM(syms, off), <object>PyList_GET_ITEM(syms, off + 1))
            m = pair_count.get(p)
            if m is None:
                pair_count[p] = c
                pair_words[p] = [wi]
                if track_first:
                    first_key[p] = (wi, off)
            else:
                pair_count[p] = m + c
                lst = <list>pair_words[p]
                if lst[PyList_GET_SIZE(lst) - 1] != wi:
                    lst.append(wi)
